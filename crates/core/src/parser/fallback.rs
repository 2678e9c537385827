//! Actions written in another dialect than the one the run asks for (docs/actions.md, "Replies
//! in another dialect"). Small models often answer in a format they know better than the one
//! the prompt shows (`left_click(499, 494)` under a Qwen profile, the vision JSON under UI-TARS),
//! and a server may turn text into tool calls of any name.
//!
//! Such an action is performed only when its numbers mean the same under the run's profile:
//! the dialect's own space is the run's, or the dialect has no space of its own (Qwen's and
//! UI-TARS's families answer in 0..1000 or in pixels, so their numbers are what the prompt
//! asked for), or the action has no coordinates. It then carries `read_in` (the engine says so
//! in a `note` event) and the reply gets one reminder of the asked format. Where the readings
//! disagree (pixels in one, 0..1000 in the other) nothing runs: the error shows both readings
//! and names the settings that decide, `--profile` and `--coords`.

use super::{CoordMode, Dialect};
use crate::geometry::{ImageSize, NORM_MAX};

/// The phrase of every refusal of an action whose readings disagree.
pub(crate) const DISAGREE: &str = "the readings disagree";

/// What a coordinate space's numbers are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Meaning {
    Norm1000,
    Pixels,
    Relative,
}

impl Meaning {
    fn name(self) -> &'static str {
        match self {
            Meaning::Norm1000 => "0..1000",
            Meaning::Pixels => "pixels of the image",
            Meaning::Relative => "fractions 0..1",
        }
    }
}

/// The space a dialect's numbers mean by themselves: franz's own formats are the designs'
/// 0..1000; Anthropic's, OpenAI's and pyautogui's are pixels of the image; `None` for Qwen's
/// and UI-TARS's, whose models answer in either (Qwen3-VL 0..1000, Qwen2.5-VL and UI-TARS-1.5
/// pixels): their numbers mean what the run's prompt asked.
fn native(d: Dialect) -> Option<Meaning> {
    match d {
        Dialect::Json | Dialect::Calls | Dialect::Tools => Some(Meaning::Norm1000),
        Dialect::Venus | Dialect::Gemini => Some(Meaning::Norm1000),
        // Holo3 answers 0..1000, Holo1.5 pixels; a grounding point is in its family's space
        Dialect::Holo | Dialect::Point => None,
        Dialect::Anthropic | Dialect::Openai | Dialect::Pyautogui => Some(Meaning::Pixels),
        Dialect::Qwen | Dialect::Uitars | Dialect::None => None,
    }
}

/// The space a run reads numbers in.
fn meaning(coords: CoordMode) -> Meaning {
    match coords {
        CoordMode::Norm => Meaning::Norm1000,
        CoordMode::Pixels(_) => Meaning::Pixels,
        CoordMode::Exact(s) if crate::exact_target::norm_max_of(s).is_some() => Meaning::Norm1000,
        CoordMode::Exact(s) if s == ImageSize::new(1, 1) => Meaning::Relative,
        CoordMode::Exact(_) => Meaning::Pixels,
    }
}

/// Whether an action read in `d` with coordinates means the same under `coords`, in a run
/// that asks for `asked`.
pub(crate) fn agrees(d: Dialect, asked: Dialect, coords: CoordMode) -> bool {
    let franz_format = matches!(d, Dialect::Json | Dialect::Calls | Dialect::Tools);
    (franz_format && prompts_in_franz_formats(asked))
        || native(d).is_none_or(|m| m == meaning(coords))
}

/// The families' dialects franz reads but writes no prompt of (no grammar in
/// `strategy/grammar`): a run asking for one sends its strategy's own prompt, franz's formats
/// worded in the run's space (pixels, 0..1000 or fractions), so a reply in those formats
/// means the run's space.
pub(crate) fn prompts_in_franz_formats(asked: Dialect) -> bool {
    matches!(
        asked,
        Dialect::Holo | Dialect::Venus | Dialect::Gemini | Dialect::Point
    )
}

/// How a reply in `d` is written, for people and models.
pub(crate) fn format(d: Dialect) -> &'static str {
    match d {
        Dialect::Json => "franz's vision JSON (\"observation\" and \"actions\")",
        Dialect::Calls => "franz's function-call lines",
        Dialect::Tools => "franz's tool calls (click_element and the others)",
        Dialect::Qwen => "Qwen's computer_use tool calls",
        Dialect::Uitars => "UI-TARS's Thought and Action lines",
        Dialect::Anthropic => "Anthropic's computer tool",
        Dialect::Openai => "OpenAI's computer-use action objects",
        Dialect::Pyautogui => "pyautogui code",
        Dialect::Holo => "Holo's JSON (\"tool_call\" with \"tool_name\", or click_absolute)",
        Dialect::Venus => "UI-Venus's <action> calls (Click(box=(x,y)))",
        Dialect::Gemini => "Gemini's computer-use function calls (click_at)",
        Dialect::Point => "a grounding answer (one point or box)",
        Dialect::None => "no format franz reads",
    }
}

/// The fraction of the screen a value `v` is on an axis of `len` image pixels, read as `m`;
/// `None` for pixels when the image's size is not known here.
fn fraction(m: Meaning, v: f64, len: Option<u32>) -> Option<f64> {
    match m {
        Meaning::Norm1000 => Some(v / NORM_MAX as f64),
        Meaning::Relative => Some(v),
        Meaning::Pixels => len.map(|l| v / l.max(1) as f64),
    }
}

/// `(x, y)` read as `m`: where on the screen it is, in percent across and down.
fn reading(m: Meaning, p: [f64; 2], image: Option<ImageSize>) -> String {
    let at = |i: usize, len: Option<u32>| fraction(m, p[i], len).map(|f| f * 100.0);
    match (
        at(0, image.map(|s| s.width)),
        at(1, image.map(|s| s.height)),
    ) {
        (Some(x), Some(y)) => format!("{x:.0}% across and {y:.0}% down the screen"),
        _ => "a pixel of an image whose size is not known here".to_string(),
    }
}

/// The image of a coordinate mode, when it has one.
fn image(coords: CoordMode) -> Option<ImageSize> {
    match coords {
        CoordMode::Pixels(s) => Some(s),
        CoordMode::Exact(s) if meaning(coords) == Meaning::Pixels => Some(s),
        _ => None,
    }
}

/// The refusal of the action `what` read in `d` at the model's values `points`: both readings
/// and the settings that decide.
pub(crate) fn disagreement(
    what: &str,
    d: Dialect,
    asked: Dialect,
    coords: CoordMode,
    points: &[[f64; 2]],
) -> String {
    let own = native(d).unwrap_or(Meaning::Norm1000);
    let run = meaning(coords);
    let readings: Vec<String> = points
        .iter()
        .map(|p| {
            format!(
                "read as {}, ({}, {}) is {}; read as {}, it is {}",
                own.name(),
                crate::exact_target::Num(p[0]),
                crate::exact_target::Num(p[1]),
                reading(own, *p, image(coords)),
                run.name(),
                reading(run, *p, image(coords)),
            )
        })
        .collect();
    format!(
        "{what}: the reply is written as {}, whose numbers are {}, but this run reads {} (its --profile and --coords): {}; {DISAGREE}, so nothing was performed: answer in the format the prompt asks for ({}), or run with the --profile (or --coords) of the space this model answers in",
        format(d),
        own.name(),
        run.name(),
        readings.join("; "),
        format(asked),
    )
}

/// The reminder of the asked format, once per reply that had actions read in `d`.
pub(crate) fn reminder(d: Dialect, asked: Dialect) -> String {
    format!(
        "your reply was written as {}, not as {}, which this run asks for: it was read (its numbers mean the same here) and performed this time, but answer in the asked format from now on",
        format(d),
        format(asked),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dialect_agrees_when_its_numbers_mean_the_same() {
        let norm = CoordMode::Norm;
        let q3 = CoordMode::Exact(ImageSize::new(1000, 1000));
        let px = CoordMode::Exact(ImageSize::new(1288, 728));
        for (d, coords, same) in [
            (Dialect::Calls, norm, true),
            (Dialect::Calls, q3, true),
            (Dialect::Calls, px, false),
            (
                Dialect::Json,
                CoordMode::Pixels(ImageSize::new(8, 8)),
                false,
            ),
            (Dialect::Qwen, norm, true),
            (Dialect::Qwen, px, true),
            (Dialect::Uitars, q3, true),
            (Dialect::Anthropic, norm, false),
            (Dialect::Anthropic, px, true),
            (
                Dialect::Pyautogui,
                CoordMode::Exact(ImageSize::new(1, 1)),
                false,
            ),
        ] {
            assert_eq!(agrees(d, Dialect::Qwen, coords), same, "{d} {coords:?}");
        }
        // a run asking for a dialect franz writes no prompt of was prompted in franz's formats
        // in its own space: pixels there are pixels
        assert!(agrees(Dialect::Calls, Dialect::Point, px));
        assert!(agrees(Dialect::Json, Dialect::Holo, px));
        assert!(!agrees(Dialect::Anthropic, Dialect::Point, norm));
    }

    #[test]
    fn a_disagreement_shows_both_readings_and_the_settings() {
        let e = disagreement(
            "left_click",
            Dialect::Calls,
            Dialect::Qwen,
            CoordMode::Exact(ImageSize::new(1288, 728)),
            &[[499.0, 494.0]],
        );
        assert!(
            e.contains("read as 0..1000, (499, 494) is 50% across and 49% down the screen; read as pixels of the image, it is 39% across and 68% down the screen"),
            "{e}"
        );
        assert!(e.contains("--profile") && e.contains("--coords"), "{e}");
        let e = disagreement(
            "left_click",
            Dialect::Anthropic,
            Dialect::Calls,
            CoordMode::Norm,
            &[[800.0, 600.0]],
        );
        assert!(e.contains("whose size is not known here"), "{e}");
    }
}
