//! The local page server of a task run: serves the task folder's `pages/` over HTTP on
//! `127.0.0.1` (a task's setup names it `${PAGES}`) and records every POST body, decoded as
//! a form, as one JSON line in `work/posted.jsonl`, which the `posted` checker reads.

use anyhow::Context;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

pub const POSTED_FILE: &str = "posted.jsonl";

pub struct PageHost {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl PageHost {
    pub fn start(root: &Path, posted: &Path) -> anyhow::Result<PageHost> {
        let listener = TcpListener::bind("127.0.0.1:0").context("cannot start the page server")?;
        let port = listener.local_addr()?.port();
        let stop = Arc::new(AtomicBool::new(false));
        let (root, posted, flag) = (root.to_path_buf(), posted.to_path_buf(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if flag.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(c) = conn {
                    let (root, posted) = (root.clone(), posted.clone());
                    std::thread::spawn(move || serve(c, &root, &posted));
                }
            }
        });
        Ok(PageHost { port, stop })
    }

    /// `http://127.0.0.1:PORT`, no trailing slash.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for PageHost {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // wake the accept loop
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(stream: TcpStream, root: &Path, posted: &Path) {
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let mut length = 0usize;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.trim().eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap_or(0);
        }
    }
    let mut stream = stream;
    if method == "POST" {
        let mut body = vec![0; length.min(1 << 20)];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        record(posted, path, &String::from_utf8_lossy(&body));
        let page = "<!doctype html><title>Posted</title><p>Thank you, posted.</p>";
        respond(&mut stream, "200 OK", "text/html", page.as_bytes());
        return;
    }
    let what = "a task's page";
    let cap = franz_core::files::SETTINGS_CAP;
    match file_for(root, path).and_then(|p| franz_core::files::read(&p, what, cap).ok()) {
        Some(body) => {
            let kind = if path.ends_with(".js") {
                "text/javascript"
            } else {
                "text/html; charset=utf-8"
            };
            respond(&mut stream, "200 OK", kind, &body)
        }
        None => respond(&mut stream, "404 Not Found", "text/plain", b"not found"),
    }
}

fn respond(stream: &mut TcpStream, status: &str, kind: &str, body: &[u8]) {
    let head = format!(
        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body);
}

/// The file a GET path names inside `root`, never outside it.
fn file_for(root: &Path, path: &str) -> Option<PathBuf> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let rel = path.trim_start_matches('/');
    if rel.split('/').any(|p| p == ".." || p.starts_with('.')) {
        return None;
    }
    let p = root.join(if rel.is_empty() { "index.html" } else { rel });
    p.is_file().then_some(p)
}

fn record(posted: &Path, path: &str, body: &str) {
    let line = serde_json::json!({"path": path, "body": body, "form": decode_form(body)});
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(posted)
    {
        let _ = writeln!(f, "{line}");
    }
}

/// `a=1&b=x+y` as a map (the last value of a repeated key wins).
pub fn decode_form(body: &str) -> BTreeMap<String, String> {
    body.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (unescape(k), unescape(v))
        })
        .collect()
}

fn unescape(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                let hex = std::str::from_utf8(&b[i + 1..i + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(v) => {
                        out.push(v);
                        i += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The form of the last POST recorded in `posted`.
pub fn last_form(posted: &Path) -> Option<BTreeMap<String, String>> {
    let text = franz_core::files::read_settings(posted).ok()?;
    let last = text.lines().rfind(|l| !l.trim().is_empty())?;
    let v: serde_json::Value = serde_json::from_str(last).ok()?;
    serde_json::from_value(v.get("form")?.clone()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_decode() {
        let f = decode_form("name=Ada+Lovelace&city=K%C3%B6ln&x=%2");
        assert_eq!(f["name"], "Ada Lovelace");
        assert_eq!(f["city"], "Köln");
        assert_eq!(f["x"], "%2");
    }
}
