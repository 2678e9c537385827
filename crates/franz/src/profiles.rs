//! The model profile of a command (`--profile`, `profile` in the config file, `FRANZ_PROFILE`):
//! chosen and applied by `franz_core::config::Settings::with_profile` (which also gives the
//! image size rule, `--size` checked against the family's resize rule), and said on stderr
//! with the reason.

use crate::exit::usage;
use crate::terminal::errln;
use franz_core::config::{Chosen, Effective, Settings};

/// What `--profile auto` learns from the server when no model is named (the `model` setting
/// at its default): the one model `GET /v1/models` lists, or the one LM Studio has loaded; empty
/// otherwise, or under a named profile. When the server lists exactly one model and the
/// default name is not it, the run asks for that model instead (said on stderr).
pub fn served(effective: &mut Effective, client: &franz_core::model::ModelClient) -> Vec<String> {
    let auto = effective.config.profile.trim();
    let named = franz_core::config::model_ids(effective, Vec::new())
        .configured
        .is_some();
    if named || !(auto.is_empty() || auto.eq_ignore_ascii_case("auto")) {
        return Vec::new();
    }
    let models = client.served_models();
    let Some(id) = models.the_one().map(str::to_string) else {
        tracing::debug!(?models, "auto: the server serves no one model");
        return Vec::new();
    };
    let default = effective.config.model.clone();
    if models.listed.len() == 1 && !models.listed.contains(&default) {
        errln!(
            "franz: model {id} (the only model the server lists; the default {default} is not \
             among them)"
        );
        effective.config.model = id.clone();
        if let Some(r) = effective.values.get_mut("model") {
            r.value = toml::Value::String(id.clone());
        }
    }
    vec![id]
}

/// The typed settings of `effective` under its profile (selected with `served`, applied), and
/// the profile; an unknown name, a bad file or a size the profile refuses is a usage error.
pub fn choose(effective: Effective, served: Vec<String>) -> anyhow::Result<(Settings, Chosen)> {
    let settings = Settings::with_profile(effective, served).map_err(|e| usage(e.to_string()))?;
    match settings.profile.clone() {
        Some(chosen) => Ok((settings, chosen)),
        None => Err(anyhow::anyhow!(
            "the settings were resolved without their profile"
        )),
    }
}

/// One stderr line: which profile, and why.
pub fn announce(c: &Chosen) {
    errln!(
        "franz: profile {} ({})",
        c.selection.profile.name,
        c.selection.reason
    );
}
