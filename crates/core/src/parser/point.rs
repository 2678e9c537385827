//! Grounding answers: the reply of a model trained to answer one point (or one box) for a
//! described element, which franz performs as a click there (docs/coordinates.md, "Grounding
//! models as the run's model"). The forms, as each family's own source writes them:
//!
//! - `(x,y)`: GTA1 / GTA1.5 (pixels of the image sent), UGround-V1 (0..1000);
//! - `[x,y]`, `[x1,y1,x2,y2]`: UI-Venus-1.5's grounding (0..1000), ShowUI (`[0.73, 0.21]`,
//!   fractions 0..1);
//! - `<|object_ref_start|>name<|object_ref_end|><|box_start|>(x1,y1),(x2,y2)<|box_end|>`:
//!   OS-Atlas (0..1000; the box's centre);
//! - `<point>[[x, y]]</point>` (OS-Atlas-Pro's `CLICK`);
//! - `<answer>{"coordinate": [x,y]}</answer>`: MAI-UI's grounding (0..999), its thinking in
//!   `<grounding_think>` before it.
//!
//! The first group of numbers in brackets that is no call's argument list (no name right
//! before it: `left_click(5, 7)` is not a point answer) is the answer; two groups of two
//! numbers joined by a comma are a box. A reply holding a JSON object is no grounding answer
//! (the vision JSON's `bboxes` are not places to click). The rest of the text is the answer's
//! words.

use super::coords::{Ctx, at};
use crate::action::ActionKind;

/// The tokens of Qwen2-VL's grounding answers, dropped before reading (the object's name
/// between the `object_ref` tokens stays, as words).
const TOKENS: &[&str] = &[
    "<|object_ref_start|>",
    "<|object_ref_end|>",
    "<|box_start|>",
    "<|box_end|>",
    "<|im_end|>",
    "<point>",
    "</point>",
];

/// Reads a grounding answer; returns the words around it.
pub(crate) fn parse(content: &str, ctx: &mut Ctx) -> String {
    super::work::charge(content.len());
    let mut text = content.to_string();
    for t in TOKENS {
        text = text.replace(t, " ");
    }
    // a JSON object is some other format's (its lists are boxes and points of its own)
    let json = super::lenient::objects(&text)
        .iter()
        .any(|o| o.value.is_ok());
    let found = tagged(&text).or_else(|| answer(&text).filter(|_| !json));
    let Some((nums, span)) = found else {
        ctx.err("no point found: answer with the point to click as (x, y)");
        return text.trim().to_string();
    };
    if let Some(p) = ctx.point_nums("click", &nums) {
        let (x, y) = at(p);
        ctx.push(ActionKind::Click { x, y }, None);
    }
    let mut words = text;
    words.replace_range(span, " ");
    super::calls::tidy(&words)
}

/// The numbers of the first bracketed group that is no call's arguments (a box when a second
/// group of two follows after a comma), and the byte range they take.
fn answer(text: &str) -> Option<(Vec<f64>, std::ops::Range<usize>)> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let open = text[i..].find(['(', '['])? + i;
        let named = open > 0 && (b[open - 1].is_ascii_alphanumeric() || b[open - 1] == b'_');
        let Some((nums, end)) = group(text, open) else {
            i = open + 1;
            continue;
        };
        if named || !(nums.len() == 2 || nums.len() == 4) {
            i = end;
            continue;
        }
        if nums.len() == 2
            && let Some((more, end2)) = second_corner(text, end)
        {
            return Some(([nums, more].concat(), open..end2));
        }
        return Some((nums, open..end));
    }
    None
}

/// MAI-UI's answer: the `coordinate` of two numbers of the JSON object between `<answer>` and
/// `</answer>`, and the byte range the tags take; `None` for anything else there.
fn tagged(text: &str) -> Option<(Vec<f64>, std::ops::Range<usize>)> {
    const OPEN: &str = "<answer>";
    const CLOSE: &str = "</answer>";
    let start = text.find(OPEN)?;
    let inner_end = start + text[start..].find(CLOSE)?;
    let inner = &text[start + OPEN.len()..inner_end];
    let value: serde_json::Value = serde_json::from_str(inner.trim()).ok()?;
    let nums: Option<Vec<f64>> = value
        .get("coordinate")?
        .as_array()?
        .iter()
        .map(serde_json::Value::as_f64)
        .collect();
    nums.filter(|n| n.len() == 2)
        .map(|n| (n, start..inner_end + CLOSE.len()))
}

/// `, (x2,y2)` right after a first corner: its numbers and where it ends.
fn second_corner(text: &str, from: usize) -> Option<(Vec<f64>, usize)> {
    let rest = &text[from..];
    let after_comma = rest.trim_start().strip_prefix(',')?;
    let skipped = rest.len() - after_comma.trim_start().len();
    let open = from + skipped;
    if !text[open..].starts_with(['(', '[']) {
        return None;
    }
    let (nums, end) = group(text, open)?;
    (nums.len() == 2).then_some((nums, end))
}

/// The numbers inside the balanced group opening at `open` (nested brackets allowed, only
/// numbers, commas and spaces inside), and the byte just past its close.
fn group(text: &str, open: usize) -> Option<(Vec<f64>, usize)> {
    let mut depth = 0usize;
    for (k, c) in text[open..].char_indices() {
        match c {
            '(' | '[' => depth += 1,
            ')' | ']' => {
                depth -= 1;
                if depth == 0 {
                    let inner = &text[open..open + k];
                    return numbers(inner.trim_start_matches(['(', '[']))
                        .map(|n| (n, open + k + 1));
                }
            }
            c if c.is_ascii_digit() || " ,.-+eE\n\t".contains(c) => {}
            _ => return None,
        }
    }
    None
}

/// The comma- or space-separated numbers of `inner` (brackets inside it ignored).
fn numbers(inner: &str) -> Option<Vec<f64>> {
    let nums: Option<Vec<f64>> = inner
        .split(|c: char| c == ',' || c.is_whitespace() || "()[]".contains(c))
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<f64>().ok().filter(|v| v.is_finite()))
        .collect();
    nums.filter(|n| !n.is_empty())
}

#[cfg(test)]
mod tests {
    use super::answer;

    #[test]
    fn the_first_unnamed_group_is_the_answer() {
        assert_eq!(answer("(512,300)").map(|a| a.0), Some(vec![512.0, 300.0]));
        assert_eq!(
            answer(" name  (576,12),(592,42) ").map(|a| a.0),
            Some(vec![576.0, 12.0, 592.0, 42.0])
        );
        assert_eq!(answer("[0.73, 0.21]").map(|a| a.0), Some(vec![0.73, 0.21]));
        assert_eq!(
            answer("CLICK  [[381,102]] ").map(|a| a.0),
            Some(vec![381.0, 102.0])
        );
        assert_eq!(answer("left_click(5, 7)"), None);
        assert_eq!(
            answer("(the button) (5, 7)").map(|a| a.0),
            Some(vec![5.0, 7.0])
        );
        assert_eq!(answer("[-1,-1]").map(|a| a.0), Some(vec![-1.0, -1.0]));
        assert_eq!(answer("(1, 2, 3)"), None);
    }

    #[test]
    fn mai_uis_answer_is_its_coordinate_and_nothing_else() {
        use super::tagged;
        let reply = "<grounding_think>the icon at (3, 4)</grounding_think>\n<answer>\n{\"coordinate\": [499, 250]}\n</answer>";
        assert_eq!(tagged(reply).map(|a| a.0), Some(vec![499.0, 250.0]));
        assert_eq!(tagged("<answer>\n{\"coordinate\": [x,y]}\n</answer>"), None);
        assert_eq!(tagged("<answer>{\"coordinate\": [1, 2, 3]}</answer>"), None);
        assert_eq!(tagged("<answer>{\"point\": [1, 2]}</answer>"), None);
        assert_eq!(tagged("{\"coordinate\": [1, 2]}"), None);
    }
}
