//! A `franz run --panel` on a sandbox against the scripted model server, with helpers to talk
//! to the panel over HTTP and to follow its SSE stream.

#![allow(dead_code)]

use franz_core::model::ScriptedReply;
use franz_core::model::scripted_server::{Script, ScriptedServer, ServerOptions};
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The lines `child` writes on its (piped) stderr, read on their own thread.
pub fn stderr_lines(child: &mut Child) -> mpsc::Receiver<String> {
    let (tx, lines) = mpsc::channel();
    let err = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

pub const TIMEOUT: Duration = Duration::from_secs(90);

/// A harmless narrative reply: a click in the middle of the xterm.
pub const CLICK: &str = "left_click(500, 500)\nI clicked into the terminal.";

pub fn repeat(reply: &str) -> Script {
    Script::repeat(ScriptedReply::text(reply))
}

pub struct PanelRun {
    pub child: Child,
    pub url: String,
    pub base: String,
    pub token: String,
    pub server: ScriptedServer,
    pub runs: tempfile::TempDir,
    pub stderr: mpsc::Receiver<String>,
    http: reqwest::blocking::Client,
}

impl PanelRun {
    /// Starts franz on an 800x600 sandbox with an xterm; `extra` goes after `run`.
    pub fn start(script: Script, extra: &[&str]) -> PanelRun {
        Self::start_with(script, ServerOptions::default(), extra)
    }

    /// As [`PanelRun::start`], with the scripted server's options (e.g. a slow stream).
    pub fn start_with(script: Script, opts: ServerOptions, extra: &[&str]) -> PanelRun {
        let server = ScriptedServer::start_with(script, opts).unwrap();
        let runs = tempfile::tempdir().unwrap();
        let mut child = Command::new(env!("CARGO_BIN_EXE_franz"))
            .args([
                "--sandbox=800x600",
                "--launch",
                "xterm",
                "run",
                "click around",
            ])
            .args([
                "--api-url",
                &server.url(),
                "--motion",
                "fast",
                "--step-delay",
                "0",
            ])
            .args(["--runs-dir", runs.path().to_str().unwrap()])
            // the same click on a still screen, on purpose: no loop breaker
            .env("FRANZ_LOOP_WARN", "0")
            .env("FRANZ_LOOP_STOP", "0")
            .args(extra)
            .env_remove("FRANZ_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = stderr_lines(&mut child);
        let deadline = Instant::now() + TIMEOUT;
        let url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = stderr
                .recv_timeout(left)
                .expect("franz did not print the panel URL");
            if let Some(u) = line.strip_prefix("panel: ") {
                break u.to_string();
            }
        };
        let (base, token) = url.split_once("/?token=").unwrap();
        PanelRun {
            child,
            base: base.to_string(),
            token: token.to_string(),
            url,
            server,
            runs,
            stderr,
            http: reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .unwrap(),
        }
    }

    pub fn url(&self, path: &str) -> String {
        let join = if path.contains('?') { '&' } else { '?' };
        format!("{}{path}{join}token={}", self.base, self.token)
    }

    /// `GET /screenshot?seq=N`: its status, `Cache-Control` and bytes.
    pub fn screenshot(&self, seq: u64) -> (u16, String, Vec<u8>) {
        let r = self
            .http
            .get(self.url(&format!("/screenshot?seq={seq}")))
            .send()
            .unwrap();
        let cache = r
            .headers()
            .get("cache-control")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        (r.status().as_u16(), cache, r.bytes().unwrap().to_vec())
    }

    pub fn state(&self) -> Value {
        match self.http.get(self.url("/state")).send() {
            Ok(r) => r.json().unwrap(),
            Err(e) => panic!("GET /state: {e}\nfranz's stderr:\n{}", self.stderr_text()),
        }
    }

    /// What franz printed on stderr since the last call.
    pub fn stderr_text(&self) -> String {
        self.stderr.try_iter().collect::<Vec<_>>().join("\n")
    }

    pub fn post(&self, path: &str, body: Value) -> (u16, String) {
        let r = self.http.post(self.url(path)).json(&body).send().unwrap();
        (r.status().as_u16(), r.text().unwrap())
    }

    /// Polls `/state` until `ready` holds (with a deadline, never a fixed sleep).
    pub fn wait_state(&self, what: &str, ready: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let s = self.state();
            if ready(&s) {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}: {s:#}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Follows `/events` from now on.
    pub fn events(&self) -> Events {
        let resp = reqwest::blocking::Client::builder()
            .build()
            .unwrap()
            .get(self.url("/events"))
            .send()
            .unwrap();
        assert_eq!(resp.status().as_u16(), 200);
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(resp).lines().map_while(Result::ok) {
                if let Some(data) = line.strip_prefix("data: ")
                    && let Ok(v) = serde_json::from_str::<Value>(data)
                    && tx.send(v).is_err()
                {
                    break;
                }
            }
        });
        Events {
            rx,
            seen: Vec::new(),
        }
    }

    pub fn wait_exit(&mut self) -> ExitStatus {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(Instant::now() < deadline, "franz did not exit");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for PanelRun {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self
                .http
                .post(self.url("/control"))
                .json(&serde_json::json!({"command": "stop"}))
                .send();
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline && self.child.try_wait().ok().flatten().is_none() {
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub struct Events {
    rx: mpsc::Receiver<Value>,
    /// Every event received so far, in order.
    pub seen: Vec<Value>,
}

impl Events {
    /// Receives until an event named `name` arrives (and `pred` holds); returns it.
    pub fn until(&mut self, name: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let e = self
                .rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no {name} event; seen: {:?}", self.names()));
            self.seen.push(e.clone());
            if e["event"] == name && pred(&e) {
                return e;
            }
        }
    }

    pub fn names(&self) -> Vec<String> {
        self.seen
            .iter()
            .map(|e| format!("{}@{}", e["event"].as_str().unwrap_or("?"), e["turn"]))
            .collect()
    }
}
