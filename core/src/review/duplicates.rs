//! Near-duplicate memories: exact and normalized text first, then shingle similarity
//! found by MinHash LSH (see [`super::shingles`]), each candidate checked by its exact
//! Jaccard index, so the list has no false positives above the threshold, only
//! possibly misses below the band's chance.
//!
//! [`DuplicateIndex`] holds about 100 bytes per memory (a hash of the normalized text
//! and one 32-bit key per band); the texts are read again only for the candidates.

use super::shingles::{Banding, Sketch, hash_bytes, jaccard, normalized, shingles};
use std::collections::HashMap;

/// The least Jaccard index of shingles for a pair to be listed.
pub const DEFAULT_THRESHOLD: f64 = 0.4;

/// A bucket larger than this is linked as a star around its first member rather than
/// every pair in it (a thousand copies of one text are one group, not half a million
/// pairs).
const MAX_BUCKET: usize = 64;

/// How two memories duplicate each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DuplicateKind {
    /// The same text, byte for byte.
    Exact,
    /// The same words, differing only in case, punctuation or spacing.
    Normalized,
    /// Shingle similarity at or above the threshold.
    Similar,
}

impl DuplicateKind {
    /// The lowercase name used in output.
    pub fn as_str(self) -> &'static str {
        match self {
            DuplicateKind::Exact => "exact",
            DuplicateKind::Normalized => "normalized",
            DuplicateKind::Similar => "similar",
        }
    }
}

/// One pair of near-duplicates, by the keys they were added under (`a < b`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyPair {
    /// One memory.
    pub a: u32,
    /// The other.
    pub b: u32,
    /// The Jaccard index of their shingles (1 for exact and normalized duplicates).
    pub similarity: f64,
    /// How they duplicate each other.
    pub kind: DuplicateKind,
}

/// The compact per-memory summary LSH works on, added one text at a time.
#[derive(Debug, Clone)]
pub struct DuplicateIndex {
    banding: Banding,
    keys: Vec<u32>,
    normalized: Vec<u64>,
    /// `banding.bands` keys per entry; entries without shingles have none and are
    /// marked in `has_bands`.
    bands: Vec<u32>,
    has_bands: Vec<bool>,
    /// False for an entry taken out by [`DuplicateIndex::set`] (its memory changed to
    /// one without words, or went away).
    present: Vec<bool>,
    /// Where each key's entry is, built on the first [`DuplicateIndex::set`].
    positions: HashMap<u32, usize>,
}

/// What an added text amounts to, computed apart (on any thread) and then pushed.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    normalized: u64,
    bands: Vec<u32>,
}

impl Summary {
    /// The summary of one text under `banding`.
    pub fn of(text: &str, banding: Banding) -> Summary {
        Summary::of_sketch(&Sketch::of(text), banding)
    }

    /// The summary of a text's sketch under `banding`.
    pub fn of_sketch(sketch: &Sketch, banding: Banding) -> Summary {
        Summary {
            normalized: sketch.normalized,
            bands: banding.band_keys(&sketch.shingles),
        }
    }

    /// The summary of a set of hashes that is not a text's shingles (a memory's
    /// subject words, say): two equal sets share the "normalized" bucket.
    pub fn of_set(set: &[u64], banding: Banding) -> Summary {
        let mut bytes = Vec::with_capacity(set.len() * 8);
        set.iter().for_each(|h| bytes.extend(h.to_le_bytes()));
        Summary {
            normalized: hash_bytes(&bytes),
            bands: banding.band_keys(set),
        }
    }
}

impl DuplicateIndex {
    /// An empty index.
    pub fn new(banding: Banding) -> DuplicateIndex {
        DuplicateIndex {
            banding,
            keys: Vec::new(),
            normalized: Vec::new(),
            bands: Vec::new(),
            has_bands: Vec::new(),
            present: Vec::new(),
            positions: HashMap::new(),
        }
    }

    /// Its banding.
    pub fn banding(&self) -> Banding {
        self.banding
    }

    /// Adds a text under `key`.
    pub fn add(&mut self, key: u32, text: &str) {
        self.push(key, Summary::of(text, self.banding));
    }

    /// Adds a summary computed with this index's banding.
    pub fn push(&mut self, key: u32, summary: Summary) {
        if !self.positions.is_empty() {
            self.positions.insert(key, self.keys.len());
        }
        self.keys.push(key);
        self.normalized.push(summary.normalized);
        self.present.push(true);
        let has = summary.bands.len() == self.banding.bands;
        self.has_bands.push(has);
        if has {
            self.bands.extend(summary.bands);
        } else {
            self.bands
                .extend(std::iter::repeat_n(0, self.banding.bands));
        }
    }

    /// Puts `summary` under `key` in place of what the key held (`None`: the key holds
    /// nothing any more): a memory that changed.
    pub fn set(&mut self, key: u32, summary: Option<Summary>) {
        if self.positions.is_empty() {
            self.positions = self.keys.iter().enumerate().map(|(i, k)| (*k, i)).collect();
        }
        let Some(&at) = self.positions.get(&key) else {
            if let Some(summary) = summary {
                self.push(key, summary);
            }
            return;
        };
        let Some(summary) = summary else {
            self.present[at] = false;
            self.has_bands[at] = false;
            return;
        };
        self.present[at] = true;
        self.normalized[at] = summary.normalized;
        let width = self.banding.bands;
        let has = summary.bands.len() == width;
        self.has_bands[at] = has;
        let slot = &mut self.bands[at * width..(at + 1) * width];
        if has {
            slot.copy_from_slice(&summary.bands);
        } else {
            slot.fill(0);
        }
    }

    /// Entries added.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when nothing was added.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Candidate pairs `(a, b)` with `a < b`, each once: the same normalized text, or
    /// a shared band.
    pub fn candidates(&self) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        let mut bucket: Vec<(u64, u32)> = (0..self.len())
            .filter(|i| self.present[*i])
            .map(|i| (self.normalized[i], self.keys[i]))
            .collect();
        link_runs(&mut bucket, &mut pairs);
        let mut unique = pairs.len();
        let bands = self.banding.bands;
        for band in 0..bands {
            bucket.clear();
            bucket.extend(
                (0..self.len())
                    .filter(|i| self.has_bands[*i])
                    .map(|i| (u64::from(self.bands[i * bands + band]), self.keys[i])),
            );
            link_runs(&mut bucket, &mut pairs);
            // most pairs share several bands: the list is made unique whenever it has
            // doubled, so it never holds each pair once per band
            if pairs.len() > 2 * unique {
                pairs.sort_unstable();
                pairs.dedup();
                unique = pairs.len();
            }
        }
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// The candidate pairs of [`DuplicateIndex::candidates`] that hold one of `keys`
    /// (sorted), found without listing the others: one pass over the summaries
    /// gathers the members of every bucket a key is in, and those buckets are linked
    /// as the whole list links them. The one difference: in a bucket of more than
    /// [`MAX_BUCKET`] the whole list links its lowest key to every other; when a key
    /// given was that lowest one and went away, the bucket's new lowest key is not
    /// linked to the others here (they are still found through their other buckets).
    pub fn candidates_with(&self, keys: &[u32]) -> Vec<(u32, u32)> {
        let wanted: Vec<usize> = keys
            .iter()
            .filter_map(|k| self.position(*k))
            .filter(|&i| self.present[i])
            .collect();
        if wanted.is_empty() {
            return Vec::new();
        }
        let width = self.banding.bands;
        let mut normals: Vec<u64> = wanted.iter().map(|&i| self.normalized[i]).collect();
        normals.sort_unstable();
        normals.dedup();
        // per band, the bucket values of the keys given
        let mut values: Vec<Vec<u32>> = vec![Vec::new(); width];
        for &i in &wanted {
            if self.has_bands[i] {
                for (band, v) in values.iter_mut().enumerate() {
                    v.push(self.bands[i * width + band]);
                }
            }
        }
        for v in &mut values {
            v.sort_unstable();
            v.dedup();
        }
        // (0, value, key) for the normalized buckets, (band + 1, value, key) for bands
        let members: Vec<(usize, u64, u32)> = crate::parallel::in_parts(self.len(), |range| {
            let mut out = Vec::new();
            for i in range {
                if !self.present[i] {
                    continue;
                }
                if normals.binary_search(&self.normalized[i]).is_ok() {
                    out.push((0, self.normalized[i], self.keys[i]));
                }
                if self.has_bands[i] {
                    let row = &self.bands[i * width..(i + 1) * width];
                    for (band, v) in row.iter().enumerate() {
                        if values[band].binary_search(v).is_ok() {
                            out.push((band + 1, u64::from(*v), self.keys[i]));
                        }
                    }
                }
            }
            out
        });
        let mut grouped = members;
        grouped.sort_unstable();
        let mut pairs = Vec::new();
        let mut bucket: Vec<(u64, u32)> = Vec::new();
        for run in grouped.chunk_by(|x, y| x.0 == y.0) {
            bucket.clear();
            bucket.extend(run.iter().map(|&(_, v, k)| (v, k)));
            link_runs(&mut bucket, &mut pairs);
        }
        pairs.retain(|(a, b)| keys.binary_search(a).is_ok() || keys.binary_search(b).is_ok());
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    fn position(&self, key: u32) -> Option<usize> {
        if self.positions.is_empty() {
            self.keys.iter().position(|k| *k == key)
        } else {
            self.positions.get(&key).copied()
        }
    }
}

/// Sorts `(bucket, key)` entries and links the keys that share a bucket.
pub(super) fn link_runs(entries: &mut [(u64, u32)], pairs: &mut Vec<(u32, u32)>) {
    entries.sort_unstable();
    for run in entries.chunk_by(|x, y| x.0 == y.0) {
        if run.len() < 2 {
            continue;
        }
        if run.len() > MAX_BUCKET {
            let first = run[0].1;
            pairs.extend(run[1..].iter().map(|e| ordered(first, e.1)));
            continue;
        }
        for (i, x) in run.iter().enumerate() {
            pairs.extend(run[i + 1..].iter().map(|y| ordered(x.1, y.1)));
        }
    }
}

fn ordered(a: u32, b: u32) -> (u32, u32) {
    if a < b { (a, b) } else { (b, a) }
}

/// Checks candidate pairs against their texts: exact (the same bytes, compared by a
/// 64-bit hash), normalized, or Jaccard of shingles at least `threshold`. `text_of`
/// gives a key's text (`None`: gone, the pair is dropped); each text is read once, in
/// the order of the keys, and the texts are sketched on every core.
pub fn verify(
    candidates: &[(u32, u32)],
    threshold: f64,
    mut text_of: impl FnMut(u32) -> Option<String>,
) -> Vec<KeyPair> {
    let mut keys: Vec<u32> = candidates.iter().map(|&(a, _)| a).collect();
    keys.dedup(); // the candidates are sorted: each `a` comes in one run
    keys.extend(candidates.iter().map(|&(_, b)| b));
    keys.sort_unstable();
    keys.dedup();
    let mut seen: HashMap<u32, Sketch> = HashMap::with_capacity(keys.len());
    for chunk in keys.chunks(crate::parallel::PARALLEL_FROM) {
        let texts: Vec<(u32, String)> = chunk
            .iter()
            .filter_map(|&k| text_of(k).map(|t| (k, t)))
            .collect();
        let sketches = crate::parallel::in_parts(texts.len(), |range| {
            texts[range]
                .iter()
                .map(|(k, t)| (*k, Sketch::of(t)))
                .collect()
        });
        seen.extend(sketches);
    }
    let mut out = Vec::new();
    for &(a, b) in candidates {
        let (Some(x), Some(y)) = (seen.get(&a), seen.get(&b)) else {
            continue;
        };
        let (kind, similarity) = if x.text == y.text {
            (DuplicateKind::Exact, 1.0)
        } else if x.normalized == y.normalized {
            (DuplicateKind::Normalized, 1.0)
        } else {
            (DuplicateKind::Similar, jaccard(&x.shingles, &y.shingles))
        };
        if kind != DuplicateKind::Similar || similarity >= threshold {
            out.push(KeyPair {
                a,
                b,
                similarity,
                kind,
            });
        }
    }
    out
}

/// The reference: the exact Jaccard index of every pair of texts that share a
/// shingle (every other pair has index 0), through an inverted index of shingles, and
/// exact and normalized duplicates by their whole text; for tests and the benchmark.
pub fn all_pairs(texts: &[String], threshold: f64) -> Vec<KeyPair> {
    let sets: Vec<Vec<u64>> = texts.iter().map(|t| shingles(t)).collect();
    let mut postings: HashMap<u64, Vec<u32>> = HashMap::new();
    for (doc, set) in sets.iter().enumerate() {
        for s in set {
            postings.entry(*s).or_default().push(doc as u32);
        }
    }
    let mut shared: HashMap<(u32, u32), u32> = HashMap::new();
    for docs in postings.values() {
        for (i, a) in docs.iter().enumerate() {
            for b in &docs[i + 1..] {
                *shared.entry((*a, *b)).or_default() += 1;
            }
        }
    }
    let mut by_text: HashMap<String, Vec<u32>> = HashMap::new();
    for (doc, t) in texts.iter().enumerate() {
        let n = normalized(t);
        if !n.is_empty() {
            by_text.entry(n).or_default().push(doc as u32);
        }
    }
    let mut out = Vec::new();
    for group in by_text.values() {
        for (i, a) in group.iter().enumerate() {
            for b in &group[i + 1..] {
                let same = texts[*a as usize] == texts[*b as usize];
                out.push(KeyPair {
                    a: *a,
                    b: *b,
                    similarity: 1.0,
                    kind: if same {
                        DuplicateKind::Exact
                    } else {
                        DuplicateKind::Normalized
                    },
                });
                shared.remove(&(*a, *b));
            }
        }
    }
    for ((a, b), both) in shared {
        let (x, y) = (sets[a as usize].len(), sets[b as usize].len());
        let similarity = f64::from(both) / (x + y - both as usize) as f64;
        if similarity >= threshold {
            out.push(KeyPair {
                a,
                b,
                similarity,
                kind: DuplicateKind::Similar,
            });
        }
    }
    out.sort_by_key(|p| (p.a, p.b));
    out
}
