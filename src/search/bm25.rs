//! The BM25 engine: Okapi BM25 with N, df and avgdl taken over the filtered set
//! (SPEC §3.2).

use crate::search::corpus::Corpus;
use crate::search::engine::Match;

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
/// inverted index when it is built, else scans each memory's stored terms; both give
/// the very same scores (same formula, terms summed in query order).
pub(crate) fn search(c: &Corpus, set: &[u32], member: &[bool], terms: &[String]) -> Vec<Match> {
    if set.is_empty() || terms.is_empty() {
        return Vec::new();
    }
    let n = set.len() as f64;
    let total: u64 = set.iter().map(|&s| u64::from(c.lengths[s as usize])).sum();
    let avgdl = total as f64 / n;
    // (slot, tf of each query term) for every member containing at least one term
    let found: Vec<(u32, Vec<u32>)> = match c.postings.get() {
        Some(p) => from_postings(p, member, terms),
        None => from_terms(c, set, terms),
    };
    let mut df = vec![0usize; terms.len()];
    for (_, tfs) in &found {
        for (d, &tf) in df.iter_mut().zip(tfs) {
            *d += usize::from(tf > 0);
        }
    }
    let idfs: Vec<f64> = df.iter().map(|&d| idf(n, d as f64)).collect();
    found
        .into_iter()
        .filter_map(|(slot, tfs)| {
            let dl = f64::from(c.lengths[slot as usize]);
            let mut score = 0.0;
            for (&tf, &w) in tfs.iter().zip(&idfs) {
                if tf > 0 {
                    score += term_score(w, f64::from(tf), dl, avgdl);
                }
            }
            (score > 0.0).then_some(Match { slot, score })
        })
        .collect()
}

fn from_postings(
    p: &crate::search::corpus::Postings,
    member: &[bool],
    terms: &[String],
) -> Vec<(u32, Vec<u32>)> {
    let mut found: Vec<(u32, Vec<u32>)> = Vec::new();
    let mut at: Vec<u32> = vec![u32::MAX; member.len()];
    for (k, term) in terms.iter().enumerate() {
        let Some((slots, tfs)) = p.get(term) else {
            continue;
        };
        for (&slot, &tf) in slots.iter().zip(tfs) {
            if !member[slot as usize] {
                continue;
            }
            let i = &mut at[slot as usize];
            if *i == u32::MAX {
                *i = found.len() as u32;
                found.push((slot, vec![0; terms.len()]));
            }
            found[*i as usize].1[k] = tf;
        }
    }
    found.sort_unstable_by_key(|(slot, _)| *slot);
    found
}

fn from_terms(c: &Corpus, set: &[u32], terms: &[String]) -> Vec<(u32, Vec<u32>)> {
    let wanted: Vec<&[u8]> = terms.iter().map(|t| t.as_bytes()).collect();
    crate::search::engine::scan(set, |slot| {
        let mut tfs: Option<Vec<u32>> = None;
        for (term, tf) in c.terms_of(slot as usize) {
            if let Some(k) = wanted.iter().position(|w| *w == term) {
                tfs.get_or_insert_with(|| vec![0; wanted.len()])[k] = tf;
            }
        }
        tfs.map(|tfs| (slot, tfs))
    })
}
