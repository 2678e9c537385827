//! The typed settings of a resolved configuration (ripgrep's low and high arguments): the
//! strings of [`Config`] that hold a structure (`crop`, `size`/`scale`, `mask_regions`, the
//! `[policy]` table) read once into their values, and the model profile chosen and applied.
//! Every command reads these values from [`Settings`], so every command refuses the same bad
//! value with the same message; no other module parses a string setting again.

use super::{Config, Effective, Source};
use crate::geometry::{Crop, GeometryError, ImageSize, SizeRule};
use crate::observe::mask;
use crate::policy::{Policy, PolicyError};
use crate::profile::{self, Applied, ModelIds, Profile, ProfileError, Selection};

/// Why a resolved configuration cannot be used; each says what to do.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    #[error("{0}")]
    Crop(GeometryError),
    #[error("{0}")]
    Size(GeometryError),
    /// `--size` that the profile's resize rule would change.
    #[error("{0}")]
    SizeForProfile(String),
    #[error(
        "--scale does not apply to the {profile} profile (its processor resizes images by its own rule): set the most pixels with --pixel-budget N instead"
    )]
    ScaleForProfile { profile: String },
    #[error("mask_regions: {0}: give boxes x1,y1,x2,y2 in 0..1000 of the screen, separated by ;")]
    Mask(GeometryError),
    #[error("{0}")]
    Policy(PolicyError),
    #[error("{0}")]
    Profile(ProfileError),
}

/// A selected profile and what it made of the configuration.
#[derive(Debug, Clone)]
pub struct Chosen {
    pub selection: Selection,
    pub applied: Applied,
}

impl Chosen {
    pub fn profile(&self) -> &Profile {
        &self.selection.profile
    }
}

/// The effective configuration with its structured values read.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The configuration (with the profile applied, when one was chosen) and each value's
    /// source.
    pub effective: Effective,
    /// The working area (`crop`).
    pub crop: Crop,
    /// The image size rule: `--size`, `--scale`, else the profile's rule within
    /// `pixel_budget` (without a profile: franz's default fit).
    pub size: SizeRule,
    /// `--size` or `--scale` as given; `None` when neither was.
    pub size_given: Option<SizeRule>,
    /// The privacy masks (`mask_regions`).
    pub mask: Vec<Crop>,
    /// The compiled safety policy (`[policy]`).
    pub policy: Policy,
    /// The model profile; `None` for a command that reads no model's replies.
    pub profile: Option<Chosen>,
}

impl Settings {
    /// The settings of `effective` without a model profile.
    pub fn new(effective: Effective) -> Result<Settings, SettingsError> {
        let c = &effective.config;
        let crop = c.crop.parse().map_err(SettingsError::Crop)?;
        let size_given = size_given(c)?;
        let mask = mask::parse(&c.mask_regions).map_err(SettingsError::Mask)?;
        let policy = Policy::new(&c.policy).map_err(SettingsError::Policy)?;
        Ok(Settings {
            crop,
            size: size_given.unwrap_or(SizeRule::MODEL_DEFAULT),
            size_given,
            mask,
            policy,
            profile: None,
            effective,
        })
    }

    /// The settings of `effective` under its model profile: selected by the `profile`
    /// setting (`auto` looks at the `model` setting when it was given, then at `served`,
    /// the ids the server reports), applied to the configuration, and giving the size rule.
    pub fn with_profile(
        mut effective: Effective,
        served: Vec<String>,
    ) -> Result<Settings, SettingsError> {
        let ids = model_ids(&effective, served);
        let selection =
            profile::select(&effective.config.profile, &ids).map_err(SettingsError::Profile)?;
        let applied = apply_profile(&selection.profile, &mut effective);
        let mut settings = Settings::new(effective)?;
        settings.size = profile_size(settings.config(), &selection.profile)?;
        settings.profile = Some(Chosen { selection, applied });
        Ok(settings)
    }

    /// Every setting at the table's default, without the environment or any file, and no
    /// profile: what a bench or a test starts from.
    pub fn defaults() -> Settings {
        let effective = super::ConfigBuilder::new()
            .build()
            .unwrap_or_else(|e| panic!("the settings table's defaults are invalid: {e}"));
        Settings::new(effective)
            .unwrap_or_else(|e| panic!("the settings table's defaults are invalid: {e}"))
    }

    /// The typed configuration.
    pub fn config(&self) -> &Config {
        &self.effective.config
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

/// `--size` as an exact size or `--scale` as a scale; `None` when neither is set.
fn size_given(c: &Config) -> Result<Option<SizeRule>, SettingsError> {
    if !c.size.is_empty() {
        let s: ImageSize = c.size.parse().map_err(SettingsError::Size)?;
        return Ok(Some(SizeRule::Exact(s)));
    }
    Ok((c.scale > 0.0).then_some(SizeRule::Scale(c.scale)))
}

/// The image size rule under `profile`: `--size` (which must be a fixed point of the family's
/// resize rule), `--scale` (not with a resize rule: use `--pixel-budget`), else the profile's
/// rule within `pixel_budget`.
fn profile_size(c: &Config, profile: &Profile) -> Result<SizeRule, SettingsError> {
    match size_given(c)? {
        Some(SizeRule::Exact(s)) => {
            profile
                .check_size(s)
                .map_err(SettingsError::SizeForProfile)?;
            Ok(SizeRule::Exact(s))
        }
        Some(_) if profile.smart_resize().is_some() => Err(SettingsError::ScaleForProfile {
            profile: profile.name.clone(),
        }),
        Some(rule) => Ok(rule),
        None => Ok(profile.size_rule(c.pixel_budget)),
    }
}

/// Applies `profile` to `effective`: its dialect, `keep_last_screenshots` and sampling
/// defaults replace the settings' defaults (never a value given explicitly), and returns how
/// coordinates are read (an explicit `coords` wins: `norm`, `pixels` or `relative` of the
/// profile's kind of mapping).
pub fn apply_profile(profile: &Profile, effective: &mut Effective) -> Applied {
    use super::Coords as Setting;
    use crate::exact_target::Space;
    use crate::profile::Coords;
    let given = |key: &str| {
        effective
            .values
            .get(key)
            .is_some_and(|r| r.source != Source::Default)
    };
    let (dialect_given, keep_given) = (given("dialect"), given("keep_last_screenshots"));
    let (t_given, p_given, coords_given) = (given("temperature"), given("top_p"), given("coords"));
    let c = &mut effective.config;
    if !dialect_given && let Ok(d) = profile.dialect() {
        c.dialect = d;
    }
    if let (false, Some(k)) = (keep_given, profile.keep_last_screenshots) {
        c.keep_last_screenshots = k;
    }
    if let (false, Some(t)) = (t_given, profile.sampling.temperature) {
        c.temperature = t;
    }
    if let (false, Some(p)) = (p_given, profile.sampling.top_p) {
        c.top_p = p;
    }
    let franz = profile.coords == Coords::Franz;
    let exact_space = match (coords_given, c.coords) {
        (true, Setting::Relative) => Some(Space::Relative),
        (true, _) if franz => None,
        (true, Setting::Norm) => Some(Space::Norm1000),
        (true, Setting::Pixels) => Some(Space::Pixels),
        (false, _) if franz => (c.coords == Setting::Relative).then_some(Space::Relative),
        (false, _) => profile.coords.space(),
    };
    let norm_max = match (coords_given, profile.space_max()) {
        (false, Some(m)) if profile.coords == Coords::Norm1000 => m,
        _ => crate::geometry::NORM_MAX as u32,
    };
    Applied {
        exact_space,
        pixel_coords: exact_space.is_none() && c.coords == Setting::Pixels,
        norm_max,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;

    fn effective(flags: &[(&str, &str)]) -> Effective {
        let mut b = ConfigBuilder::new();
        for (k, v) in flags {
            b = b.flag(k, &format!("--{k}"), *v);
        }
        b.build().expect("the flags are valid settings")
    }

    #[test]
    fn the_structured_values_are_read_once() {
        let s = Settings::new(effective(&[
            ("crop", "0,0,500,1000"),
            ("size", "640x480"),
            ("mask_regions", "0,0,100,100;900,900,1000,1000"),
        ]))
        .expect("valid settings");
        assert_eq!(s.crop, "0,0,500,1000".parse().expect("a crop"));
        assert_eq!(s.size, SizeRule::Exact(ImageSize::new(640, 480)));
        assert_eq!(s.size_given, Some(s.size));
        assert_eq!(s.mask.len(), 2);
        assert!(s.profile.is_none());
    }

    #[test]
    fn the_profile_gives_the_size_and_refuses_what_it_would_change() {
        let qwen = [("profile", "qwen3-vl")];
        let s = Settings::with_profile(effective(&qwen), Vec::new()).expect("a profile");
        assert!(matches!(s.size, SizeRule::Smart { .. }), "{:?}", s.size);
        assert_eq!(s.size_given, None);
        let scaled = effective(&[("profile", "qwen3-vl"), ("scale", "50")]);
        let e = Settings::with_profile(scaled, Vec::new()).expect_err("a resize rule");
        assert!(e.to_string().contains("--pixel-budget"), "{e}");
        let odd = effective(&[("profile", "qwen3-vl"), ("size", "1001x999")]);
        let e = Settings::with_profile(odd.clone(), Vec::new()).expect_err("not a fixed point");
        assert!(matches!(e, SettingsError::SizeForProfile(_)), "{e}");
        // without a profile the same size is what is sent
        assert!(Settings::new(odd).is_ok());
    }
}
