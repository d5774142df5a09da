//! The memory allocator: mimalloc for a bulk import, the system's for everything else.
//!
//! An import's reader thread allocates and frees some fifteen strings per memory, a
//! batch at a time, while the writer thread fills the store; mimalloc serves that about
//! a tenth faster than glibc's `malloc` (benches/RESULTS.md). The browser, though,
//! keeps its resident memory lower with the system allocator (SPEC §6 holds it to 600
//! bytes a memory), so the choice is made per process: `memlens import` runs itself once
//! more with [`ALLOCATOR_ENV`] set to `mimalloc` (see `commands::allocation`), and
//! this allocator reads that variable at the process's first allocation, once. A one-shot
//! request on a large store keeps the system's allocator and asks for huge pages
//! ([`use_huge_pages`]), which needs no second start.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};

/// The environment variable that chooses the allocator: `mimalloc`, or anything else
/// (or nothing) for the system's.
pub const ALLOCATOR_ENV: &str = "MEMLENS_ALLOCATOR";

/// [`ALLOCATOR_ENV`] as a C string, for reading it without allocating.
const ALLOCATOR_ENV_C: &std::ffi::CStr = c"MEMLENS_ALLOCATOR";

/// The value of [`ALLOCATOR_ENV`] that chooses mimalloc.
pub const MIMALLOC: &str = "mimalloc";

/// Not chosen yet (no allocation made).
const UNDECIDED: u8 = 0;
/// The system allocator.
const SYSTEM: u8 = 1;
/// mimalloc.
const MI: u8 = 2;

static CHOICE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// The allocator of the `memlens` program: mimalloc when the process started with
/// [`ALLOCATOR_ENV`]` = mimalloc`, else the system's; every allocation of a process goes
/// to the one chosen at its first.
#[derive(Debug, Clone, Copy, Default)]
pub struct Allocator;

/// Whether the value of [`ALLOCATOR_ENV`] (`None`: unset) chooses mimalloc.
pub fn chooses_mimalloc(value: Option<&[u8]>) -> bool {
    value == Some(MIMALLOC.as_bytes())
}

/// The name of the allocator this process uses: `mimalloc` or `system` (`system` as
/// well in a program that does not use [`Allocator`]).
pub fn in_use() -> &'static str {
    if CHOICE.load(Ordering::Relaxed) == MI {
        MIMALLOC
    } else {
        "system"
    }
}

#[inline]
fn mimalloc() -> bool {
    match CHOICE.load(Ordering::Relaxed) {
        SYSTEM => false,
        MI => true,
        _ => choose(),
    }
}

#[cold]
fn choose() -> bool {
    // SAFETY: `getenv` reads the environment without allocating, and returns a pointer
    // to a NUL-terminated string or null. The first allocation of a process comes before
    // it starts any thread, so nothing changes the environment meanwhile.
    let value = unsafe {
        let p = libc::getenv(ALLOCATOR_ENV_C.as_ptr());
        (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p).to_bytes())
    };
    let mi = chooses_mimalloc(value);
    CHOICE.store(if mi { MI } else { SYSTEM }, Ordering::Relaxed);
    mi
}

/// The variable that turns huge pages on for one-shot requests (`on` or `1`); they are
/// off when it is unset or holds anything else.
///
/// Off by default: on a virtual machine whose memory balloon reports free memory to
/// its host, the free blocks of huge page size are the ones reported, so a huge page
/// faulted in after a few idle seconds costs the host's work of backing it again. At
/// 1M memories, with 2.5 s between requests (as a person types them), huge pages made
/// every request slower: `--mode time` 40 → 100 ms, `--limit 10000` 90 → 270 ms, fuzzy
/// by time 90 → 220 ms (medians of five). Run back to back they saved 4–12%.
pub const HUGE_PAGES_ENV: &str = "MEMLENS_HUGE_PAGES";

/// Whether a one-shot request asks for huge pages ([`use_huge_pages`]), given
/// [`HUGE_PAGES_ENV`]'s value (`None`: unset).
pub fn huge_pages_wanted(value: Option<&str>) -> bool {
    matches!(value.map(str::trim), Some("on" | "1"))
}

/// Whether the memory this process allocates is advised to take huge pages
/// ([`use_huge_pages`]).
static HUGE: AtomicBool = AtomicBool::new(false);

/// Where the heap ended when [`use_huge_pages`] was called: what lies before is not
/// advised.
static HEAP_FROM: AtomicUsize = AtomicUsize::new(0);

/// How far the heap has been advised (a huge page boundary). A heap that shrinks and
/// grows again past it is advised from there on.
static HEAP_ADVISED: AtomicUsize = AtomicUsize::new(0);

/// The size of a transparent huge page (x86-64, and arm64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// The huge page boundary at or below `address`.
fn huge_page_floor(address: usize) -> usize {
    address - address % HUGE_PAGE
}

/// How much more than it must the heap grows each time, under [`use_huge_pages`]:
/// fewer growths, each large enough to hold whole huge pages.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TOP_PAD: libc::c_int = 16 << 20;

/// From now on, asks the kernel to back this process's heap and its large blocks with
/// transparent huge pages (2 MiB mapped at a fault instead of 4 KiB), for a one-shot
/// request that reads a large store's columns into tens of megabytes of fresh memory
/// and exits: at 1M memories `search --mode time` took about 7,000 page faults without
/// and about 1,000 with them. All threads then allocate from the one heap (glibc's
/// arenas limited to one) so that it covers them too, and the heap grows 16 MiB at a
/// time. Call it before starting any thread. Returns whether it took effect: not under
/// mimalloc, nor outside glibc on Linux (a kernel without huge pages ignores the
/// advice).
///
/// glibc's own `glibc.malloc.hugetlb=1` tunable does the same, but version 2.36 decides
/// whether the kernel takes the advice by comparing a buffer it did not terminate, so
/// it worked in some builds of a program and not in others.
pub fn use_huge_pages() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if !mimalloc() {
        // SAFETY: `mallopt` only sets parameters of glibc's allocator; `sbrk(0)` only
        // reads where the heap ends.
        let end = unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 1);
            libc::mallopt(libc::M_TOP_PAD, TOP_PAD);
            libc::sbrk(0) as usize
        };
        HEAP_FROM.store(end, Ordering::Relaxed);
        HEAP_ADVISED.store(huge_page_floor(end), Ordering::Relaxed);
        HUGE.store(true, Ordering::Relaxed);
        return true;
    }
    false
}

/// Advises the huge pages that lie wholly within `from..to`, memory this process has
/// mapped.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn advise_range(from: usize, to: usize) {
    let (first, end) = (from.next_multiple_of(HUGE_PAGE), huge_page_floor(to));
    if end > first {
        // SAFETY: the range lies within memory this process mapped (a block it was
        // just given, or its heap); the advice changes no contents. A kernel without
        // huge pages refuses it, which changes nothing either.
        unsafe {
            libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
        }
    }
}

/// Under [`use_huge_pages`]: advises the block at `p` of `size` bytes when it can hold
/// a huge page, and the part of the heap grown since the last advice.
#[inline]
fn advise(p: *mut u8, size: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if HUGE.load(Ordering::Relaxed) && !p.is_null() {
        if size >= HUGE_PAGE {
            advise_range(p as usize, p as usize + size);
        }
        // a block within the advised part of the heap cannot follow a growth: only a
        // block ending past it (in the heap's last, partial huge page, in a growth, or
        // a block of its own higher up) asks where the heap ends
        let advised = HEAP_ADVISED.load(Ordering::Relaxed);
        if (p as usize).saturating_add(size) > advised {
            // SAFETY: `sbrk(0)` only reads where the heap ends.
            let end = huge_page_floor(unsafe { libc::sbrk(0) } as usize);
            if end > advised {
                let from = HEAP_ADVISED.swap(end, Ordering::Relaxed);
                if end > from {
                    advise_range(from.max(HEAP_FROM.load(Ordering::Relaxed)), end);
                }
            }
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = (p, size);
}

/// Blocks of at least this many bytes get pages of their own from the system
/// (glibc's default, 128 KiB).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const MMAP_THRESHOLD: libc::c_int = 128 << 10;

/// Fixes the size from which glibc's `malloc` maps a block's pages of its own, and
/// unmaps them when it is freed, for the rest of the process; the browser's load calls
/// it before it starts. By default the threshold rises to the size of every mapped
/// block freed (up to 32 MiB), so once the load frees its first large buffer, the later
/// ones are cut from the heap, and what they leave when freed stays resident in pieces:
/// at 1M memories the browser held 604 MB with the index loaded against 563–570 MB with the
/// threshold fixed (both with [`release_freed`] after the load), with no change in the
/// load's time. A one-shot request keeps the default: its peak was no lower with it.
pub fn map_large_blocks() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if !mimalloc() {
        // SAFETY: `mallopt` only sets a parameter of glibc's allocator.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        }
    }
}

/// Gives the memory freed inside the system allocator's heap back to the operating
/// system (glibc's `malloc_trim`), after a step that allocated and freed much (the
/// in-memory index's load). Nothing under mimalloc or another libc.
pub fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    if !mimalloc() {
        // SAFETY: `malloc_trim` only returns free pages of the heap to the system.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

/// The allocator this process chose.
#[inline]
fn chosen() -> &'static dyn GlobalAlloc {
    if mimalloc() {
        &mimalloc::MiMalloc
    } else {
        &System
    }
}

// SAFETY: every call goes to one of two sound allocators, the same one for the whole
// process (chosen before the first allocation), so a block is always freed or resized
// by the allocator that made it; the caller's guarantees are passed on as they are.
unsafe impl GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        let p = unsafe { chosen().alloc(layout) };
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        let p = unsafe { chosen().alloc_zeroed(layout) };
        advise(p, layout.size());
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: see the impl; `ptr` came from the same allocator.
        unsafe { chosen().dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: see the impl; `ptr` came from the same allocator.
        let p = unsafe { chosen().realloc(ptr, layout, new_size) };
        advise(p, new_size);
        p
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_name_chooses_mimalloc() {
        assert!(chooses_mimalloc(Some(b"mimalloc")));
        for other in [&b"system"[..], b"", b"MIMALLOC", b"mimalloc "] {
            assert!(!chooses_mimalloc(Some(other)), "{other:?}");
        }
        assert!(!chooses_mimalloc(None));
    }

    #[test]
    fn huge_pages_are_off_unless_turned_on() {
        assert!(!huge_pages_wanted(None));
        for off in ["", "0", "off", "yes", "onn"] {
            assert!(!huge_pages_wanted(Some(off)), "{off:?}");
        }
        for on in ["on", "1", " on "] {
            assert!(huge_pages_wanted(Some(on)), "{on:?}");
        }
    }
}
