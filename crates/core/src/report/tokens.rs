//! The report's "Tokens" section: per turn the image's tokens, the request's (franz's
//! estimate) and the server's prompt and completion tokens where it reported `usage`; the
//! totals; a small inline SVG chart of the request per turn (franz's estimate beside the
//! server's count); and, where the two differ by more than [`GAP_PERCENT`], a note saying so.
//! The figures come from `turn_tokens`, as the terminal's and the panel's do.

use crate::event::Event;
use crate::report::escape;
use crate::turn_tokens::{self, GAP_PERCENT, Sums, TurnSums, thousands};
use std::fmt::Write as _;

/// The section's HTML; empty when the run made no model call.
pub fn section(events: &[Event]) -> String {
    let calls = turn_tokens::calls(events);
    if calls.is_empty() {
        return String::new();
    }
    let (turns, total) = turn_tokens::per_turn(&calls);
    let mut h = String::from("<h2>Tokens</h2>");
    gap_note(&mut h, &total);
    table(&mut h, &turns, &total);
    chart(&mut h, &turns);
    h
}

/// What the reader should know when franz's estimate is off: its context budget
/// (`context_tokens`) is kept with the estimate, so a server counting more may still refuse.
fn gap_note(h: &mut String, total: &Sums) {
    let Some(gap) = total.gap_percent().filter(|g| *g > GAP_PERCENT) else {
        return;
    };
    let _ = write!(
        h,
        "<p class=\"warn\" id=\"token-gap\">franz's estimate and the server's count differ by {gap:.0}% \
         ({} estimated, {} counted by the server over {} request(s)): franz keeps requests inside \
         the context by its estimate, so set context_tokens below the server's context by that \
         margin, or check that the server sees the images (franz doctor)</p>",
        thousands(total.estimated_where_counted),
        thousands(total.prompt_tokens),
        total.counted
    );
}

fn cell(n: Option<u64>) -> String {
    n.map_or("–".into(), thousands)
}

fn gap_cell(s: &Sums) -> String {
    match s.gap_percent() {
        Some(g) if g > GAP_PERCENT => format!("<td class=\"err\">{g:.0}%</td>"),
        Some(g) => format!("<td>{g:.0}%</td>"),
        None => "<td>–</td>".into(),
    }
}

fn row(h: &mut String, label: &str, s: &Sums, attrs: &str) {
    let counted = (s.counted > 0).then_some(s.prompt_tokens);
    let _ = write!(
        h,
        "<tr{attrs}><th>{}</th><td>{}</td><td>{}</td><td>{}</td><td>{}</td>{}</tr>",
        escape(label),
        thousands(s.image_tokens),
        thousands(s.request_tokens),
        cell(counted),
        thousands(s.completion_tokens),
        gap_cell(s)
    );
}

fn table(h: &mut String, turns: &[TurnSums], total: &Sums) {
    h.push_str(
        "<table id=\"tokens\"><tr><th>turn</th><th>image</th><th>request (franz's estimate)</th>\
         <th>prompt (server)</th><th>completion (server)</th><th>estimate vs server</th></tr>",
    );
    for t in turns {
        let attrs = format!(" data-turn=\"{}\"", t.turn);
        row(h, &t.turn.to_string(), &t.sums, &attrs);
    }
    row(h, "total", total, " class=\"total\"");
    h.push_str("</table>");
}

/// Two bars a turn: franz's estimate of the request, then the server's prompt tokens (absent
/// where it reported none), scaled to the largest.
fn chart(h: &mut String, turns: &[TurnSums]) {
    const HEIGHT: f64 = 120.0;
    const BAR: usize = 10;
    let step = 2 * BAR + 6;
    let max = turns
        .iter()
        .map(|t| t.sums.request_tokens.max(t.sums.prompt_tokens))
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    let width = 40 + step * turns.len();
    let _ = write!(
        h,
        "<svg id=\"token-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{}\" \
         data-turns=\"{}\" role=\"img\" aria-label=\"tokens per turn\">",
        HEIGHT as usize + 20,
        turns.len()
    );
    let _ = write!(
        h,
        "<text x=\"0\" y=\"10\" font-size=\"10\">{}</text>",
        thousands(max as u64)
    );
    for (i, t) in turns.iter().enumerate() {
        let x = 40 + step * i;
        let counted = (t.sums.counted > 0).then_some(t.sums.prompt_tokens);
        let bars = [
            ("estimate", "#6c8ebf", Some(t.sums.request_tokens)),
            ("server", "#d79b00", counted),
        ];
        for (j, (class, colour, value)) in bars.into_iter().enumerate() {
            let Some(v) = value else { continue };
            let tall = (v as f64 / max * HEIGHT).round();
            let _ = write!(
                h,
                "<rect class=\"{class}\" data-turn=\"{}\" x=\"{}\" y=\"{}\" width=\"{BAR}\" height=\"{tall}\" fill=\"{colour}\">\
                 <title>turn {}: {} {class}</title></rect>",
                t.turn,
                x + j * BAR,
                HEIGHT - tall,
                t.turn,
                thousands(v)
            );
        }
        let _ = write!(
            h,
            "<text x=\"{x}\" y=\"{}\" font-size=\"10\">{}</text>",
            HEIGHT as usize + 14,
            t.turn
        );
    }
    h.push_str(
        "</svg><p class=\"note\">blue: the request as franz estimates it; orange: the prompt as \
         the server counted it</p>",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(turn: u32, estimate: u64, prompt: Option<u64>) -> [Event; 2] {
        use crate::turn_tokens::tests::{reply, request};
        [
            request(turn, 400, estimate),
            reply(turn, prompt, prompt.map(|_| 9)),
        ]
    }

    #[test]
    fn a_gap_over_ten_percent_is_said_and_marked() {
        let events: Vec<Event> = [call(1, 1000, Some(1300)), call(2, 1000, Some(1300))]
            .concat()
            .to_vec();
        let h = section(&events);
        assert!(
            h.contains("franz's estimate and the server's count differ by 23%"),
            "{h}"
        );
        assert!(h.contains("<tr data-turn=\"1\"><th>1</th><td>400</td><td>1,000</td><td>1,300</td><td>9</td><td class=\"err\">23%</td></tr>"), "{h}");
        assert!(h.contains("<tr class=\"total\"><th>total</th><td>800</td><td>2,000</td><td>2,600</td><td>18</td>"), "{h}");
        assert_eq!(h.matches("<rect class=\"estimate\"").count(), 2);
        assert_eq!(h.matches("<rect class=\"server\"").count(), 2);
    }

    #[test]
    fn a_close_estimate_and_a_server_without_usage_say_no_gap() {
        let close: Vec<Event> = call(1, 1000, Some(1050)).to_vec();
        let h = section(&close);
        assert!(!h.contains("token-gap"), "5% is within the margin: {h}");
        assert!(h.contains("<td>5%</td>"), "{h}");
        let silent: Vec<Event> = call(1, 1000, None).to_vec();
        let h = section(&silent);
        assert!(!h.contains("token-gap"), "{h}");
        assert!(h.contains("<td>–</td>"), "{h}");
        assert_eq!(h.matches("<rect class=\"server\"").count(), 0);
        assert_eq!(section(&[]), "");
    }
}
