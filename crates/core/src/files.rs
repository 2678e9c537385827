//! Reading the files franz is given, never more than a cap: a config, policy, scenario, task
//! or profile file, a system prompt, a run directory's logs and images, a reply on stdin.
//! `--scenario /dev/zero` or a runaway log is refused with the cap named, not read until the
//! memory runs out. Every read of such a file goes through [`read`] or [`read_text`].

use std::io::Read;
use std::path::Path;

/// The most franz reads from a file it is given to configure it: a config, policy, scenario,
/// task or profile file, a system prompt.
pub const SETTINGS_CAP: u64 = 4 << 20;
/// The most franz reads from one file of a run directory (`events.jsonl`, `turns.jsonl`, an
/// image, ...).
pub const RUN_FILE_CAP: u64 = 1 << 30;

/// Why a file was not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is larger than {} (the most franz reads from {what}): give a smaller file", size(*cap))]
    TooLarge {
        path: String,
        what: &'static str,
        cap: u64,
    },
    #[error("{path} is not UTF-8 text")]
    NotText { path: String },
}

impl ReadError {
    /// What is wrong, without the path (for messages that name the file themselves).
    pub fn problem(&self) -> String {
        match self {
            ReadError::Io { source, .. } => source.to_string(),
            ReadError::TooLarge { what, cap, .. } => {
                format!(
                    "larger than {} (the most franz reads from {what})",
                    size(*cap)
                )
            }
            ReadError::NotText { .. } => "not UTF-8 text".into(),
        }
    }
}

/// `n` bytes as people write it: `4 MiB`, `1 GiB`, `512 bytes`.
pub fn size(n: u64) -> String {
    match n {
        n if n >= 1 << 30 && n % (1 << 30) == 0 => format!("{} GiB", n >> 30),
        n if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        n if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        n => format!("{n} bytes"),
    }
}

/// The bytes of `reader` (named `path`), refused beyond `cap` bytes: `what` says which kind of
/// input the cap is for ("a settings file").
pub fn read_capped(
    reader: impl Read,
    path: &str,
    what: &'static str,
    cap: u64,
) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    reader
        .take(cap.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|source| ReadError::Io {
            path: path.to_string(),
            source,
        })?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge {
            path: path.to_string(),
            what,
            cap,
        });
    }
    Ok(bytes)
}

/// The bytes of the file at `path`, refused beyond `cap` bytes (see [`read_capped`]).
pub fn read(path: &Path, what: &'static str, cap: u64) -> Result<Vec<u8>, ReadError> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|source| ReadError::Io {
        path: name.clone(),
        source,
    })?;
    read_capped(file, &name, what, cap)
}

/// The text of the file at `path`, refused beyond `cap` bytes or when it is not UTF-8.
pub fn read_text(path: &Path, what: &'static str, cap: u64) -> Result<String, ReadError> {
    let bytes = read(path, what, cap)?;
    String::from_utf8(bytes).map_err(|_| ReadError::NotText {
        path: path.display().to_string(),
    })
}

/// [`read_text`] for a file that configures franz, capped at [`SETTINGS_CAP`].
pub fn read_settings(path: &Path) -> Result<String, ReadError> {
    read_text(path, "a settings file", SETTINGS_CAP)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_endless_file_is_refused_with_the_cap_named() {
        let e = read_settings(Path::new("/dev/zero")).unwrap_err();
        assert!(matches!(e, ReadError::TooLarge { .. }), "{e}");
        let msg = e.to_string();
        assert!(msg.contains("/dev/zero is larger than 4 MiB"), "{msg}");
        assert!(msg.contains("a settings file"), "{msg}");
    }

    #[test]
    fn a_file_at_the_cap_is_read_and_one_byte_more_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.toml");
        std::fs::write(&p, "a".repeat(100)).unwrap();
        assert_eq!(read_text(&p, "a test", 100).unwrap().len(), 100);
        assert!(matches!(
            read_text(&p, "a test", 99),
            Err(ReadError::TooLarge { cap: 99, .. })
        ));
        std::fs::write(&p, [0xff, 0xfe]).unwrap();
        assert!(matches!(read_settings(&p), Err(ReadError::NotText { .. })));
        assert!(matches!(
            read_settings(&dir.path().join("missing")),
            Err(ReadError::Io { .. })
        ));
        assert_eq!(size(4 << 20), "4 MiB");
        assert_eq!(size(1 << 30), "1 GiB");
        assert_eq!(size(100), "100 bytes");
    }
}
