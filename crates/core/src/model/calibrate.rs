//! Token estimates calibrated from the server (docs/context.md, "Estimates calibrated from
//! the server"): the server's `usage.prompt_tokens` of each reply teaches franz what its
//! requests really cost, so that the figures shown and `context_fitted` go by the server's
//! count rather than by [`estimate`](super::context::estimate)'s rules alone.
//!
//! A request's tokens are modelled as `fixed + s * message_text + t * tool_schema + k *
//! images`, each term from [`RequestCost`] (the text at 4 characters a token, the images by
//! the family's rule). Before any reply `fixed` is 0 and `s`, `t` and `k` are 1: the plain
//! estimate. Each reply with `usage` is one observation, and the four figures are those that
//! fit all observations best (least squares), held towards those starting values in
//! proportion to how little the observations say (ridge regression): one observation moves
//! mostly the figure of the request's largest part, and requests that differ (more images,
//! a longer history, another tool schema) tell the parts apart. This covers what a fixed rule
//! cannot: a server whose chat template never writes the tool schema (`t` near 0), a
//! projector that gives a fixed number of tokens per image whatever its size (Gemma 3: `k`
//! times the rule's figure for the run's screenshot size) and a tokenizer denser or looser
//! than 4 characters a token (`s`).
//!
//! Only sums of products are kept (a 4x4 matrix and a vector), so the calibration's memory
//! does not grow with the turns of a run.

use super::context::RequestCost;

/// The terms of the model, in order: a fixed part, the messages' text, the tool schema, the
/// images.
const TERMS: usize = 4;

/// The starting figures: the plain estimate.
const PRIOR: [f64; TERMS] = [0.0, 1.0, 1.0, 1.0];

/// How far each figure may be expected to stray from [`PRIOR`] before any observation: the
/// fixed part by about 64 tokens, the text's tokens per estimated token by a quarter, the tool
/// schema's and the images' by their whole (a template may drop the schema; a projector may
/// give a fraction of the rule's tokens).
const SPREAD: [f64; TERMS] = [64.0, 0.25, 1.0, 1.0];

/// How many tokens an observation may miss the model by (the text's count is an estimate):
/// with [`SPREAD`] it sets how much one observation weighs against the starting figures.
const NOISE_TOKENS: f64 = 4.0;

/// The calibration of one run's requests against its server.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    /// Sum over observations of `x xᵀ`.
    xtx: [[f64; TERMS]; TERMS],
    /// Sum over observations of `x y`.
    xty: [f64; TERMS],
    /// The figures fitted so far.
    fitted: [f64; TERMS],
    observations: u64,
}

impl Default for Calibration {
    fn default() -> Self {
        Self {
            xtx: [[0.0; TERMS]; TERMS],
            xty: [0.0; TERMS],
            fitted: PRIOR,
            observations: 0,
        }
    }
}

/// The model's terms for a request's estimated cost.
fn terms(cost: &RequestCost) -> [f64; TERMS] {
    let tools = cost.tool_tokens.min(cost.text_tokens);
    [
        1.0,
        (cost.text_tokens - tools) as f64,
        tools as f64,
        cost.image_tokens as f64,
    ]
}

impl Calibration {
    /// Whether a server's count has been learned yet.
    pub fn is_calibrated(&self) -> bool {
        self.observations > 0
    }

    /// How many replies with `usage` it learned from.
    pub fn observations(&self) -> u64 {
        self.observations
    }

    /// The request's tokens as the server will likely count them: the plain estimate until a
    /// reply said the server's count, then the calibrated one.
    pub fn tokens(&self, cost: &RequestCost) -> u64 {
        if !self.is_calibrated() {
            return cost.total();
        }
        let x = terms(cost);
        let y: f64 = x.iter().zip(&self.fitted).map(|(a, b)| a * b).sum();
        y.max(0.0).round() as u64
    }

    /// The image part of [`tokens`](Self::tokens): the images' estimate times their figure.
    pub fn image_tokens(&self, cost: &RequestCost) -> u64 {
        if !self.is_calibrated() {
            return cost.image_tokens;
        }
        (cost.image_tokens as f64 * self.fitted[3].max(0.0)).round() as u64
    }

    /// Learns from a reply: the server counted `prompt_tokens` for the request whose plain
    /// estimate was `cost`. A count of 0 (a server that fills `usage` with zeros) teaches
    /// nothing.
    pub fn learn(&mut self, cost: &RequestCost, prompt_tokens: u64) {
        if prompt_tokens == 0 {
            return;
        }
        let x = terms(cost);
        let y = prompt_tokens as f64;
        for (i, xi) in x.iter().enumerate() {
            for (j, xj) in x.iter().enumerate() {
                self.xtx[i][j] += xi * xj;
            }
            self.xty[i] += xi * y;
        }
        self.observations += 1;
        if let Some(fitted) = self.solve() {
            self.fitted = fitted;
        }
    }

    /// The ridge solution: `(XᵀX + Λ) β = Xᵀy + Λ β0`, with `Λ = NOISE² / SPREAD²`.
    fn solve(&self) -> Option<[f64; TERMS]> {
        let mut a = self.xtx;
        let mut b = self.xty;
        for i in 0..TERMS {
            let lambda = (NOISE_TOKENS / SPREAD[i]).powi(2);
            a[i][i] += lambda;
            b[i] += lambda * PRIOR[i];
        }
        solve_linear(a, b)
    }
}

/// Solves `a x = b` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve_linear(mut a: [[f64; TERMS]; TERMS], mut b: [f64; TERMS]) -> Option<[f64; TERMS]> {
    for col in 0..TERMS {
        let pivot = (col..TERMS).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..TERMS {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (cell, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *cell -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; TERMS];
    for row in (0..TERMS).rev() {
        let rest: f64 = (row + 1..TERMS).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - rest) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(text: u64, tools: u64, images: u64) -> RequestCost {
        RequestCost {
            text_tokens: text + tools,
            tool_tokens: tools,
            image_tokens: images,
            images: Vec::new(),
        }
    }

    /// A server whose template drops the tool schema, whose projector gives 83 tokens for an
    /// image franz's rule counts as 1,196, and whose tokenizer is 10% looser than the rule.
    fn server(c: &RequestCost, images: u64) -> u64 {
        let text = (c.text_tokens - c.tool_tokens) as f64 * 1.1;
        text.round() as u64 + 83 * images + 12
    }

    #[test]
    fn before_any_reply_it_is_the_plain_estimate() {
        let c = Calibration::default();
        let r = cost(500, 800, 1196);
        assert_eq!(c.tokens(&r), r.total());
        assert_eq!(c.image_tokens(&r), 1196);
        assert!(!c.is_calibrated());
    }

    #[test]
    fn one_reply_calibrates_a_request_like_it() {
        let mut c = Calibration::default();
        let first = cost(600, 0, 1196);
        c.learn(&first, server(&first, 1));
        for text in [500, 640, 700] {
            let next = cost(text, 0, 1196);
            let truth = server(&next, 1) as f64;
            let gap = (c.tokens(&next) as f64 - truth).abs() / truth;
            assert!(gap < 0.10, "text {text}: {} vs {truth}", c.tokens(&next));
        }
    }

    #[test]
    fn requests_that_differ_tell_the_schema_and_the_images_apart() {
        let mut c = Calibration::default();
        // a growing history: more text and more images each turn, the same schema
        for turn in 1..=4u64 {
            let r = cost(400 + 150 * turn, 1500, 1196 * turn.min(3));
            c.learn(&r, server(&r, turn.min(3)));
        }
        let r = cost(1500, 1500, 1196 * 3);
        let truth = server(&r, 3) as f64;
        let gap = (c.tokens(&r) as f64 - truth).abs() / truth;
        assert!(gap < 0.05, "{} vs {truth}", c.tokens(&r));
        let image = c.image_tokens(&cost(0, 0, 1196));
        assert!((70..=96).contains(&image), "{image}");
    }

    #[test]
    fn a_count_of_zero_teaches_nothing() {
        let mut c = Calibration::default();
        c.learn(&cost(100, 0, 0), 0);
        assert_eq!(c, Calibration::default());
    }
}
