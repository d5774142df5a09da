//! Writing what a write transaction gathered, at its commit: each key's last change,
//! and two tables written at once (redb lets the tables of one transaction be written
//! from several threads).

/// Sorts by key, keeping for each key only the change that came last.
pub(crate) fn last_per_key<K: Ord, T>(changes: &mut Vec<(K, T)>) {
    if changes.windows(2).all(|w| w[0].0 < w[1].0) {
        return;
    }
    // a stable sort keeps equal keys in the order they happened
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(K, T)> = Vec::with_capacity(changes.len());
    for c in changes.drain(..) {
        match out.last_mut() {
            Some(last) if last.0 == c.0 => *last = c,
            _ => out.push(c),
        }
    }
    *changes = out;
}

/// Runs `first` and `second`, `first` on a thread of its own when `apart` (work large
/// enough to be worth one); a panic in either reaches the caller.
pub(crate) fn both<A: Send, B>(
    apart: bool,
    first: impl FnOnce() -> A + Send,
    second: impl FnOnce() -> B,
) -> (A, B) {
    if !apart {
        return (first(), second());
    }
    std::thread::scope(|scope| {
        let first = crate::beside::spawn(scope, 0, first);
        let second = second();
        let first = first
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (first, second)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_change_of_each_key_is_kept_in_key_order() {
        let mut changes = vec![(3, 'a'), (1, 'b'), (3, 'c'), (2, 'd'), (1, 'e')];
        last_per_key(&mut changes);
        assert_eq!(changes, vec![(1, 'e'), (2, 'd'), (3, 'c')]);
        let mut sorted = vec![(1, 'x'), (2, 'y')];
        last_per_key(&mut sorted);
        assert_eq!(sorted, vec![(1, 'x'), (2, 'y')]);
    }

    #[test]
    fn both_runs_each_once_together_or_apart() {
        for apart in [false, true] {
            assert_eq!(both(apart, || 1 + 1, || "two"), (2, "two"));
        }
    }
}
