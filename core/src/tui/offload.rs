//! Store work off the UI loop: each call runs on a blocking thread, shielded against a
//! damaged file's panics, and timed, so the status line can say when the store has
//! kept the browser waiting. The UI loop never waits for a call: it only asks how long
//! the oldest one has been running.

use super::shield::shielded;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How long a store call may run before the status line says the browser is waiting.
pub const SLOW_CALL: Duration = Duration::from_secs(5);

/// The store calls under way, each with the time it started.
#[derive(Clone, Default)]
pub struct Waits {
    started: Arc<Mutex<BTreeMap<u64, Instant>>>,
    next: Arc<AtomicU64>,
}

/// One call under way; dropping it ends the wait.
struct Ticket {
    waits: Waits,
    number: u64,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.waits.calls().remove(&self.number);
    }
}

impl Waits {
    fn calls(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Instant>> {
        self.started.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn begin(&self) -> Ticket {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        self.calls().insert(number, Instant::now());
        Ticket {
            waits: self.clone(),
            number,
        }
    }

    /// How long the oldest call under way has been running; `None` when none runs.
    pub fn longest(&self) -> Option<Duration> {
        self.calls().values().min().map(Instant::elapsed)
    }

    /// Whole seconds the oldest call has run, once it has run [`SLOW_CALL`] or longer.
    pub fn slow_seconds(&self) -> Option<u64> {
        self.longest()
            .filter(|d| *d >= SLOW_CALL)
            .map(|d| d.as_secs())
    }
}

/// Runs `call` on a blocking thread, timed in `waits`; a panic inside it (a damaged
/// store) or a thread that could not run it comes back as the status line's message.
pub async fn offload<T: Send + 'static>(
    waits: &Waits,
    call: impl FnOnce() -> T + Send + 'static,
) -> Result<T, String> {
    let ticket = waits.begin();
    let joined = tokio::task::spawn_blocking(move || {
        let answer = shielded(call);
        drop(ticket);
        answer
    })
    .await;
    match joined {
        Ok(answer) => answer,
        Err(e) => Err(format!("a background task failed: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_call_is_a_message_and_a_finished_one_stops_the_clock() {
        let waits = Waits::default();
        let failed: Result<(), String> =
            offload(&waits, || panic!("Malformed allocator state")).await;
        let message = failed.expect_err("caught");
        assert!(message.contains("Malformed allocator state"), "{message}");
        assert_eq!(offload(&waits, || 3).await, Ok(3));
        assert_eq!(waits.longest(), None, "no call is under way");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_call_under_way_is_timed_from_its_start() {
        let waits = Waits::default();
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let call = tokio::spawn({
            let waits = waits.clone();
            async move { offload(&waits, move || rx.recv().is_ok()).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let running = waits.longest().expect("a call is under way");
        assert!(running >= Duration::from_millis(40), "{running:?}");
        assert_eq!(waits.slow_seconds(), None, "not yet slow");
        tx.send(()).expect("send");
        assert_eq!(call.await.expect("join"), Ok(true));
        assert_eq!(waits.longest(), None);
    }
}
