//! The library vidkit preloads into Chromium (`LD_PRELOAD`) while it renders. It keeps the pages
//! Chromium's allocators give back and take again every frame (here), and has Chromium encode its
//! JPEG screenshots in one pass ([`jpeg`]), handing their pixels to vidkit raw where it asks
//! ([`frames`]).
//!
//! Chromium's allocators (PartitionAlloc, V8) give memory back with
//! `mmap(addr, len, PROT_NONE, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS)`, which promises zeroed
//! pages on the next use. A render frees and takes again its multi-megabyte frame buffers every
//! frame, so the kernel unmapped them, shot down the other cores' TLBs, then faulted in and
//! cleared thousands of pages a frame: on a 1080p page with two videos, 3.4 million page faults
//! in 300 frames and a quarter of the render's CPU time in the kernel.
//!
//! Here such a call on a range of 1 to 64 MiB inside one of the process's large private
//! reservations zeroes the range's resident pages itself and makes the range inaccessible,
//! keeping the pages: the next allocation there reads zeroes, as promised, without a fault.
//! Every other call goes to the kernel unchanged, and a reservation into which a file or shared
//! memory was ever mapped at a fixed place, or that was unmapped inside or moved, is never kept
//! from again, so shared pages are never zeroed and a file's pages never stand for zeroes.
//!
//! Nothing here allocates, locks or panics: it runs inside the allocator's own calls. The shared
//! object is built without std, so that it is a few kilobytes and needs nothing but the C library.
#![cfg_attr(vidkit_preload_export, no_std)]

use core::ffi::{c_int, c_long, c_void};
use core::sync::atomic::{AtomicUsize, Ordering};

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
compile_error!("vidkit-preload knows the system call numbers of x86_64 and aarch64 Linux only");

/// The system calls made, by number (x86_64, else aarch64).
mod nr {
    use core::ffi::c_long;

    const X86_64: bool = cfg!(target_arch = "x86_64");
    pub const MMAP: c_long = if X86_64 { 9 } else { 222 };
    pub const MPROTECT: c_long = if X86_64 { 10 } else { 226 };
    pub const MUNMAP: c_long = if X86_64 { 11 } else { 215 };
    pub const MREMAP: c_long = if X86_64 { 25 } else { 216 };
    pub const MINCORE: c_long = if X86_64 { 27 } else { 232 };
    pub const OPENAT: c_long = if X86_64 { 257 } else { 56 };
    pub const LSEEK: c_long = if X86_64 { 8 } else { 62 };
    pub const CLOSE: c_long = if X86_64 { 3 } else { 57 };
    pub const GETPID: c_long = if X86_64 { 39 } else { 172 };
    pub const GETTID: c_long = if X86_64 { 186 } else { 178 };
    #[cfg(test)]
    pub const MEMFD_CREATE: c_long = if X86_64 { 319 } else { 279 };
}

const PROT_NONE: c_int = 0;
const PROT_READ: c_int = 1;
const PROT_WRITE: c_int = 2;
#[cfg(test)]
const MAP_SHARED: c_int = 0x01;
const MAP_PRIVATE: c_int = 0x02;
const MAP_FIXED: c_int = 0x10;
const MAP_ANONYMOUS: c_int = 0x20;
const MAP_NORESERVE: c_int = 0x4000;
const MREMAP_FIXED: c_int = 2;
const PAGE: usize = 4096;

/// Smallest range kept: frame buffers are megabytes, and smaller frees are the allocator's own
/// business.
const MIN_KEPT: usize = 1 << 20;
/// Largest range kept at once, so that a huge free still goes back to the system.
const MAX_KEPT: usize = 64 << 20;
/// Smallest reservation tracked: PartitionAlloc's pools and V8's cage are gigabytes.
const MIN_RESERVATION: usize = 256 << 20;
/// Pages whose residency one `mincore` call reads into a vector on the caller's stack.
const WINDOW_PAGES: usize = 1024;

#[link(name = "c")]
extern "C" {
    fn syscall(number: c_long, ...) -> c_long;
}

/// A tracked reservation: start, end (0 for a free slot, `usize::MAX` while being filled) and
/// whether ranges in it may still be kept (1) or not (0).
struct Reservation {
    start: AtomicUsize,
    end: AtomicUsize,
    safe: AtomicUsize,
}

#[allow(clippy::declare_interior_mutable_const)]
const EMPTY: Reservation = Reservation {
    start: AtomicUsize::new(0),
    end: AtomicUsize::new(0),
    safe: AtomicUsize::new(0),
};
/// A process makes a handful of such reservations; one found with every slot taken is not kept from.
static RESERVATIONS: [Reservation; 32] = [EMPTY; 32];

fn bounds(r: &Reservation) -> Option<(usize, usize)> {
    let end = r.end.load(Ordering::Acquire);
    (end != 0 && end != usize::MAX).then(|| (r.start.load(Ordering::Acquire), end))
}

fn track(start: usize, len: usize) {
    for r in &RESERVATIONS {
        if r.end
            .compare_exchange(0, usize::MAX, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        {
            r.start.store(start, Ordering::Release);
            r.safe.store(1, Ordering::Release);
            r.end.store(start + len, Ordering::Release);
            return;
        }
    }
}

/// Marks every reservation that `[start, end)` touches as never kept from again.
fn spoil(start: usize, end: usize) {
    for r in &RESERVATIONS {
        if bounds(r).is_some_and(|(rs, re)| start < re && rs < end) {
            r.safe.store(0, Ordering::Release);
        }
    }
}

/// An unmapping: cutting off a reservation's edge (how an aligned reservation is made) shrinks
/// it; a hole in it spoils it.
fn unmapped(start: usize, end: usize) {
    for r in &RESERVATIONS {
        let Some((rs, re)) = bounds(r) else { continue };
        if end <= rs || re <= start {
            continue;
        }
        if start <= rs && end < re {
            r.start.store(end, Ordering::Release);
        } else if rs < start && re <= end {
            r.end.store(start, Ordering::Release);
        } else {
            r.safe.store(0, Ordering::Release);
        }
    }
}

fn keepable(start: usize, end: usize) -> bool {
    RESERVATIONS
        .iter()
        .any(|r| bounds(r).is_some_and(|(rs, re)| rs <= start && end <= re) && r.safe.load(Ordering::Acquire) == 1)
}

/// Zeroes the resident pages of `[addr, addr + len)` and makes it inaccessible. False when the
/// kernel refuses a step; the caller then maps the range anew, which is always right.
unsafe fn keep(addr: usize, len: usize) -> bool {
    let mut residency = [0u8; WINDOW_PAGES];
    if syscall(nr::MPROTECT, addr, len, PROT_READ | PROT_WRITE) != 0 {
        return false;
    }
    let mut offset = 0;
    while offset < len {
        let window = (len - offset).min(WINDOW_PAGES * PAGE);
        let base = addr + offset;
        if syscall(nr::MINCORE, base, window, residency.as_mut_ptr()) != 0 {
            // Unknown residency: zero every page of the window.
            residency.fill(1);
        }
        let pages = window / PAGE;
        let mut i = 0;
        while i < pages {
            if residency[i] & 1 == 0 {
                i += 1;
                continue;
            }
            let run = i;
            while i < pages && residency[i] & 1 != 0 {
                i += 1;
            }
            core::ptr::write_bytes((base + run * PAGE) as *mut u8, 0, (i - run) * PAGE);
        }
        offset += window;
    }
    syscall(nr::MPROTECT, addr, len, PROT_NONE) == 0
}

unsafe fn kernel_mmap(addr: *mut c_void, len: usize, prot: c_int, flags: c_int, fd: c_int, offset: i64) -> *mut c_void {
    syscall(nr::MMAP, addr, len, prot, flags, fd, offset) as *mut c_void
}

fn failed(result: *mut c_void) -> bool {
    result as isize == -1
}

/// The C library's `mmap`.
///
/// # Safety
/// As `mmap(2)`.
#[cfg_attr(vidkit_preload_export, no_mangle)]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: i64,
) -> *mut c_void {
    let start = addr as usize;
    let end = start.saturating_add(len);
    let anonymous_private = flags & !MAP_NORESERVE & !MAP_FIXED == MAP_PRIVATE | MAP_ANONYMOUS && fd == -1;
    if flags & MAP_FIXED != 0 {
        if !anonymous_private {
            spoil(start, end);
        } else if prot == PROT_NONE
            && (MIN_KEPT..=MAX_KEPT).contains(&len)
            && start.is_multiple_of(PAGE)
            && len.is_multiple_of(PAGE)
            && keepable(start, end)
            && keep(start, len)
        {
            return addr;
        }
        return kernel_mmap(addr, len, prot, flags, fd, offset);
    }
    let mapped = kernel_mmap(addr, len, prot, flags, fd, offset);
    if !failed(mapped) && anonymous_private && prot == PROT_NONE && len >= MIN_RESERVATION {
        track(mapped as usize, len);
    }
    mapped
}

/// The C library's `mmap64`, which is `mmap` on 64-bit Linux.
///
/// # Safety
/// As `mmap(2)`.
#[cfg_attr(vidkit_preload_export, no_mangle)]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: usize,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    offset: i64,
) -> *mut c_void {
    mmap(addr, len, prot, flags, fd, offset)
}

/// The C library's `munmap`.
///
/// # Safety
/// As `munmap(2)`.
#[cfg_attr(vidkit_preload_export, no_mangle)]
pub unsafe extern "C" fn munmap(addr: *mut c_void, len: usize) -> c_int {
    let result = syscall(nr::MUNMAP, addr, len) as c_int;
    if result == 0 {
        unmapped(addr as usize, (addr as usize).saturating_add(len));
    }
    result
}

/// The C library's `mremap`, whose fifth argument the kernel reads only with `MREMAP_FIXED`.
///
/// # Safety
/// As `mremap(2)`.
#[cfg_attr(vidkit_preload_export, no_mangle)]
pub unsafe extern "C" fn mremap(
    old: *mut c_void,
    old_len: usize,
    new_len: usize,
    flags: c_int,
    new_address: *mut c_void,
) -> *mut c_void {
    spoil(old as usize, (old as usize).saturating_add(old_len.max(new_len)));
    if flags & MREMAP_FIXED != 0 {
        spoil(new_address as usize, (new_address as usize).saturating_add(new_len));
    }
    let moved = syscall(nr::MREMAP, old, old_len, new_len, flags, new_address) as *mut c_void;
    if !failed(moved) {
        spoil(moved as usize, (moved as usize).saturating_add(new_len));
    }
    moved
}

#[cfg(vidkit_preload_export)]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // Nothing above can panic; were it to, stopping the process beats unwinding through mmap.
    loop {}
}

pub mod frames;
pub mod jpeg;

#[cfg(test)]
mod tests;
