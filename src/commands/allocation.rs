//! How a command's process allocates ([`memlens::allocator`]): mimalloc for an import,
//! the system's allocator for a one-shot request (with huge pages when asked for), and
//! as it is for the processes that stay (the browser, the MCP server), whose resident
//! memory counts.
//!
//! The allocator is fixed at a process's first allocation, before the command line is
//! read, so an import runs itself once more with the variable set; a variable already
//! set (by the user, or by this very re-execution) is left as it is:
//! `MEMLENS_ALLOCATOR=system` keeps the system's allocator for an import. Huge pages are
//! asked for in the process itself.

use memlens::allocator::{ALLOCATOR_ENV, HUGE_PAGES_ENV, MIMALLOC, huge_pages_wanted};

/// mimalloc's variable for transparent huge pages; an import sets it to `0` unless it
/// is set already.
const MIMALLOC_THP_ENV: &str = "MIMALLOC_ALLOW_THP";

/// What a command's process needs of the allocator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allocation {
    /// mimalloc: an import's two threads and their many small strings.
    Import,
    /// The system's allocator, with huge pages when `MEMLENS_HUGE_PAGES=on`: a
    /// request that reads a store's columns into fresh memory and exits.
    Request,
    /// The system's allocator as it is: a process that stays and keeps what it read.
    Staying,
}

/// Gives this process what `allocation` needs: for an import, runs it again with
/// mimalloc chosen when it is not yet (returning, changing nothing, when it cannot be
/// done: not Unix, or the executable not found); for a request, asks for huge pages when
/// they are turned on. Call it before starting any thread.
pub fn prepare(allocation: Allocation) {
    match allocation {
        Allocation::Import => {
            if std::env::var_os(ALLOCATOR_ENV).is_none() {
                // mimalloc advises huge pages for its arenas unless told not to, which
                // made a 1M import slower after an idle pause (21.1/16.6 s against
                // 18.5/13.1 s without) and its peak higher (832–882 MB against 755–787)
                let mut vars = vec![(ALLOCATOR_ENV, MIMALLOC)];
                if std::env::var_os(MIMALLOC_THP_ENV).is_none() {
                    vars.push((MIMALLOC_THP_ENV, "0"));
                }
                reexec_with(&vars);
            }
        }
        Allocation::Request => {
            if huge_pages_wanted(std::env::var(HUGE_PAGES_ENV).ok().as_deref()) {
                memlens::allocator::use_huge_pages();
            }
        }
        Allocation::Staying => {}
    }
}

/// Replaces this process with the same program and arguments, run with `vars` (name,
/// value) added to its environment; returns only when that cannot be done (the command
/// then runs here, as it is).
fn reexec_with(vars: &[(&str, &str)]) {
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
            .envs(vars.iter().copied())
            .exec();
    }
    #[cfg(not(unix))]
    let _ = vars;
}
