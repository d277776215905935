//! Chromium's JPEG screenshots, encoded in one pass.
//!
//! Skia asks libjpeg for optimal Huffman tables, a second pass over every coefficient of the
//! picture. On a 1080p screenshot that doubled the encode on the browser's main thread (27 ms a
//! frame against 13), a tenth of a graphics page's render, for a file 7% smaller that never leaves
//! the machine. The tables change how the coefficients are written, not what they are: the picture
//! decodes to the same pixels. So `jpeg_start_compress` clears the request and calls libjpeg's own.
//!
//! Only a libjpeg with the 6.2 ABI (`libjpeg.so.62`, which Debian's Chromium links) is touched:
//! the field's place in the compressor's structure is that ABI's. A Chromium that links its own
//! libjpeg in never calls this function, and any other library is called unchanged.

use core::ffi::{c_char, c_int, c_void};
use core::sync::atomic::{AtomicUsize, Ordering};

/// `RTLD_NEXT`: the definition after this library's in the process's lookup order.
const RTLD_NEXT: *mut c_void = -1isize as *mut c_void;
/// The library whose structure layout the offsets below are.
const ABI_62: &[u8] = b"libjpeg.so.62";
/// Byte offsets in `struct jpeg_compress_struct` of the 6.2 ABI on a 64-bit target (jpeglib.h:
/// `is_decompressor`, then `optimize_coding`, each a C `int`).
const IS_DECOMPRESSOR: usize = 32;
const OPTIMIZE_CODING: usize = 264;

#[repr(C)]
struct DlInfo {
    fname: *const c_char,
    fbase: *mut c_void,
    sname: *const c_char,
    saddr: *mut c_void,
}

#[link(name = "c")]
extern "C" {
    fn dlsym(handle: *mut c_void, name: *const c_char) -> *mut c_void;
    fn dladdr(address: *const c_void, info: *mut DlInfo) -> c_int;
}

type StartCompress = unsafe extern "C" fn(*mut c_void, c_int);

/// libjpeg's `jpeg_start_compress`, once looked up; 0 before.
static NEXT: AtomicUsize = AtomicUsize::new(0);
/// Whether it is the 6.2 ABI's: 0 not known yet, 1 yes, 2 no.
static ABI: AtomicUsize = AtomicUsize::new(0);

/// libjpeg's `jpeg_start_compress`, asked for one-pass Huffman coding.
///
/// # Safety
/// As libjpeg's: `cinfo` is a compressor created by the same libjpeg.
#[cfg_attr(vidkit_preload_export, no_mangle)]
pub unsafe extern "C" fn jpeg_start_compress(cinfo: *mut c_void, write_all_tables: c_int) {
    let mut next = NEXT.load(Ordering::Acquire);
    if next == 0 {
        next = next_symbol(c"jpeg_start_compress");
        ABI.store(if is_abi_62(next) { 1 } else { 2 }, Ordering::Release);
        NEXT.store(next, Ordering::Release);
    }
    if next == 0 {
        // No libjpeg after this library: nothing was linked against one, so nothing calls here.
        return;
    }
    if ABI.load(Ordering::Acquire) == 1
        && !cinfo.is_null()
        && *(cinfo.cast::<u8>().add(IS_DECOMPRESSOR) as *const c_int) == 0
    {
        *(cinfo.cast::<u8>().add(OPTIMIZE_CODING) as *mut c_int) = 0;
        crate::frames::start(cinfo);
    }
    core::mem::transmute::<usize, StartCompress>(next)(cinfo, write_all_tables)
}

/// The address of `name` in the libraries after this one; 0 when none defines it.
pub(crate) fn next_symbol(name: &core::ffi::CStr) -> usize {
    unsafe { dlsym(RTLD_NEXT, name.as_ptr()) as usize }
}

/// Whether the function at `address` belongs to a file named `libjpeg.so.62`.
unsafe fn is_abi_62(address: usize) -> bool {
    if address == 0 {
        return false;
    }
    let mut info = DlInfo {
        fname: core::ptr::null(),
        fbase: core::ptr::null_mut(),
        sname: core::ptr::null(),
        saddr: core::ptr::null_mut(),
    };
    if dladdr(address as *const c_void, &mut info) == 0 || info.fname.is_null() {
        return false;
    }
    let name = core::ffi::CStr::from_ptr(info.fname).to_bytes();
    name.ends_with(ABI_62) && (name.len() == ABI_62.len() || name[name.len() - ABI_62.len() - 1] == b'/')
}
