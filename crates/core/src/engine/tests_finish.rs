//! How a turn ends a run (strategy/finish.rs), through the engine, in every strategy: each
//! grammar's finish form ends the run in the turn it comes, however it is written; a reply cut
//! off at max_tokens performs nothing, except an action performed early, which stands; a
//! plain answer ends a tools run only as prose that carries what a `done` needs.

use super::*;
use crate::parser::Dialect;

/// A SITREP long enough for the commander's `min_evidence` (100 characters).
const EVIDENCE: &str = "OBS: the dialog is gone and the main window shows the saved file report.txt in its title bar, so the task is done.";

/// A reply with these calls that ended by calling them.
fn called(text: &str, calls: &[(&str, serde_json::Value)]) -> Canned {
    tool_reply(text, calls)
}

/// The leader's first brief, for the commander.
fn brief() -> Canned {
    let spawn = json!({"operator_instructions": "OBJ-1: finish", "rationale": "one step"});
    tool_reply("Plan.", &[("spawn_operator", spawn)])
}

/// Qwen's `computer_use` with these arguments, as a `<tool_call>` block.
fn qwen_text(args: serde_json::Value) -> String {
    let call = json!({"name": "computer_use", "arguments": args});
    format!("<tool_call>\n{call}\n</tool_call>")
}

/// One grammar's replies: an action, then its finish form, each as the prompt shows it.
struct Form {
    dialect: Option<Dialect>,
    what: &'static str,
    act: Canned,
    finish: Canned,
}

fn qwen_forms() -> Vec<Form> {
    let click = json!({"action": "left_click", "coordinate": [500, 500]});
    let end = json!({"action": "terminate", "status": "success"});
    let form = |what, act, finish| Form {
        dialect: Some(Dialect::Qwen),
        what,
        act,
        finish,
    };
    vec![
        form(
            "qwen: structured tool calls",
            called("I click.", &[("computer_use", click.clone())]),
            called(EVIDENCE, &[("computer_use", end.clone())]),
        ),
        form(
            "qwen: <tool_call> text",
            Canned::text(format!("I click.\n{}", qwen_text(click.clone()))),
            Canned::text(format!("{EVIDENCE}\n{}", qwen_text(end.clone()))),
        ),
        form(
            "qwen: a bare JSON call in the text",
            Canned::text(qwen_text(click)),
            Canned::text(format!(
                "{EVIDENCE}\n{}",
                json!({"name": "computer_use", "arguments": end})
            )),
        ),
    ]
}

/// The other grammars' forms; the commander's operator finishes a grammar without a finish
/// action by report_completion, as its prompt says, not by a plain answer.
fn other_forms(strategy: &str) -> Vec<Form> {
    let answer = |text: String| match strategy {
        "commander" => called("", &[("report_completion", json!({"evidence": text}))]),
        _ => Canned::text(text),
    };
    let form = |dialect, what, act: &str, finish: Canned| Form {
        dialect,
        what,
        act: Canned::text(act),
        finish,
    };
    vec![
        form(
            Some(Dialect::Uitars),
            "ui-tars: finished(content=...)",
            "Thought: I click.\nAction: click(start_box='(50,50)')",
            Canned::text(format!(
                "Thought: done.\nAction: finished(content='{EVIDENCE}')"
            )),
        ),
        form(
            Some(Dialect::Pyautogui),
            "pyautogui: DONE",
            "```python\npyautogui.click(x=50, y=50)\n```",
            Canned::text(format!("# {EVIDENCE}\n```DONE```")),
        ),
        form(
            Some(Dialect::Anthropic),
            "anthropic: a plain answer",
            r#"{"action": "left_click", "coordinate": [50, 50]}"#,
            answer(EVIDENCE.replace("OBS: t", "T")),
        ),
        form(
            Some(Dialect::Openai),
            "openai: a plain answer",
            r#"{"type": "click", "button": "left", "x": 50, "y": 50}"#,
            answer(EVIDENCE.replace("OBS: t", "T")),
        ),
    ]
}

/// franz's own forms (no family grammar; GLM's profile uses them too), per strategy.
fn franz_form(strategy: &str) -> Form {
    let (act, finish) = match strategy {
        "narrative" => (
            Canned::text("left_click(500, 500)\nI click."),
            Canned::text(format!("done(\"{EVIDENCE}\")\nFinished.")),
        ),
        "vision" => (
            Canned::text(
                r#"{"observation": "x", "actions": [{"name": "click", "x": 500, "y": 500}]}"#,
            ),
            Canned::text(
                json!({"observation": "done", "actions": [{"name": "done", "text": EVIDENCE}]})
                    .to_string(),
            ),
        ),
        "tools" => (
            called("", &[("click_element", json!({"box": [500, 500]}))]),
            Canned::text(EVIDENCE.replace("OBS: t", "T")),
        ),
        _ => (
            called(
                "OBS: a dialog",
                &[(
                    "click_element",
                    json!({"justification": "close it", "position": [500, 500]}),
                )],
            ),
            called("", &[("report_completion", json!({"evidence": EVIDENCE}))]),
        ),
    };
    Form {
        dialect: None,
        what: "franz's own",
        act,
        finish,
    }
}

/// Every grammar's finish form, exactly as its prompt shows it, ends the run in the turn it
/// comes in (turn 2, after an action), in every strategy and every way of writing it.
#[test]
fn every_finish_form_as_its_prompt_shows_it_ends_the_run_in_one_turn() {
    for strategy in ["narrative", "vision", "tools", "commander"] {
        let mut forms = qwen_forms();
        forms.extend(other_forms(strategy));
        forms.push(franz_form(strategy));
        for form in forms {
            let mut answers = Vec::new();
            if strategy == "commander" {
                answers.push(brief());
            }
            answers.extend([form.act, form.finish]);
            let mut run = Run::new(strategy, answers);
            run.read.dialect = form.dialect;
            let ran = run.go();
            let what = format!("{strategy}, {}", form.what);
            assert_eq!(
                (ran.summary.outcome, ran.summary.turns),
                (Outcome::Done, 2),
                "{what}: {} {:?}",
                reason(&ran),
                ran.events
            );
            assert_eq!(ran.clicks(), 1, "{what}");
            assert!(
                reason(&ran).contains("the saved file"),
                "{what}: {}",
                reason(&ran)
            );
        }
    }
}

/// Qwen's `terminate` written without any text around it is the form the prompt shows: it
/// ends the run at once (a bare form: strategy/finish.rs).
#[test]
fn a_bare_terminate_ends_the_run_at_once() {
    let end = json!({"action": "terminate", "status": "success"});
    for strategy in ["narrative", "vision", "tools"] {
        for finish in [
            Canned::text(qwen_text(end.clone())),
            called("", &[("computer_use", end.clone())]),
        ] {
            let mut run = Run::new(strategy, [finish]);
            run.read.dialect = Some(Dialect::Qwen);
            let ran = run.go();
            assert_eq!(
                (ran.summary.outcome, ran.summary.turns),
                (Outcome::Done, 1),
                "{strategy}: {}",
                reason(&ran)
            );
        }
    }
}

/// A reply cut off at max_tokens performs none of its actions, in every strategy and every
/// way of writing them, and the next request says so.
#[test]
fn a_reply_cut_off_at_max_tokens_performs_nothing_in_every_strategy() {
    let cut = |text: &str, calls: &[(&str, serde_json::Value)]| {
        let mut reply = match tool_reply(text, calls) {
            Canned::Reply(r) => r,
            _ => Reply::default(),
        };
        reply.finish_reason = Some("length".into());
        Canned::Reply(reply)
    };
    let click = json!({"box": [500, 500]});
    let cases = [
        (
            "narrative",
            cut(
                "left_click(500, 500)\nleft_click(600, 600)\nThe story goes o",
                &[],
            ),
        ),
        (
            "vision",
            cut(
                r#"{"observation": "x", "actions": [{"name": "click", "x": 500, "y": 500}, {"name": "click", "x": 600, "y": 600}]}"#,
                &[],
            ),
        ),
        ("tools", cut("", &[("click_element", click.clone())])),
        (
            "tools",
            cut(
                "<tool_call>{\"name\": \"click_element\", \"arguments\": {\"box\": [500, 500]}}</tool_call>",
                &[],
            ),
        ),
        ("commander", cut("OBS: x", &[("click_element", click)])),
    ];
    for (strategy, reply) in cases {
        let mut answers = Vec::new();
        if strategy == "commander" {
            answers.push(brief());
        }
        answers.push(reply);
        let mut run = Run::new(strategy, answers);
        run.options.max_steps = 2;
        let model = run.model.clone();
        let ran = run.go();
        assert_eq!(
            ran.clicks(),
            0,
            "{strategy}: a cut reply performed an action"
        );
        assert_eq!(ran.count("action_result"), 0, "{strategy}");
        let last = serde_json::to_string(&model.requests().last().unwrap().to_body()).unwrap();
        assert!(
            last.contains("cut off at max_tokens") && last.contains("nothing in it was performed"),
            "{strategy}: the model was not told: {last}"
        );
    }
}

/// With early execution, the first action of a streamed reply runs as soon as it is complete;
/// when the reply then turns out cut off at max_tokens, that action stands (it is the turn's
/// recorded action) and the model is told, in the narrative and the tools strategies.
#[test]
fn an_action_performed_early_before_the_cut_stands_and_the_model_is_told() {
    let cut = |text: &str, calls: &[(&str, serde_json::Value)]| {
        Canned::Reply(Reply {
            content: text.into(),
            tool_calls: calls
                .iter()
                .map(|(n, a)| ToolCall::new(*n, a.clone()))
                .collect(),
            finish_reason: Some("length".into()),
            ..Reply::default()
        })
    };
    let cases = [
        (
            "narrative",
            cut(
                "left_click(500, 500)\nleft_click(600, 600)\nThe story goes o",
                &[],
            ),
        ),
        (
            "tools",
            cut(
                "",
                &[
                    ("click_element", json!({"box": [500, 500]})),
                    ("click_element", json!("{\"box\": [600, 6")),
                ],
            ),
        ),
    ];
    for (strategy, reply) in cases {
        let mut run = Run::new(strategy, [reply]);
        run.options.max_steps = 2;
        run.options.stream = true;
        let model = run.model.clone();
        let ran = run.go();
        assert_eq!(ran.clicks(), 1, "{strategy}: the early click");
        let recorded = ran.events.iter().find_map(|e| match &e.kind {
            EventKind::ActionResult {
                action,
                early_exec_ms_saved,
                ..
            } => Some((action.kind.clone(), early_exec_ms_saved.is_some())),
            _ => None,
        });
        assert_eq!(
            recorded,
            Some((
                ActionKind::Click {
                    x: Some(500),
                    y: Some(500)
                },
                true
            )),
            "{strategy}"
        );
        let last = serde_json::to_string(&model.requests().last().unwrap().to_body()).unwrap();
        assert!(
            last.contains("cut off at max_tokens") && last.contains("already been performed"),
            "{strategy}: the model was not told: {last}"
        );
    }
}

/// A plain answer ends a tools run only when it reads as prose, does not restate the task or
/// copy the prompt, and (the task asking for an action) comes after an action.
#[test]
fn a_plain_answer_ends_a_tools_run_only_as_prose_that_carries_an_answer() {
    for garbage in [
        r#"{"name": "click_element", "arguments": {"box": [500, 300"#,
        "<!DOCTYPE html><html><body><h1>502 Bad Gateway</h1></body></html>",
        "TASK: Click the OK button",
        "```json\n{\"name\": \"click_element\", \"arguments\": {\"box\": [5\n```",
        "<tool_call>\n{\"name\": \"click_element\", \"arguments\": {\"box\": [500,",
        "Traceback (most recent call last):\n  File \"server.py\", line 7, in <module>\nValueError: bad",
        "You are a desktop automation agent. You see the screen through screenshots and act with the tools you are given.",
    ] {
        let mut run = Run::texts("tools", &[garbage; 3]);
        run.options.task = "Click the OK button".into();
        let ran = run.go();
        assert_eq!(
            ran.summary.outcome,
            Outcome::Failed,
            "{garbage}: {}",
            reason(&ran)
        );
        assert!(
            reason(&ran).contains("without a usable action"),
            "{garbage}: {}",
            reason(&ran)
        );
    }
    // an answer before any action goes back once, the second is accepted with a warning
    let mut run = Run::texts("tools", &["The OK button was clicked."; 2]);
    run.options.task = "Click the OK button".into();
    let model = run.model.clone();
    let ran = run.go();
    assert_eq!(
        (ran.summary.outcome, ran.summary.turns),
        (Outcome::Done, 2),
        "{}",
        reason(&ran)
    );
    let second = serde_json::to_string(&model.requests()[1].to_body()).unwrap();
    assert!(second.contains("nothing has been performed"), "{second}");
    // after an action, an answer ends the run at once
    let mut run = Run::new(
        "tools",
        [
            called("", &[("click_element", json!({"box": [500, 500]}))]),
            Canned::text("The OK button was clicked and the dialog closed."),
        ],
    );
    run.options.task = "Click the OK button".into();
    let ran = run.go();
    assert_eq!(
        (ran.summary.outcome, ran.summary.turns),
        (Outcome::Done, 2),
        "{}",
        reason(&ran)
    );
    // a task that only asks a question is answered at once
    let mut run = Run::texts("tools", &["The window's title is Untitled."]);
    run.options.task = "What is the window's title?".into();
    let ran = run.go();
    assert_eq!(
        (ran.summary.outcome, ran.summary.turns),
        (Outcome::Done, 1),
        "{}",
        reason(&ran)
    );
}
