use super::*;

const MIB: usize = 1 << 20;

fn reserve(len: usize) -> usize {
    let at = unsafe {
        mmap(
            std::ptr::null_mut(),
            len,
            PROT_NONE,
            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
            -1,
            0,
        )
    };
    assert!(!failed(at), "the reservation failed");
    at as usize
}

fn commit_and_fill(at: usize, len: usize, byte: u8) {
    assert_eq!(unsafe { syscall(nr::MPROTECT, at, len, PROT_READ | PROT_WRITE) }, 0);
    unsafe { std::ptr::write_bytes(at as *mut u8, byte, len) };
}

/// Decommits as PartitionAlloc does; true when the call returned the range.
fn decommit(at: usize, len: usize) -> bool {
    unsafe {
        mmap(
            at as *mut c_void,
            len,
            PROT_NONE,
            MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS,
            -1,
            0,
        ) as usize
            == at
    }
}

fn resident_pages(at: usize, len: usize) -> usize {
    let mut vec = vec![0u8; len / PAGE];
    assert_eq!(unsafe { syscall(nr::MINCORE, at, len, vec.as_mut_ptr()) }, 0);
    vec.iter().filter(|v| *v & 1 != 0).count()
}

fn all_zero(at: usize, len: usize) -> bool {
    assert_eq!(unsafe { syscall(nr::MPROTECT, at, len, PROT_READ) }, 0);
    let bytes = unsafe { std::slice::from_raw_parts(at as *const u8, len) };
    bytes.iter().all(|b| *b == 0)
}

fn release(at: usize, len: usize) {
    unsafe { munmap(at as *mut c_void, len) };
}

#[test]
fn a_decommitted_range_in_a_reservation_keeps_its_pages_and_reads_zero() {
    let (size, len) = (512 * MIB, 8 * MIB);
    let base = reserve(size);
    let at = base + 64 * MIB;
    commit_and_fill(at, len, 0xab);
    assert!(decommit(at, len));
    assert_eq!(
        resident_pages(at, len),
        len / PAGE,
        "every written page is still resident"
    );
    assert!(all_zero(at, len), "and reads zero, as a fresh mapping would");
    release(base, size);
}

#[test]
fn pages_never_touched_stay_out_of_memory() {
    let (size, len) = (512 * MIB, 4 * MIB);
    let base = reserve(size);
    commit_and_fill(base, MIB, 0x11);
    assert!(decommit(base, len));
    assert_eq!(resident_pages(base, len), MIB / PAGE);
    assert!(all_zero(base, len));
    release(base, size);
}

#[test]
fn small_ranges_and_ranges_outside_reservations_go_to_the_kernel() {
    let base = reserve(512 * MIB);
    commit_and_fill(base, 512 * 1024, 0x22);
    assert!(decommit(base, 512 * 1024));
    assert_eq!(resident_pages(base, 512 * 1024), 0, "under 1 MiB: unmapped as asked");
    release(base, 512 * MIB);

    // 64 MiB is below the size of a tracked reservation.
    let small = reserve(64 * MIB);
    commit_and_fill(small, 2 * MIB, 0x33);
    assert!(decommit(small, 2 * MIB));
    assert_eq!(resident_pages(small, 2 * MIB), 0);
    release(small, 64 * MIB);
}

#[test]
fn shared_memory_mapped_into_a_reservation_spoils_it() {
    let (size, len) = (512 * MIB, 2 * MIB);
    let base = reserve(size);
    let fd = unsafe { syscall(nr::MEMFD_CREATE, c"vidkit-preload-test".as_ptr(), 0) } as c_int;
    assert!(fd >= 0);
    let _ = std::fs::File::options()
        .write(true)
        .open(format!("/proc/self/fd/{fd}"))
        .and_then(|f| f.set_len(len as u64));
    let shared = unsafe {
        mmap(
            base as *mut c_void,
            len,
            PROT_READ | PROT_WRITE,
            MAP_SHARED | MAP_FIXED,
            fd,
            0,
        )
    };
    assert_eq!(shared as usize, base);
    unsafe { std::ptr::write_bytes(base as *mut u8, 0x44, len) };
    assert!(decommit(base, len));
    assert_eq!(
        resident_pages(base, len),
        0,
        "the shared pages were unmapped, not zeroed in place"
    );
    // The memory behind the descriptor was not touched.
    let again = unsafe { kernel_mmap(std::ptr::null_mut(), len, PROT_READ, MAP_SHARED, fd, 0) };
    assert!(!failed(again));
    assert!(unsafe { std::slice::from_raw_parts(again as *const u8, len) }
        .iter()
        .all(|b| *b == 0x44));
    unsafe { syscall(nr::MUNMAP, again, len) };
    // Nothing in the reservation is kept any more.
    let other = base + 128 * MIB;
    commit_and_fill(other, len, 0x55);
    assert!(decommit(other, len));
    assert_eq!(resident_pages(other, len), 0);
    unsafe { libc_close(fd) };
    release(base, size);
}

#[test]
fn trimming_a_reservation_shrinks_it_and_a_hole_spoils_it() {
    let size = 1024 * MIB;
    let base = reserve(size);
    // An aligned reservation trims its head and tail.
    release(base, 64 * MIB);
    release(base + size - 64 * MIB, 64 * MIB);
    let at = base + 256 * MIB;
    commit_and_fill(at, 2 * MIB, 0x66);
    assert!(decommit(at, 2 * MIB));
    assert_eq!(
        resident_pages(at, 2 * MIB),
        2 * MIB / PAGE,
        "still kept after the trims"
    );
    assert!(all_zero(at, 2 * MIB));
    // The trimmed head is no longer the reservation's.
    assert!(!keepable(base, base + 2 * MIB));

    release(base + 512 * MIB, 2 * MIB);
    commit_and_fill(at, 2 * MIB, 0x77);
    assert!(decommit(at, 2 * MIB));
    assert_eq!(resident_pages(at, 2 * MIB), 0, "a hole spoils the reservation");
    release(base + 64 * MIB, size - 128 * MIB);
}

extern "C" {
    #[link_name = "close"]
    fn libc_close(fd: c_int) -> c_int;
}
