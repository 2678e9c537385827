//! Enum-valued settings. Each is a Rust enum, read once from its setting's text; the list of
//! its names comes from the type that owns it (`StrategyName::ALL`, `Dialect::ALL`, ...), so
//! the configuration, the CLI and the parser share one list.

use crate::executor::MotionProfile;
use crate::parser::Dialect;
use crate::runlog::{Layout, LogImages};
use crate::strategy::StrategyName;
use serde::{Deserialize, Deserializer, Serializer};

/// A setting whose value is one of a fixed list of names.
pub trait Choice: Copy + Sized + 'static {
    /// Every value, in the order of [`Choice::NAMES`].
    const ALL: &'static [Self];
    /// The names of every value, as written in flags, the environment and TOML.
    const NAMES: &'static [&'static str];
    fn name(self) -> &'static str;

    /// The value called `text` (case-insensitive), or an error that lists the valid names.
    fn parse_choice(text: &str) -> Result<Self, String> {
        let t = text.trim();
        Self::ALL
            .iter()
            .copied()
            .find(|v| v.name().eq_ignore_ascii_case(t))
            .ok_or_else(|| format!("expected one of: {}", Self::NAMES.join(", ")))
    }
}

/// How the model gives coordinates (`coords`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Coords {
    /// 0..1000 of the working area.
    #[default]
    Norm,
    /// Pixels of the image the model was sent.
    Pixels,
    /// 0..1 of the working area, mapped exactly (docs/coordinates.md, "Exact targets").
    Relative,
}

impl Choice for Coords {
    const ALL: &'static [Self] = &[Coords::Norm, Coords::Pixels, Coords::Relative];
    const NAMES: &'static [&'static str] = &["norm", "pixels", "relative"];
    fn name(self) -> &'static str {
        match self {
            Coords::Norm => "norm",
            Coords::Pixels => "pixels",
            Coords::Relative => "relative",
        }
    }
}

impl Choice for crate::grounding::Grounding {
    const ALL: &'static [Self] = &[Self::None, Self::Marks, Self::List];
    const NAMES: &'static [&'static str] = &["none", "marks", "list"];
    fn name(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Marks => "marks",
            Self::List => "list",
        }
    }
}

impl Choice for crate::refine::Refine {
    const ALL: &'static [Self] = &[Self::Off, Self::Zoom];
    const NAMES: &'static [&'static str] = &["off", "zoom"];
    fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Zoom => "zoom",
        }
    }
}

impl Choice for crate::model::MessageShape {
    const ALL: &'static [Self] = &{
        use crate::model::{MessageShape, Shape};
        [
            MessageShape::Auto,
            MessageShape::Fixed(Shape::None),
            MessageShape::Fixed(Shape::Alternate),
            MessageShape::Fixed(Shape::Strict),
        ]
    };
    const NAMES: &'static [&'static str] = &["auto", "none", "alternate", "strict"];
    fn name(self) -> &'static str {
        crate::model::MessageShape::name(self)
    }
}

impl Choice for crate::model::Constrain {
    const ALL: &'static [Self] = &crate::model::Constrain::ALL;
    const NAMES: &'static [&'static str] = &crate::model::Constrain::NAMES;
    fn name(self) -> &'static str {
        crate::model::Constrain::name(self)
    }
}

impl Choice for StrategyName {
    const ALL: &'static [Self] = &StrategyName::ALL;
    const NAMES: &'static [&'static str] = &StrategyName::NAMES;
    fn name(self) -> &'static str {
        self.as_str()
    }
}

/// `None` is `auto`: the parser detects the dialect.
impl Choice for Option<Dialect> {
    const ALL: &'static [Self] = &{
        let mut out = [None; Dialect::ALL.len() + 1];
        let mut i = 0;
        while i < Dialect::ALL.len() {
            out[i + 1] = Some(Dialect::ALL[i]);
            i += 1;
        }
        out
    };
    const NAMES: &'static [&'static str] = &{
        let mut out = ["auto"; Dialect::ALL.len() + 1];
        let mut i = 0;
        while i < Dialect::ALL.len() {
            out[i + 1] = Dialect::ALL[i].as_str();
            i += 1;
        }
        out
    };
    fn name(self) -> &'static str {
        self.map_or("auto", |d| d.as_str())
    }
}

impl Choice for Layout {
    const ALL: &'static [Self] = &[Layout::Flat, Layout::TurnDirs];
    const NAMES: &'static [&'static str] = &["flat", "turn_dirs"];
    fn name(self) -> &'static str {
        match self {
            Layout::Flat => "flat",
            Layout::TurnDirs => "turn_dirs",
        }
    }
}

impl Choice for crate::observe::ImageCodec {
    const ALL: &'static [Self] = &[Self::Png, Self::Jpeg];
    const NAMES: &'static [&'static str] = &["png", "jpeg"];
    fn name(self) -> &'static str {
        match self {
            Self::Png => "png",
            Self::Jpeg => "jpeg",
        }
    }
}

impl Choice for crate::observe::ObserveArea {
    const ALL: &'static [Self] = &[Self::Screen, Self::Window, Self::Touched];
    const NAMES: &'static [&'static str] = &["screen", "window", "touched"];
    fn name(self) -> &'static str {
        match self {
            Self::Screen => "screen",
            Self::Window => "window",
            Self::Touched => "touched",
        }
    }
}

impl Choice for LogImages {
    const ALL: &'static [Self] = &[LogImages::None, LogImages::Annotated, LogImages::All];
    const NAMES: &'static [&'static str] = &["none", "annotated", "all"];
    fn name(self) -> &'static str {
        match self {
            LogImages::None => "none",
            LogImages::Annotated => "annotated",
            LogImages::All => "all",
        }
    }
}

impl Choice for MotionProfile {
    const ALL: &'static [Self] = &[MotionProfile::Human, MotionProfile::Fast];
    const NAMES: &'static [&'static str] = &["human", "fast"];
    fn name(self) -> &'static str {
        match self {
            MotionProfile::Human => "human",
            MotionProfile::Fast => "fast",
        }
    }
}

/// `#[serde(with = "choice::by_name")]`: a [`Choice`] as its name.
pub mod by_name {
    use super::*;

    pub fn serialize<T: Choice, S: Serializer>(v: &T, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(v.name())
    }

    pub fn deserialize<'de, T: Choice, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        let text = String::deserialize(d)?;
        T::parse_choice(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn consistent<T: Choice + PartialEq + std::fmt::Debug>() {
        assert_eq!(T::ALL.len(), T::NAMES.len());
        for (v, n) in T::ALL.iter().zip(T::NAMES) {
            assert_eq!(v.name(), *n);
            assert_eq!(T::parse_choice(&n.to_uppercase()), Ok(*v));
        }
    }

    #[test]
    fn names_and_values_agree() {
        consistent::<Coords>();
        consistent::<crate::model::MessageShape>();
        consistent::<crate::model::Constrain>();
        consistent::<crate::grounding::Grounding>();
        consistent::<crate::refine::Refine>();
        consistent::<StrategyName>();
        consistent::<Option<Dialect>>();
        consistent::<Layout>();
        consistent::<LogImages>();
        consistent::<crate::observe::ImageCodec>();
        consistent::<crate::observe::ObserveArea>();
        consistent::<MotionProfile>();
        // the parser's own reading of a dialect name agrees with the configuration's
        for d in Dialect::ALL {
            assert_eq!(d.as_str().parse::<Dialect>(), Ok(d));
        }
        for s in StrategyName::ALL {
            assert_eq!(s.as_str().parse::<StrategyName>(), Ok(s));
        }
    }

    #[test]
    fn a_bad_name_lists_the_valid_ones() {
        assert_eq!(
            StrategyName::parse_choice("telepathy"),
            Err("expected one of: narrative, vision, tools, commander".into())
        );
        let e = <Option<Dialect>>::parse_choice("klingon").unwrap_err();
        assert_eq!(
            e,
            "expected one of: auto, json, calls, tools, qwen, uitars, anthropic, openai, pyautogui, holo, venus, gemini, point"
        );
        assert!(
            Coords::parse_choice("inches")
                .unwrap_err()
                .contains("norm, pixels")
        );
        assert!(
            Layout::parse_choice("nested")
                .unwrap_err()
                .contains("flat, turn_dirs")
        );
        assert!(
            MotionProfile::parse_choice("slow")
                .unwrap_err()
                .contains("human, fast")
        );
    }
}
