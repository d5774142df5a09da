//! How a command's process allocates ([`memlens::allocator`]): mimalloc for an import,
//! glibc's `malloc` with huge pages for a one-shot request on a large store, the
//! system's allocator as it is for the processes that stay (the browser, the MCP
//! server) and for requests on small stores.
//!
//! Both are fixed before the command line is read (the allocator at a process's first
//! allocation, glibc's tunables by the dynamic loader), so the command runs itself
//! once more with the variable set. A variable already set (by the user, or by this
//! very re-execution) is left as it is: `MEMLENS_ALLOCATOR=system` keeps the system's
//! allocator for an import, and a tunable named in `GLIBC_TUNABLES` keeps its value.

use memlens::allocator::{
    ALLOCATOR_ENV, HUGE_PAGES_FROM_ENV, MIMALLOC, TUNABLES_ENV, request_tunables,
    request_wants_huge_pages,
};
use std::path::Path;

/// What a command's process needs of the allocator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allocation {
    /// mimalloc: an import's two threads and their many small strings.
    Import,
    /// glibc's `malloc` with huge pages when the store at this path is large: a request
    /// that reads much of it and exits.
    Request(std::path::PathBuf),
    /// The system's allocator as it is: a process that stays and keeps what it read.
    Staying,
}

/// Runs this process again with what `allocation` needs in its environment, when that
/// is not there yet. Returns, changing nothing, when nothing is missing or it cannot be
/// done: not Unix (and for [`Allocation::Request`], not glibc on Linux), or the
/// executable not found.
pub fn prepare(allocation: Allocation) {
    match allocation {
        Allocation::Import => {
            if std::env::var_os(ALLOCATOR_ENV).is_none() {
                reexec_with(ALLOCATOR_ENV, MIMALLOC);
            }
        }
        Allocation::Request(store) => {
            // the tunables are glibc's, and mean nothing under mimalloc
            if cfg!(all(target_os = "linux", target_env = "gnu"))
                && memlens::allocator::in_use() != MIMALLOC
                && large(&store)
                && let Some(tunables) =
                    request_tunables(std::env::var(TUNABLES_ENV).ok().as_deref())
            {
                reexec_with(TUNABLES_ENV, &tunables);
            }
        }
        Allocation::Staying => {}
    }
}

/// Whether the store at `store` is large enough for huge pages to pay
/// ([`request_wants_huge_pages`]); a file that cannot be read is not.
fn large(store: &Path) -> bool {
    let from = std::env::var(HUGE_PAGES_FROM_ENV).ok();
    std::fs::metadata(store).is_ok_and(|m| request_wants_huge_pages(m.len(), from.as_deref()))
}

/// Replaces this process with the same program and arguments, run with `name = value`
/// in its environment; returns only when that cannot be done (the command then runs
/// here, as it is).
fn reexec_with(name: &str, value: &str) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let arg0 = args.next().unwrap_or_else(|| exe.clone().into_os_string());
        // `exec` returns only when it failed
        let _ = std::process::Command::new(exe)
            .arg0(arg0)
            .args(args)
            .env(name, value)
            .exec();
    }
    #[cfg(not(unix))]
    let _ = (name, value);
}
