//! The canonical key vocabulary (docs/actions.md) and its aliases.
//!
//! `ctrl+shift+t`, `Ctrl Shift T`, `control-shift-t` and `["ctrl","shift","t"]` all become the
//! combo `ctrl+shift+t`. An unknown name is an error that names it, for the model to fix.

use franz_desktop::{Key, NamedKey};
use std::fmt;

/// A parsed key combo: keys pressed in order, released in reverse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Combo {
    pub keys: Vec<Key>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    #[error("empty key: name a key such as enter, ctrl+s or alt+f4")]
    Empty,
    #[error(
        "unknown key {0:?}: use a-z, 0-9, punctuation, f1-f24, up, down, left, right, home, end, pageup, pagedown, insert, delete, backspace, enter, tab, esc, space, ctrl, alt, shift, win, menu, capslock or printscreen, joined by + (e.g. ctrl+shift+t)"
    )]
    Unknown(String),
}

const NAMED: &[(&str, NamedKey)] = &[
    ("up", NamedKey::Up),
    ("down", NamedKey::Down),
    ("left", NamedKey::Left),
    ("right", NamedKey::Right),
    ("home", NamedKey::Home),
    ("end", NamedKey::End),
    ("pageup", NamedKey::PageUp),
    ("pagedown", NamedKey::PageDown),
    ("insert", NamedKey::Insert),
    ("delete", NamedKey::Delete),
    ("backspace", NamedKey::Backspace),
    ("enter", NamedKey::Enter),
    ("tab", NamedKey::Tab),
    ("esc", NamedKey::Esc),
    ("space", NamedKey::Space),
    ("ctrl", NamedKey::Ctrl),
    ("alt", NamedKey::Alt),
    ("shift", NamedKey::Shift),
    ("win", NamedKey::Win),
    ("menu", NamedKey::Menu),
    ("capslock", NamedKey::CapsLock),
    ("printscreen", NamedKey::PrintScreen),
];

/// Aliases, compared after lowercasing and removing `_`, `-` and spaces.
const ALIASES: &[(&str, &str)] = &[
    ("return", "enter"),
    ("kpenter", "enter"),
    ("cr", "enter"),
    ("escape", "esc"),
    ("pgdn", "pagedown"),
    ("pgdown", "pagedown"),
    ("pgup", "pageup"),
    ("prior", "pageup"),
    ("next", "pagedown"),
    ("arrowup", "up"),
    ("arrowdown", "down"),
    ("arrowleft", "left"),
    ("arrowright", "right"),
    ("uparrow", "up"),
    ("downarrow", "down"),
    ("leftarrow", "left"),
    ("rightarrow", "right"),
    ("control", "ctrl"),
    ("ctl", "ctrl"),
    ("lctrl", "ctrl"),
    ("rctrl", "ctrl"),
    ("controlleft", "ctrl"),
    ("controlright", "ctrl"),
    ("option", "alt"),
    ("opt", "alt"),
    ("lalt", "alt"),
    ("ralt", "alt"),
    ("altgr", "alt"),
    ("lshift", "shift"),
    ("rshift", "shift"),
    ("shiftleft", "shift"),
    ("shiftright", "shift"),
    ("cmd", "win"),
    ("command", "win"),
    ("super", "win"),
    ("meta", "win"),
    ("windows", "win"),
    ("lwin", "win"),
    ("rwin", "win"),
    ("os", "win"),
    ("apps", "menu"),
    ("contextmenu", "menu"),
    ("del", "delete"),
    ("ins", "insert"),
    ("bksp", "backspace"),
    ("bs", "backspace"),
    ("spacebar", "space"),
    ("capital", "capslock"),
    ("caps", "capslock"),
    ("print", "printscreen"),
    ("prtsc", "printscreen"),
    ("prtscr", "printscreen"),
    ("snapshot", "printscreen"),
];

/// The names of the named keys (`enter`, `ctrl`, ...), besides letters, digits, punctuation
/// and f1-f24.
pub fn named_keys() -> impl Iterator<Item = &'static str> {
    NAMED.iter().map(|(n, _)| *n)
}

/// The canonical name of one key name or alias, case-insensitively.
pub fn canonical_name(name: &str) -> Result<String, KeyError> {
    Ok(key_name(parse_key(name)?))
}

/// Parses one key name or alias.
pub fn parse_key(name: &str) -> Result<Key, KeyError> {
    let trimmed = name.trim();
    if trimmed.is_empty() {
        return Err(KeyError::Empty);
    }
    let mut chars = trimmed.chars();
    if let (Some(c), None) = (chars.next(), chars.next()) {
        if c.is_alphabetic() {
            return Ok(Key::Char(c.to_lowercase().next().unwrap_or(c)));
        }
        if !c.is_whitespace() && !c.is_control() {
            return Ok(Key::Char(c));
        }
    }
    let folded: String = trimmed
        .to_lowercase()
        .chars()
        .filter(|c| !matches!(c, '_' | '-' | ' '))
        .collect();
    let folded = ALIASES
        .iter()
        .find(|(a, _)| *a == folded)
        .map(|(_, c)| (*c).to_string())
        .unwrap_or(folded);
    if let Some((_, k)) = NAMED.iter().find(|(n, _)| *n == folded) {
        return Ok(Key::Named(*k));
    }
    if let Some(n) = folded.strip_prefix('f').and_then(|d| d.parse::<u8>().ok())
        && (1..=24).contains(&n)
    {
        return Ok(Key::Named(NamedKey::F(n)));
    }
    Err(KeyError::Unknown(trimmed.to_string()))
}

/// The canonical name of a key.
pub fn key_name(key: Key) -> String {
    match key {
        Key::Char(c) => c.to_string(),
        Key::Named(NamedKey::F(n)) => format!("f{n}"),
        Key::Named(k) => NAMED
            .iter()
            .find(|(_, v)| *v == k)
            .map(|(n, _)| (*n).to_string())
            .unwrap_or_default(),
    }
}

fn is_modifier_name(s: &str) -> bool {
    matches!(
        parse_key(s),
        Ok(Key::Named(
            NamedKey::Ctrl | NamedKey::Alt | NamedKey::Shift | NamedKey::Win
        ))
    )
}

/// Splits a combo string into key names: `ctrl+shift+t`, `ctrl c`, `ctrl-c`, `ctrl++`.
fn split_combo(s: &str) -> Vec<String> {
    let s = s.trim();
    if s.chars().count() == 1 {
        return vec![s.to_string()];
    }
    let mut parts: Vec<String> = Vec::new();
    if s.contains('+') {
        // `+` separates keys; a `+` next to another `+` or at an end is the key itself.
        let mut cur = String::new();
        let mut prev_sep = true;
        for c in s.chars() {
            if c == '+' && !prev_sep {
                parts.push(std::mem::take(&mut cur));
                prev_sep = true;
            } else if c == '+' {
                parts.push("+".to_string());
                prev_sep = false;
                // the next `+` separates again
                cur.clear();
                continue;
            } else {
                cur.push(c);
                prev_sep = false;
            }
        }
        if !cur.is_empty() {
            parts.push(cur);
        }
        parts = parts
            .into_iter()
            .map(|p| p.trim().to_string())
            .filter(|p| !p.is_empty())
            .collect();
        return parts;
    }
    let words: Vec<&str> = s.split_whitespace().collect();
    if words.len() > 1 && (parse_key(s).is_err()) {
        return words.into_iter().map(str::to_string).collect();
    }
    // `ctrl-c`: split on `-` only when what comes before is a modifier.
    if let Some((head, tail)) = s.rsplit_once('-')
        && !tail.is_empty()
        && head.split('-').all(is_modifier_name)
    {
        let mut v: Vec<String> = head.split('-').map(str::to_string).collect();
        v.push(tail.to_string());
        return v;
    }
    vec![s.to_string()]
}

/// Parses a combo written as one string.
pub fn parse_combo(s: &str) -> Result<Combo, KeyError> {
    parse_combo_parts(&split_combo(s))
}

/// Parses a combo given as separate names (`["ctrl", "c"]`); each name may itself be a combo.
pub fn parse_combo_parts<S: AsRef<str>>(parts: &[S]) -> Result<Combo, KeyError> {
    let mut keys = Vec::new();
    for p in parts {
        let p = p.as_ref();
        let sub = split_combo(p);
        if sub.len() > 1 {
            keys.extend(parse_combo_parts(&sub)?.keys);
        } else {
            keys.push(parse_key(p)?);
        }
    }
    if keys.is_empty() {
        return Err(KeyError::Empty);
    }
    Ok(Combo { keys })
}

/// The canonical text of a combo string: `Ctrl C` -> `ctrl+c`.
pub fn normalize_combo(s: &str) -> Result<String, KeyError> {
    Ok(parse_combo(s)?.to_string())
}

impl fmt::Display for Combo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<String> = self.keys.iter().map(|k| key_name(*k)).collect();
        f.write_str(&names.join("+"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_and_aliases() {
        for (input, want) in [
            ("ctrl+shift+t", "ctrl+shift+t"),
            ("Ctrl+S", "ctrl+s"),
            ("ctrl c", "ctrl+c"),
            ("ctrl-c", "ctrl+c"),
            ("Return", "enter"),
            ("Escape", "esc"),
            ("Page_Down", "pagedown"),
            ("pgdn", "pagedown"),
            ("ArrowUp", "up"),
            ("Up", "up"),
            ("control+alt+delete", "ctrl+alt+delete"),
            ("cmd+space", "win+space"),
            ("super", "win"),
            ("META", "win"),
            ("windows", "win"),
            ("alt+F4", "alt+f4"),
            ("F24", "f24"),
            ("ctrl++", "ctrl++"),
            ("+", "+"),
            ("-", "-"),
            ("ctrl+-", "ctrl+-"),
            ("A", "a"),
            ("page down", "pagedown"),
            ("print_screen", "printscreen"),
        ] {
            assert_eq!(normalize_combo(input).as_deref(), Ok(want), "{input}");
        }
    }

    #[test]
    fn unknown_key_is_named() {
        let err = normalize_combo("ctrl+hyperdrive").unwrap_err();
        assert_eq!(err, KeyError::Unknown("hyperdrive".into()));
        assert!(err.to_string().contains("hyperdrive"));
        assert_eq!(
            normalize_combo("f25").unwrap_err(),
            KeyError::Unknown("f25".into())
        );
        assert_eq!(normalize_combo("  "), Err(KeyError::Empty));
    }

    #[test]
    fn parts_form() {
        let c = parse_combo_parts(&["ctrl", "shift", "T"]).unwrap();
        assert_eq!(c.to_string(), "ctrl+shift+t");
        assert_eq!(
            parse_combo_parts(&["ctrl+c"]).unwrap().to_string(),
            "ctrl+c"
        );
    }
}
