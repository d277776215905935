//! Chromium's screenshots handed to vidkit raw, through a shared-memory file.
//!
//! A begin-frame screenshot leaves Chromium as a JPEG: the browser's main thread encodes it (about
//! 9 ms a 1080p frame) and vidkit decodes it again (about 7 ms), for a picture that has lost detail
//! on the way. Where vidkit names a channel file in [`CHANNEL_VARIABLE`] (a file in shared memory
//! it made for this browser, [`HEADER_BYTES`] plus four bytes a pixel long, whose header gives the
//! screenshots' size), a JPEG encode of that size on the browser's main thread instead copies its
//! rows into that file as they come, then bumps the header's sequence number; libjpeg is given
//! only the first [`STUB_SIDE`] rows and columns, so the JPEG the protocol carries is a small stub.
//! vidkit reads the pixels once the protocol's answer arrives, which is after the last row was
//! written.
//!
//! Any other JPEG encode is left alone: one off the process's main thread (a page's canvas, in a
//! browser that runs its renderer in-process), one with three-byte pixels or of another size, and
//! every encode when the variable is unset or the file cannot be opened. Only the 6.2 ABI
//! is touched ([`crate::jpeg`] checks which libjpeg answers).

use core::ffi::{c_char, c_int, c_long, c_uint, c_void};
use core::sync::atomic::{AtomicUsize, Ordering};

use crate::{failed, kernel_mmap, nr, syscall, PROT_READ, PROT_WRITE};

/// The variable naming the channel file.
pub const CHANNEL_VARIABLE: &core::ffi::CStr = c"VIDKIT_FRAME_CHANNEL";
/// Bytes before the first pixel: [`SEQUENCE`], [`WIDTH`], [`HEIGHT`], [`COLOUR_SPACE`],
/// [`STARTED`] as native 32-bit words, then unused.
pub const HEADER_BYTES: usize = 64;
/// Word index of the count of screenshots written whole; vidkit reads a new one after each draw.
pub const SEQUENCE: usize = 0;
/// Word indices of the screenshots' size, written by vidkit when it makes the file.
pub const WIDTH: usize = 1;
pub const HEIGHT: usize = 2;
/// libjpeg's `J_COLOR_SPACE` of the rows: one of the four-byte ones below.
pub const COLOUR_SPACE: usize = 3;
/// Word index of the [`SEQUENCE`] number of the screenshot last begun: ahead of [`SEQUENCE`] while
/// one is being written, and after a draw only if its encode stopped half-way (its JPEG is then a
/// stub).
pub const STARTED: usize = 4;
/// libjpeg-turbo's four-byte colour spaces (jpeglib.h): red, green, blue and padding or alpha, in
/// the order the name gives.
pub const JCS_EXT_RGBX: u32 = 7;
pub const JCS_EXT_BGRX: u32 = 9;
pub const JCS_EXT_RGBA: u32 = 12;
pub const JCS_EXT_BGRA: u32 = 13;
/// Side of the stub picture libjpeg encodes instead.
pub const STUB_SIDE: u32 = 16;

/// Byte offsets in `struct jpeg_compress_struct` of the 6.2 ABI on a 64-bit target (jpeglib.h:
/// after the common fields and `dest`).
const IMAGE_WIDTH: usize = 48;
const IMAGE_HEIGHT: usize = 52;
const INPUT_COMPONENTS: usize = 56;
const IN_COLOR_SPACE: usize = 60;

const O_RDWR: c_int = 2;
const O_CLOEXEC: c_int = 0o2_000_000;
const AT_FDCWD: c_int = -100;
const SEEK_END: c_int = 2;
const MAP_SHARED: c_int = 1;

#[link(name = "c")]
extern "C" {
    fn getenv(name: *const c_char) -> *mut c_char;
}

/// The channel's mapping: 0 before the first look, 1 when there is none, else its address.
static CHANNEL: AtomicUsize = AtomicUsize::new(0);
static CHANNEL_BYTES: AtomicUsize = AtomicUsize::new(0);
/// The compressor whose rows go to the channel (0: none), its picture's size and the next row.
static TRACKED: AtomicUsize = AtomicUsize::new(0);
static TRACKED_WIDTH: AtomicUsize = AtomicUsize::new(0);
static TRACKED_HEIGHT: AtomicUsize = AtomicUsize::new(0);
static NEXT_ROW: AtomicUsize = AtomicUsize::new(0);

/// The channel's address, mapped on the first call; `None` when there is none.
unsafe fn channel() -> Option<*mut u8> {
    let mut at = CHANNEL.load(Ordering::Relaxed);
    if at == 0 {
        at = open_channel().unwrap_or(1);
        CHANNEL.store(at, Ordering::Relaxed);
    }
    (at != 1).then_some(at as *mut u8)
}

unsafe fn open_channel() -> Option<usize> {
    let path = getenv(CHANNEL_VARIABLE.as_ptr());
    if path.is_null() {
        return None;
    }
    let fd = syscall(nr::OPENAT, AT_FDCWD, path, O_RDWR | O_CLOEXEC) as c_int;
    if fd < 0 {
        return None;
    }
    let len = syscall(nr::LSEEK, fd, 0 as c_long, SEEK_END) as isize;
    let mapped = if len > HEADER_BYTES as isize {
        kernel_mmap(
            core::ptr::null_mut(),
            len as usize,
            PROT_READ | PROT_WRITE,
            MAP_SHARED,
            fd,
            0,
        )
    } else {
        -1isize as *mut c_void
    };
    syscall(nr::CLOSE, fd);
    if failed(mapped) {
        return None;
    }
    CHANNEL_BYTES.store(len as usize, Ordering::Relaxed);
    Some(mapped as usize)
}

fn on_main_thread() -> bool {
    unsafe { syscall(nr::GETTID) == syscall(nr::GETPID) }
}

/// Called by `jpeg_start_compress` before libjpeg's own, for a compressor of the 6.2 ABI: a
/// screenshot the channel can take is shrunk to the stub and its rows are tracked.
///
/// # Safety
/// `cinfo` is a valid compressor of the 6.2 ABI.
pub(crate) unsafe fn start(cinfo: *mut c_void) {
    // Another thread's encode (a page's canvas in an in-process renderer) leaves the main
    // thread's screenshot tracked.
    if !on_main_thread() {
        return;
    }
    TRACKED.store(0, Ordering::Relaxed);
    let Some(channel) = channel() else { return };
    let fields = cinfo.cast::<u8>();
    let field = |offset: usize| fields.add(offset).cast::<c_uint>();
    let (width, height) = (*field(IMAGE_WIDTH), *field(IMAGE_HEIGHT));
    let components = *field(INPUT_COMPONENTS);
    let colour_space = *field(IN_COLOR_SPACE);
    let four_bytes = matches!(colour_space, JCS_EXT_RGBX | JCS_EXT_BGRX | JCS_EXT_RGBA | JCS_EXT_BGRA);
    let header = channel.cast::<u32>();
    let size = (header.add(WIDTH).read_volatile(), header.add(HEIGHT).read_volatile());
    let bytes = (width as usize).saturating_mul(height as usize).saturating_mul(4);
    if !four_bytes
        || components != 4
        || (width, height) != size
        || width < STUB_SIDE
        || height < STUB_SIDE
        || bytes > CHANNEL_BYTES.load(Ordering::Relaxed) - HEADER_BYTES
    {
        return;
    }
    header.add(COLOUR_SPACE).write_volatile(colour_space);
    // The number this screenshot gets once written whole.
    let sequence = header.add(SEQUENCE).read_volatile();
    header.add(STARTED).write_volatile(sequence.wrapping_add(1));
    *field(IMAGE_WIDTH) = STUB_SIDE;
    *field(IMAGE_HEIGHT) = STUB_SIDE;
    TRACKED_WIDTH.store(width as usize, Ordering::Relaxed);
    TRACKED_HEIGHT.store(height as usize, Ordering::Relaxed);
    NEXT_ROW.store(0, Ordering::Relaxed);
    TRACKED.store(cinfo as usize, Ordering::Relaxed);
}

type WriteScanlines = unsafe extern "C" fn(*mut c_void, *const *const u8, c_uint) -> c_uint;

/// libjpeg's `jpeg_write_scanlines`, once looked up; 0 before.
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// libjpeg's `jpeg_write_scanlines`; a tracked screenshot's rows go to the channel, and the first
/// [`STUB_SIDE`] of them to libjpeg.
///
/// # Safety
/// As libjpeg's: `rows` holds `lines` rows of the compressor's input.
#[cfg_attr(vidkit_preload_export, no_mangle)]
pub unsafe extern "C" fn jpeg_write_scanlines(cinfo: *mut c_void, rows: *const *const u8, lines: c_uint) -> c_uint {
    let mut next = NEXT.load(Ordering::Acquire);
    if next == 0 {
        next = crate::jpeg::next_symbol(c"jpeg_write_scanlines");
        NEXT.store(next, Ordering::Release);
    }
    if next == 0 {
        return 0;
    }
    let libjpeg = core::mem::transmute::<usize, WriteScanlines>(next);
    if cinfo.is_null() || TRACKED.load(Ordering::Relaxed) != cinfo as usize || !on_main_thread() {
        return libjpeg(cinfo, rows, lines);
    }
    let Some(channel) = channel() else {
        return libjpeg(cinfo, rows, lines);
    };
    let (width, height) = (
        TRACKED_WIDTH.load(Ordering::Relaxed),
        TRACKED_HEIGHT.load(Ordering::Relaxed),
    );
    let row_bytes = width * 4;
    for line in 0..lines as usize {
        let row = NEXT_ROW.load(Ordering::Relaxed);
        if row == height {
            break;
        }
        let source = *rows.add(line);
        core::ptr::copy_nonoverlapping(source, channel.add(HEADER_BYTES + row * row_bytes), row_bytes);
        if row < STUB_SIDE as usize {
            libjpeg(cinfo, rows.add(line), 1);
        }
        NEXT_ROW.store(row + 1, Ordering::Relaxed);
        if row + 1 == height {
            let sequence = channel.cast::<u32>().add(SEQUENCE);
            sequence.write_volatile(sequence.read_volatile().wrapping_add(1));
            TRACKED.store(0, Ordering::Relaxed);
        }
    }
    lines
}
