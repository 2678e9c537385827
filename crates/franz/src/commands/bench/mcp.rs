//! `franz bench mcp`: the time of an MCP `screenshot` call as a client over stdio sees it, and
//! the server's memory after call 10 and after the last call. The server is `franz mcp` as a
//! child process, spoken to in JSON-RPC lines (the stdio transport), so this bench measures
//! what a client gets and links none of the server's code (commands do not import commands).

use crate::cli::{BenchMcpArgs, GlobalArgs};
use crate::exit::{self, Exit};
use crate::stats::stats;
use crate::terminal::outln;
use anyhow::{Context, bail};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, ExitCode, Stdio};
use std::time::Instant;

/// The handshake revision the bench speaks (an `initialize` request).
const PROTOCOL: &str = "2025-06-18";

pub fn bench(g: &GlobalArgs, args: &BenchMcpArgs) -> anyhow::Result<ExitCode> {
    if g.sandbox.is_some() || !g.launch.is_empty() || g.monitor.is_some() || g.config.is_some() {
        return Err(Exit(
            exit::USAGE,
            "bench mcp starts its own `franz mcp`: give that server's flags after `--`, e.g. \
             `franz bench mcp -- --sandbox`"
                .into(),
        )
        .into());
    }
    let calls = args.calls.max(1);
    let mut server = Server::start(&args.server_args)?;
    server.handshake()?;
    let mut times = Vec::with_capacity(calls);
    let mut rss_at_10 = None;
    for i in 0..calls {
        let start = Instant::now();
        server.call_screenshot()?;
        times.push(start.elapsed().as_secs_f64() * 1000.0);
        if i + 1 == 10.min(calls) {
            rss_at_10 = server.rss_kib();
        }
    }
    let rss_last = server.rss_kib();
    server.stop();
    let (median, min, max) = stats(&mut times);
    outln!("mcp screenshot over stdio, {calls} calls")?;
    outln!("  per call median {median:.1} ms  min {min:.1}  max {max:.1}")?;
    if let (Some(a), Some(b)) = (rss_at_10, rss_last) {
        outln!("  server RSS after call 10: {a} kB, after call {calls}: {b} kB")?;
    }
    outln!("mcp screenshot: median {median:.1} ms")?;
    Ok(ExitCode::SUCCESS)
}

/// `franz mcp` as a child, its stdin and stdout.
struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Server {
    fn start(extra: &[String]) -> anyhow::Result<Server> {
        let exe = std::env::current_exe().context("cannot find the franz binary to start")?;
        let mut child = Command::new(exe)
            .arg("mcp")
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .context("cannot start `franz mcp`")?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            bail!("`franz mcp` started without pipes");
        };
        Ok(Server {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            next_id: 1,
        })
    }

    fn handshake(&mut self) -> anyhow::Result<()> {
        let params = json!({
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "franz-bench", "version": env!("CARGO_PKG_VERSION")},
        });
        self.request("initialize", params)?;
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    }

    fn call_screenshot(&mut self) -> anyhow::Result<()> {
        let params = json!({"name": "screenshot", "arguments": {}});
        let result = self.request("tools/call", params)?;
        if result["isError"] == json!(true) {
            bail!("the screenshot tool failed: {}", result["content"]);
        }
        Ok(())
    }

    /// Sends a request and reads lines until its response (notifications are skipped).
    fn request(&mut self, method: &str, params: Value) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        let mut line = String::new();
        loop {
            line.clear();
            let n = self
                .stdout
                .read_line(&mut line)
                .context("cannot read from `franz mcp`")?;
            if n == 0 {
                bail!("`franz mcp` ended before answering {method} (see its messages above)");
            }
            let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if msg["id"] != json!(id) {
                continue;
            }
            if let Some(e) = msg.get("error") {
                bail!("`franz mcp` answered {method} with an error: {e}");
            }
            return Ok(msg["result"].clone());
        }
    }

    fn send(&mut self, msg: &Value) -> anyhow::Result<()> {
        writeln!(self.stdin, "{msg}").context("cannot write to `franz mcp`")?;
        self.stdin.flush().context("cannot write to `franz mcp`")
    }

    /// The server's resident memory in kB (Linux; `None` elsewhere).
    fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}
