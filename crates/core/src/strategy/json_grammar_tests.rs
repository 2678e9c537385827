//! Every reply a format's grammar allows is read by its strategy into an action (or the
//! answer), and numbers outside the coordinate space are not in the grammar's language. The
//! grammar's language is checked through its regular expression, rendered from the same tree as
//! its GBNF (`format.rs`, `G`).

use super::*;
use crate::geometry::ImageSize;
use crate::model::{ChatRequest, Reply, ReplyFormat};
use crate::strategy::format::{self, Axis, narrative_grammar};
use crate::strategy::grammar::Space;
use crate::strategy::test_support::{first_turn, screenshot};
use crate::strategy::{ReadOptions, schema};
use serde_json::json;

fn anchored(g: &G) -> regex::Regex {
    regex::RegexBuilder::new(&format!("^{}$", g.regex()))
        .size_limit(1 << 28)
        .build()
        .unwrap()
}

/// Characters a class may stand for in a sample (the placeholders' letters among them, for the
/// classes of `quoted.rs`'s trie).
const CANDIDATES: &str =
    "x0a9z1 .-t\"bcdefghijklmnopqrsuvwyABCDEFGHIJKLMNOPQRSTUVWXYZ\u{2026}\u{a0}";

/// The values of `g` that vary each choice once, with every other choice at its first value;
/// each repetition at its fewest and at its most.
fn samples(g: &G) -> Vec<String> {
    match g {
        G::Lit(s) => vec![s.clone()],
        G::Digit(a, b) => {
            let mut v = vec![a.to_string()];
            if b > a {
                v.push(b.to_string());
            }
            v
        }
        G::Class(c) => class_samples(c),
        G::Alt(items) => items.iter().flat_map(samples).collect(),
        G::Rule(_, g) | G::Wide { tree: g, .. } => samples(g),
        G::Seq(items) => {
            let each: Vec<Vec<String>> = items.iter().map(samples).collect();
            let base: Vec<&str> = each.iter().map(|v| v[0].as_str()).collect();
            let mut out = vec![base.concat()];
            for (i, values) in each.iter().enumerate() {
                for v in values.iter().skip(1) {
                    let mut one = base.clone();
                    one[i] = v;
                    out.push(one.concat());
                }
            }
            out
        }
        G::Rep(item, min, max) => {
            let values = samples(item);
            let mut out = vec![values[0].repeat(*min as usize)];
            if max > min {
                out.push(values[0].repeat(*max as usize));
            }
            let one = (*min).max(1) as usize;
            out.extend(values.iter().skip(1).map(|v| v.repeat(one)));
            out
        }
    }
}

/// Two of [`CANDIDATES`] that the class `c` matches (each class's regex compiled once: the
/// placeholder tries repeat the same classes thousands of times).
fn class_samples(c: &str) -> Vec<String> {
    thread_local! {
        static FITS: std::cell::RefCell<std::collections::HashMap<String, Vec<String>>> =
            Default::default();
    }
    if let Some(fits) = FITS.with(|f| f.borrow().get(c).cloned()) {
        return fits;
    }
    let re = regex::Regex::new(&format!("^{c}$")).unwrap();
    let fits: Vec<String> = CANDIDATES
        .chars()
        .map(String::from)
        .filter(|s| re.is_match(s))
        .take(2)
        .collect();
    assert!(!fits.is_empty(), "no sample for {c}");
    FITS.with(|f| f.borrow_mut().insert(c.to_string(), fits.clone()));
    fits
}

/// Options reading replies in `space`, offering targets in words with `targets` (a grounding
/// model is configured).
fn options_in(space: Space, targets: bool) -> ReadOptions {
    let options = match space {
        Space::Norm1000 => ReadOptions::default(),
        Space::Pixels(_) => ReadOptions {
            pixel_coords: true,
            ..ReadOptions::default()
        },
        Space::Relative => ReadOptions {
            exact_space: Some(crate::exact_target::Space::Relative),
            ..ReadOptions::default()
        },
    };
    ReadOptions {
        targets_in_words: targets,
        ..options
    }
}

/// The spaces replies are read in (the test screenshot is 100x100).
fn spaces() -> [Space; 3] {
    [
        Space::Norm1000,
        Space::Pixels(ImageSize::new(100, 100)),
        Space::Relative,
    ]
}

/// The strategy `name`, after reading `text` as a reply on a first turn (as the client hands it
/// over, a call written as content made the call): its actions and problems.
fn read(name: &str, space: Space, targets: bool, text: &str) -> (Vec<String>, Vec<String>) {
    let obs = screenshot();
    let ctx = first_turn(&obs);
    let mut s = crate::strategy::create(name, options_in(space, targets)).unwrap();
    let prompt = s.prompt(&ctx);
    let mut request = ChatRequest::new("m", prompt.messages);
    request.tools = prompt.tools;
    request.format = prompt.format;
    let mut reply = Reply::text(text);
    crate::model::wire::read_content_call(&request, &mut reply);
    let r = s.read(&reply, &ctx);
    let kinds = r
        .actions
        .iter()
        .map(|a| a.kind.name().to_string())
        .collect();
    (kinds, r.errors)
}

/// The grammar tree of a strategy's format in `space` (offering targets in words with
/// `targets`).
fn tree(name: &str, space: Space, targets: bool) -> G {
    let obs = screenshot();
    let ctx = first_turn(&obs);
    let mut s = crate::strategy::create(name, options_in(space, targets)).unwrap();
    match s.prompt(&ctx).format {
        Some(ReplyFormat::Json { schema, gbnf, .. }) | Some(ReplyFormat::Call { schema, gbnf }) => {
            assert_eq!(gbnf, super::gbnf(&schema));
            of(&schema)
        }
        Some(ReplyFormat::Text { gbnf }) => {
            assert_eq!(gbnf, narrative_grammar(space, targets).gbnf());
            narrative_grammar(space, targets)
        }
        other => panic!("{name}: no grammar: {other:?}"),
    }
}

/// Every sample of the tools, vision and narrative grammars on a first turn, in every space, is
/// in the grammar's language and read into its actions (one; up to two for the vision loop's
/// list) with no problem (the tools' plain answer, `{"answer": ...}`, which franz sends back
/// before anything was performed, is not offered then).
#[test]
fn every_reply_the_grammars_allow_is_read_into_an_action() {
    for space in spaces() {
        for name in ["tools", "vision", "narrative"] {
            let g = tree(name, space, false);
            let re = anchored(&g);
            let all = samples(&g);
            assert!(all.len() > 10, "{name}: {} samples", all.len());
            for reply in all {
                assert!(re.is_match(&reply), "{name} {space:?}: {reply}");
                let (actions, errors) = read(name, space, false, &reply);
                // franz sends back an answer before anything was performed: not offered
                assert!(!reply.starts_with("{\"answer\""), "{reply}");
                // one action, or two where the vision loop's list has two
                let most = if name == "vision" { 2 } else { 1 };
                assert!(
                    (1..=most).contains(&actions.len()),
                    "{name} {space:?}: {reply}: {actions:?} {errors:?}"
                );
                assert!(
                    errors.iter().all(|e| e.starts_with("warning:")),
                    "{name} {space:?}: {reply}: {errors:?}"
                );
            }
        }
    }
}

/// A pointer action named by its target in words, in each strategy's own form.
fn target_replies(words: &str) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = [
        "left_click",
        "right_click",
        "double_left_click",
        "middle_click",
        "triple_click",
        "move",
    ]
    .iter()
    .map(|c| ("narrative", format!("{c}(target=\"{words}\")\nI act.")))
    .collect();
    for name in ["click", "right_click", "double_click", "move"] {
        out.push((
            "vision",
            format!(
                "{{\"actions\": [{{\"name\": \"{name}\", \"target\": \"{words}\"}}], \"observation\": \"o\"}}"
            ),
        ));
    }
    for name in schema::TARGET_TOOLS {
        let label = if name == "move_mouse" {
            ""
        } else {
            "\"label\": \"Save\", "
        };
        out.push((
            "tools",
            format!("{{\"name\": \"{name}\", \"arguments\": {{{label}\"target\": \"{words}\"}}}}"),
        ));
    }
    out
}

/// With a grounding model configured, each strategy's format lets a model name a pointer
/// action's target in words, in its own form, and the strategy reads it as that target; without
/// one no format does, and each is as it was (no `target` anywhere in it).
#[test]
fn a_constrained_planner_names_targets_in_words_only_with_a_grounder() {
    for space in spaces() {
        for (name, reply) in target_replies("the Save button") {
            let with = anchored(&tree(name, space, true));
            assert!(with.is_match(&reply), "{name} {space:?}: refused {reply}");
            let (actions, errors) = read(name, space, true, &reply);
            assert_eq!(actions.len(), 1, "{reply}: {actions:?} {errors:?}");
            assert!(errors.is_empty(), "{reply}: {errors:?}");
            let without = anchored(&tree(name, space, false));
            assert!(
                !without.is_match(&reply),
                "{name} {space:?}: allowed {reply}"
            );
        }
        // the commander's operator: its clicks by their target in words
        let operator = |targets: bool| {
            let tools = schema::with_targets(schema::operator(space), targets);
            match crate::strategy::reply_format::of_tools(&tools, space) {
                Some(ReplyFormat::Call { schema, .. }) => anchored(&of(&schema)),
                other => panic!("{other:?}"),
            }
        };
        let call = "{\"name\": \"click_element\", \"arguments\": {\"justification\": \"to save\", \"label\": \"Save\", \"target\": \"the Save button\"}}";
        assert!(operator(true).is_match(call), "{space:?}: refused {call}");
        assert!(!operator(false).is_match(call), "{space:?}: allowed {call}");
        for name in ["narrative", "vision", "tools"] {
            let gbnf = tree(name, space, false).gbnf();
            assert!(!gbnf.contains("target"), "{name}: {gbnf}");
            assert!(tree(name, space, true).gbnf().contains("target"), "{name}");
        }
    }
    // a target goes with the actions of one point only
    let with = anchored(&tree("narrative", Space::Norm1000, true));
    for reply in [
        "drag(target=\"the file\")",
        "type(target=\"the field\")",
        "scroll(target=\"the list\")",
    ] {
        assert!(!with.is_match(reply), "allowed {reply}");
    }
}

/// The commander's operator: every call its grammar allows is one call of its tools, read by
/// the commander into an action.
#[test]
fn every_operator_call_the_grammar_allows_is_read() {
    for space in spaces() {
        let tools = schema::operator(space);
        let Some(ReplyFormat::Call { schema, .. }) =
            crate::strategy::reply_format::of_tools(&tools, space)
        else {
            panic!("the operator has a call format");
        };
        let g = of(&schema);
        let re = anchored(&g);
        for reply in samples(&g) {
            assert!(re.is_match(&reply), "{reply}");
            let v: Value = serde_json::from_str(&reply).unwrap();
            let name = v["name"].as_str().unwrap();
            assert!(tools.iter().any(|t| t.function.name == name), "{reply}");
        }
    }
}

/// Numbers outside the space are not in the grammars' language: past the top of either axis,
/// negative, with a leading zero, or a fraction where whole numbers are asked for.
#[test]
fn out_of_range_coordinates_are_not_in_the_grammars() {
    // the strategies' formats are bounded to the test screenshot's 100x100
    let pixels = Space::Pixels(ImageSize::new(100, 100));
    let cases: [(Space, &[&str], &[&str]); 3] = [
        (
            Space::Norm1000,
            &["0", "7", "999", "1000"],
            &["1001", "3000", "-2000", "-1", "01", "10000", "5.5"],
        ),
        (pixels, &["0", "99"], &["100", "640", "3000", "-1", "1e3"]),
        (
            Space::Relative,
            &["0", "1", "0.5", "0.1234", "1.0"],
            &["1.5", "2", "-0.5", "10", "1.01"],
        ),
    ];
    for (space, inside, outside) in cases {
        let narrative = anchored(&narrative_grammar(space, false));
        let tools = anchored(&tree("tools", space, false));
        let vision = anchored(&tree("vision", space, false));
        let replies = |y: &str| {
            [
                (&narrative, format!("left_click(0, {y})\nI click.")),
                (
                    &tools,
                    format!(
                        "{{\"name\": \"move_mouse\", \"arguments\": {{\"x\": 0, \"y\": {y}}}}}"
                    ),
                ),
                (
                    &tools,
                    format!(
                        "{{\"name\": \"click_element\", \"arguments\": {{\"box\": [0, {y}], \"label\": \"OK\"}}}}"
                    ),
                ),
                (
                    &vision,
                    format!(
                        "{{\"actions\": [{{\"name\": \"click\", \"x1\": 0, \"y1\": {y}}}], \"observation\": \"o\"}}"
                    ),
                ),
            ]
        };
        for y in inside {
            for (re, r) in replies(y) {
                assert!(re.is_match(&r), "{space:?}: refused {r}");
            }
        }
        for y in outside {
            for (re, r) in replies(y) {
                assert!(!re.is_match(&r), "{space:?}: allowed {r}");
            }
        }
    }
    // x is bounded by the width, y by the height
    let pixels = Space::Pixels(ImageSize::new(640, 480));
    let wide = anchored(&format::coord_grammar(pixels, Axis::X));
    assert!(wide.is_match("639") && !wide.is_match("640"));
    let high = anchored(&format::coord_grammar(pixels, Axis::Y));
    assert!(high.is_match("479") && !high.is_match("480"));
}

/// Ranges of whole numbers: every number in the range and no other, for tops and bottoms of
/// every shape.
#[test]
fn a_range_is_its_numbers_and_no_other() {
    for (lo, hi) in [
        (0, 0),
        (1, 99),
        (0, 1000),
        (5, 123),
        (10, 19),
        (0, 1919),
        (1, 9),
    ] {
        let re = anchored(&format::between(lo, hi));
        for n in 0..=hi + 30 {
            assert_eq!(
                re.is_match(&n.to_string()),
                (lo..=hi).contains(&n),
                "{n} in {lo}..={hi}"
            );
        }
        assert!(
            !re.is_match(&format!("0{lo}")),
            "a leading zero in {lo}..={hi}"
        );
    }
}

#[test]
fn the_gbnf_has_one_root_and_escapes_its_literals() {
    let g = gbnf(
        &json!({"type": "object", "properties": {"a\"b": {"const": "x\\y"}}, "required": ["a\"b"]}),
    );
    assert!(g.starts_with("root ::= "), "{g}");
    assert_eq!(g.lines().count(), 1, "{g}");
    assert!(g.contains(r#""\"a\\\"b\": ""#), "{g}");
}
