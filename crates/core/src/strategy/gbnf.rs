//! A grammar tree ([`G`]) that renders both to GBNF, for a server's grammar engine
//! (llama.cpp's), and to a regular expression, for the tests that check what a grammar lets a
//! model write against what franz reads.

/// A grammar tree: renders to GBNF and to a regular expression.
#[derive(Debug, Clone)]
pub enum G {
    Lit(String),
    /// A character class, written the same in GBNF and in a regex (e.g. `[0-9]`).
    Class(String),
    /// One digit from the first to the second.
    Digit(u8, u8),
    Seq(Vec<G>),
    Alt(Vec<G>),
    Rep(Box<G>, u32, u32),
    /// A named rule: written once in the GBNF however often it is used (llama.cpp expands each
    /// bounded repetition it reads into rules of its own, so a repetition written inline at
    /// every use makes a grammar of thousands of rules), inline in the regex.
    Rule(String, Box<G>),
    /// A part whose language is `tree` (written to the GBNF, and what the tests sample), and
    /// whose regex is `wider`, a superset: for a part whose own regex is too large to inline at
    /// every use in a grammar's regex (a quoted text, `quoted.rs`). `tree` is tested on its own.
    Wide {
        tree: Box<G>,
        wider: Box<G>,
    },
}

/// `g` as the rule `name` (see [`G::Rule`]).
pub fn rule(name: &str, g: G) -> G {
    G::Rule(name.to_string(), Box::new(g))
}

/// `g` as a rule named for what it is (a hash of its language), for a part used twice.
pub fn shared(g: G) -> G {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    g.regex().hash(&mut h);
    rule(&format!("part-{:x}", h.finish()), g)
}

pub fn lit(s: &str) -> G {
    G::Lit(s.to_string())
}

impl G {
    /// The GBNF grammar whose `root` is this tree, each named rule defined once after it.
    pub fn gbnf(&self) -> String {
        let mut rules = Vec::new();
        let root = self.gbnf_in(&mut rules);
        let mut out = format!("root ::= {root}\n");
        for (name, body) in rules {
            out.push_str(&format!("{name} ::= {body}\n"));
        }
        out
    }

    /// This tree as a GBNF expression; the rules it names are added to `rules`.
    fn gbnf_in(&self, rules: &mut Vec<(String, String)>) -> String {
        let mut each = |items: &[G], sep: &str| {
            let parts: Vec<String> = items.iter().map(|g| g.gbnf_in(rules)).collect();
            parts.join(sep)
        };
        match self {
            G::Lit(s) => format!("\"{}\"", gbnf_escape(s)),
            G::Class(c) => c.clone(),
            G::Digit(a, b) => format!("[{a}-{b}]"),
            G::Seq(items) => each(items, " "),
            G::Alt(items) => format!("({})", each(items, " | ")),
            G::Rep(g, 0, 1) => format!("({})?", g.gbnf_in(rules)),
            G::Rep(g, min, max) => format!("({}){{{min},{max}}}", g.gbnf_in(rules)),
            G::Wide { tree, .. } => tree.gbnf_in(rules),
            G::Rule(name, g) => {
                if !rules.iter().any(|(n, _)| n == name) {
                    let at = rules.len();
                    rules.push((name.clone(), String::new()));
                    let body = g.gbnf_in(rules);
                    rules[at].1 = body;
                }
                name.clone()
            }
        }
    }

    /// The most characters a text of this tree has.
    pub fn max_chars(&self) -> u32 {
        match self {
            G::Lit(s) => u32::try_from(s.chars().count()).unwrap_or(u32::MAX),
            G::Class(_) | G::Digit(..) => 1,
            G::Seq(items) => items.iter().map(G::max_chars).sum(),
            G::Alt(items) => items.iter().map(G::max_chars).max().unwrap_or(0),
            G::Rep(g, _, max) => g.max_chars().saturating_mul(*max),
            G::Rule(_, g) | G::Wide { tree: g, .. } => g.max_chars(),
        }
    }

    pub fn regex(&self) -> String {
        match self {
            G::Lit(s) => regex::escape(s),
            G::Class(c) => c.clone(),
            G::Digit(a, b) => format!("[{a}-{b}]"),
            G::Seq(items) => items.iter().map(G::regex).collect(),
            G::Alt(items) => format!(
                "({})",
                items.iter().map(G::regex).collect::<Vec<_>>().join("|")
            ),
            G::Rep(g, min, max) => format!("({}){{{min},{max}}}", g.regex()),
            G::Rule(_, g) | G::Wide { wider: g, .. } => g.regex(),
        }
    }
}

fn gbnf_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}
