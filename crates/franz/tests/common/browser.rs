//! Headless Chromium driven through Debian's chromedriver with fantoccini, behind a small
//! blocking API (the tests themselves stay synchronous).

#![allow(dead_code)]

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct Browser {
    rt: tokio::runtime::Runtime,
    client: Option<Client>,
    driver: Child,
    _profile: tempfile::TempDir,
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Browser {
    pub fn start() -> Browser {
        for p in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            assert!(
                std::path::Path::new(p).exists(),
                "{p} is missing (the README's test command installs chromium and chromium-driver)"
            );
        }
        let port = free_port();
        let driver = Command::new("/usr/bin/chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let profile = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": "/usr/bin/chromium",
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    format!("--user-data-dir={}", profile.path().display()),
                ],
            }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(60);
        let client = loop {
            // chromedriver needs a moment to listen: retry until it answers
            let attempt = rt.block_on(
                ClientBuilder::native()
                    .capabilities(caps.clone())
                    .connect(&url),
            );
            match attempt {
                Ok(c) => break c,
                Err(e) => {
                    assert!(
                        Instant::now() < deadline,
                        "cannot start a browser session: {e}"
                    );
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        };
        Browser {
            rt,
            client: Some(client),
            driver,
            _profile: profile,
        }
    }

    fn c(&self) -> &Client {
        self.client.as_ref().unwrap()
    }

    pub fn goto(&self, url: &str) {
        self.rt.block_on(self.c().goto(url)).unwrap();
    }

    pub fn js(&self, script: &str) -> Value {
        self.rt.block_on(self.c().execute(script, vec![])).unwrap()
    }

    /// A `data-*` attribute of `<body>`.
    pub fn body(&self, name: &str) -> String {
        self.js(&format!("return document.body.dataset.{name} || ''"))
            .as_str()
            .unwrap_or("")
            .to_string()
    }

    pub fn click(&self, css: &str) {
        let c = self.c();
        self.rt
            .block_on(async { c.find(Locator::Css(css)).await?.click().await })
            .unwrap();
    }

    /// Polls `<body data-NAME>` until `ready` holds (deadline, no fixed sleep).
    pub fn wait_body(&self, name: &str, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + super::panel::TIMEOUT;
        loop {
            let v = self.body(name);
            if ready(&v) {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out: body data-{name} is {v:?}"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = self.rt.block_on(c.close());
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}
