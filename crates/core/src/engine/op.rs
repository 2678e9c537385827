//! What a client can ask of a running session, and its JSON (docs/architecture.md, "Engine and
//! events"): every client (the panel, MCP, the terminal approver) submits the same [`Op`]s, and
//! one that speaks JSON decodes them with serde, nothing mapped by hand.
//!
//! The JSON is `{"type": "<op>", ...fields}`, the fields named as the panel's page has always
//! posted them: `{"type":"inject","vlm_text":"..."}`, `{"type":"annotate","seq":3,
//! "image_b64":"..."}`, `{"type":"approve","seq":3,"decision":"reject","reason":"..."}`. A bad
//! op is refused with serde's message, which lists what is accepted (the op types, the fields).

use super::control::Decision;
use base64::Engine as _;
use serde::{Deserialize, Serialize};

/// What a client can ask of a running session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "Wire", into = "Wire")]
pub enum Op {
    /// Stop before the next turn starts (the run waits, emitting `paused`).
    Pause,
    Resume,
    /// While paused: let one more turn run.
    Step,
    /// End the run now with this reason (outcome `interrupted`).
    Stop(String),
    /// The next turn reads this reply instead of asking the model.
    Inject(String),
    /// The decision on the actions of turn `seq` (approve mode).
    Approve {
        seq: u32,
        decision: Decision,
    },
    /// The annotated PNG for the screenshot of turn `seq` (annotation mode).
    Annotate {
        seq: u32,
        png: Vec<u8>,
    },
    /// The answer to the model's question (`ask_user`) the run waits on.
    Answer(String),
    /// Nobody answers the question the run waits on (the terminal prompt timed out): the run
    /// ends as when nobody is there (exit 1, the question in the reason).
    NoAnswer,
}

/// The reason of a stop that names none.
pub const STOPPED_BY_A_CLIENT: &str = "stopped by a client of the session";

/// The decisions an approval can carry, as JSON names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Verdict {
    Approve,
    /// With a `reason`, told to the model.
    Reject,
    /// With a `reply`, read instead of the model's.
    Replace,
}

/// [`Op`] as JSON: one flat object per op, tagged by `type`. Unknown fields are refused, so a
/// misspelt `reason` is an error rather than a reason silently lost.
#[derive(Serialize, Deserialize)]
///
/// The ops without fields are empty structs, not unit variants: serde ignores the fields of
/// an internally tagged unit variant, and `{"type":"pause","for":10}` must be refused.
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
enum Wire {
    Pause {},
    Resume {},
    Step {},
    Stop {
        #[serde(default = "stopped_by_a_client")]
        reason: String,
    },
    Inject {
        vlm_text: String,
    },
    Approve {
        seq: u32,
        decision: Verdict,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reply: Option<String>,
    },
    Annotate {
        seq: u32,
        /// Base64 PNG, bare or as a `data:image/png;base64,` URL.
        image_b64: String,
    },
    Answer {
        text: String,
    },
    NoAnswer {},
}

fn stopped_by_a_client() -> String {
    STOPPED_BY_A_CLIENT.into()
}

impl TryFrom<Wire> for Op {
    type Error = String;

    fn try_from(w: Wire) -> Result<Self, String> {
        Ok(match w {
            Wire::Pause {} => Op::Pause,
            Wire::Resume {} => Op::Resume,
            Wire::Step {} => Op::Step,
            Wire::Stop { reason } => Op::Stop(reason),
            Wire::Inject { vlm_text } => Op::Inject(vlm_text),
            Wire::Approve {
                seq,
                decision,
                reason,
                reply,
            } => Op::Approve {
                seq,
                decision: decision_of(decision, reason, reply)?,
            },
            Wire::Annotate { seq, image_b64 } => Op::Annotate {
                seq,
                png: png_of(&image_b64)?,
            },
            Wire::Answer { text } => Op::Answer(text),
            Wire::NoAnswer {} => Op::NoAnswer,
        })
    }
}

/// A decision from its JSON: a `reason` only with `reject` (none given: "no reason given"), a
/// `reply` with `replace` and only there.
fn decision_of(
    verdict: Verdict,
    reason: Option<String>,
    reply: Option<String>,
) -> Result<Decision, String> {
    let reason = reason.filter(|r| !r.trim().is_empty());
    match (verdict, reason, reply) {
        (Verdict::Approve, None, None) => Ok(Decision::Approve),
        (Verdict::Reject, reason, None) => Ok(Decision::Reject(
            reason.unwrap_or_else(|| "no reason given".into()),
        )),
        (Verdict::Replace, None, Some(reply)) => Ok(Decision::Replace(reply)),
        (Verdict::Replace, None, None) => {
            Err("decision replace needs a reply: the text to read instead of the model's".into())
        }
        (_, Some(_), _) => Err("only decision reject takes a reason".into()),
        (_, _, Some(_)) => Err("only decision replace takes a reply".into()),
    }
}

/// The PNG bytes of `image_b64` (bare base64 or a data URL).
fn png_of(image_b64: &str) -> Result<Vec<u8>, String> {
    let b64 = image_b64
        .split_once("base64,")
        .map_or(image_b64, |(_, b)| b);
    let png = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| format!("image_b64 is not base64: {e}"))?;
    if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
        return Err("image_b64 is not a PNG".into());
    }
    Ok(png)
}

impl From<Op> for Wire {
    fn from(op: Op) -> Self {
        match op {
            Op::Pause => Wire::Pause {},
            Op::Resume => Wire::Resume {},
            Op::Step => Wire::Step {},
            Op::Stop(reason) => Wire::Stop { reason },
            Op::Inject(vlm_text) => Wire::Inject { vlm_text },
            Op::Approve { seq, decision } => {
                let (decision, reason, reply) = match decision {
                    Decision::Approve => (Verdict::Approve, None, None),
                    Decision::Reject(reason) => (Verdict::Reject, Some(reason), None),
                    Decision::Replace(reply) => (Verdict::Replace, None, Some(reply)),
                };
                Wire::Approve {
                    seq,
                    decision,
                    reason,
                    reply,
                }
            }
            Op::Annotate { seq, png } => Wire::Annotate {
                seq,
                image_b64: base64::engine::general_purpose::STANDARD.encode(png),
            },
            Op::Answer(text) => Wire::Answer { text },
            Op::NoAnswer => Wire::NoAnswer {},
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const PNG: &[u8] = b"\x89PNG\r\n\x1a\nrest";

    fn every_op() -> Vec<Op> {
        vec![
            Op::Pause,
            Op::Resume,
            Op::Step,
            Op::Stop("stopped from the panel".into()),
            Op::Inject("done(\"ok\")".into()),
            Op::Approve {
                seq: 2,
                decision: Decision::Approve,
            },
            Op::Approve {
                seq: 3,
                decision: Decision::Reject("not that window".into()),
            },
            Op::Approve {
                seq: 4,
                decision: Decision::Replace("click(1, 2)\nedited".into()),
            },
            Op::Annotate {
                seq: 5,
                png: PNG.to_vec(),
            },
            Op::Answer("the blue one".into()),
            Op::NoAnswer,
        ]
    }

    /// The op types serde knows, from its "unknown variant" message (which lists them all).
    fn every_type() -> Vec<String> {
        let e = serde_json::from_value::<Op>(json!({"type": "no_such_op"})).unwrap_err();
        let msg = e.to_string();
        let list = msg.split("expected one of ").nth(1).expect(&msg);
        list.split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect()
    }

    #[test]
    fn every_op_round_trips_through_json() {
        let ops = every_op();
        let mut seen: Vec<String> = Vec::new();
        for op in ops {
            let v = serde_json::to_value(&op).unwrap();
            let back: Op = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(back, op, "{v}");
            let back: Op = serde_json::from_str(&serde_json::to_string(&op).unwrap()).unwrap();
            assert_eq!(back, op);
            let ty = v["type"].as_str().unwrap().to_string();
            if !seen.contains(&ty) {
                seen.push(ty);
            }
        }
        assert_eq!(seen, every_type(), "the test must cover every op type");
    }

    #[test]
    fn the_json_names_the_fields_as_the_panel_posts_them() {
        let wire = |op: Op| serde_json::to_value(op).unwrap();
        assert_eq!(wire(Op::Pause), json!({"type": "pause"}));
        assert_eq!(
            wire(Op::Inject("x".into())),
            json!({"type": "inject", "vlm_text": "x"})
        );
        assert_eq!(
            wire(Op::Approve {
                seq: 1,
                decision: Decision::Reject("no".into())
            }),
            json!({"type": "approve", "seq": 1, "decision": "reject", "reason": "no"})
        );
        let annotate = wire(Op::Annotate {
            seq: 1,
            png: PNG.to_vec(),
        });
        assert_eq!(annotate["image_b64"], "iVBORw0KGgpyZXN0", "{annotate}");
        assert_eq!(
            wire(Op::NoAnswer),
            json!({"type": "no_answer"}),
            "snake_case"
        );
    }

    fn decode(v: Value) -> Result<Op, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn a_data_url_and_a_bare_reason_decode_as_the_page_sends_them() {
        let url = "data:image/png;base64,iVBORw0KGgpyZXN0";
        assert_eq!(
            decode(json!({"type": "annotate", "seq": 7, "image_b64": url})),
            Ok(Op::Annotate {
                seq: 7,
                png: PNG.to_vec()
            })
        );
        for reason in [json!({}), json!({"reason": "  "})] {
            let mut v = json!({"type": "approve", "seq": 2, "decision": "reject"});
            v.as_object_mut()
                .unwrap()
                .extend(reason.as_object().unwrap().clone());
            assert_eq!(
                decode(v),
                Ok(Op::Approve {
                    seq: 2,
                    decision: Decision::Reject("no reason given".into())
                })
            );
        }
        assert_eq!(
            decode(json!({"type": "stop"})),
            Ok(Op::Stop(STOPPED_BY_A_CLIENT.into()))
        );
    }

    #[test]
    fn a_bad_op_is_refused_saying_what_is_accepted() {
        let refused = |v: Value, says: &[&str]| {
            let e = decode(v.clone()).unwrap_err();
            for s in says {
                assert!(e.contains(s), "{v}: {e}");
            }
        };
        refused(
            json!({"type": "explode"}),
            &["unknown variant `explode`", "`pause`", "`no_answer`"],
        );
        refused(json!({"seq": 1}), &["missing field `type`"]);
        refused(
            json!({"type": "approve", "seq": 1, "decision": "maybe"}),
            &["unknown variant `maybe`", "`approve`, `reject`, `replace`"],
        );
        refused(
            json!({"type": "approve", "seq": 1, "decision": "reject", "reson": "typo"}),
            &["unknown field `reson`", "`reason`"],
        );
        refused(
            json!({"type": "approve", "seq": 1, "decision": "replace"}),
            &["needs a reply"],
        );
        refused(
            json!({"type": "approve", "seq": 1, "decision": "approve", "reason": "why"}),
            &["only decision reject takes a reason"],
        );
        refused(
            json!({"type": "annotate", "seq": 1, "image_b64": "***"}),
            &["image_b64 is not base64"],
        );
        refused(
            json!({"type": "annotate", "seq": 1, "image_b64": "aGVsbG8="}),
            &["image_b64 is not a PNG"],
        );
        refused(json!({"type": "inject"}), &["missing field `vlm_text`"]);
        refused(
            json!({"type": "pause", "for": 10}),
            &["unknown field `for`"],
        );
        refused(json!({"type": "answer", "text": 3}), &["invalid type"]);
    }
}
