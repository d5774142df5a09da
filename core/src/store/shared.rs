//! Sharing one store file between processes. redb lets one process hold the file at a
//! time (a writable open excludes every other open; read-only opens exclude writers).
//! memlens processes that serve others — `memlens mcp` for each agent, the commands —
//! hold the file only for the span of one operation, and a process that finds it held
//! waits for it with a short backoff instead of failing: the holder is another
//! memlens process in the middle of one transaction, which takes milliseconds.
//!
//! [`CHANGE_KEY`] and [`change_number`] are the format of the change number every
//! commit advances (see `changes.rs`), which the browser's live view polls.

use super::error::{StoreError, StoreResult};
use std::time::{Duration, Instant};

/// The metadata key of the change number: a u64, little-endian, advanced by one on
/// every committed write.
pub const CHANGE_KEY: &str = "change_number";

/// How long an open waits for another process to let go of the file by default.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(5);

/// The environment variable that sets that wait in milliseconds (0: fail at once).
pub const WAIT_VARIABLE: &str = "MEMLENS_LOCK_WAIT_MS";

/// The wait in force: [`WAIT_VARIABLE`] when set to a number, else [`DEFAULT_WAIT`].
pub fn lock_wait() -> Duration {
    std::env::var(WAIT_VARIABLE)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .map_or(DEFAULT_WAIT, Duration::from_millis)
}

/// Runs `operation` (an open of the store), again and again while it fails because
/// another process holds the file, backing off from 1 ms to 50 ms between tries, for
/// at most `wait`; then its last error, which is [`StoreError::Locked`].
pub fn when_free<T, E>(
    wait: Duration,
    mut operation: impl FnMut() -> Result<T, E>,
    is_locked: impl Fn(&E) -> bool,
) -> Result<T, E> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match operation() {
            Err(e) if is_locked(&e) && start.elapsed() + pause <= wait => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// [`when_free`] for store operations, with the wait in force.
pub fn store_when_free<T>(operation: impl FnMut() -> StoreResult<T>) -> StoreResult<T> {
    when_free(lock_wait(), operation, |e| {
        matches!(e, StoreError::Locked { .. })
    })
}

/// The change number stored in a metadata value (0 for a store that has none yet).
pub fn change_number(value: Option<&[u8]>) -> u64 {
    value
        .and_then(|v| <[u8; 8]>::try_from(v).ok())
        .map_or(0, u64::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_locked_open_is_tried_again_until_it_succeeds_or_the_wait_is_over() {
        let tries = Cell::new(0);
        let got: Result<u32, &str> = when_free(
            Duration::from_secs(5),
            || {
                tries.set(tries.get() + 1);
                if tries.get() < 4 {
                    Err("locked")
                } else {
                    Ok(7)
                }
            },
            |e| *e == "locked",
        );
        assert_eq!((got, tries.get()), (Ok(7), 4));

        tries.set(0);
        let got: Result<u32, &str> = when_free(
            Duration::ZERO,
            || {
                tries.set(tries.get() + 1);
                Err("locked")
            },
            |e| *e == "locked",
        );
        assert_eq!((got, tries.get()), (Err("locked"), 1));

        tries.set(0);
        let got: Result<u32, &str> = when_free(
            Duration::from_secs(5),
            || {
                tries.set(tries.get() + 1);
                Err("broken")
            },
            |e| *e == "locked",
        );
        assert_eq!(
            (got, tries.get()),
            (Err("broken"), 1),
            "other errors at once"
        );
    }

    #[test]
    fn change_numbers_read_back_and_default_to_zero() {
        assert_eq!(change_number(None), 0);
        assert_eq!(change_number(Some(&42u64.to_le_bytes())), 42);
        assert_eq!(change_number(Some(b"odd")), 0);
    }
}
