//! A minimal client of Chromium's DevTools protocol: the page target of a browser started with
//! `--remote-debugging-port=0 --user-data-dir=DIR` (Chromium writes the port it chose to
//! `DIR/DevToolsActivePort`), and `Runtime.evaluate` on it. The MiniWoB++ suite
//! (`miniwob.rs`) starts its episodes and reads their rewards through it. Written by hand over
//! `tungstenite` because it needs two calls of the protocol, not a browser-automation crate.

use anyhow::{Context, bail};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};
use tungstenite::{Message, WebSocket};

/// The file Chromium writes in its user-data-dir with the port it listens on.
pub const PORT_FILE: &str = "DevToolsActivePort";

pub struct Page {
    socket: WebSocket<TcpStream>,
    next_id: u64,
}

/// The port Chromium wrote into `user_data_dir`, waited for until `deadline`.
pub fn port(user_data_dir: &Path, deadline: Instant) -> anyhow::Result<u16> {
    let file = user_data_dir.join(PORT_FILE);
    loop {
        if let Ok(text) = std::fs::read_to_string(&file)
            && let Some(port) = text.lines().next().and_then(|l| l.trim().parse().ok())
        {
            return Ok(port);
        }
        if Instant::now() >= deadline {
            bail!(
                "Chromium wrote no {} in {} (did it start? is it Chromium 80 or later?)",
                PORT_FILE,
                user_data_dir.display()
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

impl Page {
    /// Connects to the first page target (`/json/list`) of the browser on `port`.
    pub fn connect(port: u16, deadline: Instant) -> anyhow::Result<Page> {
        let url = loop {
            let found = http_get(port, "/json/list").ok().and_then(|body| {
                let targets: Vec<Value> = serde_json::from_str(&body).ok()?;
                targets
                    .iter()
                    .find(|t| t["type"] == "page")
                    .and_then(|t| t["webSocketDebuggerUrl"].as_str().map(str::to_string))
            });
            if let Some(url) = found {
                break url;
            }
            if Instant::now() >= deadline {
                bail!("Chromium on port {port} shows no page target");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let stream = TcpStream::connect(("127.0.0.1", port))
            .with_context(|| format!("cannot connect to DevTools on port {port}"))?;
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let (socket, _) = tungstenite::client(url.as_str(), stream)
            .map_err(|e| anyhow::anyhow!("DevTools handshake with {url} failed: {e}"))?;
        Ok(Page { socket, next_id: 1 })
    }

    /// Evaluates `expression` in the page and returns its value (by value, promises awaited);
    /// an exception in the page is an error with its text.
    pub fn eval(&mut self, expression: &str) -> anyhow::Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let call = json!({"id": id, "method": "Runtime.evaluate", "params": {
            "expression": expression, "returnByValue": true, "awaitPromise": true}});
        self.socket
            .send(Message::text(call.to_string()))
            .context("cannot send to DevTools")?;
        loop {
            let msg = self
                .socket
                .read()
                .context("DevTools closed the connection")?;
            let Message::Text(text) = msg else { continue };
            let v: Value = serde_json::from_str(text.as_str()).unwrap_or(Value::Null);
            if v["id"] != id {
                continue; // an event
            }
            if let Some(e) = v.get("error") {
                bail!("DevTools refused Runtime.evaluate: {e}");
            }
            let result = &v["result"];
            if let Some(ex) = result.get("exceptionDetails") {
                let text = ex["exception"]["description"]
                    .as_str()
                    .or_else(|| ex["text"].as_str())
                    .unwrap_or("an exception");
                bail!("the page threw: {text}");
            }
            return Ok(result["result"]["value"].clone());
        }
    }
}

/// A plain HTTP GET on loopback; the body (read to its Content-Length: Chromium keeps the
/// connection open).
fn http_get(port: u16, path: &str) -> anyhow::Result<String> {
    use std::io::BufRead;
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(Duration::from_secs(5)))?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n")?;
    let mut reader = std::io::BufReader::new(s);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length.min(4 << 20)];
    reader.read_exact(&mut body)?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}
