//! MIT-SHM capture: the server writes the pixels straight into memory we share with it, so a
//! capture is one small request plus one copy out of the segment.
//!
//! The segment is a System V one (`shmget`/`shmat`), which every SHM-capable server takes. It
//! is made once, sized for the monitor, and reused by every capture. It is marked for removal
//! (`IPC_RMID`) as soon as the server has attached it, so the kernel frees it when both sides
//! detach, even if franz crashes. It is created with mode 0600: a server on another machine,
//! or one that runs as another user, cannot attach it, and [`ShmSegment::attach`] fails, which
//! is how [`super`] falls back to GetImage on a remote display.

use super::connection::x11_err;
use crate::{DesktopError, PixelRect};
use std::ptr::NonNull;
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::{self, ConnectionExt as _};
use x11rb::protocol::xproto::{ImageFormat, Window};
use x11rb::rust_connection::RustConnection;

/// A shared memory segment attached both here and in the X server.
pub(crate) struct ShmSegment {
    seg: shm::Seg,
    addr: NonNull<u8>,
    size: usize,
}

// SAFETY: the segment is plain memory owned by this value; nothing ties it to a thread.
unsafe impl Send for ShmSegment {}

impl ShmSegment {
    /// Creates a segment of `size` bytes and has the server attach it. The error is the reason
    /// SHM cannot be used here (for the log and `describe`).
    pub fn attach(conn: &RustConnection, size: usize) -> Result<ShmSegment, String> {
        if conn
            .extension_information(shm::X11_EXTENSION_NAME)
            .map_err(|e| e.to_string())?
            .is_none()
        {
            return Err("the X server has no MIT-SHM extension".into());
        }
        // SAFETY: plain System V calls; every failure is checked, and the mapping is only
        // used through `addr` while this value lives.
        let id = unsafe { libc::shmget(libc::IPC_PRIVATE, size.max(1), libc::IPC_CREAT | 0o600) };
        if id < 0 {
            return Err(format!("shmget: {}", std::io::Error::last_os_error()));
        }
        // SAFETY: `id` is the segment just created.
        let raw = unsafe { libc::shmat(id, std::ptr::null(), 0) };
        if raw as isize == -1 {
            let err = std::io::Error::last_os_error();
            remove(id);
            return Err(format!("shmat: {err}"));
        }
        let Some(addr) = NonNull::new(raw.cast::<u8>()) else {
            remove(id);
            return Err("shmat returned null".into());
        };
        let attached = (|| {
            let seg = conn.generate_id().map_err(|e| e.to_string())?;
            // `id` is non-negative here.
            conn.shm_attach(seg, id as u32, false)
                .map_err(|e| e.to_string())?
                .check()
                .map_err(|e| format!("the X server cannot attach the segment ({e})"))?;
            Ok::<_, String>(seg)
        })();
        // Attached or not, the id is no longer needed: the kernel frees the memory when the
        // last attachment goes.
        remove(id);
        match attached {
            Ok(seg) => Ok(ShmSegment { seg, addr, size }),
            Err(e) => {
                // SAFETY: `addr` came from shmat above and is not used after this.
                unsafe { libc::shmdt(addr.as_ptr().cast()) };
                Err(e)
            }
        }
    }

    /// The segment's bytes.
    fn bytes(&self) -> &[u8] {
        // SAFETY: `addr` maps `size` bytes for as long as `self` lives. The server writes into
        // it only while a request of ours runs, and every such request has been answered
        // before this slice is made.
        unsafe { std::slice::from_raw_parts(self.addr.as_ptr(), self.size) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, and `&mut self` makes this the only view.
        unsafe { std::slice::from_raw_parts_mut(self.addr.as_ptr(), self.size) }
    }

    /// Has the server write `rect` of `root` (ZPixmap, 4 bytes per pixel) into the segment,
    /// and returns those bytes, rows `rect.width * 4` apart.
    pub fn get_image(
        &mut self,
        conn: &RustConnection,
        root: Window,
        rect: PixelRect,
    ) -> Result<&[u8], DesktopError> {
        let len = rect.width as usize * rect.height as usize * 4;
        if len > self.size {
            return Err(DesktopError::Capture(format!(
                "{}x{} does not fit the {} byte shared memory segment",
                rect.width, rect.height, self.size
            )));
        }
        let (x, y, w, h) = super::desktop::request_rect(rect)?;
        let reply = conn
            .shm_get_image(
                root,
                x,
                y,
                w,
                h,
                !0,
                ImageFormat::Z_PIXMAP.into(),
                self.seg,
                0,
            )
            .map_err(x11_err)?
            .reply()
            .map_err(x11_err)?;
        if reply.size as usize != len {
            return Err(DesktopError::Capture(format!(
                "the server wrote {} bytes for {}x{} pixels at depth {}, expected {len}",
                reply.size, rect.width, rect.height, reply.depth
            )));
        }
        Ok(&self.bytes()[..len])
    }

    /// Whether the server really writes into this segment: fills the first pixel with the
    /// complement of what GetImage says is there, captures that pixel through SHM and checks
    /// that it changed. Over SSH forwarding the server may attach a *different* segment with
    /// the same id on its own machine; this catches that.
    pub fn verify(
        &mut self,
        conn: &RustConnection,
        root: Window,
        at: PixelRect,
    ) -> Result<bool, DesktopError> {
        let one = PixelRect::new(at.x, at.y, 1, 1);
        let truth = super::getimage::get_image(conn, root, one)?;
        let sentinel: Vec<u8> = truth.iter().take(3).map(|b| !b).collect();
        self.bytes_mut()[..3].copy_from_slice(&sentinel);
        let got = self.get_image(conn, root, one)?;
        Ok(got[..3] != sentinel[..])
    }

    /// Tells the server to let go of the segment (it also does so when the connection closes).
    pub fn detach(&self, conn: &RustConnection) {
        if let Ok(cookie) = conn.shm_detach(self.seg) {
            cookie.ignore_error();
        }
    }
}

impl Drop for ShmSegment {
    fn drop(&mut self) {
        // SAFETY: `addr` came from shmat and no slice of it outlives `self`.
        unsafe { libc::shmdt(self.addr.as_ptr().cast()) };
    }
}

/// Marks a segment for removal.
fn remove(id: libc::c_int) {
    // SAFETY: IPC_RMID takes no buffer.
    unsafe { libc::shmctl(id, libc::IPC_RMID, std::ptr::null_mut()) };
}
