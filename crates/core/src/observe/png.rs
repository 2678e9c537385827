//! The quick PNG encoder: unfiltered 8-bit RGB, its deflate stream compressed in horizontal
//! bands on several threads at once and joined into one valid zlib stream.
//!
//! Written by hand because no crate does this with the fast zlib-rs backend: the `png` crate
//! compresses on one thread, and `mtpng` brings C zlib (slower at these levels) and its own
//! thread pool. The technique is pigz's: every band but the last ends with a sync flush (an
//! empty stored block, so the next band starts on a byte boundary, and no final-block bit);
//! each band is primed with the 32 KB of rows before it as its dictionary, so matches across
//! the seam are not lost; the Adler-32 of the whole is combined from the bands' own.
//! Each band also drops the alpha bytes and writes the filter byte of its own rows, so that
//! pass runs in parallel too.
//!
//! On the benchmark scene (1536x864) two bands halve the encode time on two cores and the
//! file grows by a few hundred bytes at most.
//!
//! A band whose RGBA rows and dictionary rows are byte-identical to the same band's last
//! encoding (same size, rows and level) is neither written as scanlines nor deflated again:
//! its last output is reused (for speed; deflate is deterministic, so the file is the same
//! byte for byte). Between two turns much of a screen stays as it was: a click in one half
//! leaves the other half's band to reuse.

use super::ObserveError;
use flate2::{Compress, Compression, FlushCompress, Status};

/// The PNG file signature.
const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];
/// Deflate's window: the dictionary a band is primed with.
const WINDOW: usize = 32 * 1024;
/// Bands smaller than this many bytes of input are not worth a thread.
const MIN_BAND_BYTES: usize = 256 * 1024;

/// One band's buffers, kept between encodings: its scanlines, the RGBA rows they were made
/// from last time (the band's own and its dictionary's), and what they deflated to.
#[derive(Default)]
pub struct BandScratch {
    lines: Vec<u8>,
    last_rgba: Vec<u8>,
    last: Option<(BandKey, Band)>,
    /// How many times this band was deflated (not reused).
    deflates: u64,
}

/// What besides the scanlines a band's deflate output depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct BandKey {
    width: usize,
    /// The band's rows, `a..b`, and the first row of its dictionary.
    rows: (usize, usize, usize),
    level: u8,
    last: bool,
}

/// Encodes tightly packed RGBA rows as an RGB PNG with no row filters, the deflate work
/// split into at most `threads` bands. `scratch` holds one reusable [`BandScratch`] per band;
/// a band unchanged since the last call with the same scratch is not deflated again.
pub fn encode_unfiltered(
    rgba: &[u8],
    width: u32,
    height: u32,
    level: u8,
    threads: usize,
    scratch: &mut Vec<BandScratch>,
) -> Result<Vec<u8>, ObserveError> {
    let (w, h) = (width as usize, height as usize);
    if rgba.len() != w * h * 4 {
        return Err(ObserveError::Encode(format!(
            "{} bytes of pixels for a {width}x{height} image",
            rgba.len()
        )));
    }
    let line = w * 3 + 1;
    let bands = band_count(line * h, h, threads);
    let rows_per_band = h.div_ceil(bands.max(1)).max(1);
    let mut ranges: Vec<(usize, usize)> = (0..h)
        .step_by(rows_per_band)
        .map(|a| (a, (a + rows_per_band).min(h)))
        .collect();
    if ranges.is_empty() {
        ranges.push((0, 0)); // no rows: still one (empty) final deflate block
    }
    scratch.resize_with(ranges.len(), BandScratch::default);

    let last = ranges.len().saturating_sub(1);
    let jobs: Vec<_> = ranges
        .into_iter()
        .zip(scratch.iter_mut())
        .enumerate()
        .collect();
    super::in_parallel(jobs, |(i, ((a, b), s))| {
        // the dictionary: whole rows before `a`, at least a window's worth
        let dict_rows = if i == 0 {
            0
        } else {
            WINDOW.div_ceil(line).min(a)
        };
        let key = BandKey {
            width: w,
            rows: (a - dict_rows, a, b),
            level,
            last: i == last,
        };
        // the scanlines are the RGBA rows' own bytes: the same rows make the same band, so
        // they are compared before any scanline is written
        let input = &rgba[(a - dict_rows) * w * 4..b * w * 4];
        if s.last.as_ref().is_some_and(|(k, _)| *k == key) && s.last_rgba == input {
            return Ok(());
        }
        fill_rows(rgba, w, a - dict_rows, b, &mut s.lines);
        let split = dict_rows * line;
        let data = &s.lines[split..];
        let band = Band {
            deflated: deflate_band(
                data,
                &s.lines[split.saturating_sub(WINDOW)..split],
                level,
                i == last,
            )?,
            adler: zlib_rs::adler32::adler32(1, data),
            len: data.len() as u64,
        };
        s.last = Some((key, band));
        s.deflates += 1;
        s.last_rgba.clear();
        s.last_rgba.extend_from_slice(input);
        Ok(())
    })?;

    let zlib = zlib_stream(scratch, rgba.len() / 8);
    Ok(png_file(width, height, &zlib))
}

/// The zlib stream of the bands' deflated data, in order, with its header and checksum.
fn zlib_stream(scratch: &[BandScratch], capacity: usize) -> Vec<u8> {
    let mut zlib = Vec::with_capacity(capacity);
    // CMF: deflate, 32 KB window; FLG: "fast" level hint, check bits for a multiple of 31
    zlib.extend_from_slice(&[0x78, 0x5e]);
    let mut adler = 1u32;
    for (_, band) in scratch.iter().filter_map(|s| s.last.as_ref()) {
        zlib.extend_from_slice(&band.deflated);
        adler = zlib_rs::adler32::adler32_combine(adler, band.adler, band.len);
    }
    zlib.extend_from_slice(&adler.to_be_bytes());
    zlib
}

/// An RGB PNG file of `width` x `height` around its zlib stream.
fn png_file(width: u32, height: u32, zlib: &[u8]) -> Vec<u8> {
    let mut png = Vec::with_capacity(zlib.len() + 64);
    png.extend_from_slice(&SIGNATURE);
    let mut ihdr = [0u8; 13];
    ihdr[..4].copy_from_slice(&width.to_be_bytes());
    ihdr[4..8].copy_from_slice(&height.to_be_bytes());
    // bit depth 8, colour type 2 (RGB), deflate, adaptive filtering method, no interlace
    ihdr[8..].copy_from_slice(&[8, 2, 0, 0, 0]);
    chunk(&mut png, b"IHDR", &ihdr);
    chunk(&mut png, b"IDAT", zlib);
    chunk(&mut png, b"IEND", &[]);
    png
}

/// One band's share of the zlib stream.
struct Band {
    deflated: Vec<u8>,
    /// Adler-32 and length of the band's uncompressed scanlines.
    adler: u32,
    len: u64,
}

/// How many bands: one per thread, but none smaller than [`MIN_BAND_BYTES`].
fn band_count(bytes: usize, rows: usize, threads: usize) -> usize {
    (bytes / MIN_BAND_BYTES)
        .clamp(1, threads.max(1))
        .min(rows.max(1))
}

/// Rows `a..b` of the RGBA image as PNG scanlines: filter byte 0, then R, G, B per pixel.
fn fill_rows(rgba: &[u8], w: usize, a: usize, b: usize, buf: &mut Vec<u8>) {
    let line = w * 3 + 1;
    buf.resize((b - a) * line, 0);
    for (dst, src) in buf
        .chunks_exact_mut(line)
        .zip(rgba[a * w * 4..b * w * 4].chunks_exact(w * 4))
    {
        dst[0] = 0;
        rgba_to_rgb(&mut dst[1..], src);
    }
}

/// The RGB bytes of RGBA pixels `src` into `dst` (3 bytes a pixel). Written by hand for
/// speed: four pixels at a time through two 64-bit words (a shift and two masks drop each
/// alpha byte), where a copy per pixel moves three single bytes; this pass reads every pixel
/// of every observation (docs/bench.md).
pub(super) fn rgba_to_rgb(dst: &mut [u8], src: &[u8]) {
    const LOW: u64 = 0x00FF_FFFF;
    const HIGH: u64 = 0xFFFF_FF00_0000;
    let quads = (src.len() / 16).min(dst.len() / 12);
    for (d, s) in dst[..quads * 12]
        .chunks_exact_mut(12)
        .zip(src[..quads * 16].chunks_exact(16))
    {
        let word = |half: &[u8]| half.try_into().map_or(0, u64::from_le_bytes);
        let (a, b) = s.split_at(8);
        // two pixels' RGB in the low six bytes of each
        let (a, b) = (word(a), word(b));
        let a = (a & LOW) | ((a >> 8) & HIGH);
        let b = (b & LOW) | ((b >> 8) & HIGH);
        d[..8].copy_from_slice(&(a | (b << 48)).to_le_bytes());
        d[8..].copy_from_slice(&((b >> 16) as u32).to_le_bytes());
    }
    for (d, s) in dst[quads * 12..]
        .chunks_exact_mut(3)
        .zip(src[quads * 16..].chunks_exact(4))
    {
        d.copy_from_slice(&s[..3]);
    }
}

/// Raw deflate of one band, primed with `dict`. The last band finishes the stream; the
/// others end with a sync flush so the next band's bytes can follow directly.
fn deflate_band(data: &[u8], dict: &[u8], level: u8, last: bool) -> Result<Vec<u8>, ObserveError> {
    let err = |e: &dyn std::fmt::Display| ObserveError::Encode(format!("deflate: {e}"));
    let mut z = Compress::new(Compression::new(u32::from(level)), false);
    if !dict.is_empty() {
        z.set_dictionary(dict).map_err(|e| err(&e))?;
    }
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    let mut out = Vec::with_capacity(data.len() / 8 + 1024);
    loop {
        let consumed = z.total_in() as usize;
        let status = z
            .compress_vec(&data[consumed..], &mut out, flush)
            .map_err(|e| err(&e))?;
        let done = z.total_in() as usize == data.len()
            && match status {
                Status::StreamEnd => true,
                // a sync flush is complete when it left spare room in the output
                Status::Ok | Status::BufError => !last && out.len() < out.capacity(),
            };
        if done {
            return Ok(out);
        }
        out.reserve(out.capacity().max(64 * 1024));
    }
}

/// Appends one PNG chunk: length, type, data, CRC-32 of type and data.
fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    // PNG chunks hold at most 2^31 - 1 bytes; a screenshot's IDAT is far below that
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let crc = zlib_rs::crc32::crc32(zlib_rs::crc32::crc32(0, kind), data);
    png.extend_from_slice(&crc.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A UI-like RGBA image: flat panels, text-like noise, a gradient.
    fn sample(w: usize, h: usize) -> Vec<u8> {
        let mut v = Vec::with_capacity(w * h * 4);
        for y in 0..h {
            for x in 0..w {
                let px = if x < w / 3 {
                    [40, 60, 90, 255]
                } else if (x * 7 + y * 13) % 29 < 3 {
                    [0, 0, 0, 255]
                } else {
                    [(x % 256) as u8, (y % 256) as u8, 200, 255]
                };
                v.extend_from_slice(&px);
            }
        }
        v
    }

    fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
        let img = image::load_from_memory(png).unwrap().to_rgba8();
        let (w, h) = img.dimensions();
        (w, h, img.into_raw())
    }

    #[test]
    fn rgba_to_rgb_drops_every_alpha_byte_and_nothing_else() {
        for pixels in [0, 1, 3, 4, 5, 7, 8, 9, 1537] {
            let src: Vec<u8> = (0..pixels * 4).map(|i| (i * 37 % 251) as u8).collect();
            let want: Vec<u8> = src
                .chunks_exact(4)
                .flat_map(|p| [p[0], p[1], p[2]])
                .collect();
            let mut got = vec![0xAA; pixels * 3];
            rgba_to_rgb(&mut got, &src);
            assert_eq!(got, want, "{pixels} pixels");
        }
    }

    #[test]
    fn every_band_count_decodes_to_the_same_pixels() {
        for (w, h) in [(1, 1), (3, 2), (300, 257), (640, 480)] {
            let rgba = sample(w, h);
            for threads in [1, 2, 3, 8] {
                let mut scratch = Vec::new();
                let png =
                    encode_unfiltered(&rgba, w as u32, h as u32, 2, threads, &mut scratch).unwrap();
                assert_eq!(
                    decode(&png),
                    (w as u32, h as u32, rgba.clone()),
                    "{w}x{h} {threads}"
                );
            }
        }
    }

    #[test]
    fn bands_are_really_used_and_cost_little() {
        let (w, h) = (1024usize, 768usize);
        let rgba = sample(w, h);
        assert_eq!(band_count((w * 3 + 1) * h, h, 2), 2);
        let one = encode_unfiltered(&rgba, w as u32, h as u32, 2, 1, &mut Vec::new()).unwrap();
        let mut scratch = Vec::new();
        let two = encode_unfiltered(&rgba, w as u32, h as u32, 2, 2, &mut scratch).unwrap();
        assert_eq!(scratch.len(), 2);
        assert_eq!(decode(&two).2, rgba);
        // the dictionary keeps the seam cheap
        assert!(
            two.len() <= one.len() + one.len() / 100,
            "{} vs {}",
            two.len(),
            one.len()
        );
    }

    #[test]
    fn the_zlib_stream_and_its_checksums_are_valid() {
        // zlib's inflate checks the Adler-32 trailer; decoders such as libpng reject a wrong one
        use std::io::Read as _;
        let (w, h) = (700usize, 500usize);
        let rgba = sample(w, h);
        let png = encode_unfiltered(&rgba, w as u32, h as u32, 2, 3, &mut Vec::new()).unwrap();
        let idat_at = png.windows(4).position(|c| c == b"IDAT").unwrap();
        let len = u32::from_be_bytes(png[idat_at - 4..idat_at].try_into().unwrap()) as usize;
        let idat = &png[idat_at + 4..idat_at + 4 + len];
        let crc = u32::from_be_bytes(
            png[idat_at + 4 + len..idat_at + 8 + len]
                .try_into()
                .unwrap(),
        );
        assert_eq!(
            crc,
            zlib_rs::crc32::crc32(zlib_rs::crc32::crc32(0, b"IDAT"), idat)
        );
        let mut lines = Vec::new();
        flate2::read::ZlibDecoder::new(idat)
            .read_to_end(&mut lines)
            .unwrap();
        let mut expected = Vec::new();
        fill_rows(&rgba, w, 0, h, &mut expected);
        assert!(lines == expected);
        assert!(png.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xae, 0x42, 0x60, 0x82]));
    }

    #[test]
    fn an_unchanged_band_is_reused_and_the_file_is_as_a_fresh_encoding() {
        let (w, h) = (1024usize, 768usize);
        let encode = |rgba: &[u8], level: u8, scratch: &mut Vec<BandScratch>| {
            encode_unfiltered(rgba, w as u32, h as u32, level, 2, scratch).unwrap()
        };
        let fresh = |rgba: &[u8]| encode(rgba, 2, &mut Vec::new());
        let deflates = |s: &[BandScratch]| s.iter().map(|b| b.deflates).collect::<Vec<_>>();
        let a = sample(w, h);
        let mut scratch = Vec::new();
        assert_eq!(encode(&a, 2, &mut scratch), fresh(&a));
        assert_eq!(deflates(&scratch), [1, 1]);
        // the same image again: nothing deflated
        assert_eq!(encode(&a, 2, &mut scratch), fresh(&a));
        assert_eq!(deflates(&scratch), [1, 1]);
        // a change in the last row: only the second band
        let mut b = a.clone();
        let n = b.len();
        b[n - 4] ^= 0xff;
        assert_eq!(encode(&b, 2, &mut scratch), fresh(&b));
        assert_eq!(deflates(&scratch), [1, 2]);
        // a change in the first band's last row, which is the second band's dictionary
        let mut c = b.clone();
        c[(h / 2 - 1) * w * 4] ^= 0xff;
        assert_eq!(encode(&c, 2, &mut scratch), fresh(&c));
        assert_eq!(deflates(&scratch), [2, 3]);
        // another level: no reuse
        let level3 = encode(&c, 3, &mut scratch);
        assert_eq!(level3, encode(&c, 3, &mut Vec::new()));
        assert_eq!(deflates(&scratch), [3, 4]);
        assert_eq!(decode(&level3).2, c);
    }

    #[test]
    fn a_wrong_buffer_size_is_an_error() {
        assert!(encode_unfiltered(&[0; 7], 1, 2, 2, 2, &mut Vec::new()).is_err());
    }
}
