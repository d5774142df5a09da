//! glibc's `malloc` tuned for a bulk import.
//!
//! An import touches gigabytes of fresh heap at a million memories (their index
//! entries, the postings log, the store's page cache), and its reader thread
//! allocates and frees some fifteen strings per memory, a batch of 256 memories at a
//! time. Two glibc tunables help, and glibc reads tunables only when a process starts
//! (there is no call to change them later), so `memlens import` re-executes itself
//! once with them set:
//! - `glibc.malloc.hugetlb=1`: the heap is backed by transparent huge pages, so a
//!   million-memory import takes some 80,000 page faults instead of 620,000 (where
//!   the system's huge pages are off, this changes nothing);
//! - `glibc.malloc.tcache_count=4000`: each thread keeps up to 4,000 freed chunks of
//!   a size at hand instead of 7, so freeing a batch of memories and reading the next
//!   reuse them without going through the shared free lists.

/// The glibc tunables an import runs with.
pub const IMPORT_TUNABLES: &str = "glibc.malloc.hugetlb=1:glibc.malloc.tcache_count=4000";

/// Replaces this process with the same program and arguments, run with
/// [`IMPORT_TUNABLES`]. Returns, changing nothing, when that does not apply or cannot
/// be done: not glibc on Linux, `GLIBC_TUNABLES` already set (by the user, or by this
/// very re-execution), or the executable not found.
pub fn reexec_with_import_tunables() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::process::CommandExt;
        if std::env::var_os("GLIBC_TUNABLES").is_some() {
            return;
        }
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
        // `exec` returns only when it failed; the import then runs in this process
        let _ = std::process::Command::new(exe)
            .arg0(arg0)
            .args(args)
            .env("GLIBC_TUNABLES", IMPORT_TUNABLES)
            .exec();
    }
}
