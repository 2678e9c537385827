//! Held input: the mouse buttons and keys the executor has pressed and not yet released.
//!
//! Every `Press::Down` / `Press::Up` the executor sends goes through [`Held::note`], so the set
//! always says what the OS holds because of franz. The executor releases all of it at the end
//! of each turn, on any error, on Ctrl+C and on the failsafe; see `Executor::release_all`.

use franz_desktop::{Button, Key, Press};

/// One thing that can be held down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HeldItem {
    Button(Button),
    Key(Key),
}

/// What franz holds down now, in the order it was pressed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Held {
    items: Vec<HeldItem>,
}

impl Held {
    /// Records a press or release that the OS accepted. A click leaves nothing held.
    pub fn note(&mut self, item: HeldItem, press: Press) {
        match press {
            Press::Down => {
                if !self.items.contains(&item) {
                    self.items.push(item);
                }
            }
            Press::Up => self.items.retain(|i| *i != item),
            Press::Click => {}
        }
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Everything held, last pressed first (the order to release in).
    pub fn release_order(&self) -> Vec<HeldItem> {
        self.items.iter().rev().copied().collect()
    }

    /// Everything held, in press order.
    pub fn items(&self) -> &[HeldItem] {
        &self.items
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use franz_desktop::NamedKey;

    #[test]
    fn downs_are_held_until_their_up_and_release_in_reverse() {
        let mut h = Held::default();
        let ctrl = HeldItem::Key(Key::Named(NamedKey::Ctrl));
        let a = HeldItem::Key(Key::Char('a'));
        let left = HeldItem::Button(Button::Left);
        h.note(ctrl, Press::Down);
        h.note(left, Press::Down);
        h.note(ctrl, Press::Down); // twice down is still one thing held
        h.note(a, Press::Click);
        h.note(a, Press::Down);
        assert_eq!(h.items(), [ctrl, left, a]);
        assert_eq!(h.release_order(), vec![a, left, ctrl]);
        h.note(left, Press::Up);
        h.note(HeldItem::Button(Button::Right), Press::Up); // not held: nothing changes
        assert_eq!(h.items(), [ctrl, a]);
        h.note(ctrl, Press::Up);
        h.note(a, Press::Up);
        assert!(h.is_empty());
    }
}
