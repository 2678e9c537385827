//! Compares PNG encoder settings on a screenshot: size and median time. Used to pick the
//! pipeline's default (see observe/encode.rs). `cargo run --release --example png_settings FILE.png`
use std::time::Instant;

fn main() {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "screenshot.png".into());
    let img = image::open(&path).expect("open").to_rgb8();
    let (w, h) = img.dimensions();
    let rgb = img.into_raw();
    let settings: Vec<(&str, png::DeflateCompression, png::Filter)> = vec![
        (
            "zlib2+adaptive",
            png::DeflateCompression::Level(2),
            png::Filter::Adaptive,
        ),
        (
            "zlib3+adaptive",
            png::DeflateCompression::Level(3),
            png::Filter::Adaptive,
        ),
        (
            "zlib2+minentropy",
            png::DeflateCompression::Level(2),
            png::Filter::MinEntropy,
        ),
        (
            "zlib1+none",
            png::DeflateCompression::Level(1),
            png::Filter::NoFilter,
        ),
        (
            "zlib2+none",
            png::DeflateCompression::Level(2),
            png::Filter::NoFilter,
        ),
        (
            "zlib3+none",
            png::DeflateCompression::Level(3),
            png::Filter::NoFilter,
        ),
        (
            "fdeflate+none",
            png::DeflateCompression::FdeflateUltraFast,
            png::Filter::NoFilter,
        ),
        (
            "fdeflate+up",
            png::DeflateCompression::FdeflateUltraFast,
            png::Filter::Up,
        ),
        (
            "zlib2+paeth",
            png::DeflateCompression::Level(2),
            png::Filter::Paeth,
        ),
    ];
    for (name, c, f) in settings {
        let mut times = Vec::new();
        let mut size = 0;
        for _ in 0..7 {
            let t = Instant::now();
            let mut out = Vec::new();
            let mut enc = png::Encoder::new(&mut out, w, h);
            enc.set_color(png::ColorType::Rgb);
            enc.set_deflate_compression(c);
            enc.set_filter(f);
            let mut wr = enc.write_header().unwrap();
            wr.write_image_data(&rgb).unwrap();
            wr.finish().unwrap();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            size = out.len();
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{name:<20} {size:>8} bytes (b64 {:>8})  median {:>6.2} ms",
            size.div_ceil(3) * 4,
            times[3]
        );
    }
}
