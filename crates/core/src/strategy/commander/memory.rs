//! The commander's memory (the commander design's AgentMemory, docs/designs.md): a record per
//! operator turn, and snapshots that replace archived turns in the context once the leader
//! compresses them.

/// One operator turn.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub turn: u32,
    /// The tool called (`(none)` when the reply had none, `loop_recovery` for a recovery).
    pub tool: String,
    /// Its arguments, compact JSON.
    pub args: String,
    /// `ok`, or the error.
    pub result: String,
    pub sitrep: String,
    pub archived: bool,
}

/// What compression leaves of archived turns.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub first_turn: u32,
    pub last_turn: u32,
    pub summary: String,
    pub loop_pattern: String,
}

impl Snapshot {
    /// Whether the leader saw a loop (anything but empty or "none").
    pub fn has_loop(&self) -> bool {
        let p = self.loop_pattern.trim().to_ascii_lowercase();
        !(p.is_empty() || p == "none" || p.starts_with("none") || p.starts_with("no loop"))
    }
}

#[derive(Debug, Clone, Default)]
pub struct Memory {
    pub records: Vec<Record>,
    pub snapshots: Vec<Snapshot>,
}

fn clip(s: &str, n: usize) -> String {
    let s = s.trim();
    match s.char_indices().nth(n) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

impl Memory {
    pub fn active(&self) -> impl Iterator<Item = &Record> {
        self.records.iter().filter(|r| !r.archived)
    }

    pub fn active_len(&self) -> usize {
        self.active().count()
    }

    /// Archives `turns` of the active history (all of it when none of them is active) into a
    /// snapshot with the summary and loop pattern clipped to the given lengths.
    pub fn compress(
        &mut self,
        summary: &str,
        loop_pattern: &str,
        turns: &[u32],
        limits: (usize, usize),
    ) -> Option<&Snapshot> {
        let listed = self.active().any(|r| turns.contains(&r.turn));
        let mut range: Option<(u32, u32)> = None;
        for r in self.records.iter_mut().filter(|r| !r.archived) {
            if listed && !turns.contains(&r.turn) {
                continue;
            }
            r.archived = true;
            range = Some(match range {
                None => (r.turn, r.turn),
                Some((a, b)) => (a.min(r.turn), b.max(r.turn)),
            });
        }
        let (first_turn, last_turn) = range?;
        self.snapshots.push(Snapshot {
            first_turn,
            last_turn,
            summary: clip(summary, limits.0),
            loop_pattern: clip(loop_pattern, limits.1),
        });
        self.snapshots.last()
    }

    /// A snapshot made without the leader: the tools and results of the active turns.
    pub fn compress_mechanically(&mut self, limits: (usize, usize)) -> Option<&Snapshot> {
        let summary: Vec<String> = self
            .active()
            .map(|r| format!("T{} {} {}", r.turn, r.tool, r.result))
            .collect();
        self.compress(&summary.join("; "), "none", &[], limits)
    }

    /// The memory as context text: snapshots, then the active history.
    pub fn context(&self) -> String {
        let mut out = String::from("MEMORY SNAPSHOTS:\n");
        if self.snapshots.is_empty() {
            out.push_str("(none)\n");
        }
        for (i, s) in self.snapshots.iter().enumerate() {
            out.push_str(&format!(
                "SNAPSHOT {} (turns {}-{}): SUMMARY: {} | LOOP PATTERN: {}\n",
                i + 1,
                s.first_turn,
                s.last_turn,
                s.summary,
                s.loop_pattern
            ));
        }
        out.push_str("ACTIVE HISTORY:\n");
        let mut any = false;
        for r in self.active() {
            any = true;
            out.push_str(&format!(
                "T{} {} {} -> {}\n  SITREP: {}\n",
                r.turn,
                r.tool,
                r.args,
                r.result,
                r.sitrep.replace('\n', " | ")
            ));
        }
        if !any {
            out.push_str("(none)\n");
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(turn: u32, tool: &str) -> Record {
        Record {
            turn,
            tool: tool.into(),
            args: "{}".into(),
            result: "ok".into(),
            sitrep: format!("sitrep {turn}"),
            archived: false,
        }
    }

    #[test]
    fn compression_replaces_archived_turns_in_the_context() {
        let mut m = Memory::default();
        for t in 1..=4 {
            m.records.push(rec(t, "click_element"));
        }
        let s = m
            .compress("x".repeat(300).as_str(), "none", &[1, 2, 3], (180, 120))
            .unwrap();
        assert_eq!((s.first_turn, s.last_turn), (1, 3));
        assert_eq!(s.summary.chars().count(), 181);
        assert!(!s.has_loop());
        let c = m.context();
        assert!(c.contains("SNAPSHOT 1 (turns 1-3)"));
        assert!(!c.contains("sitrep 2"));
        assert!(c.contains("sitrep 4"));
        assert_eq!(m.active_len(), 1);
        // unknown turns archive everything active
        m.compress("y", "clicking OK twice", &[99], (180, 120))
            .unwrap();
        assert_eq!(m.active_len(), 0);
        assert!(m.snapshots[1].has_loop());
        assert!(m.compress("z", "none", &[], (180, 120)).is_none());
    }
}
