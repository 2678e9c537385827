//! Each strategy tells its model its own form of a target in words, in its system prompt and
//! only with a grounding model configured (docs/grounding.md).

use super::test_support::{first_turn, screenshot};
use super::{Prompt, ReadOptions, StrategyName, prompts};
use crate::model::{Content, Role};

/// The prompt's system text, and the rest of its messages as JSON text.
fn split(p: &Prompt) -> (String, String) {
    let system = match &p.messages[0].content {
        Content::Text(t) if p.messages[0].role == Role::System => t.clone(),
        other => panic!("a system text first: {other:?}"),
    };
    let rest = serde_json::to_string(&p.messages[1..]).unwrap_or_default();
    (system, rest)
}

#[test]
fn each_strategy_names_its_own_form_of_targets_only_with_a_grounder() {
    let forms = [
        (StrategyName::Narrative, prompts::TARGETS_CALLS),
        (StrategyName::Vision, prompts::TARGETS_JSON),
        (StrategyName::Tools, prompts::TARGETS_TOOLS),
        (StrategyName::Commander, prompts::TARGETS_TOOLS),
    ];
    let obs = screenshot();
    for (name, form) in forms {
        for own in [None, Some("MY OWN PROMPT".to_string())] {
            for grounder in [false, true] {
                let options = ReadOptions {
                    targets_in_words: grounder,
                    system_prompt: own.clone(),
                    ..ReadOptions::default()
                };
                let (system, rest) = split(&name.create(options).prompt(&first_turn(&obs)));
                let said = format!("{name}, own prompt {own:?}, grounder {grounder}: {system}");
                assert_eq!(system.ends_with(&format!("\n\n{form}")), grounder, "{said}");
                assert_eq!(system.contains("TARGETS IN WORDS"), grounder, "{said}");
                assert!(!rest.contains("TARGETS IN WORDS"), "{said}: {rest}");
                if own.is_some() {
                    assert!(system.starts_with("MY OWN PROMPT"), "{said}");
                }
            }
        }
    }
}
