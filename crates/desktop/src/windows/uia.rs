//! Elements on Windows: UI Automation per top-level window, the Win32 controls (`hwnd`
//! module) where UI Automation gives nothing.
//!
//! - The windows are `window_tools::top_levels` (visible, titled, top of the Z order first).
//! - Each window's UI Automation subtree (`ElementFromHandle`, the control view walker) is
//!   walked depth first; an element that is off screen is skipped with its subtree. An element
//!   is kept when its control type is interactive ([`INTERACTIVE`]), it is enabled and has a
//!   non-empty box. Roles use the AT-SPI names the Linux side uses (`button`, `check_box`).
//! - A window where UI Automation finds nothing (no provider, as for most Win32 controls under
//!   Wine 8, or no UI Automation at all) falls back to its child windows' classes and states.
//! - COM objects are not `Send`: COM is set up and UI Automation created per collection, on the
//!   calling thread (multithreaded apartment). The walk stops at the budget; what it did not
//!   visit is counted in `skipped`.

use super::window_tools::{self, top_levels};
use crate::elements::{Collected, Element, Elements};
use crate::{DesktopError, PixelRect};
use std::time::{Duration, Instant};
use windows::Win32::Foundation::HWND;
use windows::Win32::System::Com::{
    CLSCTX_INPROC_SERVER, COINIT_MULTITHREADED, CoCreateInstance, CoInitializeEx, CoUninitialize,
};
use windows::Win32::UI::Accessibility::*;
use windows::core::Interface;

/// Interactive control types and their AT-SPI role names.
const INTERACTIVE: &[(UIA_CONTROLTYPE_ID, &str)] = &[
    (UIA_ButtonControlTypeId, "button"),
    (UIA_CheckBoxControlTypeId, "check_box"),
    (UIA_RadioButtonControlTypeId, "radio_button"),
    (UIA_ComboBoxControlTypeId, "combo_box"),
    (UIA_EditControlTypeId, "text"),
    (UIA_HyperlinkControlTypeId, "link"),
    (UIA_ListItemControlTypeId, "list_item"),
    (UIA_MenuItemControlTypeId, "menu_item"),
    (UIA_SliderControlTypeId, "slider"),
    (UIA_SpinnerControlTypeId, "spin_button"),
    (UIA_TabItemControlTypeId, "page_tab"),
    (UIA_TreeItemControlTypeId, "tree_item"),
    (UIA_DataItemControlTypeId, "table_cell"),
    (UIA_SplitButtonControlTypeId, "button"),
];

/// UI Automation with the Win32 fallback.
pub struct Uia;

impl Uia {
    pub fn open() -> Result<Uia, DesktopError> {
        // boxes in physical pixels, as captures and input use them
        super::dpi::set_dpi_awareness();
        Ok(Uia)
    }
}

impl Elements for Uia {
    fn collect(&mut self, budget: Duration) -> Result<Collected, DesktopError> {
        Ok(collect(budget))
    }
}

/// COM on this thread for one collection; uninitialized when dropped if it was initialized.
struct Com(bool);

impl Com {
    fn init() -> Com {
        // SAFETY: plain call; S_FALSE (already initialized) also needs its CoUninitialize.
        Com(unsafe { CoInitializeEx(None, COINIT_MULTITHREADED) }.is_ok())
    }
}

impl Drop for Com {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: balances the successful CoInitializeEx above.
            unsafe { CoUninitialize() };
        }
    }
}

/// UI Automation's client and its control view walker, `None` where the system has none.
fn automation(budget: Duration) -> Option<(IUIAutomation, IUIAutomationTreeWalker)> {
    // SAFETY: COM is initialized on this thread (`Com`).
    unsafe {
        let uia: IUIAutomation =
            CoCreateInstance(&CUIAutomation, None, CLSCTX_INPROC_SERVER).ok()?;
        // a hung application must not hold the turn much past the budget (Windows 8+)
        if let Ok(uia2) = uia.cast::<IUIAutomation2>() {
            let ms = budget.as_millis().clamp(50, 2000) as u32;
            let _ = uia2.SetTransactionTimeout(ms);
        }
        let walker = uia.ControlViewWalker().ok()?;
        Some((uia, walker))
    }
}

fn collect(budget: Duration) -> Collected {
    let start = Instant::now();
    let _com = Com::init();
    let uia = automation(budget);
    if uia.is_none() {
        tracing::debug!("no UI Automation here: the Win32 controls only");
    }
    let tops = top_levels();
    let mut out = Collected::default();
    for (i, &top) in tops.iter().enumerate() {
        if start.elapsed() >= budget {
            out.truncated = true;
            out.skipped += tops.len() - i;
            break;
        }
        let before = out.elements.len();
        if let Some((uia, walker)) = &uia {
            walk(uia, walker, top, start, budget, &mut out);
        }
        let from_uia = out.elements.len() - before;
        if from_uia == 0 && !out.truncated {
            super::hwnd::window(top, start, budget, &mut out);
        }
        tracing::debug!(
            "elements of {:?}: {from_uia} from UI Automation, {} from its Win32 controls",
            window_tools::title(top),
            out.elements.len() - before - from_uia
        );
    }
    out.elapsed_ms = start.elapsed().as_millis() as u64;
    out
}

/// The elements of top-level window `top` through UI Automation, depth first.
fn walk(
    uia: &IUIAutomation,
    walker: &IUIAutomationTreeWalker,
    top: windows_sys::Win32::Foundation::HWND,
    start: Instant,
    budget: Duration,
    out: &mut Collected,
) {
    // SAFETY: COM calls on live interfaces; a failed call ends that branch.
    let Ok(root) = (unsafe { uia.ElementFromHandle(HWND(top)) }) else {
        return;
    };
    let mut stack = children(walker, &root);
    while let Some(node) = stack.pop() {
        if start.elapsed() >= budget {
            out.truncated = true;
            out.skipped += stack.len() + 1;
            return;
        }
        // SAFETY: a COM call on a live element.
        if unsafe { node.CurrentIsOffscreen() }.is_ok_and(|o| o.as_bool()) {
            continue;
        }
        if let Some(e) = element(&node) {
            out.elements.push(e);
        }
        stack.extend(children(walker, &node));
    }
}

/// The children of `node` in the control view, last first (so that popping visits the first).
fn children(
    walker: &IUIAutomationTreeWalker,
    node: &IUIAutomationElement,
) -> Vec<IUIAutomationElement> {
    let mut out = Vec::new();
    // SAFETY: COM calls on live interfaces; no child (a null element) is an error here.
    let mut next = unsafe { walker.GetFirstChildElement(node) };
    while let Ok(child) = next {
        // SAFETY: as above.
        next = unsafe { walker.GetNextSiblingElement(&child) };
        out.push(child);
    }
    out.reverse();
    out
}

/// The node as an element, when it is an enabled, interactive one with a box.
fn element(node: &IUIAutomationElement) -> Option<Element> {
    // SAFETY: COM calls on a live element.
    unsafe {
        let kind = node.CurrentControlType().ok()?;
        let role = INTERACTIVE.iter().find(|(k, _)| *k == kind)?.1;
        if !node.CurrentIsEnabled().ok()?.as_bool() {
            return None;
        }
        let r = node.CurrentBoundingRectangle().ok()?;
        let (w, h) = (r.right - r.left, r.bottom - r.top);
        if w <= 0 || h <= 0 {
            return None;
        }
        let mut states = Vec::new();
        if node.CurrentHasKeyboardFocus().is_ok_and(|f| f.as_bool()) {
            states.push("focused".to_string());
        }
        if kind == UIA_CheckBoxControlTypeId
            && node
                .GetCurrentPatternAs::<IUIAutomationTogglePattern>(UIA_TogglePatternId)
                .and_then(|t| t.CurrentToggleState())
                .is_ok_and(|s| s == ToggleState_On)
        {
            states.push("checked".to_string());
        }
        if kind == UIA_EditControlTypeId {
            states.push("editable".to_string());
        }
        Some(Element {
            role: role.to_string(),
            name: node
                .CurrentName()
                .map(|n| n.to_string())
                .unwrap_or_default(),
            states,
            bounds: PixelRect::new(r.left, r.top, w as u32, h as u32),
        })
    }
}
