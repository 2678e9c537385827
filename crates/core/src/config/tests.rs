use super::*;

fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn defaults_are_the_seeds() {
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
