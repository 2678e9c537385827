//! Configuration resolution for every command: the flags a command was given, the
//! environment, the scenario and the config file, resolved by `franz_core::config`.

use crate::cli::{GlobalArgs, RunArgs};
use crate::exit::usage;
use franz_core::config::{Config, ConfigBuilder, Effective};
use franz_core::geometry::{ImageSize, SizeRule};
use franz_core::scenario::Scenario;

/// The effective configuration for these flags, and the scenario if one was given.
pub fn resolve(g: &GlobalArgs, a: &RunArgs) -> anyhow::Result<(Effective, Option<Scenario>)> {
    let scenario = match &a.scenario {
        Some(p) => Some(Scenario::load(p).map_err(|e| usage(e.to_string()))?),
        None => None,
    };
    let mut b = ConfigBuilder::new();
    if let Some(path) = &g.config {
        b = b.config_file(path).map_err(|e| usage(e.to_string()))?;
    }
    if let Some(s) = &scenario {
        b = b.scenario(&s.path, s.config.clone());
    }
    b = b.env(std::env::vars());
    let opt = [
        ("strategy", "--strategy", &a.strategy),
        ("api_url", "--api-url", &a.api_url),
        ("model", "--model", &a.model),
        ("temperature", "--temperature", &a.temperature),
        ("top_p", "--top-p", &a.top_p),
        ("max_tokens", "--max-tokens", &a.max_tokens),
        ("timeout", "--timeout", &a.timeout),
        ("max_steps", "--max-steps", &a.max_steps),
        ("max_time", "--max-time", &a.max_time),
        ("step_delay", "--step-delay", &a.step_delay),
        ("motion", "--motion", &a.motion),
        ("runs_dir", "--runs-dir", &a.runs_dir),
        ("log_layout", "--log-layout", &a.log_layout),
        ("coords", "--coords", &a.coords),
        ("dialect", "--dialect", &a.dialect),
    ];
    for (key, flag, value) in opt {
        if let Some(v) = value {
            b = b.flag(key, flag, v.clone());
        }
    }
    let switches = [
        ("stream", "--stream", a.stream, "true"),
        ("feedback", "--no-feedback", a.no_feedback, "false"),
        ("failsafe", "--no-failsafe", a.no_failsafe, "false"),
        ("dry_run", "--dry-run", g.dry_run, "true"),
        ("cursor", "--no-cursor", g.no_cursor, "false"),
    ];
    for (key, flag, on, value) in switches {
        if on {
            b = b.flag(key, flag, value);
        }
    }
    if let Some(c) = &g.crop {
        b = b.flag("crop", "--crop", c.to_string());
    }
    if let Some(s) = &g.size {
        b = b.flag("size", "--size", s.to_string());
    }
    if let Some(s) = g.scale {
        b = b.flag("scale", "--scale", s.to_string());
    }
    let effective = b.build().map_err(|e| usage(e.to_string()))?;
    Ok((effective, scenario))
}

/// The image size rule of a configuration.
pub fn size_rule(c: &Config) -> anyhow::Result<SizeRule> {
    if !c.size.is_empty() {
        let s: ImageSize = c
            .size
            .parse()
            .map_err(|e: franz_core::geometry::GeometryError| usage(e.to_string()))?;
        return Ok(SizeRule::Exact(s));
    }
    if c.scale > 0.0 {
        return Ok(SizeRule::Scale(c.scale));
    }
    Ok(SizeRule::MODEL_DEFAULT)
}
