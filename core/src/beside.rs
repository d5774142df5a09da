//! Helper threads that start on another core at once.
//!
//! A thread the kernel has just created is often queued on the core of the thread that
//! created it, and waits there until that thread blocks or the balancer moves it a
//! tick later, while the other core sits idle: measured on a 2-core virtual machine, a
//! helper spawned beside a busy thread began after 2.7 ms at the median (up to 4 ms),
//! longer than a whole search of 100k memories takes. Moved to another core as soon as
//! it first runs, while its creator gives way for that moment, it begins within 0.1 ms.
//! Once there it may run on every core again, so where it runs from then on is the
//! scheduler's.

use std::thread::{Scope, ScopedJoinHandle};

/// Runs `work` on a new thread of `scope`, started on a core other than the caller's:
/// the `nth` of the others the caller may run on, round robin (helper 0, 1, … of one
/// parallel step each take a different core). The caller gives up its core for the
/// moment the new thread needs to move itself there (tens of µs). Where that cannot be
/// asked (not Linux, one core) it is a plain [`Scope::spawn`].
pub(crate) fn spawn<'scope, T: Send + 'scope>(
    scope: &'scope Scope<'scope, '_>,
    nth: usize,
    work: impl FnOnce() -> T + Send + 'scope,
) -> ScopedJoinHandle<'scope, T> {
    let everywhere = cores::mine();
    let Some(core) = cores::elsewhere(&everywhere, nth) else {
        return scope.spawn(work);
    };
    let handle = scope.spawn(move || {
        // the move takes effect at once; being let back everywhere keeps it there
        cores::set_own(&[core]);
        cores::set_own(&everywhere);
        work()
    });
    cores::give_way();
    handle
}

/// The `nth` (round robin) of the cores of `allowed` other than `me`; `None` when there
/// is no other.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn pick(allowed: &[usize], me: usize, nth: usize) -> Option<usize> {
    let others: Vec<usize> = allowed.iter().copied().filter(|&c| c != me).collect();
    (!others.is_empty()).then(|| others[nth % others.len()])
}

#[cfg(target_os = "linux")]
mod cores {
    /// The cores the calling thread may run on, listed (none when unknown).
    pub(super) fn mine() -> Vec<usize> {
        // SAFETY: cpu_set_t is plain data, all zeroes a valid empty set; the call
        // writes at most its size, and CPU_ISSET reads within it.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut set) != 0 {
                return Vec::new();
            }
            (0..libc::CPU_SETSIZE as usize)
                .filter(|&c| libc::CPU_ISSET(c, &set))
                .collect()
        }
    }

    /// The `nth` (round robin) of the cores of `allowed`, the caller's own left out;
    /// `None` when there is no other or the caller's core is unknown.
    pub(super) fn elsewhere(allowed: &[usize], nth: usize) -> Option<usize> {
        // SAFETY: sched_getcpu takes nothing.
        let me = usize::try_from(unsafe { libc::sched_getcpu() }).ok()?;
        super::pick(allowed, me, nth)
    }

    /// Lets the calling thread run on the listed cores only (nothing asked when the
    /// list is empty; a failure leaves it where it may run now).
    pub(super) fn set_own(cores: &[usize]) {
        if cores.is_empty() {
            return;
        }
        // SAFETY: plain data; every listed core is below CPU_SETSIZE (listed from a
        // set); the set is of the size given.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &c in cores {
                libc::CPU_SET(c, &mut set);
            }
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }

    /// Lets another thread waiting for this core run first.
    pub(super) fn give_way() {
        // SAFETY: takes nothing.
        unsafe {
            libc::sched_yield();
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod cores {
    /// Not known here.
    pub(super) fn mine() -> Vec<usize> {
        Vec::new()
    }

    /// Never known here: threads start where the system puts them.
    pub(super) fn elsewhere(_allowed: &[usize], _nth: usize) -> Option<usize> {
        None
    }

    /// Nothing to ask here.
    pub(super) fn set_own(_cores: &[usize]) {}

    /// Nothing to give here.
    pub(super) fn give_way() {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_run_their_work_and_may_then_use_every_core_the_caller_may() {
        let caller = cores::mine();
        let caller = &caller;
        let answers: Vec<(usize, bool)> = std::thread::scope(|s| {
            let helpers: Vec<_> = (0..3)
                .map(|nth| spawn(s, nth, move || (nth * 10, cores::mine() == *caller)))
                .collect();
            helpers
                .into_iter()
                .map(|h| h.join().expect("helper"))
                .collect()
        });
        assert_eq!(answers, vec![(0, true), (10, true), (20, true)]);
    }

    #[test]
    fn a_helper_starts_on_each_other_core_in_turn_never_the_callers() {
        let starts: Vec<Option<usize>> = (0..5).map(|nth| pick(&[0, 2, 5], 2, nth)).collect();
        assert_eq!(starts, [Some(0), Some(5), Some(0), Some(5), Some(0)]);
        assert_eq!(pick(&[3], 3, 0), None, "one core: nowhere else to start");
        assert_eq!(pick(&[1, 4], 7, 1), Some(4), "a caller outside the set");
    }
}
