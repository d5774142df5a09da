//! Work cut into one part per core: the scans of search and the decoding passes of
//! the index share it.

/// Below this many memories a scan runs on one thread.
pub(crate) const PARALLEL_FROM: usize = 16_384;

/// How many threads a scan may use: the cores, at most 8.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// `part` over `0..n` cut into one contiguous range per core (a single range below
/// [`PARALLEL_FROM`]); the parts' results concatenated in order. A panic in a part
/// reaches the caller: a result never leaves a part out.
pub(crate) fn in_parts<T: Send>(
    n: usize,
    part: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
) -> Vec<T> {
    cut(n, 1, part)
}

/// Below this many items, work of a few nanoseconds an item (keeping a page's first
/// items of a list of matches) runs on one thread: starting a helper costs more than
/// the half it would take.
const LIGHT_PARALLEL_FROM: usize = 1 << 17;

/// [`in_parts`] for work of a few nanoseconds an item: one part below
/// [`LIGHT_PARALLEL_FROM`] items.
pub(crate) fn in_light_parts<T: Send>(
    n: usize,
    part: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
) -> Vec<T> {
    if n < LIGHT_PARALLEL_FROM {
        return part(0..n);
    }
    in_parts(n, part)
}

/// Like [`in_parts`], for work whose cost varies along `0..n` (a text scan: some
/// memories match and are scored, most are not): cut into [`PIECES_PER_THREAD`]
/// contiguous pieces per core, each thread taking the next piece left, so that no core
/// waits long for another to finish its half. Results concatenated in order.
pub(crate) fn in_pieces<T: Send>(
    n: usize,
    part: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
) -> Vec<T> {
    cut(n, PIECES_PER_THREAD, part)
}

/// `part` over `0..n` cut into `per_thread` contiguous pieces per core, the threads
/// (this one among them) each taking the next piece left, the last first (the newest
/// memories, whose ties a fuzzy ranking keeps, so its floor settles early); the
/// results in order.
fn cut<T: Send>(
    n: usize,
    per_thread: usize,
    part: impl Fn(std::ops::Range<usize>) -> Vec<T> + Sync,
) -> Vec<T> {
    let threads = threads();
    if threads < 2 || n < PARALLEL_FROM {
        return part(0..n);
    }
    let size = n.div_ceil(threads * per_thread);
    let pieces = n.div_ceil(size);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let work = || {
        let mut done = Vec::new();
        loop {
            let taken = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if taken >= pieces {
                return done;
            }
            let i = pieces - 1 - taken;
            let lo = i * size;
            done.push((i, part(lo..(lo + size).min(n))));
        }
    };
    let mut done: Vec<(usize, Vec<T>)> = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads)
            .map(|nth| crate::beside::spawn(scope, nth - 1, work))
            .collect();
        let mut done = work();
        for h in helpers {
            done.extend(
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        done
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    let mut all = Vec::with_capacity(done.iter().map(|(_, results)| results.len()).sum());
    for (_, mut results) in done {
        all.append(&mut results);
    }
    all
}

/// How many pieces per core [`in_pieces`] cuts its work into.
const PIECES_PER_THREAD: usize = 8;

/// The nice value background work runs at: the lowest priority there is.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
const BACKGROUND_NICE: libc::c_int = 19;

/// Runs `work` on a thread of its own at the lowest scheduling priority (on Linux, where
/// each thread has its own), and with it the threads `work` starts (they inherit it):
/// work nobody waits for, such as the in-memory index's load, then takes only the cores
/// the requests answered meanwhile leave idle, between the load's pauses too (a sort or
/// a column build is one step).
/// The calling thread keeps its priority. A panic in `work` reaches the caller.
pub(crate) fn in_the_background<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                lower_this_thread();
                work()
            })
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Gives the calling thread the lowest priority (on Linux the nice value belongs to
/// each thread, and `who = 0` names the calling one). Failing leaves the priority as
/// it was: the work is the same, only its share of the cores differs.
fn lower_this_thread() {
    // elsewhere (macOS among them) the nice value is the whole process's: left alone
    #[cfg(target_os = "linux")]
    // SAFETY: setpriority takes plain integers and touches no memory of ours.
    unsafe {
        libc::setpriority(libc::PRIO_PROCESS, 0, BACKGROUND_NICE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_every_index_once_in_order() {
        for n in [
            0,
            1,
            5,
            PARALLEL_FROM - 1,
            PARALLEL_FROM,
            PARALLEL_FROM * 3 + 7,
        ] {
            let seen = in_pieces(n, |range| range.collect());
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
            let seen = in_parts(n, |range| range.collect());
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }

    /// The calling thread's nice value.
    #[cfg(target_os = "linux")]
    fn nice() -> libc::c_int {
        // SAFETY: getpriority takes plain integers.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, 0) }
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn background_work_and_the_threads_it_starts_run_at_the_lowest_priority() {
        let caller = nice();
        let (own, started) = in_the_background(|| {
            let started = std::thread::scope(|s| s.spawn(nice).join().expect("helper"));
            (nice(), started)
        });
        assert_eq!((own, started), (BACKGROUND_NICE, BACKGROUND_NICE));
        assert_eq!(nice(), caller, "the caller keeps its priority");
        let answer = std::panic::catch_unwind(|| in_the_background(|| panic!("in the load")));
        assert!(
            answer.is_err(),
            "a panic in background work reaches the caller"
        );
    }
}
