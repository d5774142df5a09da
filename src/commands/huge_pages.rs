//! Transparent huge pages for a bulk import on glibc.
//!
//! An import touches gigabytes of fresh heap at a million memories (their index
//! entries, the postings log, the store's page cache). Faulted in 4 KiB at a time that
//! is over 600,000 page faults, a fifth of the writer thread's time. glibc backs its
//! heap with transparent huge pages only when told so before the process starts (the
//! `glibc.malloc.hugetlb` tunable; there is no call to switch it on later), so `memlens
//! import` re-executes itself once with that tunable set. Where the system's huge
//! pages are off the tunable changes nothing.

/// The glibc tunable that makes `malloc` ask for transparent huge pages.
pub const HUGE_PAGES_TUNABLE: &str = "glibc.malloc.hugetlb=1";

/// Replaces this process with the same program and arguments, run with glibc's
/// `malloc` asking for transparent huge pages. Returns, changing nothing, when that
/// does not apply or cannot be done: not glibc on Linux, `GLIBC_TUNABLES` already set
/// (by the user, or by this very re-execution), or the executable not found.
pub fn reexec_with_huge_pages() {
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
            .env("GLIBC_TUNABLES", HUGE_PAGES_TUNABLE)
            .exec();
    }
}
