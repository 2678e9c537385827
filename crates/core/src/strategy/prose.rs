//! Whether the text of a reply reads as an answer written for a person (prose) or only looks
//! like text: a broken tool call, markup, a stack trace, a code block, symbols, a word
//! repeated, or a copy of the prompt. A plain answer ends a run only when it is prose and
//! says something the prompt did not (docs/actions.md, "How a run finishes").
//!
//! Hand-written rules, each naming what it catches: no crate judges "prose", and the rules
//! must hold for garbage no list foresees. Each is linear in the text's length (the regexes
//! of the `regex` crate are), and each errs on the side of "not prose": a real answer that
//! trips one costs a turn, garbage taken as an answer ends the run as a lie.

use regex::Regex;
use std::collections::HashSet;
use std::sync::LazyLock;

/// What a text that is not prose looks like, for the problem sent back to the model.
pub fn not_prose(text: &str) -> Option<&'static str> {
    let t = text.trim();
    if t.is_empty() {
        return Some("empty");
    }
    if looks_like_a_call(t) {
        return Some("a tool call or action that could not be read (broken or cut off)");
    }
    if has_markup(t) {
        return Some("markup (HTML/XML tags or template tokens), not an answer");
    }
    if is_error_dump(t) {
        return Some("an error message or stack trace, not an answer");
    }
    if only_code(t) {
        return Some("a code block, not an answer");
    }
    if is_symbols(t) {
        return Some("symbols or an unbroken token, not words");
    }
    if is_repetition(t) {
        return Some("the same words over and over");
    }
    None
}

/// A regex of a constant pattern (`None` only if the pattern were wrong: tests build each).
fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

fn matches(r: &LazyLock<Option<Regex>>, t: &str) -> bool {
    r.as_ref().is_some_and(|r| r.is_match(t))
}

/// The keys of an action or tool-call object, in any dialect franz reads.
static CALL_KEY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r#"(?i)["']\s*(name|arguments|parameters|function|action|actions|tool|tool_calls?|type|coordinates?|box|bbox|start_box|x|y|x1|y1|keys|observation|status|error)\s*["']\s*:"#,
    )
});

/// A function call: a name directly followed by `(` and a value (a number, a quote, a keyword
/// argument) or nothing: `left_click(500, 3`, `pyautogui.click(x=`, `finished(`, `done()`.
static CALL: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r#"(?m)(^|[\s`>:])[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\(\s*(-?[0-9.]|["'\[{<]|[A-Za-z_]+\s*=|\)|$)"#,
    )
});

/// The markers of the dialects' call syntax.
static CALL_MARKER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?im)(^\s*(action|thought)\s*:|\[tool_calls?\]|tool_call|<function|```\s*(done|fail|wait)\s*```)",
    )
});

/// A call the parser could not read: an action object (whole or cut), a server's error
/// object, a reply that is only a JSON value, an unbalanced JSON structure, a function call,
/// a dialect's marker.
fn looks_like_a_call(t: &str) -> bool {
    let opens = t.matches(['{', '[']).count();
    let closes = t.matches(['}', ']']).count();
    let only_json = t.starts_with('{') || (t.starts_with('[') && t.ends_with(']'));
    opens != closes
        || only_json
        || (t.contains('{') && matches(&CALL_KEY, t))
        || matches(&CALL, t)
        || matches(&CALL_MARKER, t)
}

/// A tag (`<div`, `</p>`, `<!DOCTYPE`, `<?xml`, `<br/>`), an entity (`&lt;`), or a template
/// token (`<|im_start|>`).
static MARKUP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"(<[!?/]?[A-Za-z][A-Za-z0-9:_-]*(\s|/?>|$))|(<\|)|(\|>)|(&[a-z]+;)|(&#[0-9]+;)")
});

fn has_markup(t: &str) -> bool {
    matches(&MARKUP, t)
}

/// A traceback or an exception, a server's error page or status line, a crash.
static ERROR_DUMP: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r#"(?m)(Traceback \(most recent call last\)|^\s*File ".*", line [0-9]+|^\s*at [\w.$<>\[\]]+ ?\(.*:[0-9]+|^\s*at .*:[0-9]+:[0-9]+\)?\s*$|panicked at|stack backtrace|goroutine [0-9]+ \[|Exception in thread|^\s*[A-Za-z_.]*[A-Za-z](Error|Exception)(:|\s*$)|^\s*#[0-9]+\s+0x[0-9a-f]+|Segmentation fault|core dumped|HTTP/[0-9.]+ [0-9]{3}|^\s*([0-9]{3} )?(Bad Gateway|Service Unavailable|Internal Server Error|Gateway Timeout|Not Found)\s*$)"#,
    )
});

fn is_error_dump(t: &str) -> bool {
    matches(&ERROR_DUMP, t)
}

/// Only code: everything outside ``` fences is blank, or a fence is left open (a cut reply).
fn only_code(t: &str) -> bool {
    let fences = t.matches("```").count();
    if fences == 0 {
        return false;
    }
    if fences % 2 == 1 {
        return true;
    }
    let outside: String = t.split("```").step_by(2).collect::<Vec<_>>().join(" ");
    !outside.chars().any(char::is_alphanumeric)
}

/// Mostly symbols (less than half letters or digits), or one unbroken token over 120
/// characters that is not a link (base64, a hash run on).
fn is_symbols(t: &str) -> bool {
    let visible = t.chars().filter(|c| !c.is_whitespace()).count();
    let alnum = t.chars().filter(|c| c.is_alphanumeric()).count();
    if alnum == 0 || (visible >= 8 && alnum * 2 < visible) {
        return true;
    }
    t.split_whitespace()
        .any(|w| w.chars().count() > 120 && !w.contains("://"))
}

/// Twelve words or more, under a quarter of them different: a model stuck on a phrase.
fn is_repetition(t: &str) -> bool {
    let words = words(t);
    if words.len() < 12 {
        return false;
    }
    let distinct: HashSet<&str> = words.iter().map(String::as_str).collect();
    distinct.len() * 4 < words.len()
}

/// The lowercase words (letters and digits) of a text.
pub fn words(t: &str) -> Vec<String> {
    t.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Words a copy of a prompt carries as labels, not content.
const LABELS: [&str; 10] = [
    "task",
    "goal",
    "mission",
    "objective",
    "instruction",
    "instructions",
    "user",
    "assistant",
    "system",
    "prompt",
];

/// Runs of this many words found in the prompt count as copied from it.
const RUN: usize = 4;

/// The words of a text without the labels.
fn content_words(t: &str) -> Vec<String> {
    words(t)
        .into_iter()
        .filter(|w| !LABELS.contains(&w.as_str()))
        .collect()
}

/// Whether `answer` only restates the task or copies the prompt: only words of the task
/// (labels such as "TASK:" aside), three or more of them or most of the task's, or three
/// quarters of it in runs of four words or more found in the task or in `prompts` (the
/// system prompt, the user messages).
pub fn restates(answer: &str, task: &str, prompts: &[&str]) -> bool {
    let said = content_words(answer);
    let task_words: HashSet<String> = content_words(task).into_iter().collect();
    let distinct: HashSet<&String> = said.iter().collect();
    // only the task's words: three or more, or most of a short task ("Open Firefox")
    let most = distinct.len() * 4 >= task_words.len() * 3;
    if !said.is_empty() && (said.len() >= 3 || most) && said.iter().all(|w| task_words.contains(w))
    {
        return true;
    }
    if said.len() < RUN {
        return false;
    }
    let mut runs: HashSet<String> = HashSet::new();
    for source in prompts.iter().copied().chain([task]) {
        let w = content_words(source);
        runs.extend(w.windows(RUN).map(|r| r.join(" ")));
    }
    let mut copied = vec![false; said.len()];
    for (i, run) in said.windows(RUN).enumerate() {
        if runs.contains(&run.join(" ")) {
            copied[i..i + RUN].iter_mut().for_each(|c| *c = true);
        }
    }
    let n = copied.iter().filter(|c| **c).count();
    n * 4 >= said.len() * 3
}

/// Whether a task only asks a question (an answer needs no action): it ends with a question
/// mark, or starts with a question word or a request to tell or report something.
pub fn only_asks(task: &str) -> bool {
    const ASKING: [&str; 24] = [
        "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "is", "are", "was",
        "were", "does", "do", "did", "can", "could", "tell", "describe", "report", "say", "answer",
        "name",
    ];
    let t = task.trim();
    if t.ends_with('?') || t.contains("? ") {
        return true;
    }
    words(t)
        .first()
        .is_some_and(|w| ASKING.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        for r in [&CALL_KEY, &CALL, &CALL_MARKER, &MARKUP, &ERROR_DUMP] {
            assert!(r.is_some());
        }
    }

    #[test]
    fn answers_written_for_a_person_are_prose() {
        for answer in [
            "The task is complete. The file hi.txt was created (size 3 bytes).",
            "Done! I typed the text and pressed Enter.",
            "The value is {\"a\": 1}.",
            "42",
            "3.14159",
            "Yes.",
            "The dialog says: \"Saved\". I clicked OK and it closed (see the terminal).",
            "**Done.** The terminal shows `hello` on the last line.",
            "- clicked Save\n- the title bar now reads report.txt",
            "The file is at https://example.com/a/b?c=d, and x < 5 holds.",
            "The answer is 7 (six plus one).",
            "I found the error: the build failed because a semicolon is missing.",
            "The page shows \"500 Internal Server Error\" in its title.",
        ] {
            assert_eq!(not_prose(answer), None, "{answer}");
        }
    }

    #[test]
    fn garbage_is_not_prose() {
        for garbage in [
            r#"{"name": "click_element", "arguments": {"box": [500, 300"#,
            r#"{"name": "click_element", "arguments": {"box": [500, 300]}}"#,
            "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>",
            "<html><body><h1>Error</h1></body></html>",
            "<tool_call>\n{\"name\": \"computer_use\", \"arguments\": {\"action\": \"left_",
            "<response><status>ok</status>",
            "```json\n{\"name\": \"click\", \"arguments\": {\"x\": 5\n```",
            "```python\npyautogui.click(x=5, y=6)\n```",
            "```\nsome output\n```",
            "```text\nThe file is sa",
            "Traceback (most recent call last):\n  File \"agent.py\", line 3, in <module>\n    main()\nKeyError: 'x'",
            "thread 'main' panicked at src/main.rs:3:5:\nindex out of bounds",
            "java.lang.NullPointerException\n\tat com.example.App.run(App.java:12)",
            "Error: ENOENT: no such file or directory\n    at Object.openSync (node:fs:601:3)",
            "panic: runtime error: index out of range\n\ngoroutine 1 [running]:",
            "<response>\n  <action>click</action>\n  <x>50",
            "TypeError: Cannot read properties of undefined (reading 'x')\n    at Object.<anonymous> (/app/index.js:1:2)",
            "left_click(500, 3",
            "click(start_box='(100,200)')",
            "Action: click(start_box='(1,2)'",
            "pyautogui.click(x=100",
            "done()",
            "<|im_start|>assistant",
            "}}]]}}]}",
            r#"{"error": "model not loaded"}"#,
            "[1, 2, 3]",
            "<html>\n<head><title>500 Internal Server Error</title></head>",
            "502 Bad Gateway",
            "ok ok ok ok ok ok ok ok ok ok ok ok ok ok",
            &"QUFB".repeat(40),
            "",
        ] {
            assert!(not_prose(garbage).is_some(), "{garbage:?}");
        }
    }

    #[test]
    fn a_copy_of_the_task_or_the_prompt_restates_it() {
        let task = "Click the OK button";
        let system = "You are a desktop automation agent. You see the screen through screenshots and act with the tools you are given.";
        for echo in [
            "TASK: Click the OK button",
            "Click the OK button.",
            "task: click the ok button",
            "You are a desktop automation agent. You see the screen through screenshots.",
        ] {
            assert!(restates(echo, task, &[system]), "{echo}");
        }
        for answer in [
            "I clicked the OK button; the dialog closed.",
            "Clicked the OK button.",
            "OK",
            "The OK button is gone and the main window has the focus.",
        ] {
            assert!(!restates(answer, task, &[system]), "{answer}");
        }
        assert!(!restates("5", "Which is larger, 3 or 5?", &[]));
        assert!(restates("TASK: Open Firefox", "Open Firefox", &[]));
        assert!(!restates("Firefox", "Open Firefox", &[]));
        let long = "Click the OK button in the Save dialog, then close the window";
        assert!(restates("Click the OK button", long, &[]));
        assert!(!restates("OK button", task, &[]));
    }

    #[test]
    fn questions_only_ask() {
        for q in [
            "What is the title of the window?",
            "which file is newest",
            "Tell me the version shown in the About dialog",
            "The dialog shows a number. What is it? Answer with the number.",
        ] {
            assert!(only_asks(q), "{q}");
        }
        for t in ["Click the OK button", "x", "Type hello into the terminal"] {
            assert!(!only_asks(t), "{t}");
        }
    }
}
