//! Model profiles: for one model family, how the screenshot is sized, which coordinate space
//! and mapping its answers use, its dialect, how many screenshots a request keeps and its
//! sampling defaults. Profiles are data: the built-in TOML files in `profile/builtin/` are
//! embedded in the binary (adding a file there ships it: see [`BUILTIN`]), and a
//! user's own file loads with `--profile FILE`. `--profile auto` picks one by model id
//! ([`select`]). README.md has the table; docs/coordinates.md the formulas.

use crate::exact_target::Space;
use crate::geometry::{ImageSize, SizeRule, SmartResize};
use crate::parser::Dialect;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The built-in profiles' files, `(name, TOML)`, in the order `franz profiles` lists them:
/// every `profile/builtin/*.toml`, embedded by the crate's build script (crates/core/build.rs),
/// `franz` first, the rest by name.
pub const BUILTIN: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/builtin_profiles.rs"));

/// The profile for models no other profile matches.
pub const DEFAULT: &str = "franz";

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProfileError {
    #[error("unknown profile {name:?}: use auto, a profile file (*.toml) or one of {known}")]
    Unknown { name: String, known: String },
    #[error("cannot read the profile file {path}: {problem}")]
    File { path: String, problem: String },
    #[error("bad profile {what}: {problem}")]
    Bad { what: String, problem: String },
}

/// How a profile's answers become screen pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coords {
    /// franz's own rule and the `coords` setting (norm or pixels):
    /// `P0 + round(n * (L - 1) / 1000)` through integer 0..1000.
    Franz,
    /// `P0 + min(L - 1, round(v * L / 1000))`, exact.
    Norm1000,
    /// `P0 + min(L - 1, round(v * L / S))` with S the sent image's side, exact.
    Pixels,
    /// `P0 + min(L - 1, round(v * L))`, exact.
    Relative,
}

impl Coords {
    pub fn as_str(self) -> &'static str {
        match self {
            Coords::Franz => "franz",
            Coords::Norm1000 => "norm1000",
            Coords::Pixels => "pixels",
            Coords::Relative => "relative",
        }
    }

    /// The exact space, or `None` for franz's rule.
    pub fn space(self) -> Option<Space> {
        match self {
            Coords::Franz => None,
            Coords::Norm1000 => Some(Space::Norm1000),
            Coords::Pixels => Some(Space::Pixels),
            Coords::Relative => Some(Space::Relative),
        }
    }
}

/// How the image sent to the model is sized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case", deny_unknown_fields)]
pub enum ImageRule {
    /// Fit inside `width` x `height`, aspect kept, never upscaled.
    Fit { width: u32, height: u32 },
    /// A fixed point of the family's `smart_resize`, within `pixel_budget` pixels (0: the
    /// family's `max_pixels`; the `pixel_budget` setting overrides it).
    SmartResize {
        factor: u32,
        min_pixels: u64,
        max_pixels: u64,
        #[serde(default)]
        pixel_budget: u64,
    },
}

/// Sampling defaults the family documents; a setting given explicitly wins.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sampling {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
}

/// One model family's profile, as its TOML file gives it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profile {
    pub name: String,
    /// The family, for people.
    #[serde(default)]
    pub family: String,
    /// Model ids this profile is for: `--profile auto` picks the profile with the longest
    /// of these inside the model id, compared on letters and digits only (so `qwen2.5-vl`
    /// also matches `Qwen2_5_VL` and `qwen25vl`).
    #[serde(default, rename = "match")]
    pub matches: Vec<String>,
    pub coords: Coords,
    /// The largest value of a `norm1000` space on each axis: 1000 (the default) or 999 for the
    /// families whose reference code divides by 999 (docs/coordinates.md, "Exact targets").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub norm_max: Option<u32>,
    /// A parser dialect name, or `auto` (detect).
    #[serde(default = "auto")]
    pub dialect: String,
    /// Screenshots a multi-turn request keeps; `None`: the setting's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_last_screenshots: Option<u64>,
    pub image: ImageRule,
    #[serde(default)]
    pub sampling: Sampling,
    /// The family's own grounding prompt, for a run that uses this model as its grounder
    /// (docs/grounding.md); `None`: franz's prompt, worded in the profile's space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grounding: Option<GroundingPrompt>,
}

/// How a grounding model is asked for the point of a target, as its family's source asks it
/// (docs/grounding.md). In each text `{target}` stands for the planner's words, `{width}` and
/// `{height}` for the size of the image sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroundingPrompt {
    /// The system message, where the source sends one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The user message's text before the image, where the source puts one there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before_image: Option<String>,
    /// The user message's text after the image (none when empty: the source puts its text
    /// before the image).
    pub user: String,
    /// The dialect the answer is read in where it is not the profile's own (`point`: a
    /// grounding answer, `[x,y]` or MAI-UI's `<answer>{"coordinate": [x,y]}</answer>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// The answer's form as the source shows it, with placeholders (`(x,y)`): what the
    /// scripted model fills in (crates/core/src/model/responder/grounder.rs).
    pub answer: String,
}

fn auto() -> String {
    "auto".into()
}

impl Profile {
    /// Reads and checks a profile's TOML text; `what` names it in errors.
    pub fn from_toml(text: &str, what: &str) -> Result<Profile, ProfileError> {
        let bad = |problem: String| ProfileError::Bad {
            what: what.to_string(),
            problem,
        };
        let p: Profile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
        p.dialect().map_err(bad)?;
        if let Some(d) = p.grounding.as_ref().and_then(|g| g.dialect.as_ref()) {
            d.parse::<Dialect>()
                .map_err(|e| bad(format!("[grounding] dialect: {e}")))?;
        }
        p.check_norm_max().map_err(bad)?;
        if let ImageRule::SmartResize {
            factor,
            min_pixels,
            max_pixels,
            ..
        } = p.image
            && (factor == 0 || min_pixels > max_pixels)
        {
            return Err(bad(
                "image: factor must be above 0 and min_pixels at most max_pixels".into(),
            ));
        }
        if let ImageRule::Fit { width, height } = p.image
            && (width == 0 || height == 0)
        {
            return Err(bad("image: width and height must be above 0".into()));
        }
        Ok(p)
    }

    /// `norm_max` is one of [`crate::exact_target::NORM_MAXES`] and only with `coords = "norm1000"`.
    fn check_norm_max(&self) -> Result<(), String> {
        match self.norm_max {
            None => Ok(()),
            Some(_) if self.coords != Coords::Norm1000 => Err(format!(
                "norm_max applies to coords = \"norm1000\" only, not {:?}: leave it out",
                self.coords.as_str()
            )),
            Some(m) if crate::exact_target::NORM_MAXES.contains(&m) => Ok(()),
            Some(m) => Err(format!(
                "norm_max {m} is not a space franz maps: use 1000 or 999"
            )),
        }
    }

    /// The largest value on each axis of the profile's normalized space: `norm_max` (1000
    /// when not given) for `norm1000`, 1 for `relative`, `None` for pixels and franz's rule.
    pub fn space_max(&self) -> Option<u32> {
        match self.coords {
            Coords::Norm1000 => Some(self.norm_max.unwrap_or(crate::geometry::NORM_MAX as u32)),
            Coords::Relative => Some(1),
            Coords::Pixels | Coords::Franz => None,
        }
    }

    /// Reads a user's profile file.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let text = crate::files::read_settings(path).map_err(|e| ProfileError::File {
            path: path.display().to_string(),
            problem: e.problem(),
        })?;
        Profile::from_toml(&text, &path.display().to_string())
    }

    /// The dialect (`None`: detect).
    pub fn dialect(&self) -> Result<Option<Dialect>, String> {
        if self.dialect.trim().eq_ignore_ascii_case("auto") {
            return Ok(None);
        }
        self.dialect.parse::<Dialect>().map(Some)
    }

    /// The family's resize rule, if it has one.
    pub fn smart_resize(&self) -> Option<SmartResize> {
        match self.image {
            ImageRule::SmartResize {
                factor,
                min_pixels,
                max_pixels,
                ..
            } => Some(SmartResize {
                factor,
                min_pixels,
                max_pixels,
            }),
            ImageRule::Fit { .. } => None,
        }
    }

    /// The image size rule, with the `pixel_budget` setting (0: the profile's own budget).
    pub fn size_rule(&self, pixel_budget: u64) -> SizeRule {
        match self.image {
            ImageRule::Fit { width, height } => SizeRule::Fit(ImageSize::new(width, height)),
            ImageRule::SmartResize {
                pixel_budget: own, ..
            } => {
                let budget = if pixel_budget > 0 { pixel_budget } else { own };
                match self.smart_resize() {
                    Some(rule) => SizeRule::Smart { rule, budget },
                    None => SizeRule::MODEL_DEFAULT,
                }
            }
        }
    }

    /// Checks an exact `--size` against the family's resize: a size it would change is an
    /// error naming the nearest size it leaves unchanged.
    pub fn check_size(&self, size: ImageSize) -> Result<(), String> {
        let Some(rule) = self.smart_resize() else {
            return Ok(());
        };
        if rule.is_fixed_point(size) {
            return Ok(());
        }
        let near = rule.nearest_fixed_point(size);
        Err(format!(
            "--size {size} is not a size the {} family's processor keeps (it would resize it \
             to {near}, moving every click): use --size {near}, or leave --size out",
            self.name
        ))
    }
}

/// Every built-in profile. A file that does not read is left out (the `builtin_profiles_read`
/// test keeps them all readable).
pub fn builtin() -> Vec<Profile> {
    BUILTIN
        .iter()
        .filter_map(|(name, text)| Profile::from_toml(text, name).ok())
        .collect()
}

/// A built-in profile by name (case-insensitive).
pub fn by_name(name: &str) -> Option<Profile> {
    builtin()
        .into_iter()
        .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
}

/// Letters and digits of `s`, lowercase: `Qwen2.5-VL-7B` -> `qwen25vl7b`.
fn compact(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// The profile for a model id: the one with the longest match pattern inside the id (letters
/// and digits only, case-insensitive, so quantisation and format suffixes such as `-GGUF` or
/// `@q4_k_m` do not matter), and the pattern that matched; `None` when none does.
pub fn for_model(model: &str) -> Option<(Profile, String)> {
    let id = compact(model);
    builtin()
        .into_iter()
        .filter_map(|p| {
            let best = p
                .matches
                .iter()
                .filter(|m| !compact(m).is_empty() && id.contains(&compact(m)))
                .max_by_key(|m| compact(m).len())?
                .clone();
            Some((p, best))
        })
        .max_by_key(|(_, m)| compact(m).len())
}

/// A chosen profile and why it was chosen (the CLI prints the reason).
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pub profile: Profile,
    pub reason: String,
}

/// Where `--profile auto` may look for a model id, best first.
#[derive(Debug, Clone, Default)]
pub struct ModelIds {
    /// The `model` setting, when it was given (flag, environment, config file, scenario).
    pub configured: Option<String>,
    /// The ids the server reports (`GET /v1/models`), when it was asked.
    pub served: Vec<String>,
}

/// Resolves the `profile` setting: `auto`, a built-in name, or a path to a TOML file.
pub fn select(setting: &str, ids: &ModelIds) -> Result<Selection, ProfileError> {
    let s = setting.trim();
    if s.is_empty() || s.eq_ignore_ascii_case("auto") {
        return Ok(auto_select(ids));
    }
    if let Some(p) = by_name(s) {
        return Ok(Selection {
            reason: format!("--profile {}", p.name),
            profile: p,
        });
    }
    let path = Path::new(s);
    if s.ends_with(".toml") || path.is_file() {
        let p = Profile::load(path)?;
        return Ok(Selection {
            reason: format!("the profile file {s}"),
            profile: p,
        });
    }
    Err(ProfileError::Unknown {
        name: s.to_string(),
        known: builtin()
            .iter()
            .map(|p| p.name.clone())
            .collect::<Vec<_>>()
            .join(", "),
    })
}

/// `--profile auto`: the configured model id first, then the ids the server reports.
fn auto_select(ids: &ModelIds) -> Selection {
    let candidates = ids
        .configured
        .iter()
        .map(|m| (m, "the model setting names"))
        .chain(ids.served.iter().map(|m| (m, "the server reports")));
    let mut looked = Vec::new();
    for (id, whence) in candidates {
        if let Some((profile, pattern)) = for_model(id) {
            return Selection {
                reason: format!("auto: {whence} {id:?}, which matches {pattern:?}"),
                profile,
            };
        }
        looked.push(format!("{id:?}"));
    }
    let why = if looked.is_empty() {
        "auto: no model id given or reported".to_string()
    } else {
        format!("auto: no profile matches {}", looked.join(", "))
    };
    Selection {
        profile: by_name(DEFAULT).unwrap_or_else(franz_fallback),
        reason: format!("{why}; franz is the default"),
    }
}

/// The franz profile, should its file ever fail to read (the tests keep it readable).
fn franz_fallback() -> Profile {
    Profile {
        name: DEFAULT.into(),
        family: String::new(),
        matches: Vec::new(),
        coords: Coords::Franz,
        norm_max: None,
        dialect: auto(),
        keep_last_screenshots: None,
        image: ImageRule::Fit {
            width: 1536,
            height: 864,
        },
        sampling: Sampling::default(),
        grounding: None,
    }
}

#[cfg(test)]
mod tests;

/// What a selected profile makes of the configuration: the values the run uses. Settings
/// given explicitly (flag, environment, config file, scenario) win over the profile's.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// The exact space answers are read in; `None`: franz's rule (`pixel_coords` below).
    pub exact_space: Option<Space>,
    /// franz's rule with pixels of the sent image (`--coords pixels` under `franz`).
    pub pixel_coords: bool,
    /// The largest value of the `Norm1000` exact space: the profile's `norm_max` (1000 or
    /// 999), or 1000 where `--coords norm` was given.
    pub norm_max: u32,
}

impl Applied {
    /// franz's own profile with the default `coords`: 0..1000 by franz's rule.
    pub const FRANZ: Applied = Applied {
        exact_space: None,
        pixel_coords: false,
        norm_max: crate::geometry::NORM_MAX as u32,
    };

    /// The parser's coordinate mode for a model sent an image of `image` (a run reads replies
    /// so, `ReadOptions::coord_mode`).
    pub fn coord_mode(&self, image: ImageSize) -> crate::parser::CoordMode {
        use crate::parser::CoordMode;
        match self.exact_space {
            Some(Space::Norm1000) => CoordMode::Exact(ImageSize::new(self.norm_max, self.norm_max)),
            Some(space) => CoordMode::Exact(space.extent(image)),
            None if self.pixel_coords => CoordMode::Pixels(image),
            None => CoordMode::Norm,
        }
    }
}
