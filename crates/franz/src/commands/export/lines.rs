//! What both export formats share: files of JSON lines, and OSWorld's timestamps.

use anyhow::Context;
use serde_json::Value;
use std::io::Write;
use std::path::Path;

/// Writes one JSON value a line.
pub fn write(path: &Path, lines: &[Value]) -> anyhow::Result<()> {
    let mut f =
        std::fs::File::create(path).with_context(|| format!("cannot write {}", path.display()))?;
    for l in lines {
        writeln!(f, "{l}").with_context(|| format!("cannot write {}", path.display()))?;
    }
    Ok(())
}

/// Unix milliseconds as OSWorld's `YYYYmmdd@HHMMSS` (UTC).
pub fn timestamp(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil(days as i64);
    format!(
        "{y:04}{m:02}{d:02}@{:02}{:02}{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 as (year, month, day) (Howard Hinnant's civil_from_days).
fn civil(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

#[cfg(test)]
mod tests {
    #[test]
    fn timestamps_are_utc_calendar_times() {
        assert_eq!(super::timestamp(0), "19700101@000000");
        assert_eq!(super::timestamp(1_700_000_000_000), "20231114@221320");
    }
}
