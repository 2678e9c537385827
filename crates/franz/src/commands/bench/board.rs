//! The results of `franz bench tasks`: one JSON line per task run (`results.jsonl`), the
//! `index.html` leaderboard built from them, and `franz bench merge`, which joins the output
//! folders of several runs (e.g. the shards of a Kubernetes Job, docs/scale-out.md).

use crate::cli::BenchMergeArgs;
use crate::terminal::outln;
use anyhow::Context;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

pub const RESULTS_FILE: &str = "results.jsonl";
pub const INDEX_FILE: &str = "index.html";
/// Where each task run's folder goes inside an output folder.
pub const RUNS_DIR: &str = "runs";

/// One task run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub task: String,
    pub model: String,
    pub strategy: String,
    /// Empty when no profile was asked for.
    pub profile: String,
    /// 1-based repetition.
    pub repeat: u32,
    /// The episode's seed (MiniWoB++ tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// The reward the task's page computed (MiniWoB++ tasks: -1..1; success is reward > 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<f64>,
    pub success: bool,
    pub steps: u32,
    pub wall_s: f64,
    pub model_s: f64,
    pub tokens: u64,
    /// Why it failed (a checker, a timeout, a setup problem); empty on success.
    pub error: String,
    /// The task run's folder, relative to the output folder (`runs/<id>`).
    pub dir: String,
    /// The franz run's report, relative to the output folder, when the run wrote one.
    #[serde(default)]
    pub report: Option<String>,
    /// The X display of the run's sandbox, and when the run started and ended (Unix ms).
    #[serde(default)]
    pub display: String,
    /// When the sandbox held that display, from just after its start to just before its stop
    /// (Unix ms): sandboxes that overlap in time never share a display (the run's own times
    /// also cover its report).
    #[serde(default)]
    pub display_ms: [u64; 2],
    #[serde(default)]
    pub started_ms: u64,
    #[serde(default)]
    pub ended_ms: u64,
}

impl Row {
    /// The order rows are written in: task, model, strategy, profile, repeat.
    pub fn key(&self) -> (String, String, String, String, u32) {
        (
            self.task.clone(),
            self.model.clone(),
            self.strategy.clone(),
            self.profile.clone(),
            self.repeat,
        )
    }
}

/// Reads `dir/results.jsonl`.
pub fn read_rows(dir: &Path) -> anyhow::Result<Vec<Row>> {
    let path = dir.join(RESULTS_FILE);
    let what = "one file of a run directory";
    let text = franz_core::files::read_text(&path, what, franz_core::files::RUN_FILE_CAP)
        .with_context(|| {
            format!(
                "cannot read {} (is it a `franz bench tasks` output folder?)",
                path.display()
            )
        })?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{} line {}: not a result row", path.display(), i + 1))
        })
        .collect()
}

/// Writes `results.jsonl` (sorted) and `index.html` into `dir`.
pub fn write_all(dir: &Path, rows: &mut [Row]) -> anyhow::Result<()> {
    rows.sort_by_key(Row::key);
    let mut text = String::new();
    for r in rows.iter() {
        text.push_str(&serde_json::to_string(r)?);
        text.push('\n');
    }
    std::fs::write(dir.join(RESULTS_FILE), text)
        .with_context(|| format!("cannot write {}", dir.join(RESULTS_FILE).display()))?;
    std::fs::write(dir.join(INDEX_FILE), leaderboard(rows))
        .with_context(|| format!("cannot write {}", dir.join(INDEX_FILE).display()))?;
    Ok(())
}

/// The Wilson score interval (95%) of `k` successes in `n` trials, as fractions.
pub fn wilson(k: usize, n: usize) -> (f64, f64) {
    if n == 0 {
        return (0.0, 0.0);
    }
    let (n, p, z) = (n as f64, k as f64 / n as f64, 1.96_f64);
    let denom = 1.0 + z * z / n;
    let center = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((center - half).max(0.0), (center + half).min(1.0))
}

/// The mean of the rows' rewards and its 95% interval (normal approximation, clipped to the
/// rewards' range -1..1); `None` when no row has a reward (franz's own tasks).
pub fn mean_reward(rows: &[&Row]) -> Option<(f64, f64, f64)> {
    let r: Vec<f64> = rows.iter().filter_map(|r| r.reward).collect();
    if r.is_empty() {
        return None;
    }
    let n = r.len() as f64;
    let mean = r.iter().sum::<f64>() / n;
    let var = if r.len() > 1 {
        r.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    let half = 1.96 * (var / n).sqrt();
    Some((mean, (mean - half).max(-1.0), (mean + half).min(1.0)))
}

/// A mean reward and its interval as a table's two cells (dashes without rewards).
fn reward_cells(rows: &[&Row]) -> String {
    match mean_reward(rows) {
        Some((m, lo, hi)) => format!("<td>{m:.2}</td><td>{lo:.2}–{hi:.2}</td>"),
        None => "<td>–</td><td>–</td>".into(),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    crate::stats::stats(&mut v).0
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `model / strategy / profile` of a row, the leaderboard's column.
fn combo(r: &Row) -> String {
    let mut c = format!("{} / {}", r.model, r.strategy);
    if !r.profile.is_empty() {
        c.push_str(&format!(" / {}", r.profile));
    }
    c
}

const STYLE: &str = "body{font:14px system-ui,sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}th{background:#f3f3f3}.ok{color:#1a7f37}.bad{color:#cf222e}small{color:#666}";

/// The leaderboard: success rate per model x strategy (x profile) with a 95% Wilson interval
/// over every run of it, median steps and time, then a row per task with links to each run's
/// report. Static HTML, no scripts, no external resources.
pub fn leaderboard(rows: &[Row]) -> String {
    let mut by_combo: BTreeMap<String, Vec<&Row>> = BTreeMap::new();
    for r in rows {
        by_combo.entry(combo(r)).or_default().push(r);
    }
    let mut html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>franz bench</title><style>{STYLE}</style></head><body><h1>franz bench</h1><p>{} task runs, {} tasks.</p><h2>Leaderboard</h2><table><tr><th>model / strategy / profile</th><th>success (reward &gt; 0 on a page)</th><th>95% interval</th><th>mean reward</th><th>95% interval</th><th>runs</th><th>median steps</th><th>median wall s</th><th>median model s</th></tr>",
        rows.len(),
        rows.iter()
            .map(|r| &r.task)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    );
    let mut ranked: Vec<(&String, &Vec<&Row>)> = by_combo.iter().collect();
    let rate =
        |v: &Vec<&Row>| v.iter().filter(|r| r.success).count() as f64 / v.len().max(1) as f64;
    ranked.sort_by(|a, b| rate(b.1).total_cmp(&rate(a.1)).then(a.0.cmp(b.0)));
    for (name, v) in &ranked {
        let k = v.iter().filter(|r| r.success).count();
        let (lo, hi) = wilson(k, v.len());
        html.push_str(&format!(
            "<tr><td>{}</td><td>{:.0}% ({k}/{})</td><td>{:.0}%–{:.0}%</td>{}<td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1}</td></tr>",
            esc(name),
            rate(v) * 100.0,
            v.len(),
            lo * 100.0,
            hi * 100.0,
            reward_cells(v),
            v.len(),
            median(v.iter().map(|r| r.steps as f64).collect()),
            median(v.iter().map(|r| r.wall_s).collect()),
            median(v.iter().map(|r| r.model_s).collect()),
        ));
    }
    html.push_str("</table>");
    html.push_str(&task_table(rows, &by_combo));
    html.push_str("</body></html>\n");
    html
}

fn task_table(rows: &[Row], by_combo: &BTreeMap<String, Vec<&Row>>) -> String {
    let combos: Vec<&String> = by_combo.keys().collect();
    let mut html = String::from("<h2>Tasks</h2><table><tr><th>task</th>");
    for c in &combos {
        html.push_str(&format!("<th>{}</th>", esc(c)));
    }
    html.push_str("</tr>");
    let mut tasks: BTreeMap<&str, BTreeMap<String, Vec<&Row>>> = BTreeMap::new();
    for r in rows {
        tasks
            .entry(&r.task)
            .or_default()
            .entry(combo(r))
            .or_default()
            .push(r);
    }
    for (task, cells) in tasks {
        html.push_str(&format!("<tr><td>{}</td>", esc(task)));
        for c in &combos {
            html.push_str("<td>");
            let runs = cells.get(*c).map(Vec::as_slice).unwrap_or_default();
            if let Some((m, _, _)) = mean_reward(runs) {
                html.push_str(&format!("<b>{m:.2}</b> "));
            }
            for r in runs {
                let class = if r.success { "ok" } else { "bad" };
                let mark = match (r.reward, r.success) {
                    (Some(reward), _) => format!("{reward:.2}"),
                    (None, true) => "pass".into(),
                    (None, false) => "fail".into(),
                };
                let target = r.report.as_deref().unwrap_or(&r.dir);
                let title = if r.error.is_empty() {
                    format!("{} steps, {:.1} s", r.steps, r.wall_s)
                } else {
                    r.error.clone()
                };
                html.push_str(&format!(
                    "<a class=\"{class}\" href=\"{}\" title=\"{}\">{mark}</a> ",
                    esc(target),
                    esc(&title)
                ));
            }
            html.push_str("</td>");
        }
        html.push_str("</tr>");
    }
    html.push_str("</table><p><small>Each link opens that run's report (or its folder when the run wrote none). A MiniWoB++ cell shows the mean of its rewards, then each episode's reward as its page computed it (-1..1; success is a reward above 0).</small></p>");
    html
}

/// `franz bench merge DIR... --out DIR`: the rows of every folder, their run folders copied
/// under `OUT/runs/`, one results.jsonl and leaderboard.
pub fn merge(args: &BenchMergeArgs) -> anyhow::Result<ExitCode> {
    std::fs::create_dir_all(args.out.join(RUNS_DIR))
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut all: Vec<Row> = Vec::new();
    for dir in &args.dirs {
        let rows = read_rows(dir).map_err(|e| crate::exit::usage(format!("{e:#}")))?;
        for r in rows {
            if all.iter().any(|o| o.key() == r.key()) {
                return Err(crate::exit::usage(format!(
                    "{} has a second result for {} / {} / {} / {} repeat {}: merge folders of different shards only",
                    dir.display(),
                    r.task,
                    r.model,
                    r.strategy,
                    r.profile,
                    r.repeat
                )));
            }
            let (from, to) = (dir.join(&r.dir), args.out.join(&r.dir));
            if from.is_dir() && from.canonicalize().ok() != to.canonicalize().ok() {
                copy_dir(&from, &to)?;
            }
            all.push(r);
        }
    }
    write_all(&args.out, &mut all)?;
    let ok = all.iter().filter(|r| r.success).count();
    outln!(
        "merged {} task runs ({ok} succeeded) into {}",
        all.len(),
        args.out.join(INDEX_FILE).display()
    )?;
    Ok(ExitCode::SUCCESS)
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("cannot create {}", to.display()))?;
    for e in std::fs::read_dir(from).with_context(|| format!("cannot read {}", from.display()))? {
        let e = e?;
        let (src, dst) = (e.path(), to.join(e.file_name()));
        let kind = e.file_type()?;
        if kind.is_dir() {
            copy_dir(&src, &dst)?;
        } else if kind.is_file() {
            std::fs::copy(&src, &dst)
                .with_context(|| format!("cannot copy {} to {}", src.display(), dst.display()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(task: &str, model: &str, repeat: u32, success: bool) -> Row {
        Row {
            display_ms: [0, 0],
            task: task.into(),
            model: model.into(),
            strategy: "narrative".into(),
            profile: String::new(),
            repeat,
            seed: None,
            reward: None,
            success,
            steps: 3,
            wall_s: 2.0,
            model_s: 1.0,
            tokens: 10,
            error: if success {
                String::new()
            } else {
                "checker 0: <nope>".into()
            },
            dir: format!("runs/{task}.{model}.r{repeat}"),
            report: Some(format!(
                "runs/{task}.{model}.r{repeat}/runs/run_0001/report.html"
            )),
            display: ":20".into(),
            started_ms: 0,
            ended_ms: 0,
        }
    }

    #[test]
    fn the_leaderboard_ranks_combinations_and_links_every_run() {
        let rows = vec![
            row("a", "weak", 1, false),
            row("a", "weak", 2, true),
            row("a", "strong", 1, true),
            row("a", "strong", 2, true),
            row("b<x>", "strong", 1, true),
        ];
        let html = leaderboard(&rows);
        let strong = html.find("strong / narrative</td><td>100% (3/3)").unwrap();
        let weak = html.find("weak / narrative</td><td>50% (1/2)").unwrap();
        assert!(strong < weak, "best first");
        assert_eq!(html.matches("<a class=").count(), rows.len());
        assert!(html.contains("b&lt;x&gt;") && html.contains("checker 0: &lt;nope&gt;"));
        assert!(
            !html.contains("<script") && !html.contains("http"),
            "static, no external resources"
        );
    }

    #[test]
    fn pages_rewards_give_a_mean_with_an_interval() {
        let mut rows = vec![
            row("click-button", "m", 1, true),
            row("click-button", "m", 2, false),
        ];
        rows[0].reward = Some(1.0);
        rows[1].reward = Some(-1.0);
        let refs: Vec<&Row> = rows.iter().collect();
        let (m, lo, hi) = mean_reward(&refs).unwrap();
        assert_eq!((m, lo, hi), (0.0, -1.0, 1.0));
        assert_eq!(mean_reward(&refs[..1]), Some((1.0, 1.0, 1.0)));
        let html = leaderboard(&rows);
        assert!(html.contains("<td>0.00</td><td>-1.00–1.00</td>"), "{html}");
        assert!(html.contains("<b>0.00</b>") && html.contains(">-1.00</a>"));
        assert_eq!(mean_reward(&[&row("a", "m", 1, true)]), None);
    }

    #[test]
    fn wilson_interval_is_known_values() {
        let (lo, hi) = wilson(10, 10);
        assert!((lo - 0.7225).abs() < 0.001 && hi == 1.0, "{lo} {hi}");
        let (lo, hi) = wilson(5, 10);
        assert!((lo - 0.2366).abs() < 0.001 && (hi - 0.7634).abs() < 0.001);
        assert_eq!(wilson(0, 0), (0.0, 0.0));
    }
}
