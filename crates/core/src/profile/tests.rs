//! The built-in profiles read, and auto-selection by model id.

use super::*;
use crate::config::apply_profile as apply;

#[test]
fn builtin_profiles_read() {
    for (name, text) in BUILTIN {
        let p = Profile::from_toml(text, name).unwrap();
        assert_eq!(&p.name, name);
    }
    assert_eq!(builtin().len(), BUILTIN.len());
    let ui = by_name("UI-TARS-1.5").unwrap();
    assert_eq!(ui.keep_last_screenshots, Some(5));
    assert_eq!(ui.dialect().unwrap(), Some(Dialect::Uitars));
    assert_eq!(ui.smart_resize().unwrap().factor, 28);
    assert_eq!(
        by_name("qwen3-vl").unwrap().smart_resize().unwrap().factor,
        32
    );
}

#[test]
fn auto_picks_by_model_id_tolerating_suffixes() {
    for (id, want) in [
        ("Qwen3-VL-8B-Instruct-GGUF", "qwen3-vl"),
        ("qwen2.5-vl-7b-instruct@q4_k_m", "qwen2.5-vl"),
        ("Qwen/Qwen2.5-VL-72B-Instruct-AWQ", "qwen2.5-vl"),
        ("ui-tars-1.5-7b", "ui-tars-1.5"),
        ("ByteDance-Seed/UI-TARS-1.5-7B", "ui-tars-1.5"),
        ("glm-4.5v", "glm-4.5v"),
        ("GLM-4.5V-FP8", "glm-4.5v"),
        ("osworld-pyautogui-agent", "pyautogui"),
        // the late-2026 families, as users type them and as LM Studio and Ollama list GGUFs
        ("qwen/qwen3-vl-8b", "qwen3-vl"),
        ("qwen3-vl:8b", "qwen3-vl"),
        ("qwen2.5vl:7b", "qwen2.5-vl"),
        ("bytedance/ui-tars-1.5-7b", "ui-tars-1.5"),
        ("mobile-agent-v3.5", "gui-owl-1.5"),
        ("mPLUG/GUI-Owl-1.5-8B-Instruct", "gui-owl-1.5"),
        ("gui-owl-1.5-8b-think@q4_k_m", "gui-owl-1.5"),
        ("meituan/EvoCUA-32B-20260105", "evocua"),
        ("evocua:8b", "evocua"),
        ("Tongyi-MAI/MAI-UI-8B", "mai-ui"),
        ("mai-ui-2b-gguf", "mai-ui"),
        ("glm-4.6v-flash", "glm-4.6v"),
        ("zai-org/GLM-4.6V-FP8", "glm-4.6v"),
        ("glm-4.1v-9b-thinking", "glm-4.5v"),
        ("microsoft/Fara-7B", "fara-7b"),
        ("fara:7b", "fara-7b"),
        ("xlangai/OpenCUA-32B", "opencua"),
        ("opencua-7b@q8_0", "opencua"),
        ("xlangai/OpenCUA-A3B", "opencua-relative"),
        ("xlangai/OpenCUA-Qwen2-7B", "opencua-relative"),
        ("Hcompany/Holo3-35B-A3B", "holo3"),
        ("hf.co/Hcompany/Holo3-35B-A3B-GGUF:Q4_K_M", "holo3"),
        ("holo3.1-35b-a3b@q4_k_m", "holo3"),
        ("Hcompany/Holo1.5-7B", "holo1.5"),
        ("holo1.5-3b-gguf", "holo1.5"),
        ("inclusionAI/UI-Venus-1.5-8B", "ui-venus-1.5"),
        ("ui-venus-1.5-30b-a3b@q4_k_m", "ui-venus-1.5"),
        ("HelloKKMe/GTA1-7B-2507", "gta1"),
        ("Salesforce/GTA1.5-7B", "gta1"),
        ("gta1-7b-gguf:q8_0", "gta1"),
        ("osunlp/UGround-V1-7B", "uground"),
        ("uground-v1-2b@q4_k_m", "uground"),
        ("OS-Copilot/OS-Atlas-Base-7B", "os-atlas"),
        ("os-atlas-base-4b-gguf", "os-atlas"),
        ("showlab/ShowUI-2B", "showui"),
        ("showui-2b:q4_k_m", "showui"),
        ("gemini-2.5-computer-use-preview-10-2025", "gemini-computer"),
        ("computer-use-preview-2025-03-11", "openai-computer"),
        // the first UI-Venus answers in pixels: not UI-Venus-1.5's profile
        ("inclusionAI/UI-Venus-Ground-7B", "franz"),
        ("llava-1.6", "franz"),
        ("scripted-model", "franz"),
    ] {
        let ids = ModelIds {
            configured: Some(id.into()),
            served: Vec::new(),
        };
        let s = select("auto", &ids).unwrap();
        assert_eq!(s.profile.name, want, "{id}: {}", s.reason);
        assert!(s.reason.contains(id), "{}", s.reason);
    }
    // the configured model first, then what the server reports
    let ids = ModelIds {
        configured: None,
        served: vec!["text-embedding".into(), "ui-tars-1.5-7b".into()],
    };
    let s = select("auto", &ids).unwrap();
    assert_eq!(s.profile.name, "ui-tars-1.5");
    assert!(s.reason.contains("server reports"), "{}", s.reason);
    let s = select("", &ModelIds::default()).unwrap();
    assert_eq!(s.profile.name, "franz");
    assert!(s.reason.contains("no model id"), "{}", s.reason);
}

#[test]
fn names_files_and_errors() {
    assert_eq!(
        select("Qwen3-VL", &ModelIds::default())
            .unwrap()
            .profile
            .name,
        "qwen3-vl"
    );
    let e = select("qwen4", &ModelIds::default())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown profile \"qwen4\"") && e.contains("ui-tars-1.5"),
        "{e}"
    );
    let dir = std::env::temp_dir().join(format!("franz-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("mine.toml");
    std::fs::write(
        &f,
        "name = \"mine\"\ncoords = \"relative\"\ndialect = \"calls\"\n[image]\nrule = \"fit\"\nwidth = 800\nheight = 600\n",
    )
    .unwrap();
    let s = select(f.to_str().unwrap(), &ModelIds::default()).unwrap();
    assert_eq!(s.profile.coords, Coords::Relative);
    std::fs::write(&f, "name = \"mine\"\ncoords = \"inches\"\n").unwrap();
    let e = select(f.to_str().unwrap(), &ModelIds::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad profile") && e.contains("coords"), "{e}");
    std::fs::write(&f, "name = \"x\"\ncoords = \"pixels\"\ndialect = \"klingon\"\n[image]\nrule = \"fit\"\nwidth = 1\nheight = 1\n").unwrap();
    let e = select(f.to_str().unwrap(), &ModelIds::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown dialect"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_size_the_family_would_resize_is_refused_with_the_nearest() {
    let q = by_name("qwen2.5-vl").unwrap();
    assert!(q.check_size(ImageSize::new(1372, 756)).is_ok());
    let e = q.check_size(ImageSize::new(1366, 768)).unwrap_err();
    assert!(e.contains("--size 1372x756"), "{e}");
    assert!(
        by_name("franz")
            .unwrap()
            .check_size(ImageSize::new(1366, 768))
            .is_ok()
    );
}

#[test]
fn apply_fills_defaults_and_explicit_settings_win() {
    use crate::config::ConfigBuilder;
    let ui = by_name("ui-tars-1.5").unwrap();
    let mut e = ConfigBuilder::new().build().unwrap();
    let a = apply(&ui, &mut e);
    assert_eq!(a.exact_space, Some(Space::Pixels));
    assert_eq!(e.config.dialect, Some(Dialect::Uitars));
    assert_eq!(e.config.keep_last_screenshots, 5);
    assert_eq!(e.config.temperature, 0.0);
    let mut e = ConfigBuilder::new()
        .flag("keep_last_screenshots", "--keep-last-screenshots", "3")
        .flag("dialect", "--dialect", "calls")
        .flag("coords", "--coords", "norm")
        .flag("temperature", "--temperature", "0.5")
        .build()
        .unwrap();
    let a = apply(&ui, &mut e);
    assert_eq!(a.exact_space, Some(Space::Norm1000));
    assert_eq!(e.config.dialect, Some(Dialect::Calls));
    assert_eq!(e.config.keep_last_screenshots, 3);
    assert_eq!(e.config.temperature, 0.5);
    // franz's own profile keeps today's rule, pixels included
    let franz = by_name("franz").unwrap();
    let mut e = ConfigBuilder::new()
        .flag("coords", "--coords", "pixels")
        .build()
        .unwrap();
    let a = apply(&franz, &mut e);
    assert_eq!((a.exact_space, a.pixel_coords), (None, true));
    assert_eq!(
        a.coord_mode(ImageSize::new(10, 10)),
        crate::parser::CoordMode::Pixels(ImageSize::new(10, 10))
    );
}

#[test]
fn every_file_in_builtin_is_embedded_and_franz_comes_first() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/profile/builtin");
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter_map(|n| n.strip_suffix(".toml").map(str::to_string))
        .collect();
    files.sort();
    let mut embedded: Vec<String> = BUILTIN.iter().map(|(n, _)| n.to_string()).collect();
    assert_eq!(embedded[0], "franz");
    embedded.sort();
    assert_eq!(embedded, files);
    assert!(files.len() >= 7, "{files:?}");
}

/// Two profiles claiming the same id would make `--profile auto` pick by file order: every
/// match pattern (compared as `for_model` compares it) belongs to one profile, and each
/// profile's own patterns pick that profile.
#[test]
fn no_model_id_is_claimed_by_two_profiles() {
    let mut owner: std::collections::HashMap<String, String> = Default::default();
    for p in builtin() {
        for m in &p.matches {
            let key = compact(m);
            assert!(!key.is_empty(), "{}: an empty match pattern", p.name);
            if let Some(other) = owner.insert(key.clone(), p.name.clone()) {
                assert_eq!(other, p.name, "{m:?} is claimed by {other} and {}", p.name);
            }
            let (picked, _) = for_model(m).unwrap();
            assert_eq!(picked.name, p.name, "{m:?} picks {} instead", picked.name);
        }
    }
}

#[test]
fn a_profile_states_its_normalized_maximum_and_a_run_reads_in_it() {
    use crate::config::ConfigBuilder;
    use crate::parser::CoordMode;
    let image = ImageSize::new(1920, 1056);
    for (name, max, mode) in [
        (
            "evocua",
            Some(999),
            CoordMode::Exact(ImageSize::new(999, 999)),
        ),
        (
            "mai-ui",
            Some(999),
            CoordMode::Exact(ImageSize::new(999, 999)),
        ),
        (
            "glm-4.6v",
            Some(999),
            CoordMode::Exact(ImageSize::new(999, 999)),
        ),
        (
            "qwen3-vl",
            Some(1000),
            CoordMode::Exact(ImageSize::new(1000, 1000)),
        ),
        (
            "gui-owl-1.5",
            Some(1000),
            CoordMode::Exact(ImageSize::new(1000, 1000)),
        ),
        ("fara-7b", None, CoordMode::Exact(image)),
        ("franz", None, CoordMode::Norm),
    ] {
        let p = by_name(name).unwrap();
        assert_eq!(p.space_max(), max, "{name}");
        let mut e = ConfigBuilder::new().build().unwrap();
        assert_eq!(apply(&p, &mut e).coord_mode(image), mode, "{name}");
    }
    // an explicit --coords norm means 0..1000 even under a 0..999 profile
    let mut e = ConfigBuilder::new()
        .flag("coords", "--coords", "norm")
        .build()
        .unwrap();
    let a = apply(&by_name("evocua").unwrap(), &mut e);
    assert_eq!(
        a.coord_mode(image),
        CoordMode::Exact(ImageSize::new(1000, 1000))
    );
    // norm_max is 1000 or 999, and only for norm1000
    let file = |extra: &str, coords: &str| {
        format!(
            "name = \"x\"\ncoords = \"{coords}\"\n{extra}\n[image]\nrule = \"fit\"\nwidth = 8\nheight = 8\n"
        )
    };
    let p = Profile::from_toml(&file("norm_max = 999", "norm1000"), "x").unwrap();
    assert_eq!(p.space_max(), Some(999));
    let e = Profile::from_toml(&file("norm_max = 998", "norm1000"), "x").unwrap_err();
    assert!(e.to_string().contains("use 1000 or 999"), "{e}");
    let e = Profile::from_toml(&file("norm_max = 999", "pixels"), "x").unwrap_err();
    assert!(e.to_string().contains("norm1000"), "{e}");
    assert_eq!(
        Profile::from_toml(&file("", "relative"), "x")
            .unwrap()
            .space_max(),
        Some(1)
    );
}
