//! The Win32 fallback of the Windows elements: a window's child controls, from their window
//! classes and styles, where UI Automation gives nothing for the window.
//!
//! - `EnumChildWindows` (every descendant); a control is kept when it and its ancestors are
//!   visible (`IsWindowVisible`), it is enabled (`IsWindowEnabled`), its class is interactive
//!   ([`role`]: `Button` by its `BS_` type, `Edit`, `ComboBox`, list and tree views, sliders...)
//!   and `GetWindowRect` gives it a size.
//! - The name is the control's text (`GetWindowTextW`); for an edit box or a combo box, whose
//!   text is its content, it is the text of the `Static` label just before it (as Windows'
//!   own accessibility proxies name them).
//! - States: `checked` (`BM_GETCHECK`, asked with a short timeout), `editable` (an edit box
//!   without `ES_READONLY`), `focused` (the focus of the window's thread, `GetGUIThreadInfo`).

use super::window_tools::{rect, title};
use crate::elements::{Collected, Element};
use std::time::{Duration, Instant};
use windows_sys::Win32::Foundation::{HWND, LPARAM};
use windows_sys::Win32::UI::Input::KeyboardAndMouse::IsWindowEnabled;
use windows_sys::Win32::UI::WindowsAndMessaging::{
    BM_GETCHECK, BS_TYPEMASK, ES_READONLY, EnumChildWindows, GUITHREADINFO, GW_HWNDPREV, GWL_STYLE,
    GetClassNameW, GetGUIThreadInfo, GetParent, GetWindow, GetWindowLongW,
    GetWindowThreadProcessId, IsWindowVisible, SMTO_ABORTIFHUNG, SendMessageTimeoutW,
};
use windows_sys::core::BOOL;

unsafe extern "system" fn push(hwnd: HWND, list: LPARAM) -> BOOL {
    // SAFETY: `list` is the `&mut Vec<HWND>` `descendants` passes.
    unsafe { (*(list as *mut Vec<HWND>)).push(hwnd) };
    1
}

fn descendants(top: HWND) -> Vec<HWND> {
    let mut list: Vec<HWND> = Vec::new();
    // SAFETY: `push` only appends to `list`, which outlives the call.
    unsafe { EnumChildWindows(top, Some(push), &raw mut list as LPARAM) };
    list
}

fn class(hwnd: HWND) -> String {
    let mut buf = [0u16; 256];
    // SAFETY: `buf` holds `buf.len()` units.
    let n = unsafe { GetClassNameW(hwnd, buf.as_mut_ptr(), buf.len() as i32) };
    String::from_utf16_lossy(&buf[..n.clamp(0, buf.len() as i32) as usize])
}

fn style(hwnd: HWND) -> u32 {
    // SAFETY: plain query.
    unsafe { GetWindowLongW(hwnd, GWL_STYLE) as u32 }
}

/// The AT-SPI role of a control of window class `class` and style `style`; `None` for what a
/// person does not act on (labels, group boxes, scroll bars, containers). Windows Forms
/// classes (`WindowsForms10.BUTTON.app.0.1`) count as the class they wrap.
pub(crate) fn role(class: &str, style: u32) -> Option<&'static str> {
    let class = class.to_ascii_lowercase();
    let base = class
        .strip_prefix("windowsforms10.")
        .and_then(|rest| rest.split('.').next())
        .unwrap_or(&class);
    Some(match base {
        "button" => match style as i32 & BS_TYPEMASK {
            2 | 3 | 5 | 6 => "check_box",
            4 | 9 => "radio_button",
            7 => return None, // a group box
            _ => "button",
        },
        "edit" | "richedit20w" | "richedit50w" => "text",
        "combobox" | "comboboxex32" => "combo_box",
        "listbox" | "syslistview32" => "list",
        "systreeview32" => "tree",
        "msctls_trackbar32" => "slider",
        "msctls_updown32" => "spin_button",
        "systabcontrol32" => "page_tab_list",
        "syslink" => "link",
        _ => return None,
    })
}

/// The text of the `Static` label just before `hwnd` among its siblings, if there is one.
fn label(hwnd: HWND) -> Option<String> {
    // SAFETY: plain query; null when there is none.
    let prev = unsafe { GetWindow(hwnd, GW_HWNDPREV) };
    (!prev.is_null() && class(prev).eq_ignore_ascii_case("static")).then(|| title(prev))
}

/// Whether a check box or radio button is checked, asked with a timeout (another process).
fn checked(hwnd: HWND) -> bool {
    let mut answer = 0usize;
    // SAFETY: BM_GETCHECK takes no pointers; `answer` is a valid out pointer.
    let ok =
        unsafe { SendMessageTimeoutW(hwnd, BM_GETCHECK, 0, 0, SMTO_ABORTIFHUNG, 50, &mut answer) };
    ok != 0 && answer == 1
}

/// The window with the keyboard focus in `top`'s thread, null when there is none.
fn focus_of(top: HWND) -> HWND {
    // SAFETY: plain queries; `info` is a valid GUITHREADINFO with its size set.
    unsafe {
        let thread = GetWindowThreadProcessId(top, std::ptr::null_mut());
        let mut info: GUITHREADINFO = std::mem::zeroed();
        info.cbSize = size_of::<GUITHREADINFO>() as u32;
        if GetGUIThreadInfo(thread, &mut info) == 0 {
            return std::ptr::null_mut();
        }
        info.hwndFocus
    }
}

/// One control as an element, when it is a visible, enabled, interactive one with a box.
fn control(hwnd: HWND, focus: HWND) -> Option<Element> {
    // SAFETY: plain queries; a window that went away answers 0.
    if unsafe { IsWindowVisible(hwnd) == 0 || IsWindowEnabled(hwnd) == 0 } {
        return None;
    }
    let (class, style) = (class(hwnd), style(hwnd));
    let role = role(&class, style)?;
    // a combo box's own edit box is part of the combo box
    // SAFETY: plain query.
    let parent = unsafe { GetParent(hwnd) };
    if role == "text" && !parent.is_null() && self::class(parent).eq_ignore_ascii_case("combobox") {
        return None;
    }
    let bounds = rect(hwnd)?;
    let mut states = Vec::new();
    if hwnd == focus {
        states.push("focused".to_string());
    }
    if matches!(role, "check_box" | "radio_button") && checked(hwnd) {
        states.push("checked".to_string());
    }
    if role == "text" && style as i32 & ES_READONLY == 0 {
        states.push("editable".to_string());
    }
    let name = match role {
        "text" | "combo_box" | "list" | "tree" | "slider" | "spin_button" => {
            label(hwnd).unwrap_or_default()
        }
        _ => title(hwnd),
    };
    Some(Element {
        role: role.to_string(),
        name: without_mnemonic(&name),
        states,
        bounds,
    })
}

/// A control's text without its mnemonic marks: `&Save` is `Save`, `&&` is `&`.
fn without_mnemonic(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '&' => out.extend(chars.next()),
            c => out.push(c),
        }
    }
    out
}

/// Adds the interactive child controls of top-level window `top` to `out`, within the budget.
pub(super) fn window(top: HWND, start: Instant, budget: Duration, out: &mut Collected) {
    let focus = focus_of(top);
    let controls = descendants(top);
    for (i, &hwnd) in controls.iter().enumerate() {
        if start.elapsed() >= budget {
            out.truncated = true;
            out.skipped += controls.len() - i;
            return;
        }
        if let Some(e) = control(hwnd, focus) {
            out.elements.push(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_by_class_and_button_style() {
        assert_eq!(role("Button", 0), Some("button"));
        assert_eq!(role("BUTTON", 1), Some("button"));
        assert_eq!(role("Button", 3), Some("check_box"));
        assert_eq!(role("Button", 9), Some("radio_button"));
        assert_eq!(role("Button", 7), None, "a group box");
        assert_eq!(role("Edit", 0), Some("text"));
        assert_eq!(role("WindowsForms10.BUTTON.app.0.1", 0), Some("button"));
        assert_eq!(role("Static", 0), None);
        assert_eq!(role("ScrollBar", 0), None);
    }

    #[test]
    fn mnemonics_are_dropped() {
        assert_eq!(without_mnemonic("&Save"), "Save");
        assert_eq!(without_mnemonic("Fish && &Chips"), "Fish & Chips");
        assert_eq!(without_mnemonic("OK"), "OK");
    }
}
