//! The BM25 engine: Okapi BM25 with N, df and avgdl taken over the filtered set
//! (SPEC §3.2).

use crate::index::postings::{self, POSTINGS};
use crate::index::record::section_terms;
use crate::search::corpus::{Corpus, Fixed};
use crate::search::engine::Match;
use crate::search::searcher::Selection;
use crate::store::StoreReader;

/// Term-frequency saturation.
pub const K1: f64 = 1.2;
/// Length normalisation.
pub const B: f64 = 0.75;
/// The notice shown when BM25 finds nothing and literal results are shown instead.
pub const FALLBACK_NOTICE: &str = "no ranked match; showing literal matches";

/// SPEC's idf: ln(1 + (N − df + 0.5)/(df + 0.5)).
pub fn idf(n: f64, df: f64) -> f64 {
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
}

/// One term's contribution to a document's score.
pub fn term_score(idf: f64, tf: f64, dl: f64, avgdl: f64) -> f64 {
    idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * dl / avgdl))
}

/// Scores every memory of `set` (ascending slots; `member` marks the same slots) that
/// contains a query term; only scores above zero are returned, in slot order. Uses the
/// in-memory inverted index when it is built, the persisted one of `snapshot` when the
/// corpus holds no terms, else scans the terms each memory holds; all give the very
/// same scores (same formula, terms summed in query order).
pub(crate) fn search(
    c: &Corpus,
    selection: &Selection,
    terms: &[String],
    snapshot: Option<&StoreReader>,
) -> Vec<Match> {
    let (set, member) = (&selection.set[..], selection.member());
    if set.is_empty() || terms.is_empty() {
        return Vec::new();
    }
    // a corpus of some of the filtered set only carries the whole set's totals
    let (n, avgdl) = match c.bm25_totals {
        Some((n, total)) if n > 0 => (n as f64, total as f64 / n as f64),
        _ => {
            let n = set.len() as f64;
            (n, selection.total_length(c) as f64 / n)
        }
    };
    // (slot, tf of each query term) for every member containing at least one term
    let persisted = match snapshot {
        Some(reader) if !c.holds_terms => from_persisted(reader, c, member, terms),
        _ => None,
    };
    let found: Found = match (persisted, c.postings.get(), snapshot) {
        (Some(found), _, _) => found,
        (None, _, Some(reader)) if !c.holds_terms => from_memories(reader, c, set, terms),
        (None, Some(p), _) => from_postings(p, member, terms),
        (None, None, _) => from_terms(c, set, terms),
    };
    rank(&found, n, avgdl, |slot| f64::from(c.lengths[slot as usize]))
        .into_iter()
        .map(|(slot, score)| Match { slot, score })
        .collect()
}

/// The documents that hold a query term, each with the frequency of every query term.
#[derive(Debug, Default)]
pub(crate) struct Found {
    terms: usize,
    /// The documents, ascending.
    docs: Vec<u32>,
    /// `terms` frequencies per document, in the order of `docs`.
    tfs: Vec<u32>,
}

impl Found {
    /// From each document (ascending) with its `terms` frequencies.
    fn from_each(terms: usize, each: impl IntoIterator<Item = (u32, Vec<u32>)>) -> Found {
        let mut found = Found {
            terms,
            ..Found::default()
        };
        for (doc, tfs) in each {
            found.docs.push(doc);
            found.tfs.extend_from_slice(&tfs);
        }
        found
    }

    /// Each document with its frequencies, ascending.
    fn iter(&self) -> impl Iterator<Item = (u32, &[u32])> {
        self.docs
            .iter()
            .copied()
            .zip(self.tfs.chunks_exact(self.terms.max(1)))
    }
}

/// The BM25 score of each document of `found`, given N and avgdl of the filtered set
/// and each document's length; df is counted from `found`. Only scores above zero, in
/// the order of `found`.
pub(crate) fn rank(
    found: &Found,
    n: f64,
    avgdl: f64,
    length: impl Fn(u32) -> f64,
) -> Vec<(u32, f64)> {
    let mut df = vec![0usize; found.terms];
    for (_, tfs) in found.iter() {
        for (d, &tf) in df.iter_mut().zip(tfs) {
            *d += usize::from(tf > 0);
        }
    }
    let idfs: Vec<f64> = df.iter().map(|&d| idf(n, d as f64)).collect();
    found
        .iter()
        .filter_map(|(doc, tfs)| {
            let dl = length(doc);
            let mut score = 0.0;
            for (&tf, &w) in tfs.iter().zip(&idfs) {
                if tf > 0 {
                    score += term_score(w, f64::from(tf), dl, avgdl);
                }
            }
            (score > 0.0).then_some((doc, score))
        })
        .collect()
}

/// The persisted postings of each query term, in query order; `None` when a postings
/// block is damaged or unreadable.
pub(crate) fn read_persisted(
    reader: &StoreReader,
    terms: &[String],
) -> Option<Vec<Vec<(u32, u32)>>> {
    let table = reader.table(POSTINGS).ok()?;
    terms
        .iter()
        .map(|term| postings::read_term(&table, term).ok().flatten())
        .collect()
}

/// Merges the query terms' postings `lists` (one per query term, in query order, each
/// ascending by document): for every document `keep` maps to a position, the
/// frequency of each query term. `keep` is called with ascending documents and must
/// map them to ascending positions.
pub(crate) fn gather<L: IntoIterator<Item = (u32, u32)>>(
    lists: impl ExactSizeIterator<Item = L>,
    mut keep: impl FnMut(u32) -> Option<u32>,
) -> Found {
    let mut lists: Vec<std::iter::Peekable<L::IntoIter>> =
        lists.map(|l| l.into_iter().peekable()).collect();
    let terms = lists.len();
    let mut found = Found {
        terms,
        ..Found::default()
    };
    let mut tfs = vec![0u32; terms];
    while let Some(doc) = lists.iter_mut().filter_map(|l| l.peek().map(|p| p.0)).min() {
        for (list, tf) in lists.iter_mut().zip(tfs.iter_mut()) {
            *tf = list.next_if(|p| p.0 == doc).map_or(0, |p| p.1);
        }
        if let Some(pos) = keep(doc) {
            found.docs.push(pos);
            found.tfs.extend_from_slice(&tfs);
        }
    }
    found
}

/// Where `doc` sits in the ascending `docs`, searching forward from `*from` (which
/// it then advances): documents asked for in ascending order cost a gallop each.
fn slot_of(docs: &Fixed<u32>, from: &mut usize, doc: u32) -> Option<usize> {
    // a store nothing was purged from numbers its slots like its documents
    if docs.get(doc as usize) == Some(&doc) {
        *from = doc as usize;
        return Some(*from);
    }
    let rest = docs.len().saturating_sub(*from);
    let mut step = 1;
    while step < rest && docs[*from + step - 1] < doc {
        step *= 2;
    }
    // the first slot of the window `from..from + step` not below `doc`
    let (mut lo, mut hi) = (*from, *from + step.min(rest));
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if docs[mid] < doc {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    *from = lo;
    (docs.get(*from) == Some(&doc)).then_some(*from)
}

fn from_persisted(
    reader: &StoreReader,
    c: &Corpus,
    member: &[bool],
    terms: &[String],
) -> Option<Found> {
    let lists = read_persisted(reader, terms)?;
    let mut from = 0;
    Some(gather(lists.into_iter(), |doc| {
        let slot = slot_of(&c.docs, &mut from, doc)?;
        member[slot].then_some(slot as u32)
    }))
}

fn from_postings(p: &crate::search::corpus::Postings, member: &[bool], terms: &[String]) -> Found {
    let lists = terms.iter().map(|term| {
        let (slots, tfs) = p.get(term).unwrap_or((&[], &[]));
        slots.iter().copied().zip(tfs.iter().copied())
    });
    gather(lists, |slot| member[slot as usize].then_some(slot))
}

fn from_terms(c: &Corpus, set: &[u32], terms: &[String]) -> Found {
    let each = crate::search::engine::scan(set, |slot| {
        frequencies(c.terms_of(slot as usize), terms).map(|tfs| (slot, tfs))
    });
    Found::from_each(terms.len(), each)
}

/// The frequency of each query term among a document's terms; `None` when it has none.
fn frequencies<'t>(
    doc_terms: impl Iterator<Item = (&'t [u8], u32)>,
    terms: &[String],
) -> Option<Vec<u32>> {
    let mut tfs: Option<Vec<u32>> = None;
    for (term, tf) in doc_terms {
        if let Some(k) = terms.iter().position(|w| w.as_bytes() == term) {
            tfs.get_or_insert_with(|| vec![0; terms.len()])[k] = tf;
        }
    }
    tfs
}

/// The slow way for a corpus without terms whose persisted postings cannot be read:
/// each member's terms from the stored memory itself (a memory that cannot be read
/// counts as holding no query term).
fn from_memories(reader: &StoreReader, c: &Corpus, set: &[u32], terms: &[String]) -> Found {
    let each = set.iter().filter_map(|&slot| {
        let memory = reader.get_doc(c.docs[slot as usize]).ok()??;
        let entry = crate::index::IndexEntry::of(&memory);
        frequencies(section_terms(entry.term_section()), terms).map(|tfs| (slot, tfs))
    });
    Found::from_each(terms.len(), each)
}
