//! The memory allocator: mimalloc for a bulk import, the system's for everything else.
//!
//! An import's reader thread allocates and frees some fifteen strings per memory, a
//! batch at a time, while the writer thread fills the store; mimalloc serves that about
//! a tenth faster than glibc's `malloc` (benches/RESULTS.md). The browser, though,
//! keeps its resident memory lower with the system allocator (SPEC §6 holds it to 600
//! bytes a memory), so the choice is made per process: `memlens import` runs itself once
//! more with [`ALLOCATOR_ENV`] set to `mimalloc` (see `commands::allocation`), and
//! this allocator reads that variable at the process's first allocation, once. A one-shot
//! request on a large store keeps the system's allocator with huge pages
//! ([`REQUEST_TUNABLES`]).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

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

/// glibc's variable of tunables, read by the dynamic loader when a process starts.
pub const TUNABLES_ENV: &str = "GLIBC_TUNABLES";

/// The glibc `malloc` tunables of a one-shot request (`memlens search`, `get`, `stats`,
/// `review`, a curation...), which reads a collection's columns into tens of megabytes
/// of fresh memory and exits: huge pages for the heap and the blocks mapped on their
/// own, so the kernel maps 2 MiB at a fault instead of 4 KiB, and 16 MiB more heap at
/// each growth. At 1M memories `search --mode time` took about 7,000 page faults with
/// the defaults and 700–1,000 with these, its peak 32 → 37 MB (benches/RESULTS.md).
pub const REQUEST_TUNABLES: [(&str, &str); 2] = [
    ("glibc.malloc.hugetlb", "1"),
    ("glibc.malloc.top_pad", "16777216"),
];

/// The variable that sets the size of store, in MiB, from which a one-shot request runs
/// with [`REQUEST_TUNABLES`] (`0`: always); [`HUGE_PAGES_FROM_MIB`] when unset.
pub const HUGE_PAGES_FROM_ENV: &str = "MEMLENS_HUGE_PAGES_FROM_MIB";

/// Below this store size (about 180,000 memories) a request reads too little for huge
/// pages to repay running the process twice. Medians with glibc's defaults against
/// re-run with the tunables: on the demo store (341 memories, 1 MB) a search took 4.7
/// and 6.3 ms; on 100k memories (140 MB) a fuzzy search 17.2 and 15.3 ms, a browse 10.5
/// and 10.1 ms, but a literal word 5.4 and 6.9 ms; on 1M (2.1 GB) a browse 40 and 27 ms,
/// a fuzzy search 74 and 59 ms, a literal word 1.5 ms more.
pub const HUGE_PAGES_FROM_MIB: u64 = 256;

/// Whether a one-shot request on a store of `store_bytes` runs with
/// [`REQUEST_TUNABLES`], given [`HUGE_PAGES_FROM_ENV`]'s value (`None`: unset; a value
/// that is not a number counts as unset).
pub fn request_wants_huge_pages(store_bytes: u64, from_mib: Option<&str>) -> bool {
    let from = from_mib
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(HUGE_PAGES_FROM_MIB);
    store_bytes >= from.saturating_mul(1 << 20)
}

/// [`TUNABLES_ENV`] holding [`REQUEST_TUNABLES`] beside what `current` (its value now)
/// holds; `None` when it names each of them already. A tunable the user set keeps the
/// user's value.
pub fn request_tunables(current: Option<&str>) -> Option<String> {
    let current = current.unwrap_or("");
    let named = |name: &str| {
        current
            .split(':')
            .any(|entry| entry.split_once('=').is_some_and(|(n, _)| n == name))
    };
    let missing: Vec<String> = REQUEST_TUNABLES
        .iter()
        .filter(|(name, _)| !named(name))
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    if missing.is_empty() {
        return None;
    }
    let mut entries: Vec<&str> = current.split(':').filter(|e| !e.is_empty()).collect();
    entries.extend(missing.iter().map(String::as_str));
    Some(entries.join(":"))
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
        unsafe { chosen().alloc(layout) }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe { chosen().alloc_zeroed(layout) }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: see the impl; `ptr` came from the same allocator.
        unsafe { chosen().dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: see the impl; `ptr` came from the same allocator.
        unsafe { chosen().realloc(ptr, layout, new_size) }
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
    fn huge_pages_are_for_large_stores_unless_the_size_is_set() {
        let from = HUGE_PAGES_FROM_MIB << 20;
        assert!(!request_wants_huge_pages(from - 1, None));
        assert!(request_wants_huge_pages(from, None));
        assert!(request_wants_huge_pages(0, Some("0")));
        // a size set above the default, spaces around it
        let above = HUGE_PAGES_FROM_MIB + 1;
        assert!(!request_wants_huge_pages(from, Some(&format!(" {above} "))));
        assert!(request_wants_huge_pages(
            above << 20,
            Some(&above.to_string())
        ));
        // not a number: the default
        assert!(!request_wants_huge_pages(from - 1, Some("lots")));
        assert!(!request_wants_huge_pages(
            u64::MAX - 1,
            Some(&u64::MAX.to_string())
        ));
    }

    #[test]
    fn a_request_adds_its_tunables_and_keeps_the_users() {
        let all = REQUEST_TUNABLES.map(|(n, v)| format!("{n}={v}")).join(":");
        assert_eq!(request_tunables(None).as_deref(), Some(all.as_str()));
        assert_eq!(request_tunables(Some("")).as_deref(), Some(all.as_str()));
        // another tunable of the user's stays, first
        assert_eq!(
            request_tunables(Some("glibc.rtld.nns=8")),
            Some(format!("glibc.rtld.nns=8:{all}"))
        );
        // a tunable the user set keeps its value; only the other is added
        let (first, second) = (REQUEST_TUNABLES[0], REQUEST_TUNABLES[1]);
        let user = format!("{}=0", first.0);
        assert_eq!(
            request_tunables(Some(&user)),
            Some(format!("{user}:{}={}", second.0, second.1))
        );
        // a name that only begins like one of them does not count as it
        let longer = format!("{}x=1", first.0);
        assert_eq!(
            request_tunables(Some(&longer)),
            Some(format!("{longer}:{all}"))
        );
        // every one named: nothing to do, whatever the values
        let named = REQUEST_TUNABLES.map(|(n, _)| format!("{n}=7")).join(":");
        assert_eq!(request_tunables(Some(&named)), None);
    }
}
