//! The one mapping from the typed settings to the engine's parts (docs/architecture.md): the
//! observation pipeline's settings, the run's options and how its requests stay inside the
//! model's context. A new run setting is a row of the table (`settings.rs`), a field of its
//! part's settings struct, a line here, and its use.

use super::Settings;
use crate::engine::{ContextOptions, RunOptions};
use crate::observe::ObserveConfig;
use crate::profile::Profile;
use std::time::Duration;

impl Settings {
    /// The observation pipeline's settings: the crop, the size rule, the cursor and the
    /// privacy masks.
    pub fn observe(&self) -> ObserveConfig {
        ObserveConfig {
            crop: self.crop,
            size: self.size,
            cursor: self.config().cursor,
            mask: self.mask.clone(),
            ..ObserveConfig::default()
        }
    }

    /// The engine's run options for `task`.
    pub fn run_options(&self, task: String) -> RunOptions {
        let c = self.config();
        RunOptions {
            task,
            model: c.model.clone(),
            temperature: c.temperature,
            top_p: c.top_p,
            max_tokens: c.max_tokens.min(u32::MAX as u64) as u32,
            stream: c.stream,
            early_exec: c.early_exec,
            max_steps: c.max_steps,
            max_time: (c.max_time > 0.0).then(|| Duration::from_secs_f64(c.max_time)),
            step_delay: Duration::from_secs_f64(c.step_delay),
            max_empty_turns: c.max_empty_turns,
            feedback: c.feedback,
            context: context(
                self.profile.as_ref().map(|p| p.profile()),
                (c.context_tokens > 0).then_some(c.context_tokens),
            ),
            guard: crate::loops::Guard::from_config(c),
        }
    }
}

/// How a run under `profile` keeps its requests inside a context of `tokens`: a family with a
/// resize rule counts one image token per `factor` x `factor` pixels and shrinks the newest
/// image to the next smaller size its processor keeps (`SmartResize::next_smaller`); any other
/// profile (or none) keeps franz's estimate and shrink step.
pub fn context(profile: Option<&Profile>, tokens: Option<u64>) -> ContextOptions {
    let base = ContextOptions {
        tokens,
        ..ContextOptions::default()
    };
    let Some(rule) = profile.and_then(Profile::smart_resize) else {
        return base;
    };
    ContextOptions {
        image_tokens: crate::model::ImageTokens {
            pixels_per_token_side: rule.factor,
        },
        shrink: std::sync::Arc::new(move |size| rule.next_smaller(size)),
        ..base
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ConfigBuilder;

    #[test]
    fn the_run_options_are_the_settings() {
        let e = ConfigBuilder::new()
            .flag("max_steps", "--max-steps", "7")
            .flag("max_time", "--max-time", "0")
            .flag("profile", "--profile", "qwen3-vl")
            .build()
            .expect("valid settings");
        let s = Settings::with_profile(e, Vec::new()).expect("a profile");
        let o = s.run_options("task".into());
        assert_eq!(
            (o.task.as_str(), o.max_steps, o.max_time),
            ("task", 7, None)
        );
        let crate::geometry::SizeRule::Smart { rule, .. } = s.size else {
            panic!("qwen3-vl resizes by its rule: {:?}", s.size);
        };
        assert_eq!(o.context.image_tokens.pixels_per_token_side, rule.factor);
        assert_eq!(s.observe().crop, s.crop);
    }
}
