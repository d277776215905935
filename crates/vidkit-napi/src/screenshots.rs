//! `FrameChannel`: a browser's screenshots taken raw from shared memory (crates/vidkit-preload's
//! `frames`), converted to the encoder's yuv420p as they arrive.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use crate::picture::Picture;
use napi_derive::napi;
use vidkit_media::{rgbx_picture, ChannelOrder};
use vidkit_preload::frames::{
    CHANNEL_VARIABLE, COLOUR_SPACE, HEADER_BYTES, HEIGHT, JCS_EXT_BGRA, JCS_EXT_BGRX, JCS_EXT_RGBA, JCS_EXT_RGBX,
    SEQUENCE, STARTED, WIDTH,
};

/// The variable that names the channel to the browser's preloaded library (its own constant).
#[napi]
pub const FRAME_CHANNEL_VARIABLE: &str = match CHANNEL_VARIABLE.to_str() {
    Ok(name) => name,
    Err(_) => panic!("the channel variable's name is ASCII"),
};

/// A shared-memory file one browser writes its screenshots' pixels into. The file is this user's
/// alone (mode 0600) and removed by `close()`, or when the object is collected.
#[napi]
pub struct FrameChannel {
    path: PathBuf,
    mapping: Option<(*mut libc::c_void, usize)>,
    width: u32,
    height: u32,
    /// The last screenshot taken.
    sequence: u32,
}

#[napi]
impl FrameChannel {
    /// A channel for `width`x`height` screenshots, made as the new file `path` (in a shared-memory
    /// file system such as /dev/shm; anywhere else its pages would go to disk).
    #[napi(constructor)]
    pub fn new(path: String, width: u32, height: u32) -> napi::Result<Self> {
        if width == 0 || height == 0 || width % 2 == 1 || height % 2 == 1 {
            return Err(napi::Error::from_reason(format!(
                "a frame channel needs an even size, got {width}x{height}"
            )));
        }
        let bytes = HEADER_BYTES + width as usize * height as usize * 4;
        let path = PathBuf::from(path);
        let c_path = CString::new(path.as_os_str().as_bytes())
            .map_err(|_| napi::Error::from_reason("a frame channel's path has a NUL byte"))?;
        let os_error = |what: &str| {
            napi::Error::from_reason(format!(
                "{what} {}: {}",
                path.display(),
                std::io::Error::last_os_error()
            ))
        };
        // SAFETY: plain system calls on a path and descriptor this function owns.
        unsafe {
            let fd = libc::open(
                c_path.as_ptr(),
                libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | libc::O_CLOEXEC,
                0o600,
            );
            if fd < 0 {
                return Err(os_error("cannot create the frame channel"));
            }
            let mut channel = FrameChannel {
                path: path.clone(),
                mapping: None,
                width,
                height,
                sequence: 0,
            };
            let sized = libc::ftruncate(fd, bytes as libc::off_t) == 0;
            let at = if sized {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_SHARED,
                    fd,
                    0,
                )
            } else {
                libc::MAP_FAILED
            };
            let failure = (at == libc::MAP_FAILED).then(|| os_error("cannot map the frame channel"));
            libc::close(fd);
            if let Some(failure) = failure {
                channel.close();
                return Err(failure);
            }
            // The library takes only screenshots of this size.
            let header = at.cast::<u32>();
            header.add(WIDTH).write_volatile(width);
            header.add(HEIGHT).write_volatile(height);
            channel.mapping = Some((at, bytes));
            Ok(channel)
        }
    }

    /// The file the browser is told of (`VIDKIT_FRAME_CHANNEL`).
    #[napi(getter)]
    pub fn path(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// The screenshot the browser wrote since the last call, as the encoder's converted picture;
    /// null when it wrote none (its libjpeg is not the one the library hooks, or the picture was
    /// not the channel's size), and the caller then has the browser's own JPEG.
    #[napi]
    pub fn take(&mut self) -> napi::Result<Option<Picture>> {
        let Some((at, _)) = self.mapping else { return Ok(None) };
        let header = at.cast::<u32>();
        // SAFETY: the mapping is at least HEADER_BYTES long; the browser wrote the words before it
        // answered the draw whose answer the caller has, and wrote nothing since.
        let word = |index: usize| unsafe { header.add(index).read_volatile() };
        let sequence = word(SEQUENCE);
        if word(STARTED) != sequence {
            return Err(napi::Error::from_reason(
                "the browser stopped writing a screenshot half-way: its image is incomplete",
            ));
        }
        if sequence == self.sequence {
            return Ok(None);
        }
        self.sequence = sequence;
        // The library took the screenshot: the browser's JPEG is a stub, so there is no falling back.
        let order = match word(COLOUR_SPACE) {
            JCS_EXT_BGRA | JCS_EXT_BGRX => ChannelOrder::Bgrx,
            JCS_EXT_RGBA | JCS_EXT_RGBX => ChannelOrder::Rgbx,
            other => {
                return Err(napi::Error::from_reason(format!(
                    "internal error: the frame channel holds pixels of libjpeg colour space {other}"
                )))
            }
        };
        let len = self.width as usize * self.height as usize * 4;
        // SAFETY: the mapping holds HEADER_BYTES plus `len` bytes (made so in `new`).
        let pixels = unsafe { std::slice::from_raw_parts(at.cast::<u8>().add(HEADER_BYTES), len) };
        Ok(Some(Picture::new(rgbx_picture(pixels, self.width, self.height, order))))
    }

    /// Unmaps and removes the file; a second call does nothing.
    #[napi]
    pub fn close(&mut self) {
        if let Some((at, bytes)) = self.mapping.take() {
            // SAFETY: the mapping made in `new`, unmapped once.
            unsafe { libc::munmap(at, bytes) };
        }
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Drop for FrameChannel {
    fn drop(&mut self) {
        self.close();
    }
}
