//! `franz bench turn --api-url U`: the prompt tokens a model server had to evaluate per turn,
//! for each strategy (docs/context.md, "Requests a server can cache"). Each strategy runs a
//! few turns of `franz run` (this binary, or another build's with `--franz PATH`, to compare
//! request arrangements), its run log in a scratch folder; the figures come from
//! `exchange.jsonl` and `events.jsonl` afterwards. Per call: the server's own figure when it gives one (llama.cpp's
//! `timings.prompt_n`, `usage.prompt_tokens_details.cached_tokens`), else an estimate: the
//! share of the request after the first byte that differs from the last request, times the
//! server's `prompt_tokens` (or franz's calibrated estimate without one). The output says
//! which, per call.

use super::turn::median_p95;
use crate::cli::{BenchTurnArgs, GlobalArgs};
use crate::exit::{self, Exit};
use crate::terminal::outln;
use anyhow::Context;
use franz_core::runlog::{EVENTS_FILE, EXCHANGE_FILE};
use serde_json::Value;
use std::path::Path;
use std::process::ExitCode;

/// Turns a strategy without `--turns`: a few past the first, whose request has nothing to
/// share with a last one.
const TURNS: usize = 8;

/// The strategies measured without `--strategy`.
const STRATEGIES: [&str; 4] = ["narrative", "vision", "tools", "commander"];

/// What the model is asked to do: something on screen, so every strategy acts and goes on.
const TASK: &str =
    "Click into the terminal window, type the sentence 'franz was here' and press Enter.";

pub fn bench(g: &GlobalArgs, args: &BenchTurnArgs) -> anyhow::Result<ExitCode> {
    let url = args.api_url.as_deref().unwrap_or_default();
    let turns = args.turns.unwrap_or(TURNS).max(2);
    let strategies: Vec<&str> = if args.strategies.is_empty() {
        STRATEGIES.to_vec()
    } else {
        args.strategies.iter().map(String::as_str).collect()
    };
    outln!(
        "evaluated prompt tokens per call: {url}, {turns} turns a strategy, max_tokens {}",
        args.max_tokens
    )?;
    for strategy in strategies {
        let calls = run_strategy(g, args, strategy, turns)?;
        report(strategy, &calls)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// One model call as the run log has it.
#[derive(Debug, Default)]
struct Call {
    turn: u64,
    /// The request as the server reads its prompt: the tool schema, then the messages (images
    /// as their sha256 placeholders).
    prompt: String,
    /// franz's calibrated estimate, and its figure for one image.
    estimated: u64,
    image_tokens: f64,
    /// The server's `usage`, when it gave one.
    usage: Option<Value>,
}

/// The `franz run` command line of a strategy's run: the server, the strategy, `turns` turns
/// at full speed, no screenshots on disk, no loop breaker (a real model may repeat itself);
/// the bench's own `--config`, `--sandbox` and `--launch` (and on a sandbox no failsafe: a
/// model may well click a corner there).
fn run_args(
    g: &GlobalArgs,
    args: &BenchTurnArgs,
    strategy: &str,
    turns: usize,
    runs: &Path,
) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    if let Some(c) = &g.config {
        a.extend(["--config".into(), c.to_string_lossy().into_owned()]);
    }
    if let Some(size) = &g.sandbox {
        a.push(format!("--sandbox={size}"));
    }
    for program in &g.launch {
        a.extend(["--launch".into(), program.clone()]);
    }
    let (turns, max) = (turns.to_string(), args.max_tokens.to_string());
    let url = args.api_url.clone().unwrap_or_default();
    let runs = runs.to_string_lossy().into_owned();
    a.extend(["run".into(), TASK.into()]);
    if g.sandbox.is_some() {
        a.push("--no-failsafe".into());
    }
    for (flag, value) in [
        ("--api-url", url.as_str()),
        ("--strategy", strategy),
        ("--max-steps", &turns),
        ("--max-empty-turns", &turns),
        ("--step-delay", "0"),
        ("--motion", "fast"),
        ("--loop-warn", "0"),
        ("--loop-stop", "0"),
        ("--log-images", "none"),
        ("--runs-dir", &runs),
        ("--max-tokens", &max),
        ("--leader-max-tokens", &max),
        ("--operator-max-tokens", &max),
    ] {
        a.extend([flag.to_string(), value.to_string()]);
    }
    if let Some(m) = &args.model {
        a.extend(["--model".into(), m.clone()]);
    }
    a
}

/// Runs `strategy` for `turns` turns with `franz run` (this binary, or `--franz`'s); its
/// calls, in order.
fn run_strategy(
    g: &GlobalArgs,
    args: &BenchTurnArgs,
    strategy: &str,
    turns: usize,
) -> anyhow::Result<Vec<Call>> {
    let exe = match &args.franz {
        Some(p) => p.clone(),
        None => std::env::current_exe()?,
    };
    let what = format!("evaluated-{strategy}");
    let (calls, finished, out) = super::turn::in_scratch(args.dir.as_deref(), &what, |root| {
        let out = std::process::Command::new(&exe)
            .args(run_args(g, args, strategy, turns, root))
            .stdin(std::process::Stdio::null())
            .output()
            .with_context(|| format!("cannot start {}", exe.display()))?;
        let dir = root.join("run_0001");
        let finished = jsonl(&dir.join(EVENTS_FILE))
            .into_iter()
            .rfind(|e| e["event"] == "run_finished");
        Ok((calls(&dir), finished, out))
    })?;
    outln!(
        "{strategy}: {} calls; {}",
        calls.len(),
        finished.map_or_else(
            || format!("the run did not finish ({})", out.status),
            |e| format!("{} ({})", e["outcome"], e["reason"])
        )
    )?;
    if calls.is_empty() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let msg = format!(
            "--strategy {strategy}: franz run made no model call ({}):\n{stderr}",
            out.status
        );
        return Err(Exit(exit::FAILED, msg).into());
    }
    Ok(calls)
}

/// The calls of a run directory: each request of `exchange.jsonl`, with the server's usage of
/// the response after it, else the `prompt_tokens` of its `model_reply` (franz before the
/// exchange log kept the usage); franz's estimate from its first attempt's `model_request`.
fn calls(dir: &Path) -> Vec<Call> {
    let mut out: Vec<Call> = Vec::new();
    for record in jsonl(&dir.join(EXCHANGE_FILE)) {
        if let Some(body) = record.get("request") {
            out.push(Call {
                turn: record["turn"].as_u64().unwrap_or(0),
                prompt: format!("{}{}", body["tools"], body["messages"]),
                ..Call::default()
            });
        } else if let (Some(usage), Some(last)) =
            (record.pointer("/response/usage"), out.last_mut())
            && usage.is_object()
        {
            last.usage = Some(usage.clone());
        }
    }
    let mut at = None;
    for e in jsonl(&dir.join(EVENTS_FILE)) {
        match e["event"].as_str() {
            Some("model_request") if e["attempt"] == 1 => {
                at = Some(at.map_or(0, |i| i + 1));
                if let Some(call) = at.and_then(|i| out.get_mut(i)) {
                    let images = e["images"].as_u64().unwrap_or(0).max(1);
                    call.estimated = e["estimated_tokens"].as_u64().unwrap_or(0);
                    call.image_tokens =
                        e["image_tokens"].as_u64().unwrap_or(0) as f64 / images as f64;
                }
            }
            Some("model_reply") => {
                if let (Some(call), Some(n)) =
                    (at.and_then(|i| out.get_mut(i)), e["prompt_tokens"].as_u64())
                    && call.usage.is_none()
                {
                    call.usage = Some(serde_json::json!({"prompt_tokens": n}));
                }
            }
            _ => {}
        }
    }
    out
}

/// The lines of a JSONL file that parse (none when it cannot be read).
fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// A call's evaluated prompt tokens and where the figure comes from: the server's own
/// (`timings.prompt_n`, or `prompt_tokens` less `cached_tokens`), else the share of the
/// request after the first byte that differs from `last`'s, of the server's `prompt_tokens`
/// (or of franz's estimate without one).
fn evaluated(call: &Call, last: Option<&Call>) -> (u64, &'static str) {
    let usage = call.usage.as_ref();
    let field = |k: &str| usage.and_then(|u| u.get(k)).and_then(Value::as_u64);
    let prompt = field("prompt_tokens").filter(|n| *n > 0);
    if let Some(n) = field("prompt_evaluated") {
        return (n, "server: timings.prompt_n");
    }
    if let (Some(p), Some(cached)) = (prompt, field("cached_tokens")) {
        return (p.saturating_sub(cached), "server: cached_tokens");
    }
    let share = franz_core::turn_tokens::new_share(
        last.map(|c| c.prompt.as_str()),
        &call.prompt,
        call.image_tokens,
    );
    match prompt {
        Some(p) => (
            (p as f64 * share).round() as u64,
            "estimate: after the first differing byte, of the server's prompt_tokens",
        ),
        None => (
            (call.estimated as f64 * share).round() as u64,
            "estimate: after the first differing byte, of franz's estimate",
        ),
    }
}

/// Prints a strategy's calls and the median evaluated tokens of the calls after the first.
fn report(strategy: &str, calls: &[Call]) -> std::io::Result<()> {
    let mut after_first = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let last = i.checked_sub(1).and_then(|j| calls.get(j));
        let (n, from) = evaluated(call, last);
        let prompt = call
            .usage
            .as_ref()
            .and_then(|u| u["prompt_tokens"].as_u64())
            .map_or("-".into(), |p| p.to_string());
        outln!(
            "  {strategy} call {} (turn {}): prompt {prompt} (franz {}), evaluated {n} ({from})",
            i + 1,
            call.turn,
            call.estimated
        )?;
        if i > 0 {
            after_first.push(n as f64);
        }
    }
    let (median, _) = median_p95(&mut after_first);
    outln!(
        "{strategy}: evaluated prompt tokens per call after the first: median {median:.0} ({} calls)",
        after_first.len()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_server_s_own_figure_comes_before_the_estimate() {
        let call = |usage: Value| Call {
            prompt: "abcdYYYY".into(),
            estimated: 50,
            usage: Some(usage),
            ..Call::default()
        };
        let last = Call {
            prompt: "abcdXXXX".into(),
            ..Call::default()
        };
        let llama = call(
            serde_json::json!({"prompt_tokens": 100, "prompt_evaluated": 7, "cached_tokens": 90}),
        );
        assert_eq!(evaluated(&llama, Some(&last)).0, 7);
        let openai = call(serde_json::json!({"prompt_tokens": 100, "cached_tokens": 90}));
        assert_eq!(evaluated(&openai, Some(&last)).0, 10);
        let plain = call(serde_json::json!({"prompt_tokens": 100}));
        assert_eq!(
            evaluated(&plain, Some(&last)),
            (
                50,
                "estimate: after the first differing byte, of the server's prompt_tokens"
            )
        );
        let none = Call {
            usage: None,
            ..call(Value::Null)
        };
        assert_eq!(evaluated(&none, Some(&last)).0, 25);
    }
}
