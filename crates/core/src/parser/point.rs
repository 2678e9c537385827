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
//!   `<grounding_think>` before it;
//! - `[{"point_2d": [x, y], "label": "..."}]` (in a ```json fence or not; `bbox_2d` boxes
//!   too): Qwen3-VL's point answers (0..1000) and Qwen2.5-VL's JSON ones (pixels of the image
//!   sent), as the QwenLM cookbooks' `spatial_understanding.ipynb` reads them;
//! - `<points x1="x" y1="y" alt="...">...</points>`: Qwen2.5-VL's XML point answer (pixels of
//!   the image sent; the cookbook's `decode_xml_points`).
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
    let found = tagged(&text)
        .or_else(|| qwen_json(&text))
        .or_else(|| qwen_xml(&text))
        .or_else(|| answer(&text).filter(|_| !json));
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

/// Qwen's JSON answer: the first object's `point_2d` of two numbers (or its `bbox_2d` of
/// four, a box), and the byte range of that object; `None` when no object holds one.
fn qwen_json(text: &str) -> Option<(Vec<f64>, std::ops::Range<usize>)> {
    super::lenient::objects(text).into_iter().find_map(|found| {
        let v = found.value.ok()?;
        [("point_2d", 2), ("bbox_2d", 4)]
            .iter()
            .find_map(|(key, len)| {
                let nums: Vec<f64> = v
                    .get(*key)?
                    .as_array()?
                    .iter()
                    .map(serde_json::Value::as_f64)
                    .collect::<Option<_>>()?;
                (nums.len() == *len && nums.iter().all(|n| n.is_finite()))
                    .then(|| (nums, found.span.clone()))
            })
    })
}

/// Qwen2.5-VL's XML answer: the first point (`x1`, `y1`) of the first `<points ...>` tag, and
/// the byte range up to its `</points>` (or its tag's end); `None` when it has no numbers
/// there (the prompt's own `<points x y>object</points>` written back).
fn qwen_xml(text: &str) -> Option<(Vec<f64>, std::ops::Range<usize>)> {
    const OPEN: &str = "<points";
    const CLOSE: &str = "</points>";
    let start = text.find(OPEN)?;
    let tag_end = start + text[start..].find('>')?;
    let attrs = &text[start + OPEN.len()..tag_end];
    let number = |name: &str| {
        attribute(attrs, name)
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite())
    };
    let (x, y) = (number("x1")?, number("y1")?);
    let end = text[tag_end..]
        .find(CLOSE)
        .map_or(tag_end + 1, |e| tag_end + e + CLOSE.len());
    Some((vec![x, y], start..end))
}

/// The value of the attribute `name` among a tag's `attrs` (` x1="12" y1='34'`), quoted with
/// `"` or `'`.
fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    let mut from = 0;
    while let Some(at) = attrs[from..].find(name).map(|i| i + from) {
        from = at + name.len();
        let starts_word = at == 0 || attrs.as_bytes()[at - 1].is_ascii_whitespace();
        let Some(value) = attrs[from..].trim_start().strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let Some(quote) = value.chars().next().filter(|q| *q == '"' || *q == '\'') else {
            continue;
        };
        if starts_word {
            return value[1..].find(quote).map(|e| &value[1..1 + e]);
        }
    }
    None
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

    #[test]
    fn qwens_json_answer_is_its_first_point_2d_or_bbox_2d() {
        use super::qwen_json;
        // Qwen3-VL's answer as the cookbook shows it
        let fenced = "```json\n[\n\t{\"point_2d\": [925, 618], \"label\": \"point_1\"}\n]\n```";
        assert_eq!(qwen_json(fenced).map(|a| a.0), Some(vec![925.0, 618.0]));
        assert_eq!(
            qwen_json("{\"bbox_2d\": [10, 20, 30, 40], \"label\": \"Save\"}").map(|a| a.0),
            Some(vec![10.0, 20.0, 30.0, 40.0])
        );
        // the prompt's own example, a wrong length, no point
        assert_eq!(
            qwen_json("[{\"point_2d\": [x, y], \"label\": \"l\"}]"),
            None
        );
        assert_eq!(qwen_json("{\"point_2d\": [1, 2, 3]}"), None);
        assert_eq!(qwen_json("{\"bbox_2d\": [1, 2]}"), None);
        assert_eq!(qwen_json("{\"label\": \"Save\"}"), None);
    }

    #[test]
    fn qwens_xml_answer_is_its_first_point() {
        use super::qwen_xml;
        let reply =
            "<points x1=\"217\" y1=\"301\" alt=\"the rolling pin\">the rolling pin</points>";
        let (nums, span) = qwen_xml(reply).unwrap_or_default();
        assert_eq!(nums, vec![217.0, 301.0]);
        assert_eq!(span, 0..reply.len());
        assert_eq!(
            qwen_xml("<points y1='4.5' x1='3' alt=\"x1\">x</points>").map(|a| a.0),
            Some(vec![3.0, 4.5])
        );
        // the prompt's own example written back, and a tag without y1
        assert_eq!(qwen_xml("<points x y>object</points>"), None);
        assert_eq!(qwen_xml("<points x1=\"3\">a</points>"), None);
        assert_eq!(qwen_xml("<points ax1=\"3\" ay1=\"4\">a</points>"), None);
    }
}
