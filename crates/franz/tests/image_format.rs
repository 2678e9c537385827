//! `image_format jpeg` end to end: a `franz run` on a private Xvfb sends its screenshots as
//! JPEG at `image_quality`, the scripted model reads the JPEG it got (its size names the
//! click) and the click lands on the witness window; the run log keeps the bytes as sent in a
//! `.jpg`, and `franz report` and `franz replay` open the run. A bad quality is refused.

#![cfg(target_os = "linux")]

use crate::common;

use base64::Engine as _;
use franz_core::model::ScriptedServer;
use franz_core::model::responder::{self, Intent, Style};
use franz_desktop::witness::WitnessKind;
use std::time::Duration;

const JPEG_MAGIC: &[u8] = &[0xff, 0xd8, 0xff];

/// The image bytes of the last request that carried one, and its data URL's media type.
fn sent_image(server: &ScriptedServer) -> (String, Vec<u8>) {
    let url = server
        .requests()
        .iter()
        .filter_map(|r| r.json.clone())
        .flat_map(|j| {
            let mut urls = Vec::new();
            for m in j["messages"].as_array().into_iter().flatten() {
                for p in m["content"].as_array().into_iter().flatten() {
                    if let Some(u) = p["image_url"]["url"].as_str() {
                        urls.push(u.to_string());
                    }
                }
            }
            urls
        })
        .last()
        .expect("a request with an image");
    let (head, b64) = url
        .strip_prefix("data:")
        .and_then(|u| u.split_once(";base64,"))
        .expect("a base64 data URL");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("base64");
    (head.to_string(), bytes)
}

#[test]
fn a_jpeg_run_clicks_where_the_model_said_and_its_log_keeps_the_jpeg() {
    let screen = (1280, 800);
    let (sb, witness) = common::sandbox(screen.0, screen.1);
    let (fx, fy) = (0.3, 0.6);
    let plan = vec![
        Intent::Click { fx, fy },
        Intent::Finish("I clicked the point.".into()),
    ];
    let (script, _) = responder::script(plan, Style::Asked);
    let server = ScriptedServer::start(script).unwrap();
    let runs = tempfile::tempdir().unwrap();
    let mut cmd = common::franz_run(&server.url(), runs.path());
    let out = common::no_franz_env(&mut cmd)
        .env("DISPLAY", sb.display())
        .arg("Click the point the test asks for, then say you did.")
        .args(["--model", common::model_id("qwen2.5-vl")])
        .args(["--motion", "fast", "--max-steps", "4"])
        .args(["--image-format", "jpeg", "--image-quality", "70"])
        .output()
        .expect("run franz");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (mime, bytes) = sent_image(&server);
    assert_eq!(mime, "image/jpeg");
    assert!(
        bytes.starts_with(JPEG_MAGIC),
        "not a JPEG: {:?}",
        &bytes[..8]
    );
    let (w, h) = image::load_from_memory_with_format(&bytes, image::ImageFormat::Jpeg)
        .map(|i| (i.width(), i.height()))
        .expect("a JPEG that decodes");

    // the responder read the JPEG's size to place its click: one step of the image, and one
    let target = (fx * f64::from(screen.0), fy * f64::from(screen.1));
    let tol = f64::from(screen.0) / f64::from(w.min(1000)) + 1.0;
    let (_, events) = witness.wait_for(
        |e| e.iter().any(|e| e.is(WitnessKind::ButtonPress)),
        Duration::from_secs(5),
    );
    let press = events
        .iter()
        .find(|e| e.is(WitnessKind::ButtonPress))
        .map(|e| e.at);
    assert!(
        press.is_some_and(|p| (f64::from(p.x) - target.0).abs() <= tol
            && (f64::from(p.y) - target.1).abs() <= tol),
        "clicked {press:?}, want {target:?} ± {tol} (image {w}x{h})"
    );

    // the run log keeps the bytes the model was sent, as a .jpg
    let dir = common::run_dir(runs.path());
    let kept = std::fs::read(dir.join("turn_0001_annotated.jpg")).expect("the sent JPEG");
    assert!(kept.starts_with(JPEG_MAGIC));
    assert!(!dir.join("turn_0001_annotated.png").exists());

    let html = runs.path().join("report.html");
    let page = common::report(&dir, &html);
    assert!(
        page.contains("src=\"data:image/jpeg;base64,"),
        "no JPEG shown"
    );
    // the click's mark needs the JPEG's size
    assert!(page.contains("data-action=\"click\""), "no mark drawn");

    let out = common::franz(&["replay", dir.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("click"), "{text}");
}

#[test]
fn a_bad_image_quality_is_refused_saying_what_to_give() {
    for bad in ["0", "101", "high"] {
        let out = common::franz(&["config", "--image-format", "jpeg", "--image-quality", bad]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{bad} accepted");
        assert!(
            err.contains("image_quality") && err.contains("from 1 to 100"),
            "{bad}: {err}"
        );
    }
    let out = common::franz(&["config", "--image-format", "webp"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("png") && err.contains("jpeg"), "{err}");
}

#[test]
fn bench_observe_prints_bytes_tokens_and_encode_time_for_png_and_jpeg() {
    let stdout = common::bench_observe(&["--image-quality", "60"]);
    // the default model id's profile (Qwen3-VL): 32 px a side of the 640x480 image
    let tokens = 640_u32.div_ceil(32) * 480_u32.div_ceil(32);
    for name in ["png     ", "jpeg q60"] {
        let line = stdout
            .lines()
            .find(|l| l.starts_with(&format!("format {name} median ")))
            .unwrap_or_else(|| panic!("no {name} line in:\n{stdout}"));
        assert!(
            line.contains(" bytes per turn, ")
                && line.contains(&format!(", {tokens} image tokens (qwen3-vl profile's"))
                && line.contains("encode median "),
            "{line}"
        );
    }
}
