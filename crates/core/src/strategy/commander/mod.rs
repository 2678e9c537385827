//! The commander strategy (docs/designs.md (commander)): a text-only leader plans and briefs, a
//! vision operator acts one tool a turn.
//!
//! Each engine turn may first consult the leader (through [`Strategy::consult`], so its calls
//! are logged like any other) and then asks the operator with the screenshot:
//! - EVALUATION: the leader is consulted on the first turn, every `review_interval` turns,
//!   when the operator escalates (report_progress DONE or BLOCKED), and when the active history
//!   reaches `compression_threshold` turns (it then calls compress_memory; the snapshot of a
//!   summary and a loop pattern replaces the archived turns in every later context).
//!   spawn_operator switches to EXECUTION. A leader reply cut off at max_tokens is not applied;
//!   the leader is asked again next turn, told why.
//! - EXECUTION: the operator writes a SITREP and calls one tool; extra calls come back as
//!   errors. A reply without tool calls is read by [`super::read_plain`]: an action written in
//!   its text (`click(500, 300)`, a `<tool_call>` block) runs; a plain answer, a cut-off
//!   (`finish_reason: length`) or an empty reply runs nothing and comes back as an error: only
//!   report_completion (or a finish of the grammar: `done(...)` written as text, Qwen's
//!   `terminate`, whose evidence is the SITREP) ends the mission, with `min_evidence`
//!   characters of evidence; shorter evidence goes back to the operator as an error. A reply
//!   cut off at max_tokens performs nothing (`finish.rs`).
//! - An injected reply (the panel) or an approver's edit is read as the operator's reply. On a
//!   turn with an injected reply the engine does not consult: a leader review or a loop
//!   recovery that was due happens on the next turn the model is asked.
//! - Loop recovery: when the loop breaker (`crate::loop_breaker`) counts three repeats of one action on
//!   a screen unchanged around it, or the leader names
//!   a loop pattern, the turn presses Escape and moves the pointer to the centre instead of
//!   asking the operator, at most once every `loop_recovery_cooldown` turns.

mod memory;

pub use memory::{Memory, Record, Snapshot};

use super::grammar::{self, Space};
use super::{
    Ask, PlainReply, Prompt, ReadOptions, Reading, Strategy, TurnContext, prompts, schema,
};
use crate::action::{Action, ActionKind, ActionResult, ProgressStatus};
use crate::model::{Message, Reply, ToolCall, ToolChoice};
use crate::parser::strip_think;
use serde_json::Value;

/// How the operator is told to act or to finish, after a problem with its reply.
const OPERATOR_TODO: &str = "call exactly one tool each turn (report_completion, with the evidence, once the mission is complete)";

/// The start of the escalation after a leader reply cut off at max_tokens.
const LEADER_CUT_OFF: &str = "your last reply was cut off at max_tokens (finish_reason: length)";

/// Repeats (the loop breaker's, `crate::loop_breaker`) that make the turn a loop recovery.
const RECOVERY_REPEATS: u32 = 3;

/// The commander design's numbers (docs/designs.md), each configurable.
#[derive(Debug, Clone, PartialEq)]
pub struct CommanderSettings {
    pub review_interval: u32,
    pub compression_threshold: usize,
    pub leader_temperature: f64,
    pub leader_max_tokens: u32,
    pub operator_temperature: f64,
    pub operator_max_tokens: u32,
    pub loop_recovery: bool,
    pub loop_recovery_cooldown: u32,
    pub min_evidence: usize,
    pub summary_chars: usize,
    pub loop_chars: usize,
}

/// The settings table's defaults (`config/settings.rs`); the mapping from the configuration is
/// `Config::commander` (`config/parts.rs`).
impl Default for CommanderSettings {
    fn default() -> Self {
        Self {
            review_interval: 5,
            compression_threshold: 8,
            leader_temperature: 0.35,
            leader_max_tokens: 1200,
            operator_temperature: 0.5,
            operator_max_tokens: 1024,
            loop_recovery: true,
            loop_recovery_cooldown: 3,
            min_evidence: 100,
            summary_chars: 180,
            loop_chars: 120,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Evaluation,
    Execution,
}

/// The operator's call of this turn, until its result is known.
#[derive(Debug, Clone)]
struct Pending {
    tool: String,
    args: String,
    sitrep: String,
}

pub struct Commander {
    options: ReadOptions,
    s: CommanderSettings,
    pub mode: Mode,
    plan: String,
    brief: Option<String>,
    pub memory: Memory,
    /// Why the leader must look again (escalation).
    escalation: Option<String>,
    last_leader_turn: u32,
    last_recovery_turn: Option<u32>,
    /// Problems of the last operator turn, for its next prompt.
    feedback: Vec<String>,
    pending: Option<Pending>,
    turn: u32,
    finish: super::finish::Finish,
    /// The loop breaker's count of repeats (`crate::loop_breaker`), before this turn.
    repeats: u32,
}

impl Commander {
    pub fn new(options: ReadOptions) -> Self {
        let s = options.commander.clone();
        Self {
            options,
            s,
            mode: Mode::Evaluation,
            plan: "(none yet)".into(),
            brief: None,
            memory: Memory::default(),
            escalation: None,
            last_leader_turn: 0,
            last_recovery_turn: None,
            feedback: Vec::new(),
            pending: None,
            turn: 0,
            finish: Default::default(),
            repeats: 0,
        }
    }

    /// Why the leader is consulted this turn (empty: it is not).
    fn reasons(&self, turn: u32) -> Vec<String> {
        let mut why = Vec::new();
        if self.brief.is_none() {
            why.push("MISSION START: analyse the mission, make a plan and brief the Operator with the first objective.".to_string());
        }
        if let Some(e) = &self.escalation {
            why.push(format!("ESCALATION: {e}"));
        }
        let active = self.memory.active_len();
        if active >= self.s.compression_threshold {
            why.push(format!(
                "MEMORY: the active history holds {active} turns (threshold {}). Call compress_memory with a summary of what was achieved, the loop pattern ('none' if there is none) and the archived turns, then spawn_operator.",
                self.s.compression_threshold
            ));
        }
        if self.brief.is_some()
            && turn.saturating_sub(self.last_leader_turn) >= self.s.review_interval
        {
            why.push(format!(
                "REVIEW: turn {turn}, the periodic review (every {} turns). Check progress and re-brief the Operator.",
                self.s.review_interval
            ));
        }
        why
    }

    fn leader_prompt(&self, ctx: &TurnContext<'_>, reasons: &[String]) -> Prompt {
        let system = prompts::fill(
            prompts::LEADER_SYSTEM,
            &[
                ("task", ctx.task),
                ("plan", &clip(&self.plan, 500)),
                ("review", &self.s.review_interval.to_string()),
            ],
        );
        let system =
            crate::strategy::with_targets_note(&self.options, system, prompts::TARGETS_LEADER);
        let user = format!(
            "TURN {} - EVALUATION\n{}\n\nCURRENT BRIEF: {}\n\n{}",
            ctx.turn,
            reasons.join("\n"),
            self.brief.as_deref().unwrap_or("(none)"),
            self.memory.context()
        );
        Prompt {
            messages: vec![Message::system(system), Message::user(user)],
            tools: schema::leader(),
            temperature: Some(self.s.leader_temperature),
            max_tokens: Some(self.s.leader_max_tokens),
            tool_choice: Some(ToolChoice::auto()),
            // the leader's tools have no positions: any space
            format: super::reply_format::of_tools(&schema::leader(), Space::Norm1000),
        }
    }

    /// Applies the leader's reply: compression and the new brief.
    fn apply_leader(&mut self, reply: &Reply, ctx: &TurnContext<'_>) {
        let limits = (self.s.summary_chars, self.s.loop_chars);
        let must_compress = self.memory.active_len() >= self.s.compression_threshold;
        let mut compressed = false;
        let mut briefed = false;
        for call in &reply.tool_calls {
            let args = arguments(call);
            let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("").trim();
            match call.name.trim() {
                "compress_memory" => {
                    let turns: Vec<u32> = args
                        .get("archived_turns")
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(|v| v.as_u64().map(|n| n as u32))
                                .collect()
                        })
                        .unwrap_or_default();
                    let summary = text("compression_summary");
                    let pattern = text("loop_analysis");
                    if self
                        .memory
                        .compress(summary, pattern, &turns, limits)
                        .is_some()
                    {
                        compressed = true;
                    }
                }
                "spawn_operator" => {
                    let brief = text("operator_instructions");
                    if !brief.is_empty() {
                        self.brief = Some(brief.to_string());
                        briefed = true;
                    }
                    let why = text("rationale");
                    if !why.is_empty() {
                        self.plan = why.to_string();
                    }
                }
                other => tracing::warn!("commander: the leader called unknown tool {other:?}"),
            }
        }
        let said = strip_think(&reply.content).trim().to_string();
        if must_compress && !compressed {
            tracing::warn!("commander: the leader did not compress; compressing mechanically");
            self.memory.compress_mechanically(limits);
        }
        if !briefed {
            if !said.is_empty() {
                self.brief = Some(said.clone());
            } else if self.brief.is_none() {
                self.brief = Some(ctx.task.to_string());
            }
        }
        if !said.is_empty() && self.plan == "(none yet)" {
            self.plan = said;
        }
        self.escalation = None;
        self.last_leader_turn = ctx.turn;
        self.mode = Mode::Execution;
    }

    /// A leader reply cut off at max_tokens is not applied (`finish.rs`: a cut reply performs
    /// nothing): the operator goes on with the brief it has (the mission, at the start), and
    /// the leader is asked again next turn, told why, once.
    fn leader_cut_off(&mut self, ctx: &TurnContext<'_>) {
        let told = self
            .escalation
            .as_deref()
            .is_some_and(|e| e.starts_with(LEADER_CUT_OFF));
        self.escalation = (!told).then(|| {
            format!("{LEADER_CUT_OFF}, so none of it was applied: write less (or raise leader_max_tokens)")
        });
        if self.brief.is_none() {
            self.brief = Some(ctx.task.to_string());
        }
        self.last_leader_turn = ctx.turn;
        self.mode = Mode::Execution;
    }

    /// Reads an operator reply without tool calls: an action written in its text runs (see
    /// `read_plain`); a plain answer does not end the mission (report_completion does), so it
    /// goes back as an error like a cut-off or empty reply.
    fn read_text(&mut self, reply: &Reply, ctx: &TurnContext<'_>, sitrep: String) -> Reading {
        let (mut actions, text, mut errors) =
            match super::read_plain(reply, &self.options, ctx, OPERATOR_TODO) {
                PlainReply::Action {
                    action,
                    text,
                    errors,
                } => (vec![*action], text, errors),
                PlainReply::Answer(text) => (
                    Vec::new(),
                    text,
                    vec![format!("no tool call: {OPERATOR_TODO}")],
                ),
                PlainReply::Unusable { text, errors } => (Vec::new(), text, errors),
            };
        // the text around a finish written in the text is its evidence (the SITREP)
        self.check_completion(&mut actions, &mut errors, &text);
        let (tool, args) = match actions.first() {
            Some(a) => (
                a.kind.name().to_string(),
                serde_json::to_string(a).unwrap_or_default(),
            ),
            None => ("(none)".to_string(), String::new()),
        };
        self.pending = Some(Pending { tool, args, sitrep });
        Reading {
            actions,
            text,
            bboxes: Vec::new(),
            errors,
        }
    }

    /// A completion (report_completion, or a finish of the grammar: done written as text,
    /// Qwen's `terminate`) needs `min_evidence` characters of evidence; a shorter one is
    /// dropped with an error. A finish form that carries no answer takes the SITREP as its
    /// evidence (`finish.rs`).
    fn check_completion(
        &mut self,
        actions: &mut Vec<Action>,
        errors: &mut Vec<String>,
        sitrep: &str,
    ) {
        let bare = super::finish::bare(&self.options);
        super::finish::fill_bare(actions, sitrep, bare);
        let evidence = match actions.first().map(|a| &a.kind) {
            Some(ActionKind::ReportCompletion { evidence }) => evidence,
            Some(ActionKind::Done { text }) => text,
            _ => return,
        };
        let n = evidence.trim().chars().count();
        if n < self.s.min_evidence {
            errors.push(format!(
                "report_completion: the evidence has {n} characters; at least {} are needed. Describe in detail what on the screen proves the mission is complete, or keep working.",
                self.s.min_evidence
            ));
            actions.clear();
            return;
        }
        self.finish.check(actions, errors, sitrep, bare);
    }

    /// Whether this turn should break a loop instead of asking the operator.
    fn wants_recovery(&self, turn: u32) -> bool {
        if !self.s.loop_recovery {
            return false;
        }
        let cooled = self
            .last_recovery_turn
            .is_none_or(|t| turn.saturating_sub(t) > self.s.loop_recovery_cooldown);
        let fresh_loop = self
            .memory
            .snapshots
            .last()
            .is_some_and(|s| s.has_loop() && self.last_leader_turn == turn);
        cooled && (self.repeats >= RECOVERY_REPEATS || fresh_loop)
    }
}

fn clip(s: &str, n: usize) -> String {
    s.chars().take(n).collect()
}

/// A tool call's arguments as an object (a JSON string or an object).
fn arguments(call: &ToolCall) -> Value {
    match &call.arguments {
        Value::String(s) => serde_json::from_str(s).unwrap_or(Value::Null),
        v => v.clone(),
    }
}

impl Strategy for Commander {
    fn name(&self) -> &'static str {
        "commander"
    }

    fn consult(&mut self, ctx: &TurnContext<'_>, ask: &mut Ask<'_>) -> Option<Reading> {
        self.turn = ctx.turn;
        let reasons = self.reasons(ctx.turn);
        if !reasons.is_empty() {
            self.mode = Mode::Evaluation;
            let reply = ask(self.leader_prompt(ctx, &reasons))?;
            match reply.truncated() {
                true => self.leader_cut_off(ctx),
                false => self.apply_leader(&reply, ctx),
            }
        }
        if self.wants_recovery(ctx.turn) {
            self.last_recovery_turn = Some(ctx.turn);
            let actions: Vec<Action> = vec![
                ActionKind::Key {
                    keys: "escape".into(),
                }
                .into(),
                ActionKind::Move {
                    x: Some(500),
                    y: Some(500),
                }
                .into(),
            ];
            self.pending = Some(Pending {
                tool: "loop_recovery".into(),
                args: "escape, pointer to the centre".into(),
                sitrep: "a loop was detected; recovering instead of repeating".into(),
            });
            return Some(Reading {
                actions,
                text: "loop recovery: escape, pointer to the centre".into(),
                ..Reading::default()
            });
        }
        None
    }

    /// The loop breaker's count decides a recovery; its note goes to the operator as feedback.
    fn loop_status(&mut self, repeats: u32, note: Option<&str>) {
        self.repeats = repeats;
        if let Some(n) = note {
            self.feedback.push(n.to_string());
        }
    }

    fn prompt(&mut self, ctx: &TurnContext<'_>) -> Prompt {
        let brief = self.brief.clone().unwrap_or_else(|| ctx.task.to_string());
        // a family's grammar when its dialect is set (strategy/grammar), else franz's own
        let space = Space::of(&self.options, ctx.screenshot.size);
        let family = grammar::of(self.options.dialect);
        let template = family.map(|g| grammar::prompts::operator_system(g, space));
        let system = self.options.system_prompt.clone().unwrap_or_else(|| {
            prompts::fill(
                template.as_deref().unwrap_or(prompts::OPERATOR_SYSTEM),
                &[
                    ("brief", &brief),
                    ("min_evidence", &self.s.min_evidence.to_string()),
                    ("coords", &space.wording()),
                ],
            )
        });
        let system =
            crate::strategy::with_targets_note(&self.options, system, prompts::TARGETS_TOOLS);
        let mut user = format!(
            "MISSION: {}\nTURN {} - EXECUTION\n\n{}",
            ctx.task,
            ctx.turn,
            self.memory.context()
        );
        for f in &self.feedback {
            user.push_str(&format!("\nERROR in your last turn: {f}"));
        }
        user.push_str(match family {
            Some(_) => {
                "\n\nWrite your SITREP (OBJ, DOD, OBS, ACT), then perform exactly one action."
            }
            None => "\n\nWrite your SITREP (OBJ, DOD, OBS, ACT), then call exactly one tool.",
        });
        let tools = family.map_or_else(
            || schema::with_targets(schema::operator(space), self.options.targets_in_words),
            |g| grammar::prompts::operator_tools(g, space),
        );
        Prompt {
            messages: vec![
                Message::system(system),
                Message::user_with_image(
                    crate::strategy::with_area_note(user, ctx.screenshot),
                    ctx.screenshot.data_url.clone(),
                ),
            ],
            format: super::reply_format::of_tools(
                &super::reply_format::evidence_of_at_least(&tools, self.s.min_evidence),
                space,
            ),
            tools,
            temperature: Some(self.s.operator_temperature),
            max_tokens: Some(self.s.operator_max_tokens),
            tool_choice: Some(ToolChoice::auto()),
        }
    }

    fn read(&mut self, reply: &Reply, ctx: &TurnContext<'_>) -> Reading {
        // `consult` is skipped on a turn with an injected reply
        self.turn = ctx.turn;
        let sitrep = strip_think(&reply.content).trim().to_string();
        let Some(first) = reply.tool_calls.first() else {
            return self.read_text(reply, ctx, sitrep);
        };
        let mut errors = Vec::new();
        for extra in reply.tool_calls.iter().skip(1) {
            errors.push(format!(
                "{}: too_many_tool_calls (one tool per turn; it was not executed)",
                extra.name
            ));
        }
        let parsed = super::parse_one_call(reply, first, &self.options, ctx);
        errors.extend(parsed.errors);
        let mut actions = parsed.actions;
        // a cut call may have lost part of its arguments: nothing of a cut reply runs
        super::finish::cut_off(reply, &mut actions, &mut errors);
        self.check_completion(&mut actions, &mut errors, &sitrep);
        self.pending = Some(Pending {
            tool: first.name.clone(),
            args: arguments(first).to_string(),
            sitrep: sitrep.clone(),
        });
        Reading {
            actions,
            text: sitrep,
            bboxes: Vec::new(),
            errors,
        }
    }

    fn scripted_reply(&mut self, turn: u32) -> Option<String> {
        super::boot_turn(&self.options, turn)
    }

    fn record(&mut self, reading: &Reading, results: &[ActionResult]) {
        let mut problems = reading.errors.clone();
        for r in results {
            if let ActionResult::Error(e) = r {
                problems.push(e.to_string());
            }
        }
        let result = if problems.is_empty() {
            "ok".to_string()
        } else {
            format!("ERROR {}", problems.join("; "))
        };
        if let Some(p) = self.pending.take() {
            self.memory.records.push(Record {
                turn: self.turn,
                tool: p.tool,
                args: p.args,
                result,
                sitrep: p.sitrep,
                archived: false,
            });
        }
        for (a, r) in reading.actions.iter().zip(results) {
            if let (
                ActionKind::ReportProgress {
                    objective_id,
                    status,
                    evidence,
                },
                true,
            ) = (&a.kind, r.is_ok())
                && matches!(status, ProgressStatus::Done | ProgressStatus::Blocked)
            {
                let s = if *status == ProgressStatus::Done {
                    "DONE"
                } else {
                    "BLOCKED"
                };
                self.escalation = Some(format!(
                    "the Operator reported {s} on {objective_id}: {evidence}"
                ));
            }
        }
        self.feedback = problems;
    }
}

#[cfg(test)]
mod tests;
