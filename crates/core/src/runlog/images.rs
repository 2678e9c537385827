//! Writing screenshots off the hot path: a thread encodes (when given pixels) and writes each
//! turn's PNGs, fsyncs them and their folder, and reports back. `RunWriter::finish_turn` waits
//! for that report before it appends the turn's records, so a record never names a PNG that is
//! not durable.

use crate::observe::{ImageFormat, RgbaImage, encode_image};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;

/// A screenshot for the run log: already encoded PNG bytes, or pixels to encode as PNG.
#[derive(Debug, Clone)]
pub enum TurnImage {
    Png(Vec<u8>),
    Rgba(RgbaImage),
}

struct Job {
    files: Vec<(PathBuf, TurnImage)>,
    /// Folders to fsync after the files (new entries in them).
    dirs: Vec<PathBuf>,
    done: Sender<io::Result<()>>,
}

/// The writer thread. Dropping it finishes the queued jobs and joins the thread.
pub(crate) struct ImageWorker {
    jobs: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

impl ImageWorker {
    pub fn start() -> io::Result<Self> {
        let (tx, rx) = channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("franz-runlog-png".into())
            .spawn(move || {
                for job in rx {
                    let r = run_job(&job);
                    let _ = job.done.send(r);
                }
            })?;
        Ok(Self {
            jobs: Some(tx),
            thread: Some(thread),
        })
    }

    /// Queues the files; the receiver gets the outcome once they are durable.
    pub fn submit(
        &self,
        files: Vec<(PathBuf, TurnImage)>,
        dirs: Vec<PathBuf>,
    ) -> io::Result<Receiver<io::Result<()>>> {
        let (done, rx) = channel();
        let job = Job { files, dirs, done };
        self.jobs
            .as_ref()
            .ok_or_else(|| io::Error::other("the PNG writer has stopped"))?
            .send(job)
            .map_err(|_| io::Error::other("the PNG writer thread has died"))?;
        Ok(rx)
    }
}

impl Drop for ImageWorker {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run_job(job: &Job) -> io::Result<()> {
    for (path, image) in &job.files {
        let encoded;
        let bytes = match image {
            TurnImage::Png(b) => b.as_slice(),
            TurnImage::Rgba(img) => {
                encoded = encode_image(img, ImageFormat::Png).map_err(io::Error::other)?;
                encoded.as_slice()
            }
        };
        write_durable(path, bytes)?;
    }
    for d in &job.dirs {
        sync_dir(d)?;
    }
    Ok(())
}

/// Writes a whole file and fsyncs it.
pub(crate) fn write_durable(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut f = File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// Fsyncs a folder so that new entries in it survive a crash (a no-op where unsupported).
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        File::open(dir)?.sync_all()
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        Ok(())
    }
}
