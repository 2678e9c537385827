use super::*;
use crate::action::ActionKind;
use crate::parser::{CoordMode, ParseOptions, parse_text};

const FAMILIES: [Dialect; 5] = [
    Dialect::Qwen,
    Dialect::Uitars,
    Dialect::Anthropic,
    Dialect::Openai,
    Dialect::Pyautogui,
];

#[test]
fn franz_dialects_and_auto_have_no_family_grammar() {
    for d in [
        None,
        Some(Dialect::Json),
        Some(Dialect::Calls),
        Some(Dialect::Tools),
    ] {
        assert!(of(d).is_none(), "{d:?}");
    }
    for d in FAMILIES {
        assert_eq!(of(Some(d)).map(|g| g.dialect), Some(d));
    }
}

#[test]
fn the_coordinate_sentence_follows_the_space() {
    let px = Space::Pixels(ImageSize::new(1366, 768));
    assert!(px.wording().contains("1366x768"), "{}", px.wording());
    assert!(px.wording().contains("1365 (right edge)"));
    assert!(Space::Norm1000.wording().contains("0 to 1000"));
    assert!(Space::Relative.wording().contains("0 to 1"));
    assert_eq!(px.resolution(), (1366, 768));
    assert_eq!(Space::Norm1000.resolution(), (1000, 1000));
}

/// The example each grammar's prompt gives holds placeholders: repeated as it stands it acts
/// nowhere (the parser says the reply repeated the example); with numbers in place of x and y
/// it is the click it shows, in both spaces. The round trip of every example of every prompt
/// is `strategy/roundtrip_tests.rs`.
#[test]
fn each_grammars_example_holds_placeholders_and_filled_is_its_click() {
    let size = ImageSize::new(800, 600);
    for (space, coords) in [
        (Space::Norm1000, CoordMode::Norm),
        (Space::Pixels(size), CoordMode::Pixels(size)),
    ] {
        for d in FAMILIES {
            let g = of(Some(d)).unwrap();
            for with_tools in [false, true] {
                let text = g.section(space, with_tools);
                let example = text.rsplit("For example").next().unwrap_or_default();
                let example = example.rsplit("instead, e.g.\n").next().unwrap_or_default();
                let opts = ParseOptions {
                    dialect: Some(d),
                    coords,
                };
                let echoed = parse_text(example, &opts);
                assert!(echoed.actions.is_empty(), "{d}: {example} -> {echoed:?}");
                assert!(
                    echoed
                        .errors
                        .iter()
                        .any(|e| e.contains(crate::placeholder::ECHO)),
                    "{d}: {example} -> {echoed:?}"
                );
                let filled = crate::placeholder::fill(example, |n| match n {
                    "x" | "x1" => Some("400".into()),
                    "y" | "y1" => Some("300".into()),
                    _ => None,
                });
                let parsed = parse_text(&filled, &opts);
                let want = match coords {
                    CoordMode::Pixels(_) => (501, 501),
                    _ => (400, 300),
                };
                assert_eq!(
                    parsed.actions.first().map(|a| a.kind.clone()),
                    Some(ActionKind::Click {
                        x: Some(want.0),
                        y: Some(want.1)
                    }),
                    "{d} {space:?}: {filled} -> {parsed:?}"
                );
            }
        }
    }
}

#[test]
fn the_tool_grammars_send_their_one_function() {
    let space = Space::Pixels(ImageSize::new(640, 480));
    let qwen = (of(Some(Dialect::Qwen)).unwrap().tools)(space);
    let v = serde_json::to_value(&qwen).unwrap();
    assert_eq!(v[0]["function"]["name"], "computer_use");
    let actions = v[0]["function"]["parameters"]["properties"]["action"]["enum"].to_string();
    for a in [
        "left_click_drag",
        "triple_click",
        "hscroll",
        "terminate",
        "answer",
    ] {
        assert!(actions.contains(a), "{actions}");
    }
    assert!(v.to_string().contains("resolution is 640x480"), "{v}");
    for (d, name) in [
        (Dialect::Anthropic, "computer"),
        (Dialect::Openai, "computer_use_preview"),
    ] {
        let g = of(Some(d)).unwrap();
        let tools = (g.tools)(space);
        assert_eq!(tools.len(), 1);
        assert_eq!(tools[0].function.name, name);
        assert!(g.calls(name) && !g.calls("click_element"));
    }
    assert!((of(Some(Dialect::Uitars)).unwrap().tools)(space).is_empty());
}

#[test]
fn the_operator_keeps_its_report_tools_in_every_grammar() {
    for d in FAMILIES {
        let g = of(Some(d)).unwrap();
        let names: Vec<String> = prompts::operator_tools(g, Space::Norm1000)
            .into_iter()
            .map(|t| t.function.name)
            .collect();
        assert!(names.contains(&"report_progress".to_string()), "{names:?}");
        assert!(
            names.contains(&"report_completion".to_string()),
            "{names:?}"
        );
        assert!(!names.contains(&"click_element".to_string()), "{names:?}");
    }
}

/// The pyautogui text names every verb of
/// OSWorld's action space and its special codes.
#[test]
fn the_pyautogui_text_names_osworlds_action_space() {
    for verb in [
        "pyautogui.click(",
        "doubleClick(",
        "rightClick(",
        "moveTo(",
        "dragTo(",
        ".scroll(",
        "hscroll(",
        "write(",
        "press(",
        "hotkey(",
        "keyDown",
        "keyUp",
        "```WAIT```",
        "```FAIL```",
        "```DONE```",
        "{coords}",
    ] {
        assert!(pyautogui::ACTIONS.contains(verb), "{verb}");
    }
}
