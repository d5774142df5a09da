//! Store calls shielded against a damaged file. redb answers most damage with an error,
//! but some (a page of the wrong type, a malformed allocator state, an offset past the
//! end of a page) it meets with a panic. A shielded call turns such a panic into the
//! message the status line shows, and keeps the panic hook from touching the terminal
//! or printing over the screen: the browser goes on, and `q` still quits.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};

thread_local! {
    /// True while this thread runs a shielded call.
    static SHIELDED: Cell<bool> = const { Cell::new(false) };
    /// Where the panic hook leaves the message and place of a shielded panic.
    static CAUGHT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// True while the current thread runs inside [`shielded`]: the panic hook then leaves
/// the terminal alone and prints nothing.
pub fn is_shielded() -> bool {
    SHIELDED.with(Cell::get)
}

/// True when a panic raised in `file` should stay quiet: the current thread is
/// shielded, or the panic comes from redb's sources (which panic only on a damaged
/// file) on another thread of the browser, such as a task dropping a transaction
/// after its call returned: tokio catches a task's panic, and the browser reports the
/// store as damaged (see [`redb_panicked`]).
pub fn is_quiet(file: Option<&str>) -> bool {
    if is_shielded() {
        return true;
    }
    let from_redb = file.is_some_and(|f| f.contains("/redb-"));
    if from_redb {
        REDB_PANICS.fetch_add(1, Ordering::SeqCst);
    }
    from_redb
}

/// Panics raised in redb's sources outside a shielded call so far.
static REDB_PANICS: AtomicUsize = AtomicUsize::new(0);

/// True once redb has panicked outside a shielded call: the store is damaged.
pub fn redb_panicked() -> bool {
    REDB_PANICS.load(Ordering::SeqCst) > 0
}

/// Notes what a panic inside a shielded call said (called by the panic hook).
pub fn note_panic(text: String) {
    CAUGHT.with(|c| *c.borrow_mut() = Some(text));
}

/// What the status line says when a store call failed on a damaged file.
pub fn damaged(detail: &str) -> String {
    // The advice before the detail: a narrow status line cuts from the right.
    format!("the store is damaged; run `memlens check` ({detail})")
}

/// Runs `call`, turning a panic inside it into [`damaged`]'s message. Calls may nest.
pub fn shielded<T>(call: impl FnOnce() -> T) -> Result<T, String> {
    super::terminal::install_panic_hook();
    let outer = SHIELDED.with(|s| s.replace(true));
    let result = catch_unwind(AssertUnwindSafe(call));
    SHIELDED.with(|s| s.set(outer));
    result.map_err(|payload| {
        let noted = CAUGHT.with(|c| c.borrow_mut().take());
        damaged(&noted.unwrap_or_else(|| payload_text(payload.as_ref())))
    })
}

/// The text a panic was raised with.
pub fn payload_text(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_damaged_message_and_the_thread_goes_on() {
        let answer: Result<u32, String> = shielded(|| panic!("Invalid page type byte 133"));
        let message = answer.expect_err("the panic is caught");
        assert!(
            message.starts_with("the store is damaged; run `memlens check` ("),
            "{message}"
        );
        assert!(message.contains("Invalid page type byte 133"), "{message}");
        assert!(!is_shielded(), "the shield is lifted after the call");
        assert_eq!(shielded(|| 7), Ok(7));
    }

    #[test]
    fn nested_shields_keep_the_outer_one_up() {
        let outer = shielded(|| {
            let inner: Result<(), String> = shielded(|| panic!("inner"));
            (inner.is_err(), is_shielded())
        });
        assert_eq!(outer, Ok((true, true)));
    }
}
