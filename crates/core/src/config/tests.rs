use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_are_the_designs() {
    let e = ConfigBuilder::new().build().unwrap();
    assert_eq!(e.config.api_url, "http://localhost:1234/v1");
    assert_eq!(e.config.model, "qwen3-vl-8b-instruct");
    assert_eq!(e.config.temperature, 0.6);
    assert_eq!(e.config.timeout, 240.0);
    assert_eq!(e.config.strategy, "narrative");
    assert_eq!(e.config.keep_last_screenshots, 2);
    assert_eq!(e.values["model"].source, Source::Default);
}

#[test]
fn precedence_flags_env_scenario_file_default() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("franz.toml");
    std::fs::write(
        &file,
        "model = \"from-file\"\nmax_steps = 7\ntemperature = 0.1\nstep_delay = 1\n",
    )
    .unwrap();
    let mut scenario = toml::Table::new();
    scenario.insert("max_steps".into(), toml::Value::Integer(9));
    scenario.insert("temperature".into(), toml::Value::Float(0.2));
    let e = ConfigBuilder::new()
        .config_file(&file)
        .unwrap()
        .scenario(Path::new("s.toml"), scenario)
        .env(env(&[
            ("FRANZ_TEMPERATURE", "0.3"),
            ("LMSTUDIO_MODEL", "from-env"),
        ]))
        .flag("model", "--model", "from-flag")
        .build()
        .unwrap();
    assert_eq!(e.config.model, "from-flag");
    assert_eq!(e.values["model"].source, Source::Flag("--model".into()));
    assert_eq!(e.config.temperature, 0.3);
    assert_eq!(
        e.values["temperature"].source,
        Source::Env("FRANZ_TEMPERATURE".into())
    );
    assert_eq!(e.config.max_steps, 9);
    assert_eq!(e.config.step_delay, 1.0);
    assert!(matches!(
        e.values["step_delay"].source,
        Source::ConfigFile(_)
    ));
}

#[test]
fn franz_env_beats_seed_env() {
    let e = ConfigBuilder::new()
        .env(env(&[
            ("FRANZ_MODEL", "a"),
            ("LMSTUDIO_MODEL", "b"),
            ("AGENT_IMAGE_W", "800"),
            ("AGENT_IMAGE_H", "600"),
        ]))
        .build()
        .unwrap();
    assert_eq!(e.config.model, "a");
    assert_eq!(e.config.size, "800x600");
}

#[test]
fn bad_values_name_key_source_and_value() {
    let err = ConfigBuilder::new()
        .env(env(&[("AGENT_MAX_STEPS", "ten")]))
        .build()
        .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("max_steps") && msg.contains("AGENT_MAX_STEPS") && msg.contains("ten"),
        "{msg}"
    );
    let err = ConfigBuilder::new()
        .flag("strategy", "--strategy", "telepathy")
        .build()
        .unwrap_err();
    assert!(
        err.to_string().contains("strategy") && err.to_string().contains("narrative, vision"),
        "{err}"
    );
    let err = ConfigBuilder::new()
        .flag("size", "--size", "0x0")
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("size"), "{err}");
    let err = ConfigBuilder::new()
        .env(env(&[("AGENT_IMAGE_W", "800")]))
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("AGENT_IMAGE_H"), "{err}");
}

#[test]
fn unknown_file_key_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("franz.toml");
    std::fs::write(&file, "modle = \"x\"\n").unwrap();
    let err = ConfigBuilder::new()
        .config_file(&file)
        .unwrap()
        .build()
        .unwrap_err();
    assert!(
        matches!(err, ConfigError::UnknownKey { ref key, .. } if key == "modle"),
        "{err}"
    );
}

#[test]
fn secrets_are_masked_everywhere() {
    let e = ConfigBuilder::new()
        .env(env(&[("OPENAI_API_KEY", "sk-secret-123")]))
        .build()
        .unwrap();
    assert_eq!(e.config.api_key, "sk-secret-123");
    assert!(!e.masked_toml().contains("sk-secret"));
    assert!(e.masked_toml().contains("***"));
    assert!(!e.explain().contains("sk-secret"));
    // the run directory's config.toml: every setting, the secret masked, no text round trip
    let table = e.masked_table();
    assert_eq!(table["api_key"].as_str(), Some("***"));
    assert_eq!(table["max_response_bytes"].as_integer(), Some(32 << 20));
    for s in super::SETTINGS {
        assert!(table.contains_key(s.key), "{} is missing", s.key);
    }
    let e = ConfigBuilder::new()
        .env(env(&[("FRANZ_API_KEY", "a"), ("OPENAI_API_KEY", "b")]))
        .build()
        .unwrap();
    assert_eq!(e.config.api_key, "a");
}

#[test]
fn limits_are_bounded_by_default_and_zero_means_unbounded() {
    let e = ConfigBuilder::new().build().unwrap();
    assert_eq!(e.config.max_steps, 100);
    assert_eq!(e.config.max_time, 1800.0);
    assert_eq!(e.values["max_steps"].source, Source::Default);
    assert_eq!(e.values["max_time"].source, Source::Default);
    let shown = e.explain();
    assert!(
        shown.contains("max_steps = 100  # default: ") && shown.contains("0 = unbounded"),
        "{shown}"
    );
    assert!(shown.contains("max_time = 1800.0  # default: "), "{shown}");
    let e = ConfigBuilder::new()
        .flag("max_steps", "--max-steps", "0")
        .flag("max_time", "--max-time", "0")
        .build()
        .unwrap();
    assert_eq!((e.config.max_steps, e.config.max_time), (0, 0.0));
}

#[test]
fn max_time_takes_seconds_or_a_unit() {
    let t = |v: &str| {
        ConfigBuilder::new()
            .env(env(&[("FRANZ_MAX_TIME", v)]))
            .build()
            .map(|e| e.config.max_time)
    };
    assert_eq!(t("90"), Ok(90.0));
    assert_eq!(t("90s"), Ok(90.0));
    assert_eq!(t("30m"), Ok(1800.0));
    assert_eq!(t("2h"), Ok(7200.0));
    assert_eq!(t("1.5M"), Ok(90.0));
    let err = t("soon").unwrap_err().to_string();
    assert!(err.contains("max_time") && err.contains("30m"), "{err}");
    assert!(t("-1").is_err());
    assert!(t("5d").is_err());
}

#[test]
fn enum_settings_are_parsed_once_and_bad_names_list_the_valid_ones() {
    let e = ConfigBuilder::new()
        .env(env(&[
            ("FRANZ_STRATEGY", "Tools"),
            ("FRANZ_DIALECT", "qwen"),
            ("FRANZ_COORDS", "pixels"),
            ("FRANZ_LOG_LAYOUT", "turn_dirs"),
            ("FRANZ_MOTION", "fast"),
        ]))
        .build()
        .unwrap();
    let c = &e.config;
    assert_eq!(c.strategy, crate::strategy::StrategyName::Tools);
    assert_eq!(c.dialect, Some(crate::parser::Dialect::Qwen));
    assert_eq!(c.coords, Coords::Pixels);
    assert_eq!(c.log_layout, crate::runlog::Layout::TurnDirs);
    assert_eq!(c.motion, crate::executor::MotionProfile::Fast);
    assert_eq!(ConfigBuilder::new().build().unwrap().config.dialect, None);
    // the masked table writes them as their names
    assert_eq!(e.masked_table()["log_layout"].as_str(), Some("turn_dirs"));
    for (key, bad, valid) in [
        ("coords", "inches", "norm, pixels, relative"),
        ("log_layout", "nested", "flat, turn_dirs"),
        ("motion", "slow", "human, fast"),
        (
            "dialect",
            "klingon",
            "auto, json, calls, tools, qwen, uitars, anthropic, openai, pyautogui, holo, venus, gemini, point",
        ),
        (
            "strategy",
            "telepathy",
            "narrative, vision, tools, commander",
        ),
    ] {
        let err = ConfigBuilder::new()
            .flag(key, "--x", bad)
            .build()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(key) && err.contains(bad) && err.contains(valid),
            "{err}"
        );
    }
}

/// One setting read from its flag, each of its environment names and its TOML key.
fn reads_from_its_flag_env_names_and_toml_key(s: &Setting, dir: &std::path::Path) {
    let value = match (s.kind, s.default) {
        (Kind::Bool, "true") => "false",
        (Kind::Bool, _) => "true",
        (_, "") if s.key == "size" => "640x480",
        (_, "") if s.key == "mask_regions" => "0,0,100,100",
        (_, "") if s.key == "grounder_api_url" => "http://localhost:8081/v1",
        (_, "") => "x",
        (_, d) => d,
    };
    // flag: the table's spelling, or none for a secret
    match s.flag() {
        Some(flag) => {
            assert!(!flag.long().contains('_'), "{}", flag.long());
            let e = ConfigBuilder::new()
                .flag(s.key, &format!("--{}", flag.long()), value)
                .build()
                .unwrap();
            assert!(
                matches!(e.values[s.key].source, Source::Flag(_)),
                "{}",
                s.key
            );
        }
        None => assert!(s.secret, "{} has no flag", s.key),
    }
    // every environment name, FRANZ_<KEY> first
    let names = s.env_names();
    assert_eq!(names[0], format!("FRANZ_{}", s.key.to_uppercase()));
    for name in &names {
        let e = ConfigBuilder::new()
            .env(env(&[(name, value)]))
            .build()
            .unwrap();
        assert_eq!(e.values[s.key].source, Source::Env(name.clone()), "{name}");
    }
    // its TOML key
    let file = dir.join(format!("{}.toml", s.key));
    let mut t = toml::Table::new();
    t.insert(s.key.into(), toml::Value::String(value.into()));
    std::fs::write(&file, toml::to_string(&t).unwrap()).unwrap();
    let e = ConfigBuilder::new()
        .config_file(&file)
        .unwrap()
        .build()
        .unwrap();
    assert!(
        matches!(e.values[s.key].source, Source::ConfigFile(_)),
        "{}",
        s.key
    );
}

#[test]
fn every_setting_reads_from_its_flag_env_names_and_toml_key() {
    let dir = tempfile::tempdir().unwrap();
    for s in SETTINGS {
        reads_from_its_flag_env_names_and_toml_key(s, dir.path());
    }
    let flag = |k: &str| Setting::find(k).and_then(Setting::flag);
    assert_eq!(
        flag("feedback"),
        Some(Flag::Switch {
            long: "no-feedback".into(),
            value: "false"
        })
    );
    assert_eq!(
        flag("stream"),
        Some(Flag::Switch {
            long: "stream".into(),
            value: "true"
        })
    );
    assert_eq!(
        flag("max_steps"),
        Some(Flag::Value {
            long: "max-steps".into()
        })
    );
    assert_eq!(flag("api_key"), None);
    // a percentage takes its sign
    let e = ConfigBuilder::new()
        .flag("scale", "--scale", "50%")
        .build()
        .unwrap();
    assert_eq!(e.config.scale, 50.0);
}

#[test]
fn the_overlay_table_reaches_the_overlay_config() {
    use crate::overlay::{Color, OverlayConfig};
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("franz.toml");
    std::fs::write(
        &file,
        "model = \"m\"\n[overlay]\nmarks.left = \"#ff00ff\"\nmarks.crosshair_size = 30\n[overlay.labels]\nenabled = false\n",
    )
    .unwrap();
    let e = ConfigBuilder::new()
        .config_file(&file)
        .unwrap()
        .build()
        .unwrap();
    let o = &e.config.overlay;
    assert_eq!(o.marks.left, Color::rgb(255, 0, 255));
    assert_eq!(o.marks.crosshair_size, 30.0);
    assert!(!o.labels.enabled);
    // the rest keeps its defaults
    let d = OverlayConfig::default();
    assert_eq!(o.marks.right, d.marks.right);
    assert_eq!(o.executed_heat, d.executed_heat);
    assert!(matches!(e.values["overlay"].source, Source::ConfigFile(_)));
    assert!(e.explain().contains("overlay = {"), "{}", e.explain());
    assert_eq!(
        e.masked_table()["overlay"]["marks"]["left"].as_str(),
        Some("rgba(255, 0, 255, 1)")
    );
    // a scenario's keys replace the file's, key by key
    let scenario: toml::Table = "[overlay.marks]\nright = \"#00ff00\"\n".parse().unwrap();
    let e = ConfigBuilder::new()
        .config_file(&file)
        .unwrap()
        .scenario(Path::new("s.toml"), scenario)
        .build()
        .unwrap();
    assert_eq!(e.config.overlay.marks.left, Color::rgb(255, 0, 255));
    assert_eq!(e.config.overlay.marks.right, Color::rgb(0, 255, 0));
    // without a table: the defaults
    assert_eq!(ConfigBuilder::new().build().unwrap().config.overlay, d);
    // a key it does not have, a bad colour, a value that is not a table
    for (text, words) in [
        (
            "[overlay]\nmarks.lefty = \"#ff00ff\"\n",
            &["overlay.marks.lefty", "docs/config.md"][..],
        ),
        (
            "[overlay]\nmarks.left = \"purple\"\n",
            &["overlay", "rgba(r, g, b, a)"][..],
        ),
        ("overlay = 3\n", &["overlay", "table"][..]),
    ] {
        std::fs::write(&file, text).unwrap();
        let err = ConfigBuilder::new()
            .config_file(&file)
            .unwrap()
            .build()
            .unwrap_err()
            .to_string();
        for w in words {
            assert!(err.contains(w), "{w:?} not in {err}");
        }
    }
}

/// Each part's settings struct has its own `Default` (so a part needs no configuration), and
/// the mapping (`parts.rs`) of the table's defaults gives exactly those defaults.
#[test]
fn each_parts_default_is_the_mapping_of_the_tables_defaults() {
    use crate::engine::RunOptions;
    use crate::executor::ExecConfig;
    use crate::loop_breaker::LoopBreaker;
    use crate::model::ClientConfig;
    use crate::strategy::ReadOptions;
    let c = Config::defaults();
    assert_eq!(c.exec(), ExecConfig::default());
    assert_eq!(c.loop_breaker(), LoopBreaker::default());
    assert_eq!(
        format!("{:?}", c.read_options(None)),
        format!("{:?}", ReadOptions::default())
    );
    let client = ClientConfig {
        api_key: None,
        ..ClientConfig::new(c.api_url.clone())
    };
    assert_eq!(format!("{:?}", c.client()), format!("{client:?}"));
    let s = super::Settings::new(ConfigBuilder::new().build().unwrap()).unwrap();
    assert_eq!(
        format!("{:?}", s.run_options(String::new())),
        format!("{:?}", RunOptions::default())
    );
}

#[test]
fn defaults_exist_once_in_the_table() {
    use crate::model::ClientConfig;
    use crate::strategy::{CommanderSettings, ReadOptions};
    let c = Config::defaults();
    assert_eq!(CommanderSettings::default(), c.commander());
    let client = ClientConfig::new("http://localhost:1/v1");
    assert_eq!(client.timeout.as_secs_f64(), c.timeout);
    assert_eq!(client.connect_timeout.as_secs_f64(), c.connect_timeout);
    assert_eq!(u64::from(client.retries), c.retries);
    assert_eq!(client.max_response_bytes, c.max_response_bytes);
    assert_eq!(client.api_url, "http://localhost:1/v1");
    let read = ReadOptions::default();
    assert_eq!(read.keep_last_screenshots as u64, c.keep_last_screenshots);
    assert_eq!(read.history_max_chars as u64, c.history_max_chars);
    for s in SETTINGS {
        assert!(
            s.parse_str(s.default, Source::Default).is_ok(),
            "{}'s default does not parse",
            s.key
        );
    }
}

/// `max_tokens`, given anywhere, bounds the commander's two requests too unless their own
/// settings are given; `franz config` says where each value came from.
#[test]
fn max_tokens_sets_the_commanders_limits_unless_they_are_given() {
    let built = |flags: &[(&str, &str)], env: &[(&str, &str)]| {
        let mut b =
            ConfigBuilder::new().env(env.iter().map(|(k, v)| (k.to_string(), v.to_string())));
        for (k, v) in flags {
            b = b.flag(k, &format!("--{}", k.replace('_', "-")), *v);
        }
        b.build().unwrap()
    };
    let e = built(&[("max_tokens", "256")], &[]);
    assert_eq!(
        (e.config.leader_max_tokens, e.config.operator_max_tokens),
        (256, 256)
    );
    let explained = e.explain();
    assert!(
        explained.contains("leader_max_tokens = 256  # max_tokens's value (flag --max-tokens)"),
        "{explained}"
    );
    assert!(
        explained.contains("operator_max_tokens = 256  # max_tokens's value (flag --max-tokens)"),
        "{explained}"
    );
    // given explicitly, each keeps its own value; the other still follows
    let e = built(
        &[("max_tokens", "256")],
        &[("FRANZ_LEADER_MAX_TOKENS", "900")],
    );
    assert_eq!(
        (e.config.leader_max_tokens, e.config.operator_max_tokens),
        (900, 256)
    );
    let e = built(&[("max_tokens", "256"), ("operator_max_tokens", "64")], &[]);
    assert_eq!(
        (e.config.leader_max_tokens, e.config.operator_max_tokens),
        (256, 64)
    );
    // from the environment too; without max_tokens given, the table's defaults stay
    let e = built(&[], &[("FRANZ_MAX_TOKENS", "300")]);
    assert_eq!(e.config.operator_max_tokens, 300);
    assert!(
        e.explain()
            .contains("max_tokens's value (environment FRANZ_MAX_TOKENS)")
    );
    let d = Config::defaults();
    let e = built(&[], &[]);
    assert_eq!(
        (e.config.leader_max_tokens, e.config.operator_max_tokens),
        (d.leader_max_tokens, d.operator_max_tokens)
    );
    assert_eq!(
        built(&[("max_tokens", "77")], &[])
            .config
            .commander()
            .leader_max_tokens,
        77
    );
}

#[test]
fn secrets_are_names_from_a_list_in_a_file_or_a_comma_list() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.toml");
    std::fs::write(&file, "secrets = [\"MAIL_PW\", \"_PIN2\"]\n").unwrap();
    let e = ConfigBuilder::new()
        .config_file(&file)
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(e.config.secrets, ["MAIL_PW", "_PIN2"]);
    let e = ConfigBuilder::new()
        .env(env(&[("FRANZ_SECRETS", "A, B,")]))
        .build()
        .unwrap();
    assert_eq!(e.config.secrets, ["A", "B"]);
    assert!(
        ConfigBuilder::new()
            .build()
            .unwrap()
            .config
            .secrets
            .is_empty()
    );
    for bad in ["1PW", "MY-PW", "A B"] {
        let err = ConfigBuilder::new()
            .flag("secrets", "--secrets", bad)
            .build()
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an environment variable name"), "{err}");
    }
    std::fs::write(&file, "secrets = [\"A\", 3]\n").unwrap();
    let err = ConfigBuilder::new().config_file(&file).unwrap().build();
    assert!(err.is_err());
}
