//! The postings of the documents added in one write transaction, four bytes each
//! until the commit writes them.
//!
//! An import adds tens of millions of postings, each held until the commit, in fresh
//! memory (which the kernel zeroes before handing it over). A document's postings come
//! together, so its number is kept once for all of them, and each posting is one `u32`:
//! the term's number and the frequency, in the bits below it. A posting that does not
//! fit (a frequency of [`MAX_TF`] or more, a term number above [`MAX_TERM`]) is
//! refused, and the caller records it with the other changes. The entries are kept in
//! chunks of a fixed size rather than one vector: growing a vector of hundreds of
//! megabytes copies it into fresh memory each time it doubles.

/// Bits of an entry that hold the frequency.
pub(crate) const TF_BITS: u32 = 6;
/// Frequencies below this fit in an entry.
pub(crate) const MAX_TF: u32 = (1 << TF_BITS) - 1;
/// The largest term number that fits in an entry.
pub(crate) const MAX_TERM: u32 = u32::MAX >> TF_BITS;
/// Entries a chunk holds (4 MiB).
const CHUNK: usize = 1 << 20;

/// Postings of added documents, document by document.
#[derive(Debug, Default)]
pub(crate) struct AddedPostings {
    /// Each posting as `term << TF_BITS | frequency`, [`CHUNK`] a chunk (all full
    /// but the last).
    entries: Vec<Vec<u32>>,
    /// Entries held.
    len: usize,
    /// (document, where its postings end among the entries), in the order they came.
    docs: Vec<(u32, u32)>,
}

impl AddedPostings {
    /// Postings held.
    /// The largest document holding a posting, if any.
    pub(crate) fn max_doc(&self) -> Option<u32> {
        self.docs.iter().map(|&(doc, _)| doc).max()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// True when no posting is held.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Records that `doc` holds term number `term` `tf` times (a document's postings
    /// are pushed one after another). Returns false, recording nothing, when the
    /// posting does not fit.
    pub(crate) fn push(&mut self, doc: u32, term: u32, tf: u32) -> bool {
        let Ok(end) = u32::try_from(self.len + 1) else {
            return false;
        };
        if tf >= MAX_TF || term > MAX_TERM {
            return false;
        }
        match self.entries.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(term << TF_BITS | tf),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(term << TF_BITS | tf);
                self.entries.push(chunk);
            }
        }
        self.len += 1;
        match self.docs.last_mut() {
            Some((last, at)) if *last == doc => *at = end,
            _ => self.docs.push((doc, end)),
        }
        true
    }

    /// The term number of every posting, in the order they came.
    pub(crate) fn terms(&self) -> impl Iterator<Item = u32> + '_ {
        self.entries.iter().flatten().map(|e| e >> TF_BITS)
    }

    /// Calls `f(term, doc, tf)` for every posting, in the order they came.
    pub(crate) fn each(&self, mut f: impl FnMut(u32, u32, u32)) {
        let mut docs = self.docs.iter();
        let (mut doc, mut end) = (0, 0);
        for (at, &e) in self.entries.iter().flatten().enumerate() {
            // every entry lies in a document's run
            while at as u32 >= end {
                (doc, end) = docs.next().copied().unwrap_or((doc, u32::MAX));
            }
            f(e >> TF_BITS, doc, e & MAX_TF);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn postings_across_chunks_keep_their_documents() {
        let mut added = AddedPostings::default();
        let mut want = Vec::new();
        for i in 0..(2 * CHUNK + 7) as u32 {
            let (doc, term, tf) = (i / 3, i % 1000, 1 + i % 5);
            assert!(added.push(doc, term, tf));
            want.push((term, doc, tf));
        }
        let mut got = Vec::with_capacity(want.len());
        added.each(|term, doc, tf| got.push((term, doc, tf)));
        assert!(got == want, "postings differ");
        assert_eq!(added.len(), want.len());
        assert_eq!(added.entries.len(), 3);
    }

    proptest! {
        /// What fits comes back in order, with its document; what does not is refused.
        #[test]
        fn postings_come_back_in_order_or_are_refused(
            postings in proptest::collection::vec(
                (0u32..5, prop_oneof![0u32..1000, Just(MAX_TERM), Just(MAX_TERM + 1)],
                 prop_oneof![1u32..MAX_TF, Just(MAX_TF), Just(u32::MAX)]),
                0..300,
            ),
        ) {
            let mut added = AddedPostings::default();
            let mut want = Vec::new();
            for (doc, term, tf) in postings {
                let fits = tf < MAX_TF && term <= MAX_TERM;
                prop_assert_eq!(added.push(doc, term, tf), fits);
                if fits {
                    want.push((term, doc, tf));
                }
            }
            let mut got = Vec::new();
            added.each(|term, doc, tf| got.push((term, doc, tf)));
            prop_assert_eq!(&got, &want);
            prop_assert_eq!(added.len(), want.len());
            prop_assert_eq!(added.terms().collect::<Vec<_>>(), want.iter().map(|p| p.0).collect::<Vec<_>>());
        }
    }
}
