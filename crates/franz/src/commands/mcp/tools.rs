//! The MCP server: its tools (rmcp's tool router; each argument struct's doc comments are
//! the JSON schema's descriptions) and its resources (`resources.rs`).
//!
//! Every tool that acts builds one canonical action and hands it to [`Hands::act`] (policy
//! hook, then the executor of `franz run`); unless the client passes `screenshot: false` it
//! answers with a fresh screenshot taken after the action settled. While `run_task` runs, the
//! tools that act answer "busy" with the task's id (screenshot and cursor_position still
//! answer: looking does not disturb the task, and neither does `elements`).
//!
//! The window tools (`list_windows`, `focus_window`) are the actions of the same names
//! (crates/core/src/executor/windows.rs); `elements` answers with the accessibility elements
//! inside the working area, numbered as `franz elements` and grounding number them.

use super::hands::{Hands, Shot, Space};
use super::resources;
use super::shared::{Shared, TaskArgs};
use super::task;
use base64::Engine as _;
use franz_core::action::{Action, ActionKind, ActionResult};
use franz_desktop::ScrollDirection;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, schemars, tool, tool_handler};
use serde::Deserialize;
use std::sync::Arc;
use std::time::Duration;

/// How long the desktop gets to show an action's effect before the screenshot after it.
const SETTLE: Duration = Duration::from_millis(150);

/// The tools that only look.
pub const READ_ONLY_TOOLS: [&str; 2] = ["screenshot", "cursor_position"];

#[derive(Clone)]
pub struct FranzMcp {
    shared: Arc<Shared>,
    tool_router: ToolRouter<FranzMcp>,
}

fn no() -> bool {
    true
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ShotArgs {}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClickArgs {
    /// X of the point to click, in the server's coordinate space (see the screenshot's text:
    /// 0..1000 across the screenshot for norm1000, or its pixels). Omit x and y to click
    /// where the pointer is.
    pub x: Option<i64>,
    /// Y of the point, like x.
    pub y: Option<i64>,
    /// Which button: left (default), right or middle.
    #[serde(default)]
    pub button: Option<String>,
    /// 1 (default), 2 for a double click, 3 for a triple click (left button only).
    #[serde(default)]
    pub count: Option<u32>,
    /// The image_id of the screenshot the coordinates were read on (required with pixel
    /// coordinates).
    #[serde(default)]
    pub image_id: Option<String>,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MoveArgs {
    /// X to move the pointer to, in the server's coordinate space.
    pub x: i64,
    /// Y to move the pointer to.
    pub y: i64,
    /// The screenshot's image_id (required with pixel coordinates).
    #[serde(default)]
    pub image_id: Option<String>,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DragArgs {
    /// X where the drag starts (the left button goes down there).
    pub x: i64,
    /// Y where the drag starts.
    pub y: i64,
    /// X where the drag ends (the button is released there).
    pub x2: i64,
    /// Y where the drag ends.
    pub y2: i64,
    /// The screenshot's image_id (required with pixel coordinates).
    #[serde(default)]
    pub image_id: Option<String>,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScrollArgs {
    /// up, down, left or right.
    pub direction: String,
    /// How many wheel notches, 1 to 100 (default 3).
    #[serde(default)]
    pub amount: Option<u32>,
    /// X to scroll at (omit x and y to scroll where the pointer is).
    pub x: Option<i64>,
    /// Y to scroll at.
    pub y: Option<i64>,
    /// The screenshot's image_id (required with pixel coordinates).
    #[serde(default)]
    pub image_id: Option<String>,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TypeArgs {
    /// The text to type into the focused window, exactly (any Unicode).
    pub text: String,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KeyArgs {
    /// A key or combo, e.g. "enter", "ctrl+s", "ctrl+shift+t", "alt+f4", "f5".
    pub keys: String,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FocusArgs {
    /// The window: part of its title or application (class), or its id from list_windows.
    pub window: String,
    /// Return a screenshot taken after the action (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ElementsArgs {
    /// Time budget of the collection in milliseconds (default 150, at most 5000).
    #[serde(default)]
    pub budget_ms: Option<u64>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WaitArgs {
    /// Seconds to wait (0 to 60).
    pub seconds: f64,
    /// Return a screenshot taken after the wait (default true).
    #[serde(default = "no")]
    pub screenshot: bool,
}

/// A tool's arguments: the schema of `T`, and a bad argument's message names its field
/// (`x: invalid type: string "a", expected i64`).
pub struct Args<T>(pub T);

impl<'de, T: serde::de::DeserializeOwned> Deserialize<'de> for Args<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        serde_path_to_error::deserialize(v).map(Args).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            serde::de::Error::custom(match path.as_str() {
                "." => inner.to_string(),
                _ => format!("{path}: {inner}"),
            })
        })
    }
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Args<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
    /// `T`'s schema; an object schema always has `properties` (empty for a tool without
    /// arguments), which some clients require.
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = T::json_schema(g);
        if schema.get("type").and_then(|t| t.as_str()) == Some("object") {
            schema
                .ensure_object()
                .entry("properties")
                .or_insert_with(|| serde_json::json!({}));
        }
        schema
    }
    fn inline_schema() -> bool {
        T::inline_schema()
    }
}

fn err(msg: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(msg.into())])
}

/// The screenshot's content blocks: the PNG and a text block saying how to read it.
fn shot_blocks(shot: &Shot, space: Space) -> Vec<ContentBlock> {
    let b64 = base64::engine::general_purpose::STANDARD.encode(&shot.png);
    let how = match space {
        Space::Norm1000 => format!(
            "coordinates: norm1000, x and y are 0..1000 across this {}x{} image (0,0 top-left, 1000,1000 bottom-right)",
            shot.size.width, shot.size.height
        ),
        Space::Pixels => format!(
            "coordinates: pixels of this image, x 0..{} and y 0..{}; pass image_id {:?} with them",
            shot.size.width - 1,
            shot.size.height - 1,
            shot.image_id
        ),
    };
    let info = serde_json::json!({
        "image_id": shot.image_id,
        "width": shot.size.width,
        "height": shot.size.height,
        "coords": space.name(),
        "screen_area": {
            "x": shot.work_area.rect.x, "y": shot.work_area.rect.y,
            "width": shot.work_area.rect.width, "height": shot.work_area.rect.height,
        },
    });
    vec![
        ContentBlock::image(b64, "image/png"),
        ContentBlock::text(format!("{how}\n{info}")),
    ]
}

impl FranzMcp {
    pub fn new(shared: Arc<Shared>, read_only: bool) -> Self {
        let mut tool_router = Self::tool_router();
        if read_only {
            let names: Vec<String> = tool_router
                .list_all()
                .into_iter()
                .map(|t| t.name.to_string())
                .filter(|n| !READ_ONLY_TOOLS.contains(&n.as_str()))
                .collect();
            for n in names {
                tool_router.remove_route(&n);
            }
        }
        Self {
            shared,
            tool_router,
        }
    }

    /// Runs `work` on the desktop's thread; `busy` while a task runs. The request's
    /// cancellation (`ctx`) stops the action it runs (`Desk::run`).
    async fn with_hands<T: Send + 'static>(
        &self,
        ctx: &RequestContext<RoleServer>,
        work: impl FnOnce(&mut Hands) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        if let Some(id) = self.busy() {
            return Err(format!(
                "busy: franz is running task {id}; wait for it to finish or cancel it"
            ));
        }
        self.shared.hands.run(work, ctx.ct.cancelled()).await
    }

    fn busy(&self) -> Option<String> {
        self.shared.busy.lock().ok().and_then(|b| b.clone())
    }

    /// Builds an action from coordinates in the server's space and performs it.
    async fn act(
        &self,
        ctx: &RequestContext<RoleServer>,
        points: Vec<(i64, i64)>,
        image_id: Option<String>,
        screenshot: bool,
        build: impl FnOnce(&[(i32, i32)]) -> Result<ActionKind, String> + Send + 'static,
    ) -> CallToolResult {
        let space = self.shared.space;
        let outcome = self
            .with_hands(ctx, move |h| {
                let norm = points
                    .iter()
                    .map(|&p| h.to_norm(space, p, image_id.as_deref()))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut action = Action::from(build(&norm)?);
                // under a family's profile the point is mapped by its reference rule
                action.exact = h.exact(space, &points);
                let result = h.act(action.clone())?;
                // after a failed action too: the client sees where things are
                let shot = if screenshot {
                    std::thread::sleep(SETTLE);
                    Some(h.screenshot()?)
                } else {
                    None
                };
                Ok((action, result, shot, h.is_dry_run()))
            })
            .await;
        match outcome {
            Err(e) => err(e),
            Ok((action, result, shot, dry_run)) => {
                let mut line = serde_json::json!({"action": action, "dry_run": dry_run});
                if let (Some(obj), Ok(serde_json::Value::Object(r))) =
                    (line.as_object_mut(), serde_json::to_value(&result))
                {
                    obj.extend(r);
                }
                let mut blocks = vec![ContentBlock::text(line.to_string())];
                if let Some(s) = &shot {
                    blocks.extend(shot_blocks(s, space));
                }
                match result {
                    ActionResult::Ok { .. } => CallToolResult::success(blocks),
                    ActionResult::Error(_) => CallToolResult::error(blocks),
                }
            }
        }
    }
}

fn one_point(x: Option<i64>, y: Option<i64>) -> Result<Vec<(i64, i64)>, String> {
    match (x, y) {
        (Some(x), Some(y)) => Ok(vec![(x, y)]),
        (None, None) => Ok(vec![]),
        _ => Err("give both x and y, or neither (to act where the pointer is)".into()),
    }
}

fn at(p: &[(i32, i32)]) -> (Option<i32>, Option<i32>) {
    p.first().map_or((None, None), |&(x, y)| (Some(x), Some(y)))
}

fn click_kind(button: &str, count: u32, p: &[(i32, i32)]) -> Result<ActionKind, String> {
    let (x, y) = at(p);
    Ok(match (button, count) {
        ("left", 1) => ActionKind::Click { x, y },
        ("left", 2) => ActionKind::DoubleClick { x, y },
        ("left", 3) => ActionKind::TripleClick { x, y },
        ("right", 1) => ActionKind::RightClick { x, y },
        ("middle", 1) => ActionKind::MiddleClick { x, y },
        ("left" | "right" | "middle", n) => {
            return Err(format!(
                "count {n} is not possible with the {button} button: left takes 1, 2 or 3; right and middle take 1"
            ));
        }
        (other, _) => {
            return Err(format!(
                "button {other:?} is not a button: use left, right or middle"
            ));
        }
    })
}

#[rmcp::tool_router]
impl FranzMcp {
    #[tool(
        description = "Take a screenshot of the desktop (PNG). The text block gives the image size, the coordinate space the other tools use (norm1000: 0..1000 across the image; or pixels of this image) and its image_id. Actions drawn on it in color are the last actions franz performed."
    )]
    async fn screenshot(&self, Parameters(Args(_)): Parameters<Args<ShotArgs>>) -> CallToolResult {
        let space = self.shared.space;
        // looking is harmless while a task runs: no busy check
        match self
            .shared
            .hands
            .run(|h| h.screenshot(), std::future::pending())
            .await
        {
            Ok(shot) => CallToolResult::success(shot_blocks(&shot, space)),
            Err(e) => err(e),
        }
    }

    #[tool(
        description = "Click at a point of the last screenshot (in the server's coordinate space), or where the pointer is if x and y are omitted. button: left/right/middle; count: 2 double-clicks, 3 triple-clicks. Returns the result and a fresh screenshot."
    )]
    async fn click(
        &self,
        Parameters(Args(a)): Parameters<Args<ClickArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let points = match one_point(a.x, a.y) {
            Ok(p) => p,
            Err(e) => return err(e),
        };
        let button = a.button.unwrap_or_else(|| "left".into()).to_lowercase();
        let count = a.count.unwrap_or(1);
        self.act(&ctx, points, a.image_id, a.screenshot, move |p| {
            click_kind(&button, count, p)
        })
        .await
    }

    #[tool(
        name = "move",
        description = "Move the mouse pointer to a point (server's coordinate space) without clicking, e.g. to hover. Returns the result and a fresh screenshot."
    )]
    async fn r#move(
        &self,
        Parameters(Args(a)): Parameters<Args<MoveArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.act(&ctx, vec![(a.x, a.y)], a.image_id, a.screenshot, |p| {
            Ok(ActionKind::Move {
                x: Some(p[0].0),
                y: Some(p[0].1),
            })
        })
        .await
    }

    #[tool(
        description = "Drag with the left button from (x, y) to (x2, y2) (server's coordinate space): select text, move a window, a slider or a file. Returns the result and a fresh screenshot."
    )]
    async fn drag(
        &self,
        Parameters(Args(a)): Parameters<Args<DragArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let points = vec![(a.x, a.y), (a.x2, a.y2)];
        self.act(&ctx, points, a.image_id, a.screenshot, |p| {
            Ok(ActionKind::Drag {
                x: Some(p[0].0),
                y: Some(p[0].1),
                x2: p[1].0,
                y2: p[1].1,
            })
        })
        .await
    }

    #[tool(
        description = "Scroll the mouse wheel: direction up/down/left/right, amount in notches (1 to 100, default 3), at (x, y) or where the pointer is. Returns the result and a fresh screenshot."
    )]
    async fn scroll(
        &self,
        Parameters(Args(a)): Parameters<Args<ScrollArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let points = match one_point(a.x, a.y) {
            Ok(p) => p,
            Err(e) => return err(e),
        };
        let direction: ScrollDirection =
            match serde_json::from_value(serde_json::Value::String(a.direction.to_lowercase())) {
                Ok(d) => d,
                Err(_) => {
                    return err(format!(
                        "direction {:?} is not a direction: use up, down, left or right",
                        a.direction
                    ));
                }
            };
        let amount = a.amount.unwrap_or(3);
        self.act(&ctx, points, a.image_id, a.screenshot, move |p| {
            let (x, y) = at(p);
            Ok(ActionKind::Scroll {
                x,
                y,
                direction,
                amount,
            })
        })
        .await
    }

    #[tool(
        description = "Type text into the focused window exactly as given (any Unicode; use press_key for Enter, Tab or shortcuts). Returns the result and a fresh screenshot."
    )]
    async fn type_text(
        &self,
        Parameters(Args(a)): Parameters<Args<TypeArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let text = a.text;
        self.act(&ctx, vec![], None, a.screenshot, move |_| {
            Ok(ActionKind::Type { text })
        })
        .await
    }

    #[tool(
        description = "Press a key or a key combination, e.g. enter, escape, tab, ctrl+s, ctrl+shift+t, alt+tab, f5. Returns the result and a fresh screenshot."
    )]
    async fn press_key(
        &self,
        Parameters(Args(a)): Parameters<Args<KeyArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let keys = a.keys;
        self.act(&ctx, vec![], None, a.screenshot, move |_| {
            Ok(ActionKind::Key { keys })
        })
        .await
    }

    #[tool(
        description = "Wait a number of seconds (0 to 60) for the desktop to change (a page to load, an app to start), then return a fresh screenshot."
    )]
    async fn wait(
        &self,
        Parameters(Args(a)): Parameters<Args<WaitArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let seconds = a.seconds;
        if !(0.0..=60.0).contains(&seconds) {
            return err(format!("seconds {seconds} is out of range: 0 to 60"));
        }
        self.act(&ctx, vec![], None, a.screenshot, move |_| {
            Ok(ActionKind::Wait { seconds })
        })
        .await
    }

    #[tool(
        description = "List the open windows, topmost first: id, application (class), title, bounds [x1, y1, x2, y2] in 0..1000 of the working area, and which one has the focus."
    )]
    async fn list_windows(
        &self,
        Parameters(Args(_)): Parameters<Args<ShotArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        self.act(&ctx, vec![], None, false, |_| Ok(ActionKind::ListWindows))
            .await
    }

    #[tool(
        description = "Bring a window to the front and give it the keyboard focus: window is part of its title or application, or its id from list_windows. Returns the result and a fresh screenshot."
    )]
    async fn focus_window(
        &self,
        Parameters(Args(a)): Parameters<Args<FocusArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        let window = a.window;
        self.act(&ctx, vec![], None, a.screenshot, move |_| {
            Ok(ActionKind::FocusWindow { window })
        })
        .await
    }

    #[tool(
        description = "The interactive elements of the accessibility tree inside the working area (buttons, fields, links...), numbered: a text block with the list as franz's models see it (number, role, name, box [x1, y1, x2, y2] in 0..1000 of the screenshot) and one JSON line per element with its pixel bounds. Needs an accessibility bus (AT-SPI2 on Linux)."
    )]
    async fn elements(
        &self,
        Parameters(Args(a)): Parameters<Args<ElementsArgs>>,
    ) -> CallToolResult {
        let budget = Duration::from_millis(a.budget_ms.unwrap_or(150).min(5000));
        // looking is harmless while a task runs: no busy check
        match self
            .shared
            .hands
            .run(move |h| h.elements(budget), std::future::pending())
            .await
        {
            Ok((marks, ms, truncated)) => {
                let mut text = franz_core::grounding::request_text(&marks);
                text.push_str(&format!(
                    "\n({} elements in {ms} ms{})",
                    marks.len(),
                    if truncated {
                        ", the budget ran out"
                    } else {
                        ""
                    }
                ));
                let lines: Vec<String> = marks
                    .iter()
                    .filter_map(|m| serde_json::to_string(m).ok())
                    .collect();
                CallToolResult::success(vec![
                    ContentBlock::text(text),
                    ContentBlock::text(lines.join("\n")),
                ])
            }
            Err(e) => err(e),
        }
    }

    #[tool(
        description = "Where the mouse pointer is, in the server's coordinate space (and in screen pixels)."
    )]
    async fn cursor_position(
        &self,
        Parameters(Args(_)): Parameters<Args<ShotArgs>>,
    ) -> CallToolResult {
        let space = self.shared.space;
        match self
            .shared
            .hands
            .run(move |h| h.cursor(space), std::future::pending())
            .await
        {
            Ok(v) => CallToolResult::success(vec![ContentBlock::text(v.to_string())]),
            Err(e) => err(e),
        }
    }

    #[tool(
        description = "Run a whole task with franz's own agent (its configured model server looks at the screen and acts, turn by turn, until done). Reports one progress notification per turn; cancel the request to stop it. Returns the outcome, the summary and the run directory (readable as franz://runs/NAME/report and .../turns). Other acting tools answer busy meanwhile."
    )]
    async fn run_task(
        &self,
        Parameters(Args(a)): Parameters<Args<TaskArgs>>,
        ctx: RequestContext<RoleServer>,
    ) -> CallToolResult {
        task::run(self.shared.clone(), a, ctx).await
    }
}

// the router of this server (read-only mode removed the acting tools from it)
#[tool_handler(router = self.tool_router)]
impl ServerHandler for FranzMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(Implementation::new("franz", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "franz's eyes and hands on a desktop. Take a screenshot first; give coordinates in the {} space it describes. Each acting tool returns a fresh screenshot. run_task runs a whole task with franz's own model; runs are resources franz://runs/NAME/report (HTML) and franz://runs/NAME/turns (JSONL).",
            self.shared.space.name()
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        resources::list(&self.shared.runs_dir)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let dir = self.shared.runs_dir.clone();
        let uri = request.uri.clone();
        tokio::task::spawn_blocking(move || resources::read(&dir, &uri))
            .await
            .map_err(|e| McpError::internal_error(e.to_string(), None))?
    }
}
