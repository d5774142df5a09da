//! The one boundary between memlens and a damaged store file: redb meets some damage
//! (a page of the wrong type, a length past the end of a page) with a panic instead of
//! an error. [`guarded`] runs a store operation so that such a panic becomes
//! [`StoreError::Corrupt`] naming the file, and the panic hook stays quiet about it.
//!
//! Only a panic raised inside redb's own code while a guarded operation runs (on any
//! thread, as searches read in parts on every core) counts as damage; any other panic
//! is a bug in memlens, reported by the usual hook and left to unwind as before.

use super::error::{StoreError, StoreResult};
use std::panic::{self, AssertUnwindSafe, PanicHookInfo};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, Once};

/// How many guarded operations are running in this process.
static ACTIVE: AtomicUsize = AtomicUsize::new(0);
/// What the first store panic of the running guarded operations said.
static SEEN: Mutex<Option<String>> = Mutex::new(None);
static HOOK: Once = Once::new();

/// Runs `operation` on the store at `path`; a panic of redb on a damaged file while it
/// runs is returned as [`StoreError::Corrupt`] naming `path` (without a panic message
/// on stderr) instead of ending the process.
pub fn guarded<T, E: From<StoreError>>(
    path: &Path,
    operation: impl FnOnce() -> Result<T, E>,
) -> Result<T, E> {
    install_hook();
    let outcome = {
        let _active = Active::enter();
        panic::catch_unwind(AssertUnwindSafe(operation))
    };
    match outcome {
        Ok(result) => result,
        Err(payload) => match take_seen() {
            Some(detail) => Err(damaged(path, &detail).into()),
            None => panic::resume_unwind(payload),
        },
    }
}

/// [`guarded`] for an operation that returns a [`StoreResult`].
pub fn guarded_store<T>(path: &Path, operation: impl FnOnce() -> StoreResult<T>) -> StoreResult<T> {
    guarded(path, operation)
}

/// The error for a store whose reading panicked with `detail`.
fn damaged(path: &Path, detail: &str) -> StoreError {
    StoreError::Corrupt {
        path: path.to_path_buf(),
        detail: format!("the storage engine stopped at: {detail}"),
    }
}

/// Marks a guarded operation as running until dropped (also when it unwinds).
struct Active;

impl Active {
    fn enter() -> Active {
        ACTIVE.fetch_add(1, Ordering::SeqCst);
        Active
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        ACTIVE.fetch_sub(1, Ordering::SeqCst);
    }
}

fn take_seen() -> Option<String> {
    SEEN.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Installs, once, a hook before the current one that keeps store panics quiet and
/// remembers what they said; every other panic goes to the hook that was there.
fn install_hook() {
    HOOK.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if ACTIVE.load(Ordering::SeqCst) > 0 && raised_in_redb(info) {
                let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
                seen.get_or_insert_with(|| message(info));
            } else {
                previous(info);
            }
        }));
    });
}

/// True when the panic comes from redb's sources (a registry or vendored copy of the
/// crate: a path component `redb-<version>` or `redb`, followed by `src`).
fn raised_in_redb(info: &PanicHookInfo<'_>) -> bool {
    info.location()
        .is_some_and(|location| is_redb_source(location.file()))
}

fn is_redb_source(file: &str) -> bool {
    let parts: Vec<&str> = file.split(['/', '\\']).collect();
    parts.windows(2).any(|w| {
        (w[0] == "redb" || w[0].strip_prefix("redb-").is_some_and(is_version)) && w[1] == "src"
    })
}

fn is_version(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_digit())
}

/// The panic's message, on one line.
fn message(info: &PanicHookInfo<'_>) -> String {
    let payload = info.payload();
    let text = payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "an internal check failed".into());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operation_that_does_not_panic_gives_its_own_result() {
        let path = Path::new("s.redb");
        assert_eq!(guarded_store(path, || Ok(7)).unwrap(), 7);
        let e = guarded_store::<()>(path, || Err(StoreError::UnknownId("x".into())));
        assert!(matches!(e, Err(StoreError::UnknownId(_))));
    }

    #[test]
    fn a_panic_outside_redb_is_a_bug_and_keeps_unwinding() {
        let caught = panic::catch_unwind(|| {
            guarded_store::<()>(Path::new("s.redb"), || panic!("a bug in memlens"))
        });
        let payload = caught.expect_err("the panic must go on");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"a bug in memlens"));
    }

    #[test]
    fn the_redb_sources_are_told_from_others() {
        let redb = [
            "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/redb-4.6.0/src/tree_store/btree.rs",
            "vendor/redb/src/lib.rs",
        ];
        let other = [
            "src/store/read.rs",
            "/root/.cargo/registry/src/x/redbx-1.0.0/src/lib.rs",
            "/root/.cargo/registry/src/x/redb-derive-1.0.0/src/lib.rs",
        ];
        for file in redb {
            assert!(is_redb_source(file), "{file}");
        }
        for file in other {
            assert!(!is_redb_source(file), "{file}");
        }
    }
}
