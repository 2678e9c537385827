//! The one mapping from the typed settings to the engine's parts (docs/architecture.md): each
//! part owns a small settings struct whose `Default` is the settings table's (the executor's
//! [`ExecConfig`], the model client's [`ClientConfig`], the strategies' [`ReadOptions`], the
//! commander's [`CommanderSettings`], the loop breaker's [`LoopBreaker`], the observation pipeline's
//! [`ObserveConfig`] and the run's [`RunOptions`]); only this file knows both the configuration
//! and the parts, so no part imports `config`. A new run setting is a row of the table
//! (`settings.rs`) with its field of [`Config`], a field of its part's settings struct, a line
//! here, and its use.

use super::{Config, Settings};
use crate::engine::{ContextOptions, RunOptions};
use crate::executor::{ExecConfig, MotionProfile, motion::Motion};
use crate::loop_breaker::{LoopBreaker, LoopSettings};
use crate::model::client::ClientConfig;
use crate::observe::{ImageFormat, ObserveConfig};
use crate::profile::{Applied, Profile};
use crate::refine::RefineOptions;
use crate::strategy::{CommanderSettings, ReadOptions};
use std::time::Duration;

fn u32_of(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

fn usize_of(v: u64) -> usize {
    usize::try_from(v).unwrap_or(usize::MAX)
}

fn ms(secs: f64) -> u64 {
    (secs * 1000.0).round() as u64
}

impl Config {
    /// The executor's settings (`motion` and its delays, `max_actions`, `failsafe`, `secrets`).
    pub fn exec(&self) -> ExecConfig {
        ExecConfig {
            motion: self.motion_timing(),
            max_actions_per_turn: usize_of(self.max_actions),
            failsafe: self.failsafe,
            secrets: self.secrets.clone(),
        }
    }

    /// The input timing of `motion`: the `human` profile with the designs' delays
    /// (`action_delay`, `settle_delay`, `drag_steps`, `drag_step_delay`, `typing_cadence`,
    /// `typing_jitter`); `fast` stays exact.
    pub fn motion_timing(&self) -> Motion {
        let m = Motion::of(self.motion);
        if self.motion != MotionProfile::Human {
            return m;
        }
        Motion {
            action_delay_ms: ms(self.action_delay),
            ui_settle_ms: ms(self.settle_delay),
            drag_steps: u32_of(self.drag_steps),
            drag_step_delay_ms: ms(self.drag_step_delay),
            char_delay_ms: ms(self.typing_cadence),
            char_jitter_ms: ms(self.typing_jitter),
            ..m
        }
    }

    /// The model client's settings (`api_url`, `api_key`, timeouts, retries and their backoff,
    /// `max_response_bytes`, `message_shape`, `constrain`).
    pub fn client(&self) -> ClientConfig {
        ClientConfig {
            api_url: self.api_url.clone(),
            api_key: (!self.api_key.is_empty()).then(|| self.api_key.clone()),
            connect_timeout: Duration::from_secs_f64(self.connect_timeout),
            timeout: Duration::from_secs_f64(self.timeout),
            retries: u32_of(self.retries),
            backoff: Duration::from_secs_f64(self.retry_backoff),
            max_response_bytes: self.max_response_bytes,
            message_shape: self.message_shape,
            constrain: self.constrain,
        }
    }

    /// The grounding model's id and client settings (docs/grounding.md); `None` without
    /// `grounder_model`. Its own server (`grounder_api_url`) where given, else the planner's;
    /// its own key where given, else the planner's, but only on the planner's server: a key is
    /// never sent to another server than the one it was given for.
    pub fn grounder_client(&self) -> Option<(String, ClientConfig)> {
        let model = self.grounder_model.trim();
        if model.is_empty() {
            return None;
        }
        let mut client = self.client();
        let url = self.grounder_api_url.trim();
        if !url.is_empty() && url != self.api_url.trim() {
            client.api_url = url.to_string();
            client.api_key = None;
        }
        if !self.grounder_api_key.is_empty() {
            client.api_key = Some(self.grounder_api_key.clone());
        }
        Some((model.to_string(), client))
    }

    /// The commander strategy's numbers (docs/designs.md).
    pub fn commander(&self) -> CommanderSettings {
        CommanderSettings {
            review_interval: u32_of(self.review_interval),
            compression_threshold: usize_of(self.compression_threshold),
            leader_temperature: self.leader_temperature,
            leader_max_tokens: u32_of(self.leader_max_tokens),
            operator_temperature: self.operator_temperature,
            operator_max_tokens: u32_of(self.operator_max_tokens),
            loop_recovery: self.loop_recovery,
            loop_recovery_cooldown: u32_of(self.loop_recovery_cooldown),
            min_evidence: usize_of(self.min_evidence),
            summary_chars: usize_of(self.snapshot_summary_chars),
            loop_chars: usize_of(self.snapshot_loop_chars),
        }
    }

    /// The loop breaker's thresholds and the unchanged-screen note.
    pub fn loop_breaker(&self) -> LoopBreaker {
        LoopBreaker {
            loops: LoopSettings {
                warn: u32_of(self.loop_warn),
                stop: u32_of(self.loop_stop),
            },
            unchanged_note: self.unchanged_note,
        }
    }

    /// How the strategies read replies and keep histories: the history and commander
    /// settings, and, under a chosen profile (`applied`, [`super::apply_profile`]), the
    /// dialect (the profile's unless one was given) and the coordinate space. `franz run` and
    /// `franz parse` both build their options here, so that they read a reply alike.
    pub fn read_options(&self, applied: Option<&Applied>) -> ReadOptions {
        let history = ReadOptions {
            keep_last_screenshots: usize_of(self.keep_last_screenshots),
            keep_last_thinks: usize_of(self.keep_last_thinks),
            history_max_chars: usize_of(self.history_max_chars),
            commander: self.commander(),
            ..ReadOptions::default()
        };
        let Some(applied) = applied else {
            return history;
        };
        ReadOptions {
            dialect: self.dialect,
            // prompts say "pixels" for every pixel space; `exact_space` says how they are mapped
            pixel_coords: applied.pixel_coords
                || applied.exact_space == Some(crate::exact_target::Space::Pixels),
            exact_space: applied.exact_space,
            norm_max: applied.norm_max,
            ..history
        }
    }
}

impl Settings {
    /// The strategies' reading options under the chosen profile (none: franz's own rule).
    pub fn read_options(&self) -> ReadOptions {
        let applied = self.profile.as_ref().map(|p| &p.applied);
        self.config().read_options(applied)
    }

    /// The observation pipeline's settings: the crop, the size rule, the cursor, the image
    /// format, the privacy masks and the observed area.
    pub fn observe(&self) -> ObserveConfig {
        ObserveConfig {
            crop: self.crop,
            size: self.size,
            cursor: self.config().cursor,
            format: self.image_format(),
            mask: self.mask.clone(),
            area: self.config().observe_area,
        }
    }

    /// The model image's format: `image_format`, JPEG at `image_quality`.
    pub fn image_format(&self) -> ImageFormat {
        let c = self.config();
        c.image_format.format(c.image_quality.clamp(1, 100) as u8)
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
            // a refined action waits for its second request: none is performed early
            early_exec: c.early_exec && c.refine == crate::refine::Refine::Off,
            max_steps: c.max_steps,
            max_time: (c.max_time > 0.0).then(|| Duration::from_secs_f64(c.max_time)),
            step_delay: Duration::from_secs_f64(c.step_delay),
            max_empty_turns: c.max_empty_turns,
            feedback: c.feedback,
            context: context(
                self.profile.as_ref().map(|p| p.profile()),
                (c.context_tokens > 0).then_some(c.context_tokens),
            ),
            loop_breaker: c.loop_breaker(),
            refine: RefineOptions {
                mode: c.refine,
                crop: crate::refine::parse_crop(&c.refine_crop)
                    .unwrap_or(crate::refine::DEFAULT_CROP),
                strategy: c.strategy,
                read: self.read_options(),
            },
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

    #[test]
    fn the_retry_backoff_is_the_clients_first_wait() {
        let e = ConfigBuilder::new()
            .flag("retry_backoff", "--retry-backoff", "2.5")
            .build()
            .expect("valid settings");
        assert_eq!(e.config.client().backoff, Duration::from_millis(2500));
        let bad = ConfigBuilder::new()
            .flag("retry_backoff", "--retry-backoff", "61")
            .build();
        assert!(bad.is_err(), "over 60 s");
    }
}
