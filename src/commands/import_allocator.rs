//! `memlens import` in a process that allocates with mimalloc ([`memlens::allocator`]).
//!
//! The allocator is chosen at a process's first allocation, before the command line is
//! read, so `memlens import` runs itself once more with [`ALLOCATOR_ENV`] set to
//! `mimalloc`. An [`ALLOCATOR_ENV`] already set (by the user, or by this very
//! re-execution) is left as it is: `MEMLENS_ALLOCATOR=system` keeps the system's.

use memlens::allocator::{ALLOCATOR_ENV, MIMALLOC};

/// Replaces this process with the same program and arguments, run with
/// [`ALLOCATOR_ENV`]` = mimalloc`. Returns, changing nothing, when that does not apply
/// or cannot be done: not Unix, [`ALLOCATOR_ENV`] already set, or the executable not
/// found.
pub fn reexec_with_import_allocator() {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        if std::env::var_os(ALLOCATOR_ENV).is_some() {
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
            .env(ALLOCATOR_ENV, MIMALLOC)
            .exec();
    }
}
