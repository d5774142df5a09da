//! The load steps aside for requests: while a request is answered from the persisted
//! index, the background load of the in-memory one waits between its steps, so a key
//! pressed during the load has every core (on two cores the load would otherwise take
//! one of the two the answer's scan runs on).

use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The longest one pause of the load lasts, however many requests follow each other:
/// the load always moves on.
const LONGEST_PAUSE: Duration = Duration::from_secs(2);

/// Counts the requests under way that the load steps aside for.
#[derive(Default)]
pub(crate) struct Gate {
    answering: Mutex<usize>,
    idle: Condvar,
}

/// One request under way; the load goes on once every one has ended.
pub(crate) struct Answering<'a>(&'a Gate);

impl Gate {
    /// Marks a request under way until the returned guard is dropped.
    pub(crate) fn answering(&self) -> Answering<'_> {
        *self
            .answering
            .lock()
            .unwrap_or_else(PoisonError::into_inner) += 1;
        Answering(self)
    }

    /// Waits while a request is under way (at most [`LONGEST_PAUSE`]); the load calls
    /// it between its steps.
    pub(crate) fn pause(&self) {
        let started = Instant::now();
        let mut answering = self
            .answering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        while *answering > 0 {
            let Some(left) = LONGEST_PAUSE.checked_sub(started.elapsed()) else {
                return;
            };
            answering = self
                .idle
                .wait_timeout(answering, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }
}

impl Drop for Answering<'_> {
    fn drop(&mut self) {
        let mut answering = self
            .0
            .answering
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *answering -= 1;
        if *answering == 0 {
            self.0.idle.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    #[test]
    fn the_load_waits_for_a_request_under_way_and_goes_on_when_it_ends() {
        let gate = Arc::new(Gate::default());
        let passed = Arc::new(AtomicBool::new(false));
        let request = gate.answering();
        let load = {
            let (gate, passed) = (Arc::clone(&gate), Arc::clone(&passed));
            std::thread::spawn(move || {
                gate.pause();
                passed.store(true, Ordering::SeqCst);
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        assert!(
            !passed.load(Ordering::SeqCst),
            "the load went on during a request"
        );
        drop(request);
        load.join().expect("load");
        assert!(passed.load(Ordering::SeqCst));
    }

    #[test]
    fn no_request_no_wait() {
        let gate = Gate::default();
        let started = Instant::now();
        gate.pause();
        assert!(started.elapsed() < LONGEST_PAUSE);
    }
}
