//! Writing the postings a write transaction gathered, at its commit: grouped by term
//! (a counting sort), then each term's changes written in key order.
//!
//! A large first import, whose blocks all go at the end of an empty table, splits its
//! terms in two runs of key order holding about as many postings each. Each run is
//! grouped and encoded on a thread of its own, so both cores share the work; the blocks
//! of the second run wait encoded until those of the first are appended.

use super::added_postings::{AddedPostings, MAX_TF, TF_BITS};
use super::postings::{self, Appender, EncodedBlocks, POSTINGS, Posting};
use super::term_names::TermNames;
use super::tokenize::sort_prefix;
use super::vocabulary::{self, VOCABULARY};
use crate::commit::{both, last_per_key};
use redb::{ReadableTableMetadata, WriteTransaction};

/// Postings from which a first import groups and encodes them on two threads.
const TWO_RUNS: usize = 100_000;

/// Writes the postings of `added` and the changes of `log` (terms numbered by
/// `names`).
pub(super) fn write_postings(
    txn: &WriteTransaction,
    added: &AddedPostings,
    log: &[(u32, u32, u32)],
    names: &TermNames,
) -> Result<(), redb::Error> {
    let packs = added.max_doc().is_none_or(|doc| doc <= MAX_PACKED_DOC)
        && log
            .iter()
            .all(|&(_, doc, tf)| doc <= MAX_PACKED_DOC && tf <= MAX_TF);
    if packs {
        write_grouped_as::<u32>(txn, added, log, names)
    } else {
        write_grouped_as::<Posting>(txn, added, log, names)
    }
}

/// The largest document a change packed in one word can hold.
const MAX_PACKED_DOC: u32 = u32::MAX >> TF_BITS;

/// One change as the grouping holds it: a document and its term's new frequency.
trait Slot: Copy + Default {
    fn pack(doc: u32, tf: u32) -> Self;
    fn posting(self) -> Posting;
}

/// Both in one word (a document up to [`MAX_PACKED_DOC`], a frequency up to
/// [`MAX_TF`]): half the fresh memory of a first import's grouping.
impl Slot for u32 {
    fn pack(doc: u32, tf: u32) -> u32 {
        doc << TF_BITS | tf
    }
    fn posting(self) -> Posting {
        (self >> TF_BITS, self & MAX_TF)
    }
}

/// Any document and frequency.
impl Slot for Posting {
    fn pack(doc: u32, tf: u32) -> Posting {
        (doc, tf)
    }
    fn posting(self) -> Posting {
        self
    }
}

/// [`write_postings`], its changes grouped as `S`.
fn write_grouped_as<S: Slot + Send + Sync>(
    txn: &WriteTransaction,
    added: &AddedPostings,
    log: &[(u32, u32, u32)],
    names: &TermNames,
) -> Result<(), redb::Error> {
    // terms in key order, so blocks are written front to back
    let order = key_order(names);
    let sorted: Vec<&str> = order.iter().map(|&t| &names[t as usize]).collect();
    vocabulary::add(&mut txn.open_table(VOCABULARY)?, &sorted)?;
    drop(sorted);
    let counts = counts(added, log, names.len());
    let mut table = txn.open_table(POSTINGS)?;
    if !table.is_empty()? {
        let grouped = Grouped::<S>::of(added, log, &counts, |_| true);
        let mut scratch = Vec::new();
        for &t in &order {
            grouped.edits_of(t, &mut scratch);
            postings::apply(&mut table, &names[t as usize], &scratch)?;
        }
        return Ok(());
    }
    // a first import has no blocks to look up: all go at the end
    let (first, second) = split(&order, &counts, added.len() + log.len() >= TWO_RUNS);
    let mut in_second = vec![false; names.len()];
    for &t in second {
        in_second[t as usize] = true;
    }
    let mut appender = Appender::new(&mut table)?;
    let (encoded, appended) = both(
        !second.is_empty(),
        || {
            let mut blocks = EncodedBlocks::default();
            if second.is_empty() {
                return blocks;
            }
            let grouped = Grouped::<S>::of(added, log, &counts, |t| in_second[t as usize]);
            let mut scratch = Vec::new();
            for &t in second {
                grouped.edits_of(t, &mut scratch);
                blocks.add(&names[t as usize], &scratch);
            }
            blocks
        },
        || {
            let grouped = Grouped::<S>::of(added, log, &counts, |t| !in_second[t as usize]);
            let mut scratch = Vec::new();
            for &t in first {
                grouped.edits_of(t, &mut scratch);
                appender.add(&names[t as usize], &scratch)?;
            }
            Ok::<(), redb::Error>(())
        },
    );
    appended?;
    appender.add_encoded(&encoded)?;
    appender.close()?;
    Ok(())
}

/// How many changes each of the `terms` has, in `added` and `log` together.
fn counts(added: &AddedPostings, log: &[(u32, u32, u32)], terms: usize) -> Vec<u32> {
    let mut counts = vec![0u32; terms];
    for t in added.terms().chain(log.iter().map(|&(t, _, _)| t)) {
        counts[t as usize] += 1;
    }
    counts
}

/// `order` cut in two runs with about as many changes each, when `in_two`; else all
/// of it and nothing.
fn split<'o>(order: &'o [u32], counts: &[u32], in_two: bool) -> (&'o [u32], &'o [u32]) {
    if !in_two {
        return (order, &[]);
    }
    let total: u64 = counts.iter().map(|&c| u64::from(c)).sum();
    let mut seen = 0u64;
    let cut = order
        .iter()
        .position(|&t| {
            seen += u64::from(counts[t as usize]);
            2 * seen >= total
        })
        .map_or(order.len(), |at| at + 1);
    order.split_at(cut)
}

/// The changes of some terms grouped by term by a counting sort: the postings of
/// `added`, then the changes of `log` (stable: each term's changes stay in the order
/// they happened, and a document's changes in `log` all come after its postings in
/// `added`).
struct Grouped<S> {
    /// Where each term's changes start in `edits` (by term number; the last followed
    /// by the end).
    starts: Vec<usize>,
    edits: Vec<S>,
}

impl<S: Slot> Grouped<S> {
    /// The changes of the terms `keep` selects (`counts` says how many each has).
    fn of(
        added: &AddedPostings,
        log: &[(u32, u32, u32)],
        counts: &[u32],
        keep: impl Fn(u32) -> bool,
    ) -> Grouped<S> {
        let mut starts = vec![0usize; counts.len() + 1];
        for (t, &count) in counts.iter().enumerate() {
            let kept = if keep(t as u32) { count as usize } else { 0 };
            starts[t + 1] = starts[t] + kept;
        }
        let mut fill = starts.clone();
        let mut edits: Vec<S> = vec![S::default(); starts[counts.len()]];
        let mut place = |t: u32, doc: u32, tf: u32| {
            if keep(t) {
                let at = &mut fill[t as usize];
                edits[*at] = S::pack(doc, tf);
                *at += 1;
            }
        };
        added.each(&mut place);
        for &(t, doc, tf) in log {
            place(t, doc, tf);
        }
        Grouped { starts, edits }
    }

    /// Term `t`'s changes into `out` (emptied first), the last one of each document
    /// kept, in document order.
    fn edits_of(&self, t: u32, out: &mut Vec<Posting>) {
        let t = t as usize;
        out.clear();
        out.extend(
            self.edits[self.starts[t]..self.starts[t + 1]]
                .iter()
                .map(|&e| e.posting()),
        );
        last_per_key(out);
    }
}

/// The term numbers ordered by their names: by [`sort_prefix`] first (a radix sort),
/// then by the whole names among those that share it.
fn key_order(names: &TermNames) -> Vec<u32> {
    let mut keyed: Vec<(u64, u32)> = (0..names.len())
        .map(|t| (sort_prefix(names[t].as_bytes()), t as u32))
        .collect();
    radsort::sort_by_key(&mut keyed, |&(head, _)| head);
    let mut start = 0;
    while start < keyed.len() {
        let end = start + keyed[start..].partition_point(|k| k.0 == keyed[start].0);
        if end - start > 1 {
            keyed[start..end]
                .sort_unstable_by(|a, b| names[a.1 as usize].cmp(&names[b.1 as usize]));
        }
        start = end;
    }
    keyed.into_iter().map(|(_, t)| t).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn added_postings_come_before_the_later_changes_of_their_documents() {
        let mut added = AddedPostings::default();
        assert!(added.push(5, 0, 2));
        assert!(added.push(5, 1, 1));
        assert!(added.push(9, 0, 3));
        // doc 5 then loses term 0; doc 3, stored before, gains term 1
        let log = vec![(0, 5, 0), (1, 3, 4)];
        let counts = counts(&added, &log, 3);
        assert_eq!(counts, [3, 2, 0]);
        let all = Grouped::<Posting>::of(&added, &log, &counts, |_| true);
        assert_eq!(all.starts, [0, 3, 5, 5]);
        assert_eq!(all.edits, [(5, 2), (9, 3), (5, 0), (5, 1), (3, 4)]);
        let mut term0 = Vec::new();
        all.edits_of(0, &mut term0);
        assert_eq!(term0, [(5, 0), (9, 3)]);
        let only_1 = Grouped::<Posting>::of(&added, &log, &counts, |t| t == 1);
        assert_eq!(only_1.starts, [0, 0, 2, 2]);
        assert_eq!(only_1.edits, [(5, 1), (3, 4)]);
    }

    #[test]
    fn changes_packed_in_one_word_group_as_in_two() {
        let mut added = AddedPostings::default();
        let last = MAX_PACKED_DOC;
        for (doc, term, tf) in [(0, 2, 1), (7, 0, MAX_TF - 1), (last, 2, 3), (last, 1, 1)] {
            assert!(added.push(doc, term, tf));
        }
        let log = vec![(2, 7, MAX_TF), (0, last, 0)];
        let counts = counts(&added, &log, 3);
        let packed = Grouped::<u32>::of(&added, &log, &counts, |_| true);
        let wide = Grouped::<Posting>::of(&added, &log, &counts, |_| true);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for t in 0..3 {
            packed.edits_of(t, &mut a);
            wide.edits_of(t, &mut b);
            assert_eq!(a, b, "term {t}");
        }
        assert_eq!(a, [(0, 1), (7, MAX_TF), (last, 3)]);
        assert_eq!(
            Slot::posting(<u32 as Slot>::pack(last, MAX_TF)),
            (last, MAX_TF)
        );
    }

    #[test]
    fn two_runs_hold_about_as_many_changes_each() {
        let order = [3, 0, 2, 1];
        let counts = [5, 1, 1, 4];
        assert_eq!(split(&order, &counts, true), (&order[..2], &order[2..]));
        assert_eq!(split(&order, &counts, false), (&order[..], &order[4..]));
        // one term holding most changes ends the first run
        assert_eq!(
            split(&order, &[1, 1, 1, 20], true),
            (&order[..1], &order[1..])
        );
        assert_eq!(split(&[], &[], true), (&[][..], &[][..]));
    }

    #[test]
    fn terms_are_ordered_by_their_whole_names() {
        let words = [
            "abcdefghij",
            "abcdefgh",
            "abcdefghi",
            "ab",
            "b",
            "abc",
            "zz",
            "abcdefghia",
            "é",
            "a_b",
            "42",
            "abcdefgh_z",
            "ΣΑΣ",
            "abcdefgg",
        ];
        let names: TermNames = words.iter().copied().collect();
        let got: Vec<&str> = key_order(&names)
            .into_iter()
            .map(|t| &names[t as usize])
            .collect();
        let mut want = words.to_vec();
        want.sort_unstable();
        assert_eq!(got, want);
    }
}
