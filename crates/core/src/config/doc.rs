//! `docs/config.md`, generated from the settings table (`settings.rs`) and the overlay's
//! defaults; `franz config --markdown` prints it and a test keeps the committed file current.

use super::settings::{Group, Kind, SETTINGS, Setting};
use super::{OVERLAY, overlay_defaults};
use std::fmt::Write as _;

const INTRO: &str = "# Configuration

> Generated from the settings table (`crates/core/src/config/settings.rs`) by
> `franz config --markdown > docs/config.md`; a test (`crates/core/src/config/doc.rs`) fails when
> this file is not current. Edit the table, not this file.

Every setting has a key (the TOML key of the config file, `--config FILE`, and of a scenario),
an environment name `FRANZ_<KEY>` (the designs' `LMSTUDIO_*` / `AGENT_*` names, docs/designs.md,
work too) and, unless it is a secret, a flag. Precedence: flags > environment > scenario file >
config file > defaults. `franz config` prints every value and where it came from, as
`key = value  # source: help`. A bad value is an error that names the key, its source, the value
and what is valid.

Which commands take which flags: `franz run` and `franz config` take every flag; `franz doctor`
the model server's; `franz act` the input's; the global flags (the first group) are accepted by
every command, before or after its name. A boolean's flag turns its default around (`--stream`,
`--no-feedback`). The image size can also be given as `AGENT_IMAGE_W` and `AGENT_IMAGE_H`
(both needed).
";

/// The type of a setting's value, in words.
fn kind(k: Kind) -> String {
    match k {
        Kind::Str => "text".into(),
        Kind::NonEmpty => "text, not empty".into(),
        Kind::Float { min, max } => format!("number, {min} to {max}"),
        Kind::Int { min, max } => format!("whole number, {min} to {max}"),
        Kind::Duration { max } => format!("seconds, or with s, m, h (`30m`); up to {max} s"),
        Kind::Bool => "true or false".into(),
        Kind::Choice(names) => format!("one of {}", code_list(names)),
        Kind::Size => "`WxH`, or empty".into(),
        Kind::Crop => "`x1,y1,x2,y2` in 0..1000".into(),
        Kind::Percent { max } => format!("percent, 0 to {max} (`50` or `50%`)"),
        Kind::Names => "names, `A,B` (a list in the file)".into(),
    }
}

fn code_list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn row(s: &Setting) -> String {
    let flag = match s.flag() {
        Some(f) => format!("`--{}`", f.long()),
        None => "(none: secret)".into(),
    };
    let default = if s.default.is_empty() {
        "(empty)".to_string()
    } else {
        format!("`{}`", s.default)
    };
    let env = code_list(&s.env_names().iter().map(String::as_str).collect::<Vec<_>>());
    let help = s.help.replace('|', "\\|");
    let secret = if s.secret {
        " Secret: shown as `***`."
    } else {
        ""
    };
    format!(
        "| `{}` | {flag} | {env} | {} | {default} | {help}.{secret} |\n",
        s.key,
        kind(s.kind)
    )
}

/// The whole of `docs/config.md`.
pub fn markdown() -> String {
    let mut out = String::from(INTRO);
    for group in Group::ALL {
        let _ = write!(
            out,
            "\n## {}\n\n| key | flag | environment | value | default | meaning |\n|---|---|---|---|---|---|\n",
            group.title()
        );
        for s in SETTINGS.iter().filter(|s| s.group == group) {
            out.push_str(&row(s));
        }
    }
    let overlay = toml::to_string(&toml::Table::from_iter([(
        OVERLAY.to_string(),
        toml::Value::Table(overlay_defaults()),
    )]))
    .unwrap_or_default();
    let _ = write!(
        out,
        "\n## `[{OVERLAY}]`\n\nThe overlays drawn onto the screenshots (`crates/core/src/overlay/config.rs`): a table of the\nconfig file or a scenario; a scenario's keys replace the file's, one by one. Colours are CSS\nstrings: `rgba(r, g, b, a)`, `rgb(r, g, b)`, `#rrggbb`, `#rrggbbaa`. A key not listed here is an\nerror. The defaults:\n\n```toml\n{overlay}```\n"
    );
    out.push_str(&overlay_ranges());
    out.push_str(POLICY_DOC);
    out.push_str(SERVER_DOC);
    out
}

/// How requests are fitted to the server (`crates/core/src/model/adapt.rs`).
const SERVER_DOC: &str = r#"
## Message shapes

Real chat templates refuse some message orders: Gemma's and Mistral's raise "Conversation roles
must alternate user/assistant/user/assistant/..." when two user messages follow each other (the
tools strategy sends the task, then the screen), Gemma 3's raises it for any `tool` message, and
some (Gemma 2, Mistral v0.1) take no system message. `message_shape` fits every request to them,
in the model client, just before it is sent (`crates/core/src/model/shape.rs`):

- `none`: the messages as the strategy built them.
- `alternate`: after an optional first system message, user and assistant strictly alternate,
  starting with a user message. Consecutive messages of one role are merged (texts joined by a
  blank line, images kept in order); a tool's result becomes user text (`Result of
  click_element: {...}`); the assistant's tool calls become `<tool_call>` blocks in its text; a
  later system message becomes user text.
- `strict`: `alternate`, and the system prompt folded into the first user message.
- `auto` (the default): `none` until the server refuses a request with a template's words
  ("roles must alternate", "System role not supported", an unknown or `tool` role, ...); then the
  request is sent again at once, without the retries, in the shape the refusal asks for (one step
  further if it asks again), and that shape is kept for the rest of the run. A retry event says
  so. `franz doctor` sends the tools strategy's message order and reports the shape the server
  needed.

## Constrained output

`constrain` asks the server to make each reply fit the strategy's format, so that a small model
cannot write what franz cannot read (`crates/core/src/model/constrain.rs`). The formats come from
the same tables as the prompts' grammars (`crates/core/src/strategy/format.rs`; the JSON
formats in `crates/core/src/strategy/reply_format.rs`):

- narrative (franz's call dialect): a GBNF grammar of one call line of the prompt's calls, then
  optionally one short line of story without parentheses;
- vision (franz's JSON dialect): a JSON schema of its object, with one or two of the prompt's
  actions, then a short observation (the actions first, so that they are written before any
  free text);
- tools: one call of the request's tools as a JSON object `{"name", "arguments"}` (every
  argument the tool needs), or `{"answer": "..."}`, the plain final answer;
- the commander's leader and operator: one call of their tools.

With a grounding model configured (`grounder_model`, docs/grounding.md), each format also lets
the planner name a pointer action's target in words in place of its point:
`left_click(target="...")` (and `right_click`, `double_left_click`, `middle_click`,
`triple_click`, `move`) in the narrative's grammar; `{"name": "click", "target": "..."}` (and
`right_click`, `double_click`, `move`) among the vision loop's actions; a call of
`click_element`, `double_click_element`, `right_click_element` or `move_mouse` with a `target`
argument in place of its position or box in the tools' and the operator's. The target is a
quoted text like the others and, under `grammar`, never a target's placeholder (`target`,
`description`, `element description`, or a text placeholder below). Without a grounder the
formats are exactly as above.

A family's own text grammar (UI-TARS, pyautogui, `<tool_call>` blocks in a narrative) and a
replaced system prompt are not constrained. How the format is written onto the wire:

| format | `grammar` | `json_schema` | `json_object` | `ollama` |
|---|---|---|---|---|
| JSON (vision, tools) | `grammar` (GBNF) | `response_format` `json_schema` | `response_format` `json_object` with `schema` | `format` |
| text (narrative) | `grammar` (GBNF) | `grammar` (GBNF) | `grammar` (GBNF) | not constrained |
| a tool call (commander) | the call as JSON content by a `grammar`, `tool_choice: "none"` | `tool_choice: "required"` | the call as JSON content, `tool_choice: "none"` | `tool_choice: "required"` |

`grammar` sends a GBNF grammar that franz writes from the format (`crates/core/src/strategy/json_grammar.rs`
for the JSON ones), without `response_format` (llama-cpp-python lets a `json_object` override
it). Its numbers are digit rules: a coordinate is a whole number from 0 to 1000 (`--coords
norm`), from 0 to the sent image's width or height less one (pixels), or a fraction from 0 to 1
(relative), so the model cannot write one outside the space. Objects are written with their
required fields only, in the order the format lists them, a tool's position or box as a point
`[x, y]` (a box in a grammar could be empty, which franz refuses), texts not empty, keys as the
keys franz knows. A text is never one of the prompts' placeholders that franz refuses as a
repeated example (`type("text")`, `"keys"`, `"result"`, ... in any case; docs/actions.md,
"Placeholders in examples"): the grammar leaves them out with a trie of them
(`crates/core/src/strategy/quoted.rs`), so a small model that would echo the prompt's example
writes a real text instead. To keep that exact and small, a constrained text starts with a
character that is neither blank nor `<` or `{` and ends with one that is not blank: under
`grammar`, a model cannot type a text that begins with `<` or `{` (with `json_schema` and
`json_object` it can, and an echo there is refused as usual). Each repeated part (a number's digits, a quoted text, a key) is one shared
rule, because llama.cpp turns every bounded repetition it reads into rules of its own.
`off` (the default) sends none of it. `auto` asks the server what it is before the first
constrained request (the answers of the context probe, `GET /props` and `GET /v1/models`):
llama.cpp's and llama-cpp-python's servers get `grammar`, every other server `json_schema`,
with calls asked for as JSON content (a server may ignore `tool_choice: "required"` without a
word, as llama-cpp-python's does, but not a schema it takes). It steps down when the server
refuses a constrained request with words about it (`response_format`, `json_schema`, `grammar`,
`schema`, `tool_choice`, ...): from `grammar` to `json_schema`, to `json_object`, then to
unconstrained, resending the request at once; a server that answers a `"required"` call request
without a call gets the next call requests as JSON content. What it learned is kept for the run.
A call written as JSON content comes back to the strategy as the tool call it is (and the tools
strategy's `{"answer": ...}` as its text). Strings and lists in a constrained call are bounded
(64 characters, 4 items), and so are the story and the observation (48 characters) and the
vision loop's actions and boxes (at most 2 each): no format's reply is longer than 512
characters (`LONGEST_REPLY`), so a constrained turn with `max_tokens` of 512 or more always ends
with its grammar, never cut off (a token is at least one character).

What each server enforces, as far as franz knows (`-`: not known, use another way):

| server | `grammar` | `json_schema` | `json_object` | `ollama` |
|---|---|---|---|---|
| llama.cpp (`llama-server`) | all of it | the schema | the schema | - |
| llama-cpp-python | all of it | refused (500) | the schema, numbers unbounded | - |
| vLLM | ignored (text formats unconstrained) | the schema | - | - |
| LM Studio | ignored | the schema | - | - |
| Ollama | - | - | - | the schema (`format`) |
| OpenAI | refused, then not sent | the schema | - | - |

A `pattern` in a schema uses plain groups only (no `(?:` or lookarounds), because llama.cpp's and
llama-cpp-python's schema-to-grammar converters refuse them, and llama-cpp-python then drops the
whole schema without a word and constrains the reply to any JSON. llama-cpp-python's converter
(0.3) also ignores `minimum` and `maximum`, so under `json_object` a model can still write a
coordinate outside the space: franz refuses it as it refuses any such point
(docs/coordinates.md) and tells the model. `grammar` leaves no such number to write.
"#;

/// The ranges of the overlay's numbers (`overlay::config::RANGES`).
fn overlay_ranges() -> String {
    let mut out = String::from(
        "
Each number has a range; a value outside it is an error that names the key and the range:

| key | range |
|---|---|
",
    );
    for (key, min, max) in crate::overlay::RANGES {
        let _ = writeln!(out, "| `{key}` | {min} to {max} |");
    }
    let _ = writeln!(
        out,
        "| `executed_heat.stops`, `bbox_heat.fill_stops` | at most {} stops, each at 0 to 1 |",
        crate::overlay::MAX_STOPS
    );
    out
}

/// The `[policy]` section of docs/config.md.
const POLICY_DOC: &str = r#"
## `[policy]`

The safety policy (`crates/core/src/policy.rs`), checked before every action of `franz run`,
`franz act` and `franz replay --execute`, outside the model: a table of the config file or a
scenario, or the file `--policy FILE` names (its keys at its top or in `[policy]`); later
layers replace the keys they give. `franz config` shows the policy in force; `franz policy
check ACTION...` says what it would do with an action. Empty lists allow everything.

| key | value | meaning |
|---|---|---|
| `deny_regions` | `[[x1, y1, x2, y2], ...]` | boxes in 0..1000 of the whole screen where no pointer action may land |
| `deny_keys` | `["alt+f4", ...]` | combos never sent, compared after alias normalisation, in any order |
| `deny_text` | `['rm\s+-rf', ...]` | regular expressions the focused field's text may not match, as the field will hold it after the action: backspace and delete applied, left/right/home/end moving the cursor, characters sent as keys counted; it starts afresh only on a click, a press of a mouse button, `focus_window` or Enter (a move, a scroll or another key keeps it); a `type` is also matched as sent, so text typed and erased is caught; the action is refused before any of it is typed. Not seen: text an application inserts itself (completion, paste, history recall) |
| `allow_only_windows` | `["^XTerm$", ...]` | regular expressions; pointer actions land only on windows whose class, instance or title matches one |
| `confirm.regions`, `confirm.keys`, `confirm.text` | as above | the action waits for a person (panel or terminal) instead of being refused, even without `--approve` |
| `policy_violations_max` | N (default 3) | refusals that end a run (exit 4) |

A refused action is not performed; its result (`policy_denied`) names the rule and is shown to
the model. Built in and always in force: the `work_area` deny rule, no pointer action lands
outside the working area (`--crop`: a canonical action outside 0..1000, or a click at the
pointer while the pointer is outside the crop, is refused, docs/coordinates.md); its refusals
count too. A model's point outside its space is no policy matter: the parser takes one within
2% of an edge for the edge and refuses one further out as the model's error, which never
counts here. The failsafe is a stop, never a violation.
"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed `docs/config.md` is what the table generates.
    #[test]
    fn docs_config_md_is_current() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/config.md");
        let want = markdown();
        if std::env::var_os("FRANZ_WRITE_DOCS").is_some() {
            std::fs::write(path, &want).expect("write docs/config.md");
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "docs/config.md is not what the settings table generates: regenerate it with \
             `cargo run -p franz -- config --markdown > docs/config.md` \
             (or `FRANZ_WRITE_DOCS=1 cargo test -p franz-core --lib config::doc`)"
        );
    }

    #[test]
    fn every_setting_and_overlay_key_is_documented() {
        let md = markdown();
        for s in SETTINGS {
            assert!(md.contains(&format!("| `{}` |", s.key)), "{}", s.key);
        }
        assert!(md.contains("crosshair_size = 20.0"), "{md}");
        assert!(md.contains("`--no-feedback`") && md.contains("`LMSTUDIO_MODEL`"));
    }
}
