//! Every action a strategy's grammar offers is accepted by its constrained format and read by
//! its parser into that action, and the prompts list exactly the actions the formats allow.

use super::*;
use crate::geometry::ImageSize;
use crate::model::{Reply, ReplyFormat};
use crate::strategy::reply_format::{
    every_argument, evidence_of_at_least, of_tools, tools_reply, vision, vision_schema,
};
use crate::strategy::test_support::{first_turn, screenshot};
use crate::strategy::{prompts, schema};
use serde_json::{Value, json};

/// An example value of each argument kind, in `space`.
fn example(a: Arg, i: usize) -> String {
    match a {
        Arg::Coord => ["500", "300", "1000", "0"][i % 4].to_string(),
        Arg::Direction => "\"down\"".into(),
        Arg::Count => "3".into(),
        Arg::Text => "\"say \\\"hi\\\" now\"".into(),
        Arg::Key => "\"ctrl+shift+f12\"".into(),
    }
}

fn call_example(name: &str, args: &[Arg]) -> String {
    let vals: Vec<String> = args
        .iter()
        .enumerate()
        .map(|(i, a)| example(*a, i))
        .collect();
    format!("{name}({})", vals.join(", "))
}

fn anchored(g: &G) -> regex::Regex {
    regex::Regex::new(&format!("^{}$", g.regex())).unwrap()
}

/// The strategy `name` reading `text` on a first turn: its actions and problems.
fn read(name: &str, text: &str) -> (usize, Vec<String>) {
    let obs = screenshot();
    let ctx = first_turn(&obs);
    let mut s = crate::strategy::create(name, ReadOptions::default()).unwrap();
    s.prompt(&ctx);
    let r = s.read(&Reply::text(text), &ctx);
    (r.actions.len(), r.errors)
}

#[test]
fn every_call_of_the_narrative_grammar_is_accepted_and_read() {
    let re = anchored(&narrative_grammar(Space::Norm1000, false));
    for (name, args) in CALLS {
        let reply = format!("{}\nI see the desktop and act.", call_example(name, args));
        assert!(re.is_match(&reply), "the grammar refuses {reply:?}");
        let (actions, errors) = read("narrative", &reply);
        assert_eq!(
            (actions, errors.clone()),
            (1, vec![]),
            "{reply:?}: {errors:?}"
        );
    }
    // the story is optional: the call alone is a whole reply
    assert!(re.is_match("left_click(500, 300)"));
    assert_eq!(read("narrative", "left_click(500, 300)"), (1, vec![]));
    for bad in [
        "left_click(500, 300)\n",
        "left_click(1001, 3)\nstory",
        "click_it(5, 5)\nstory",
        "left_click(500, 300)\nstory\nmore",
        "I will click.\nleft_click(1, 2)",
        "left_click(1, 2)\nthen right_click(3, 4)",
        "done(\"\")\nfinished",
        "scroll(1, 2, \"down\", 0)\nscrolling",
    ] {
        assert!(!re.is_match(bad), "the grammar accepts {bad:?}");
    }
    let pixels = anchored(&narrative_grammar(
        Space::Pixels(ImageSize::new(1366, 768)),
        false,
    ));
    assert!(pixels.is_match("drag(1365, 0, 10, 767)\nok"));
    assert!(!pixels.is_match("drag(13650, 0, 10, 767)\nok"));
}

#[test]
fn a_bounded_number_is_every_number_up_to_its_top_and_no_other() {
    for top in [0, 7, 10, 99, 100, 639, 1000, 1919, 2559] {
        let re = anchored(&up_to(top));
        for n in 0..=top + 20 {
            assert_eq!(re.is_match(&n.to_string()), n <= top, "{n} against {top}");
        }
        assert!(!re.is_match("01"), "a leading zero against {top}");
    }
}

/// Every call of the grammar, with points in each coordinate space the strategies answer in
/// (the test screenshot is 100x100), is accepted by that space's grammar and schema and read
/// by the parser in that space; a point beyond the space is refused by both formats.
#[test]
fn every_call_in_each_coordinate_space_is_accepted_and_read() {
    let pixels = ReadOptions {
        pixel_coords: true,
        ..ReadOptions::default()
    };
    let relative = ReadOptions {
        exact_space: Some(crate::exact_target::Space::Relative),
        ..ReadOptions::default()
    };
    let spaces = [
        (
            Space::Pixels(ImageSize::new(100, 100)),
            pixels,
            ["50", "30", "99", "0"],
            "100",
        ),
        (Space::Relative, relative, ["0.5", "0.25", "1", "0"], "1.5"),
    ];
    for (space, options, coords, beyond) in spaces {
        let re = anchored(&narrative_grammar(space, false));
        let schema = vision_schema(space, false);
        for (name, args) in CALLS {
            let vals: Vec<String> = args
                .iter()
                .enumerate()
                .map(|(i, a)| match a {
                    Arg::Coord => coords[i % 4].to_string(),
                    _ => example(*a, i),
                })
                .collect();
            let reply = format!("{name}({})\nI act.", vals.join(", "));
            assert!(
                re.is_match(&reply),
                "{space:?}: the grammar refuses {reply:?}"
            );
            let obs = screenshot();
            let ctx = first_turn(&obs);
            let mut s = crate::strategy::create("narrative", options.clone()).unwrap();
            s.prompt(&ctx);
            let r = s.read(&Reply::text(&reply), &ctx);
            assert_eq!(
                (r.actions.len(), r.errors.clone()),
                (1, vec![]),
                "{space:?} {reply:?}"
            );
        }
        let far = format!("left_click({beyond}, 0)\nI act.");
        assert!(!re.is_match(&far), "{space:?}: the grammar accepts {far:?}");
        let point = |x: &str| {
            let x: Value = serde_json::from_str(x).unwrap();
            json!({"observation": "o", "actions": [{"name": "click", "x1": x, "y1": 0}]})
        };
        assert!(valid(&point(coords[1]), &schema), "{space:?}");
        assert!(!valid(&point(beyond), &schema), "{space:?}: {beyond}");
    }
}

#[test]
fn the_narrative_prompt_lists_exactly_the_grammars_calls() {
    let block = prompts::NARRATIVE_SYSTEM
        .split("Answer with exactly ONE action")
        .nth(1)
        .and_then(|b| b.split("Then write").next())
        .unwrap();
    let call = regex::Regex::new(r"([a-z_]+)\(([^()]*)\)").unwrap();
    let mut listed: Vec<(String, usize)> = call
        .captures_iter(block)
        .map(|c| (c[1].to_string(), c[2].split(',').count()))
        .collect();
    listed.sort();
    let mut table: Vec<(String, usize)> = CALLS
        .iter()
        .map(|(n, a)| (n.to_string(), a.len()))
        .collect();
    table.sort();
    assert_eq!(listed, table, "NARRATIVE_SYSTEM and CALLS disagree");
}

/// Checks `v` against the parts of JSON Schema the formats use.
fn valid(v: &Value, s: &Value) -> bool {
    if let Some(alts) = s.get("anyOf").and_then(Value::as_array) {
        return alts.iter().any(|a| valid(v, a));
    }
    let pattern = s.get("pattern").and_then(Value::as_str);
    if pattern.is_some_and(|p| {
        v.as_str()
            .is_none_or(|t| !regex::Regex::new(p).unwrap().is_match(t))
    }) {
        return false;
    }
    if s.get("const").is_some_and(|c| c != v)
        || s.get("enum")
            .and_then(Value::as_array)
            .is_some_and(|e| !e.contains(v))
    {
        return false;
    }
    let n = |k: &str| s.get(k).and_then(Value::as_f64);
    match s.get("type").and_then(Value::as_str) {
        None => true,
        Some("string") => v.as_str().is_some_and(|t| {
            let len = t.chars().count() as f64;
            n("maxLength").is_none_or(|m| len <= m) && n("minLength").is_none_or(|m| len >= m)
        }),
        Some("integer") => v.as_i64().is_some_and(|i| {
            n("minimum").is_none_or(|m| i as f64 >= m) && n("maximum").is_none_or(|m| i as f64 <= m)
        }),
        Some("number") => v.as_f64().is_some_and(|x| {
            n("minimum").is_none_or(|m| x >= m) && n("maximum").is_none_or(|m| x <= m)
        }),
        Some("array") => v.as_array().is_some_and(|a| {
            n("minItems").is_none_or(|m| a.len() as f64 >= m)
                && n("maxItems").is_none_or(|m| a.len() as f64 <= m)
                && s.get("items").is_none_or(|i| a.iter().all(|x| valid(x, i)))
        }),
        Some("object") => object_valid(v, s),
        Some(_) => false,
    }
}

fn object_valid(v: &Value, s: &Value) -> bool {
    let Some(o) = v.as_object() else { return false };
    let props = s.get("properties").and_then(Value::as_object);
    let required = s.get("required").and_then(Value::as_array);
    if required.is_some_and(|r| {
        r.iter()
            .any(|k| k.as_str().is_none_or(|k| !o.contains_key(k)))
    }) {
        return false;
    }
    let closed = s.get("additionalProperties") == Some(&Value::Bool(false));
    o.iter().all(|(k, x)| match props.and_then(|p| p.get(k)) {
        Some(ps) => valid(x, ps),
        None => !closed,
    })
}

fn vision_example(name: &str, fields: &[(&str, Arg)]) -> Value {
    let mut action = serde_json::Map::new();
    action.insert("name".into(), json!(name));
    for (i, (f, a)) in fields.iter().enumerate() {
        let text = example(*a, i);
        action.insert((*f).into(), serde_json::from_str(&text).unwrap());
    }
    json!({"observation": "a window", "actions": [action]})
}

#[test]
fn every_action_of_the_vision_schema_is_accepted_and_read() {
    let schema = vision_schema(Space::Norm1000, false);
    for (name, fields) in VISION_ACTIONS {
        let reply = vision_example(name, fields);
        assert!(valid(&reply, &schema), "the schema refuses {reply}");
        let (actions, errors) = read("vision", &reply.to_string());
        assert_eq!(
            (actions, errors.clone()),
            (1, vec![]),
            "{reply}: {errors:?}"
        );
    }
    for bad in [
        json!({"observation": "x", "actions": []}),
        json!({"observation": "x", "actions": [{"name": "click", "x1": 5}]}),
        json!({"observation": "x", "actions": [{"name": "clack", "x1": 5, "y1": 5}]}),
        json!({"actions": [{"name": "wait", "seconds": 1}]}),
        json!({"observation": "x", "actions": [{"name": "done", "text": ""}]}),
    ] {
        assert!(!valid(&bad, &schema), "the schema accepts {bad}");
    }
}

#[test]
fn the_vision_prompt_lists_exactly_the_schemas_actions() {
    let line = prompts::VISION_SYSTEM
        .lines()
        .find(|l| l.starts_with("Action names"))
        .unwrap();
    let (_, list) = line.split_once(':').unwrap();
    let bare = regex::Regex::new(r"\([^)]*\)")
        .unwrap()
        .replace_all(list, "");
    let names = bare.trim_end_matches('.');
    let mut listed: Vec<&str> = names.split(',').map(str::trim).collect();
    listed.sort();
    let mut table: Vec<&str> = VISION_ACTIONS.iter().map(|(n, _)| *n).collect();
    table.sort();
    // every field the schema asks for is one the prompt names
    for (name, fields) in VISION_ACTIONS {
        for (field, _) in *fields {
            let word = regex::Regex::new(&format!(r"\b{field}\b")).unwrap();
            assert!(
                word.is_match(list),
                "{name}'s field {field} is not in: {line}"
            );
        }
    }
    assert_eq!(listed, table, "VISION_SYSTEM and VISION_ACTIONS disagree");
}

#[test]
fn a_call_format_accepts_each_tool_with_its_own_arguments_only() {
    let tools = [
        schema::tools_strategy(Space::Norm1000),
        schema::operator(Space::Norm1000),
        schema::leader(),
    ]
    .concat();
    let Some(ReplyFormat::Call { schema: s, .. }) = of_tools(&tools, Space::Norm1000) else {
        panic!("tools give a call format");
    };
    let ok = json!({"name": "press_key", "arguments": {"key": "enter"}});
    assert!(valid(&ok, &s));
    let wrong = json!({"name": "press_key", "arguments": {}});
    assert!(!valid(&wrong, &s), "a required argument is missing");
    let unknown = json!({"name": "press_any_key", "arguments": {}});
    assert!(!valid(&unknown, &s));
    for t in &tools {
        let name = &t.function.name;
        let one = json!({"name": name, "arguments": minimal(&every_argument(&t.function.parameters, Space::Norm1000))});
        assert!(valid(&one, &s), "{one}");
    }
    assert_eq!(of_tools(&[], Space::Norm1000), None);
}

/// The required arguments of a parameters schema, each with a value of its type.
fn minimal(params: &Value) -> Value {
    let mut out = serde_json::Map::new();
    let props = params.get("properties").cloned().unwrap_or_default();
    for k in params["required"].as_array().into_iter().flatten() {
        let k = k.as_str().unwrap();
        let p = &props[k];
        let v = match (p.get("enum"), p["type"].as_str()) {
            (Some(e), _) => e[0].clone(),
            (_, Some("string")) if k == "key" => json!("enter"),
            (_, Some("string")) => json!("x"),
            (_, Some("integer" | "number")) => json!(1),
            (_, Some("array")) => json!([500, 300]),
            _ => json!({}),
        };
        out.insert(k.into(), v);
    }
    Value::Object(out)
}

#[test]
fn only_franz_own_dialects_and_prompts_are_constrained() {
    let calls = ReadOptions {
        dialect: Some(Dialect::Calls),
        ..ReadOptions::default()
    };
    let Some(ReplyFormat::Text { gbnf }) = narrative(&calls, Space::Norm1000) else {
        panic!("the narrative's own dialect has a grammar");
    };
    assert!(
        gbnf.starts_with("root ::= (") && gbnf.contains("\"left_click(\""),
        "{gbnf}"
    );
    let own = ReadOptions {
        system_prompt: Some("mine".into()),
        ..calls.clone()
    };
    assert_eq!(narrative(&own, Space::Norm1000), None);
    let qwen = ReadOptions {
        dialect: Some(Dialect::Qwen),
        ..ReadOptions::default()
    };
    assert_eq!(narrative(&qwen, Space::Norm1000), None);
    assert_eq!(vision(&qwen, Space::Norm1000), None);
    let json = ReadOptions {
        dialect: Some(Dialect::Json),
        ..ReadOptions::default()
    };
    assert!(matches!(
        vision(&json, Space::Norm1000),
        Some(ReplyFormat::Json { .. })
    ));
}

#[test]
fn the_tools_strategy_reads_each_call_and_the_answer_its_format_allows() {
    let tools = schema::tools_strategy(Space::Norm1000);
    let Some(ReplyFormat::Json { schema: s, .. }) = tools_reply(&tools, Space::Norm1000, true)
    else {
        panic!("the tools strategy has a format");
    };
    for t in &tools {
        let name = &t.function.name;
        let mut args = minimal(&every_argument(&t.function.parameters, Space::Norm1000));
        if name == "move_mouse" {
            args = json!({"x": 500, "y": 300});
        }
        let one = json!({"name": name, "arguments": args});
        assert!(valid(&one, &s), "{one}");
        let (actions, errors) = read("tools", &one.to_string());
        assert_eq!((actions, errors.clone()), (1, vec![]), "{one}: {errors:?}");
    }
    let answer = json!({"answer": "The file is saved."});
    assert!(valid(&answer, &s));
    // the client hands the strategy the answer's text (`model/adapt.rs`), as a server's plain
    // answer would come
    let mut request = crate::model::ChatRequest::new("m", vec![]);
    request.format = tools_reply(&tools, Space::Norm1000, true);
    let mut reply = Reply::text(answer.to_string());
    crate::model::wire::read_content_call(&request, &mut reply);
    assert_eq!(reply.content, "The file is saved.");
    // a plain answer before any action goes back once (docs/actions.md); the second is the done
    let obs = screenshot();
    let ctx = first_turn(&obs);
    let mut tools_loop = crate::strategy::create("tools", ReadOptions::default()).unwrap();
    tools_loop.prompt(&ctx);
    let first = tools_loop.read(&reply, &ctx);
    assert!(first.actions.is_empty(), "{:?}", first.actions);
    assert!(
        first.errors[0].contains("would end the task"),
        "{:?}",
        first.errors
    );
    tools_loop.prompt(&ctx);
    let again = tools_loop.read(&reply, &ctx);
    assert!(
        again.errors.iter().all(|e| e.starts_with("warning:")),
        "{:?}",
        again.errors
    );
    let kinds: Vec<&str> = again.actions.iter().map(|a| a.kind.name()).collect();
    assert_eq!(kinds, ["done"]);
    assert!(!valid(&json!({"answer": ""}), &s));
}

/// Every `pattern` of a schema franz sends, collected.
fn patterns(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                match (k.as_str(), v) {
                    ("pattern", Value::String(p)) => out.push(p.clone()),
                    _ => patterns(v, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|v| patterns(v, out)),
        _ => {}
    }
}

/// The patterns use only plain regular expressions: llama.cpp's and llama-cpp-python's
/// json-schema-to-grammar refuse `(?:` and lookarounds, and llama-cpp-python then drops the
/// whole schema without a word and constrains the reply to any JSON (seen against the real
/// server: the vision reply's bboxes came back as strings).
#[test]
fn every_schema_pattern_is_one_a_servers_grammar_converter_reads() {
    let tools = [
        schema::tools_strategy(Space::Norm1000),
        schema::operator(Space::Norm1000),
        schema::leader(),
    ]
    .concat();
    let Some(ReplyFormat::Call { schema: calls, .. }) = of_tools(&tools, Space::Norm1000) else {
        panic!("tools give a call format");
    };
    let mut found = Vec::new();
    patterns(&vision_schema(Space::Norm1000, false), &mut found);
    patterns(&calls, &mut found);
    assert!(!found.is_empty(), "the key names are a pattern");
    for p in found {
        assert!(!p.contains("(?"), "{p}");
        assert!(regex::Regex::new(&format!("^{p}$")).is_ok(), "{p}");
    }
}

/// Every format's longest reply fits in [`LONGEST_REPLY`] characters, in every space (screens
/// up to 4K): a constrained turn given that many tokens (a token is at least a character of
/// these ASCII grammars, free text aside) ends with its grammar, never cut off.
#[test]
fn every_format_ends_within_the_tokens_a_constrained_turn_is_given() {
    let big = Space::Pixels(ImageSize::new(3840, 2160));
    for space in [Space::Norm1000, Space::Relative, big] {
        let calls = |tools: &[crate::model::Tool]| match of_tools(tools, space) {
            Some(ReplyFormat::Call { schema, .. }) => super::super::json_grammar::of(&schema),
            other => panic!("{other:?}"),
        };
        let answer = match tools_reply(&schema::tools_strategy(space), space, true) {
            Some(ReplyFormat::Json { schema, .. }) => super::super::json_grammar::of(&schema),
            other => panic!("{other:?}"),
        };
        let formats = [
            ("narrative", narrative_grammar(space, false)),
            (
                "vision",
                super::super::json_grammar::of(&vision_schema(space, false)),
            ),
            ("tools", answer),
            // the commander's default min_evidence
            (
                "operator",
                calls(&evidence_of_at_least(&schema::operator(space), 100)),
            ),
            ("leader", calls(&schema::leader())),
        ];
        for (name, g) in formats {
            let longest = g.max_chars();
            eprintln!("{name} {space:?}: {longest} characters at most");
            assert!(longest <= LONGEST_REPLY, "{name} {space:?}: {longest}");
        }
    }
}
