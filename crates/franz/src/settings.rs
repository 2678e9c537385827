//! Configuration resolution for every command: the flags a command was given, the
//! environment, the scenario and the config file, resolved by `franz_core::config`.

use crate::cli::{GlobalArgs, RunArgs};
use crate::exit::usage;
use crate::flags::Given;
use franz_core::config::{ConfigBuilder, Effective, Settings};
use franz_core::scenario::Scenario;
use std::path::Path;

/// The effective configuration of the global flags and a command's own setting flags (flags >
/// environment > scenario > config file > defaults), and the scenario if one was given.
pub fn resolve(
    g: &GlobalArgs,
    given: &[Given],
    scenario: Option<&Path>,
) -> anyhow::Result<(Effective, Option<Scenario>)> {
    let scenario = match scenario {
        Some(p) => Some(Scenario::load(p).map_err(|e| usage(e.to_string()))?),
        None => None,
    };
    let mut b = ConfigBuilder::new();
    if let Some(path) = &g.config {
        b = b.config_file(path).map_err(|e| usage(e.to_string()))?;
    }
    if let Some(path) = &g.policy {
        b = b.policy_file(path).map_err(|e| usage(e.to_string()))?;
    }
    if let Some(s) = &scenario {
        b = b.scenario(&s.path, s.config.clone());
    }
    b = b.env(std::env::vars());
    let global = &g.settings;
    if let (Some(_), Some(_)) = (global.get("size"), global.get("scale")) {
        return Err(usage(
            "--size and --scale cannot be used together: give the exact image size or a scale",
        ));
    }
    for x in global.given.iter().chain(given) {
        b = b.flag(x.key, &x.flag, x.value.clone());
    }
    let effective = b.build().map_err(|e| usage(e.to_string()))?;
    Ok((effective, scenario))
}

/// `resolve` for `franz run` and `franz config`: every setting flag, and `--scenario`.
pub fn resolve_run(g: &GlobalArgs, a: &RunArgs) -> anyhow::Result<(Effective, Option<Scenario>)> {
    resolve(g, &a.settings.given, a.scenario.as_deref())
}

/// The typed settings of a resolved configuration without a model profile (the crop, the
/// image size given, the masks, the compiled policy); a bad value is a usage error.
pub fn typed(effective: Effective) -> anyhow::Result<Settings> {
    Settings::new(effective).map_err(|e| usage(e.to_string()))
}
