//! Writing screenshots off the hot path: a thread encodes (when given pixels) and writes each
//! turn's PNGs, fsyncs them and their folder, and reports back. `RunWriter::finish_turn` waits
//! for that report before it appends the turn's records, so a record never names a PNG that is
//! not durable.

use crate::observe::{ImageFormat, RgbaImage, encode_image};
use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

/// A screenshot for the run log: already encoded PNG or JPEG bytes (written as they are), or
/// pixels to encode as PNG.
#[derive(Debug, Clone)]
pub enum TurnImage {
    Png(Vec<u8>),
    /// JPEG bytes (`image_format jpeg`), written to a `.jpg` file.
    Jpeg(Vec<u8>),
    Rgba(RgbaImage),
    /// Pixels in a pooled buffer, shared with the engine without a copy.
    Pooled(PooledImage),
}

impl TurnImage {
    /// The bytes the model was sent, in their format.
    pub fn sent(format: ImageFormat, bytes: Vec<u8>) -> Self {
        match format {
            ImageFormat::Png => TurnImage::Png(bytes),
            ImageFormat::Jpeg { .. } => TurnImage::Jpeg(bytes),
        }
    }

    /// The file extension its bytes are written with.
    pub fn extension(&self) -> &'static str {
        match self {
            TurnImage::Jpeg(_) => "jpg",
            _ => "png",
        }
    }
}

/// How many spare pixel buffers an [`ImagePool`] keeps.
const POOL_SIZE: usize = 4;

/// Pixel buffers for the raw screenshots the run log writes, reused turn after turn: a copy
/// into one lands in memory already paged in (a fresh 5 MB buffer costs about 2 ms of page
/// faults). A buffer comes back to the pool when the last [`PooledImage`] holding it drops,
/// which is usually on the writer thread once the PNG is written.
#[derive(Debug, Clone)]
pub struct ImagePool {
    spare: Arc<Mutex<Vec<Vec<u8>>>>,
    /// How many spare buffers it keeps; 0 makes every copy a fresh buffer.
    keep: usize,
}

impl Default for ImagePool {
    fn default() -> Self {
        Self::new(POOL_SIZE)
    }
}

impl ImagePool {
    /// A pool that keeps up to `keep` spare buffers (0: none, every copy a fresh buffer, as
    /// `franz bench turn --fresh-buffers` compares).
    pub fn new(keep: usize) -> Self {
        Self {
            spare: Arc::default(),
            keep,
        }
    }

    /// A copy of `image` in a buffer from the pool.
    pub fn copy(&self, image: &RgbaImage) -> PooledImage {
        let mut data = self.lock().pop().unwrap_or_default();
        data.clear();
        data.extend_from_slice(&image.data);
        PooledImage(Arc::new(Pooled {
            image: RgbaImage {
                width: image.width,
                height: image.height,
                data,
            },
            pool: self.clone(),
        }))
    }

    /// Spare buffers now in the pool.
    pub fn spare(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Vec<u8>>> {
        self.spare.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A screenshot in a pooled buffer; cheap to clone (shared), read through `Deref`.
#[derive(Debug, Clone)]
pub struct PooledImage(Arc<Pooled>);

#[derive(Debug)]
struct Pooled {
    image: RgbaImage,
    pool: ImagePool,
}

impl std::ops::Deref for PooledImage {
    type Target = RgbaImage;
    fn deref(&self) -> &RgbaImage {
        &self.0.image
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        let data = std::mem::take(&mut self.image.data);
        let mut spare = self.pool.lock();
        if spare.len() < self.pool.keep {
            spare.push(data);
        }
    }
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
                    // the pooled buffers go back before the engine hears it is written
                    let Job { files, done, .. } = job;
                    drop(files);
                    let _ = done.send(r);
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
            TurnImage::Png(b) | TurnImage::Jpeg(b) => b.as_slice(),
            TurnImage::Rgba(img) => {
                encoded = encode_image(img, ImageFormat::Png).map_err(io::Error::other)?;
                encoded.as_slice()
            }
            TurnImage::Pooled(img) => {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pooled_buffer_comes_back_once_written_and_the_next_copy_reuses_it() {
        let pool = ImagePool::new(2);
        let image = RgbaImage {
            width: 4,
            height: 2,
            data: (0..32).collect(),
        };
        let first = pool.copy(&image);
        let buffer = first.data.as_ptr();
        let worker = ImageWorker::start().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("raw.png");
        let done = worker
            .submit(vec![(file.clone(), TurnImage::Pooled(first))], vec![])
            .unwrap();
        done.recv().unwrap().unwrap();
        assert!(file.exists());
        assert_eq!(pool.spare(), 1, "the writer gave the buffer back");
        let next = pool.copy(&image);
        assert_eq!(next.data.as_ptr(), buffer, "no fresh buffer");
        assert_eq!(next.data, image.data);
        assert_eq!(pool.spare(), 0);
    }

    #[test]
    fn a_pool_keeps_no_more_than_it_says() {
        let pool = ImagePool::new(1);
        let image = RgbaImage {
            width: 1,
            height: 1,
            data: vec![1, 2, 3, 4],
        };
        let copies: Vec<_> = (0..3).map(|_| pool.copy(&image)).collect();
        drop(copies);
        assert_eq!(pool.spare(), 1);
    }
}
