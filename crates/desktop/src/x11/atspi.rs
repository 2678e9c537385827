//! Elements through AT-SPI2: the registry's applications, walked depth first.
//!
//! - Connects to the accessibility bus that `org.a11y.Bus` on the session bus names (the
//!   session needs D-Bus and at-spi2-core; applications expose their tree once that bus runs).
//! - A subtree that is not `showing` is skipped whole. An element is kept when its role is
//!   interactive ([`INTERACTIVE`], or `text` that is `editable`), it is `enabled`/`sensitive` and has a non-empty box.
//! - The walk stops at the budget: what it did not visit is counted in `skipped`.
//! - Every D-Bus call is driven with `atspi::zbus::block_on`: no async runtime of our own.

use crate::elements::{Collected, Element, Elements};
use crate::{DesktopError, PixelRect};
use atspi::connection::AccessibilityConnection;
use atspi::proxy::accessible::{AccessibleProxy, ObjectRefExt};
use atspi::proxy::component::ComponentProxy;
use atspi::{CoordType, Role, State, StateSet};
use std::time::{Duration, Instant};

/// The roles a person can act on.
const INTERACTIVE: &[Role] = &[
    Role::Button,
    Role::ToggleButton,
    Role::CheckBox,
    Role::RadioButton,
    Role::CheckMenuItem,
    Role::RadioMenuItem,
    Role::MenuItem,
    Role::Menu,
    Role::ComboBox,
    Role::Entry,
    Role::PasswordText,
    Role::SpinButton,
    Role::Slider,
    Role::Link,
    Role::PageTab,
    Role::ListItem,
    Role::TreeItem,
    Role::TableCell,
    Role::PushButtonMenu,
];

/// The states worth telling the model.
const NOTABLE: &[(State, &str)] = &[
    (State::Focused, "focused"),
    (State::Checked, "checked"),
    (State::Selected, "selected"),
    (State::Editable, "editable"),
    (State::Expanded, "expanded"),
];

/// A connection to the accessibility bus.
pub struct Atspi {
    conn: AccessibilityConnection,
}

fn err(e: impl std::fmt::Display) -> DesktopError {
    DesktopError::Unsupported(format!(
        "the accessibility tree (AT-SPI2): {e}. It needs a D-Bus session (DBUS_SESSION_BUS_ADDRESS; e.g. run under dbus-run-session) and at-spi2-core (scripts/deps.sh installs it)"
    ))
}

impl Atspi {
    pub fn open() -> Result<Atspi, DesktopError> {
        let conn = atspi::zbus::block_on(AccessibilityConnection::new()).map_err(err)?;
        Ok(Atspi { conn })
    }
}

impl Elements for Atspi {
    fn collect(&mut self, budget: Duration) -> Result<Collected, DesktopError> {
        atspi::zbus::block_on(collect(&self.conn, budget))
    }
}

/// The role's name as the model reads it: `button`, `check_box`.
fn role_name(role: Role) -> String {
    role.name().replace(' ', "_")
}

async fn collect(
    conn: &AccessibilityConnection,
    budget: Duration,
) -> Result<Collected, DesktopError> {
    let start = Instant::now();
    let zconn = conn.connection();
    let root = conn.root_accessible_on_registry().await.map_err(err)?;
    let mut stack = root.get_children().await.map_err(err)?;
    stack.reverse();
    let mut out = Collected::default();
    while let Some(obj) = stack.pop() {
        if start.elapsed() >= budget {
            out.truncated = true;
            out.skipped = stack.len() + 1;
            break;
        }
        let Ok(node) = obj.as_accessible_proxy(zconn).await else {
            continue;
        };
        // an application that went away, or a broken one, costs its subtree only
        let Ok(states) = node.get_state().await else {
            continue;
        };
        let is_app = node.get_role().await.ok() == Some(Role::Application);
        if !is_app && !states.contains(State::Showing) {
            continue;
        }
        if let Some(e) = element(&node, states).await {
            out.elements.push(e);
        }
        if let Ok(mut children) = node.get_children().await {
            children.reverse();
            stack.extend(children);
        }
    }
    out.elapsed_ms = start.elapsed().as_millis() as u64;
    Ok(out)
}

/// The node as an element, when it is an enabled, interactive one with a box.
async fn element(node: &AccessibleProxy<'_>, states: StateSet) -> Option<Element> {
    let role = node.get_role().await.ok()?;
    // text is interactive where it can be edited (GTK's entries are `text`)
    let editable = role == Role::Text && states.contains(State::Editable);
    if !(INTERACTIVE.contains(&role) || editable) || !states.contains(State::Sensitive) {
        return None;
    }
    let component = ComponentProxy::builder(node.inner().connection())
        .destination(node.inner().destination().to_owned())
        .ok()?
        .path(node.inner().path().to_owned())
        .ok()?
        .cache_properties(atspi::zbus::proxy::CacheProperties::No)
        .build()
        .await
        .ok()?;
    let (x, y, w, h) = component.get_extents(CoordType::Screen).await.ok()?;
    if w <= 0 || h <= 0 {
        return None;
    }
    let name = node.name().await.unwrap_or_default();
    let states = NOTABLE
        .iter()
        .filter(|(s, _)| states.contains(*s))
        .map(|(_, n)| n.to_string())
        .collect();
    Some(Element {
        role: role_name(role),
        name,
        states,
        bounds: PixelRect::new(x, y, w as u32, h as u32),
    })
}
