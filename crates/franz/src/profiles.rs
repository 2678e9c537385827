//! The model profile of a command (`--profile`, `profile` in the config file, `FRANZ_PROFILE`):
//! chosen by `franz_core::profile::select`, applied to the configuration, and said on stderr
//! with the reason. Also the image size rule a profile gives, with `--size` checked against
//! the family's resize rule.

use crate::exit::usage;
use crate::terminal::errln;
use franz_core::config::{Config, Effective, Source};
use franz_core::engine::ContextOptions;
use franz_core::geometry::{GeometryError, ImageSize, SizeRule};
use franz_core::profile::{self, Applied, ModelIds, Profile, Selection};

/// A selected profile and what it made of the configuration.
pub struct Chosen {
    pub selection: Selection,
    pub applied: Applied,
}

impl Chosen {
    pub fn profile(&self) -> &Profile {
        &self.selection.profile
    }
}

/// The ids `--profile auto` may look at: the `model` setting when it was given (not its
/// default), then `served` (what the server reports, where a command asked it).
pub fn model_ids(effective: &Effective, served: Vec<String>) -> ModelIds {
    let configured = effective
        .values
        .get("model")
        .filter(|r| r.source != Source::Default)
        .map(|_| effective.config.model.clone());
    ModelIds { configured, served }
}

/// What `--profile auto` learns from the server when no model is named (the `model` setting
/// at its default): the one model `GET /v1/models` lists, or the one LM Studio has loaded; empty
/// otherwise, or under a named profile. When the server lists exactly one model and the
/// default name is not it, the run asks for that model instead (said on stderr).
pub fn served(effective: &mut Effective, client: &franz_core::model::ModelClient) -> Vec<String> {
    let auto = effective.config.profile.trim();
    let named = model_ids(effective, Vec::new()).configured.is_some();
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

/// Selects the configuration's profile and applies it; an unknown name or a bad file is a
/// usage error.
pub fn choose(effective: &mut Effective, served: Vec<String>) -> anyhow::Result<Chosen> {
    let ids = model_ids(effective, served);
    let selection =
        profile::select(&effective.config.profile, &ids).map_err(|e| usage(e.to_string()))?;
    let applied = profile::apply(&selection.profile, effective);
    Ok(Chosen { selection, applied })
}

/// What franz's own profile, with the default `coords`, makes of coordinates.
pub fn franz_rule() -> Applied {
    Applied {
        exact_space: None,
        pixel_coords: false,
        norm_max: franz_core::geometry::NORM_MAX as u32,
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

/// The image size rule of a configuration under `profile`: `--size` (which must be a fixed
/// point of the family's resize rule), `--scale` (not with a resize rule: use
/// `--pixel-budget`), else the profile's rule within `pixel_budget`.
pub fn size_rule(c: &Config, profile: &Profile) -> anyhow::Result<SizeRule> {
    if !c.size.is_empty() {
        let s: ImageSize = c
            .size
            .parse()
            .map_err(|e: GeometryError| usage(e.to_string()))?;
        profile.check_size(s).map_err(usage)?;
        return Ok(SizeRule::Exact(s));
    }
    if c.scale > 0.0 {
        if profile.smart_resize().is_some() {
            return Err(usage(format!(
                "--scale does not apply to the {} profile (its processor resizes images by its \
                 own rule): set the most pixels with --pixel-budget N instead",
                profile.name
            )));
        }
        return Ok(SizeRule::Scale(c.scale));
    }
    Ok(profile.size_rule(c.pixel_budget))
}

/// How a run under `profile` keeps its requests inside a context of `tokens`: a family with a
/// resize rule counts one image token per `factor` x `factor` pixels and shrinks the newest
/// image to the next smaller size its processor keeps (`SmartResize::next_smaller`); any other
/// profile keeps franz's estimate and shrink step.
pub fn context(profile: &Profile, tokens: Option<u64>) -> ContextOptions {
    let base = ContextOptions {
        tokens,
        ..ContextOptions::default()
    };
    let Some(rule) = profile.smart_resize() else {
        return base;
    };
    ContextOptions {
        image_tokens: franz_core::model::ImageTokens {
            pixels_per_token_side: rule.factor,
        },
        shrink: std::sync::Arc::new(move |size| rule.next_smaller(size)),
        ..base
    }
}
