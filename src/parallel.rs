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
    let threads = threads();
    if threads < 2 || n < PARALLEL_FROM {
        return part(0..n);
    }
    let size = n.div_ceil(threads);
    let part = &part;
    std::thread::scope(|scope| {
        let parts: Vec<_> = (0..n)
            .step_by(size)
            .map(|lo| scope.spawn(move || part(lo..(lo + size).min(n))))
            .collect();
        let mut out = Vec::new();
        for p in parts {
            out.extend(
                p.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            );
        }
        out
    })
}
