//! The one list of strategies: their names, for the configuration, the CLI and [`super::create`].

use super::{Commander, Narrative, ReadOptions, Strategy, Tools, Vision};
use crate::parser::Dialect;
use std::fmt;

/// A strategy, by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StrategyName {
    #[default]
    Narrative,
    Vision,
    Tools,
    Commander,
}

impl StrategyName {
    pub const ALL: [StrategyName; 4] = [
        StrategyName::Narrative,
        StrategyName::Vision,
        StrategyName::Tools,
        StrategyName::Commander,
    ];

    /// The names of [`Self::ALL`], in order.
    pub const NAMES: [&'static str; 4] = {
        let mut out = [""; 4];
        let mut i = 0;
        while i < out.len() {
            out[i] = Self::ALL[i].as_str();
            i += 1;
        }
        out
    };

    pub const fn as_str(self) -> &'static str {
        match self {
            StrategyName::Narrative => "narrative",
            StrategyName::Vision => "vision",
            StrategyName::Tools => "tools",
            StrategyName::Commander => "commander",
        }
    }

    /// The dialect the strategy asks for when `configured` (the setting, or the profile's) is
    /// `auto`: the narrative's function-call lines and the vision loop's JSON
    /// (docs/designs.md); the tools strategy and the commander read every dialect by detection.
    pub fn dialect(self, configured: Option<Dialect>) -> Option<Dialect> {
        match self {
            StrategyName::Narrative => configured.or(Some(Dialect::Calls)),
            StrategyName::Vision => configured.or(Some(Dialect::Json)),
            StrategyName::Tools | StrategyName::Commander => configured,
        }
    }

    /// The strategy itself.
    pub fn create(self, options: ReadOptions) -> Box<dyn Strategy> {
        match self {
            StrategyName::Narrative => Box::new(Narrative::new(options)),
            StrategyName::Vision => Box::new(Vision::new(options)),
            StrategyName::Tools => Box::new(Tools::new(options)),
            StrategyName::Commander => Box::new(Commander::new(options)),
        }
    }
}

impl fmt::Display for StrategyName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for StrategyName {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        let t = s.trim();
        Self::ALL
            .into_iter()
            .find(|n| n.as_str().eq_ignore_ascii_case(t))
            .ok_or_else(|| {
                format!(
                    "unknown strategy {s:?}: expected one of: {}",
                    Self::NAMES.join(", ")
                )
            })
    }
}

/// So that `config.strategy == "tools"` reads as it did when the setting was a string.
impl PartialEq<&str> for StrategyName {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}
