//! The BM25 engine: Okapi BM25 with N, df and avgdl taken over the filtered set
//! (SPEC §3.2).

use crate::index::postings::{self, POSTINGS};
use crate::search::corpus::Corpus;
use crate::search::engine::Match;
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
/// corpus holds no terms, else scans each memory's stored terms; all give the very
/// same scores (same formula, terms summed in query order).
pub(crate) fn search(
    c: &Corpus,
    set: &[u32],
    member: &[bool],
    terms: &[String],
    snapshot: Option<&StoreReader>,
) -> Vec<Match> {
    if set.is_empty() || terms.is_empty() {
        return Vec::new();
    }
    let n = set.len() as f64;
    let total: u64 = set.iter().map(|&s| u64::from(c.lengths[s as usize])).sum();
    let avgdl = total as f64 / n;
    // (slot, tf of each query term) for every member containing at least one term
    let persisted = match snapshot {
        Some(reader) if !c.holds_terms => from_persisted(reader, c, member, terms),
        _ => None,
    };
    let found: Vec<(u32, Vec<u32>)> = match (persisted, c.postings.get(), snapshot) {
        (Some(found), _, _) => found,
        (None, _, Some(reader)) if !c.holds_terms => from_records(reader, c, set, terms),
        (None, Some(p), _) => from_postings(p, member, terms),
        (None, None, _) => from_terms(c, set, terms),
    };
    rank(found, n, avgdl, |slot| f64::from(c.lengths[slot as usize]))
        .into_iter()
        .map(|(slot, score)| Match { slot, score })
        .collect()
}

/// The BM25 score of each document of `found` (an id, and the frequency of each query
/// term in it), given N and avgdl of the filtered set and each document's length;
/// df is counted from `found`. Only scores above zero, in the order of `found`.
pub(crate) fn rank(
    found: Vec<(u32, Vec<u32>)>,
    n: f64,
    avgdl: f64,
    length: impl Fn(u32) -> f64,
) -> Vec<(u32, f64)> {
    let terms = found.first().map_or(0, |(_, tfs)| tfs.len());
    let mut df = vec![0usize; terms];
    for (_, tfs) in &found {
        for (d, &tf) in df.iter_mut().zip(tfs) {
            *d += usize::from(tf > 0);
        }
    }
    let idfs: Vec<f64> = df.iter().map(|&d| idf(n, d as f64)).collect();
    found
        .into_iter()
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
    let table = reader.txn().open_table(POSTINGS).ok()?;
    terms
        .iter()
        .map(|term| postings::read_term(&table, term).ok().flatten())
        .collect()
}

/// For every position `keep` gives a document of the query terms' postings `lists`
/// (one per query term, in query order), the frequency of each query term, in
/// ascending positions (`positions` bounds them).
pub(crate) fn gather<L: IntoIterator<Item = (u32, u32)>>(
    lists: impl ExactSizeIterator<Item = L>,
    positions: usize,
    keep: impl Fn(u32) -> Option<u32>,
) -> Vec<(u32, Vec<u32>)> {
    let terms = lists.len();
    let mut found: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut at: Vec<u32> = vec![u32::MAX; positions];
    for (k, list) in lists.enumerate() {
        for (doc, tf) in list {
            let Some(pos) = keep(doc) else {
                continue;
            };
            let Some(i) = at.get_mut(pos as usize) else {
                continue;
            };
            if *i == u32::MAX {
                *i = found.len() as u32;
                found.push((pos, vec![0; terms]));
            }
            found[*i as usize].1[k] = tf;
        }
    }
    found.sort_unstable_by_key(|(pos, _)| *pos);
    found
}

fn from_persisted(
    reader: &StoreReader,
    c: &Corpus,
    member: &[bool],
    terms: &[String],
) -> Option<Vec<(u32, Vec<u32>)>> {
    let lists = read_persisted(reader, terms)?;
    Some(gather(lists.into_iter(), c.len(), |doc| {
        let slot = c.docs.binary_search(&doc).ok()?;
        member[slot].then_some(slot as u32)
    }))
}

fn from_postings(
    p: &crate::search::corpus::Postings,
    member: &[bool],
    terms: &[String],
) -> Vec<(u32, Vec<u32>)> {
    let lists = terms.iter().map(|term| {
        let (slots, tfs) = p.get(term).unwrap_or((&[], &[]));
        slots.iter().copied().zip(tfs.iter().copied())
    });
    gather(lists, member.len(), |slot| {
        member[slot as usize].then_some(slot)
    })
}

fn from_terms(c: &Corpus, set: &[u32], terms: &[String]) -> Vec<(u32, Vec<u32>)> {
    crate::search::engine::scan(set, |slot| {
        frequencies(c.terms_of(slot as usize), terms).map(|tfs| (slot, tfs))
    })
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
/// each member's terms from its stored search record (a record that cannot be read
/// counts as holding no query term).
fn from_records(
    reader: &StoreReader,
    c: &Corpus,
    set: &[u32],
    terms: &[String],
) -> Vec<(u32, Vec<u32>)> {
    let Ok(records) = reader.txn().open_table(crate::index::SEARCH_DOCS) else {
        return Vec::new();
    };
    set.iter()
        .filter_map(|&slot| {
            let record = records.get(c.docs[slot as usize]).ok()??;
            let view = crate::index::RecordView::parse(record.value())?;
            frequencies(view.terms(), terms).map(|tfs| (slot, tfs))
        })
        .collect()
}
