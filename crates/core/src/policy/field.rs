//! The text in the focused field, as the safety policy models it for its text rules
//! (`deny_text`, `confirm.text`; docs/config.md): what a person would see in the field after
//! the actions so far, not the characters sent.
//!
//! - typed characters and keys that type one (`key("f")`, `key("shift+7")` on a US layout,
//!   `key("space")`) are inserted at the cursor;
//! - backspace (`\b` in a text, or the key) and delete remove a character; left, right, home
//!   and end move the cursor;
//! - Enter (`\n` or `\r` in a text, or a combo with the key) submits the line and empties the
//!   field; so do a click, a press of a mouse button, a drag and `focus_window`, which may move
//!   the focus;
//! - a move, a scroll, a wait and any other key leave the field as it is (a shortcut with
//!   ctrl, alt or win types nothing; tab, up and down may move elsewhere, which keeps what was
//!   typed in the model: a rule may then match across two fields, never miss one).
//!
//! What an application inserts on its own (completion, paste, history recall) is not seen.

use crate::action::ActionKind;
use crate::keys;
use franz_desktop::{Key, NamedKey};

/// The focused field's text and the cursor in it (a count of characters).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Field {
    chars: Vec<char>,
    cursor: usize,
}

/// One edit of the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Edit {
    Insert(char),
    Backspace,
    Delete,
    Left,
    Right,
    Home,
    End,
    /// Enter: the line goes to the application and the field starts afresh.
    Submit,
    /// A click or a focus change: the field starts afresh.
    Reset,
}

impl Field {
    /// A field holding `text`, the cursor at its end.
    pub fn with_text(text: &str) -> Self {
        let chars: Vec<char> = text.chars().collect();
        Field {
            cursor: chars.len(),
            chars,
        }
    }

    /// The text it holds.
    pub fn text(&self) -> String {
        self.chars.iter().collect()
    }

    pub fn is_empty(&self) -> bool {
        self.chars.is_empty()
    }

    /// The field after `kind` ran.
    pub fn after(&self, kind: &ActionKind) -> Field {
        self.run(kind).0
    }

    /// What the text rules match when `kind` runs in this field: for a `type`, each line it
    /// submits, the field it leaves and the text as sent after what the field held (so text
    /// typed and then erased is caught too); for a key that changes the text, the field it
    /// leaves; nothing for any other action (the field it leaves was matched when its text was
    /// made, so a confirmed text is not asked about again at each later action).
    pub fn texts_after(&self, kind: &ActionKind) -> Vec<String> {
        let (field, mut texts) = self.run(kind);
        match kind {
            ActionKind::Type { text } => {
                texts.push(field.text());
                let sent = format!("{}{text}", self.text());
                texts.extend(sent.split(['\n', '\r']).map(str::to_string));
                texts
            }
            ActionKind::Key { .. } | ActionKind::HoldKey { .. } if field.chars != self.chars => {
                vec![field.text()]
            }
            _ => Vec::new(),
        }
    }

    /// The field after `kind`, and the lines it submitted on the way.
    fn run(&self, kind: &ActionKind) -> (Field, Vec<String>) {
        let mut field = self.clone();
        let mut submitted = Vec::new();
        for edit in edits(kind) {
            if edit == Edit::Submit && !field.is_empty() {
                submitted.push(field.text());
            }
            field.edit(edit);
        }
        (field, submitted)
    }

    fn edit(&mut self, edit: Edit) {
        let n = self.chars.len();
        match edit {
            Edit::Insert(c) => {
                self.chars.insert(self.cursor, c);
                self.cursor += 1;
            }
            Edit::Backspace if self.cursor > 0 => {
                self.cursor -= 1;
                self.chars.remove(self.cursor);
            }
            Edit::Delete if self.cursor < n => {
                self.chars.remove(self.cursor);
            }
            Edit::Left => self.cursor = self.cursor.saturating_sub(1),
            Edit::Right => self.cursor = (self.cursor + 1).min(n),
            Edit::Home => self.cursor = 0,
            Edit::End => self.cursor = n,
            Edit::Submit | Edit::Reset => *self = Field::default(),
            Edit::Backspace | Edit::Delete => {}
        }
    }
}

/// The edits an action makes to the focused field.
fn edits(kind: &ActionKind) -> Vec<Edit> {
    match kind {
        ActionKind::Type { text } => text.chars().filter_map(char_edit).collect(),
        ActionKind::Key { keys } | ActionKind::HoldKey { keys, .. } => combo_edits(keys),
        ActionKind::Click { .. }
        | ActionKind::RightClick { .. }
        | ActionKind::MiddleClick { .. }
        | ActionKind::DoubleClick { .. }
        | ActionKind::TripleClick { .. }
        | ActionKind::MouseDown { .. }
        | ActionKind::MouseUp { .. }
        | ActionKind::LongPress { .. }
        | ActionKind::Drag { .. }
        | ActionKind::FocusWindow { .. } => vec![Edit::Reset],
        _ => Vec::new(),
    }
}

/// What typing `c` does (as the desktop types it: `\n` and `\r` are Enter, `\b` backspace).
fn char_edit(c: char) -> Option<Edit> {
    match c {
        '\n' | '\r' => Some(Edit::Submit),
        '\u{8}' => Some(Edit::Backspace),
        '\u{7f}' => Some(Edit::Delete),
        '\t' => None,
        c => Some(Edit::Insert(c)),
    }
}

/// What pressing a combo does: Enter in it submits; with ctrl, alt or win it is a shortcut
/// that types nothing; else each key types its character or edits.
fn combo_edits(keys: &str) -> Vec<Edit> {
    let Ok(combo) = keys::parse_combo(keys) else {
        return Vec::new();
    };
    let has = |k: NamedKey| combo.keys.contains(&Key::Named(k));
    if has(NamedKey::Enter) {
        return vec![Edit::Submit];
    }
    if has(NamedKey::Ctrl) || has(NamedKey::Alt) || has(NamedKey::Win) {
        return Vec::new();
    }
    let shift = has(NamedKey::Shift);
    combo
        .keys
        .iter()
        .filter_map(|k| match k {
            Key::Char(c) => Some(Edit::Insert(if shift { shifted(*c) } else { *c })),
            Key::Named(NamedKey::Space) => Some(Edit::Insert(' ')),
            Key::Named(NamedKey::Backspace) => Some(Edit::Backspace),
            Key::Named(NamedKey::Delete) => Some(Edit::Delete),
            Key::Named(NamedKey::Left) => Some(Edit::Left),
            Key::Named(NamedKey::Right) => Some(Edit::Right),
            Key::Named(NamedKey::Home) => Some(Edit::Home),
            Key::Named(NamedKey::End) => Some(Edit::End),
            Key::Named(_) => None,
        })
        .collect()
}

/// The character shift gives a key on a US layout.
fn shifted(c: char) -> char {
    const PAIRS: &[(char, char)] = &[
        ('1', '!'),
        ('2', '@'),
        ('3', '#'),
        ('4', '$'),
        ('5', '%'),
        ('6', '^'),
        ('7', '&'),
        ('8', '*'),
        ('9', '('),
        ('0', ')'),
        ('-', '_'),
        ('=', '+'),
        ('[', '{'),
        (']', '}'),
        ('\\', '|'),
        (';', ':'),
        ('\'', '"'),
        (',', '<'),
        ('.', '>'),
        ('/', '?'),
        ('`', '~'),
    ];
    match PAIRS.iter().find(|(plain, _)| *plain == c) {
        Some((_, s)) => *s,
        None => c.to_uppercase().next().unwrap_or(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> ActionKind {
        ActionKind::Type { text: s.into() }
    }
    fn k(s: &str) -> ActionKind {
        ActionKind::Key { keys: s.into() }
    }

    fn field_after(kinds: &[ActionKind]) -> String {
        kinds
            .iter()
            .fold(Field::default(), |f, a| f.after(a))
            .text()
    }

    #[test]
    fn backspace_and_delete_erase_as_the_field_would() {
        assert_eq!(field_after(&[t("touch pwnex\u{8}d")]), "touch pwned");
        assert_eq!(
            field_after(&[t("touch pwnex"), k("backspace"), t("d")]),
            "touch pwned"
        );
        assert_eq!(
            field_after(&[t("touch pwnxed"), k("left"), k("left"), k("backspace")]),
            "touch pwned"
        );
        assert_eq!(
            field_after(&[t("Xtouch pwned"), k("home"), k("delete")]),
            "touch pwned"
        );
        assert_eq!(field_after(&[t("ab"), k("home"), k("backspace")]), "ab");
    }

    #[test]
    fn keys_type_their_characters_and_shortcuts_type_nothing() {
        assert_eq!(
            field_after(&[t("rm -r"), k("f"), k("space"), k("/")]),
            "rm -rf /"
        );
        assert_eq!(field_after(&[k("shift+a"), k("shift+7")]), "A&");
        assert_eq!(field_after(&[t("rm"), k("ctrl+s"), k("tab")]), "rm");
    }

    #[test]
    fn only_a_click_a_focus_change_or_enter_starts_afresh() {
        let click = ActionKind::Click {
            x: Some(1),
            y: Some(1),
        };
        let moved = ActionKind::Move {
            x: Some(5),
            y: Some(5),
        };
        assert_eq!(
            field_after(&[t("touch pw"), moved, t("ned")]),
            "touch pwned"
        );
        assert_eq!(field_after(&[t("touch pw"), click, t("ned")]), "ned");
        assert_eq!(field_after(&[t("touch pw"), k("ctrl+enter"), t("x")]), "x");
        assert_eq!(field_after(&[t("a\nb\rc")]), "c");
        let focus = ActionKind::FocusWindow { window: "x".into() };
        assert_eq!(field_after(&[t("touch pw"), focus]), "");
    }

    #[test]
    fn the_texts_to_match_are_the_lines_submitted_the_field_and_the_text_sent() {
        let f = Field::with_text("echo ");
        let texts = f.texts_after(&t("a\u{8}b\nrm -rf /x\u{8}\u{8}"));
        assert!(texts.contains(&"echo b".to_string()), "{texts:?}");
        assert!(texts.contains(&"rm -rf ".to_string()), "{texts:?}");
        assert!(
            texts.contains(&"rm -rf /x\u{8}\u{8}".to_string()),
            "{texts:?}"
        );
    }
}
