//! Whether the server honours `max_tokens`, `stop` and `temperature` (`honours::ignored_settings`):
//! franz bounds each reply (and the context it needs) with `max_tokens`, and repeatable runs
//! need temperature 0 to mean it.

use super::check::Check;
use franz_core::model::ModelClient;
use franz_core::model::honours;

const NAME: &str = "sampling";

pub(super) fn check(client: &ModelClient, model: &str) -> Check {
    match honours::ignored_settings(client, model) {
        Ok(ignored) if ignored.is_empty() => {
            Check::pass(NAME, "the server honours max_tokens, stop and temperature")
        }
        Ok(ignored) => {
            let names: Vec<&str> = ignored.iter().map(|i| i.setting).collect();
            let evidence: Vec<String> = ignored
                .iter()
                .map(|i| format!("{}: {}", i.setting, i.evidence))
                .collect();
            Check::fail(
                NAME,
                format!(
                    "the server ignores {}: {}",
                    names.join(", "),
                    evidence.join("; ")
                ),
                "franz needs them: max_tokens bounds each reply and the context it takes, \
                 temperature 0 makes a run repeatable. Update the server (LM Studio, Ollama, \
                 llama.cpp and vLLM honour them), or check that a proxy in between passes them on",
            )
        }
        Err(e) => Check::warn(
            NAME,
            format!("not checked: a request failed: {e}"),
            "fix the model server first",
        ),
    }
}
