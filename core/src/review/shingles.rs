//! Text as sets of word shingles, and their MinHash signatures cut into LSH bands:
//! what near-duplicate detection compares.
//!
//! Words are maximal runs of Unicode alphanumerics, lowercased; a shingle is three
//! words in a row (a text of one or two words is one shingle). Two texts' similarity
//! is the Jaccard index of their shingle sets. A MinHash signature of `bands × rows`
//! values is made by one-permutation hashing (Li, Owen and Zhang 2012): each shingle is
//! hashed once, the hash picks a bin and the bin keeps its least hash; an empty bin
//! takes the value of the next full one to its right, mixed with the distance
//! (rotation densification, Shrivastava and Li 2014). Two texts agree on a bin with a
//! probability close to their Jaccard index, so they share a whole band (all its rows)
//! with probability about `J^rows`, and some band with `1 − (1 − J^rows)^bands` — for
//! one hash per shingle rather than one per shingle and function.

/// Words per shingle.
pub const SHINGLE_WORDS: usize = 3;

/// The text's words, lowercased.
pub fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

/// The text with case, punctuation and spacing taken away: its words joined by single
/// spaces (two texts equal here are "normalized" duplicates).
pub fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for w in words(text) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&w);
    }
    out
}

pub use crate::stable_hash::hash_bytes;
use crate::stable_hash::mix;

/// A text read once for comparison: its shingles, and hashes of its bytes and of its
/// [`normalized`] form.
#[derive(Debug, Clone, PartialEq)]
pub struct Sketch {
    /// `hash_bytes` of the text.
    pub text: u64,
    /// `hash_bytes` of [`normalized`] of the text.
    pub normalized: u64,
    /// True when the text has no word.
    pub wordless: bool,
    /// [`shingles`] of the text.
    pub shingles: Vec<u64>,
}

impl Sketch {
    /// The sketch of `text`, in one pass over it: ASCII words are lowercased and hashed
    /// byte by byte, without a copy; the hashes are those of [`words`], [`normalized`]
    /// and [`shingles`].
    pub fn of(text: &str) -> Sketch {
        const FNV_START: u64 = 0xcbf2_9ce4_8422_2325;
        let fnv = |h: u64, b: u8| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        let mut words = Vec::new();
        let mut joined = FNV_START;
        let mut add = |bytes: &mut dyn Iterator<Item = u8>, words: &mut Vec<u64>| {
            if !words.is_empty() {
                joined = fnv(joined, b' ');
            }
            let mut h = FNV_START;
            for b in bytes {
                h = fnv(h, b);
                joined = fnv(joined, b);
            }
            words.push(mix(h));
        };
        for word in text.split(|c: char| !c.is_alphanumeric()) {
            if word.is_empty() {
                continue;
            }
            if word.is_ascii() {
                add(
                    &mut word.bytes().map(|b| b.to_ascii_lowercase()),
                    &mut words,
                );
            } else {
                add(
                    &mut word.to_lowercase().into_bytes().into_iter(),
                    &mut words,
                );
            }
        }
        Sketch {
            text: hash_bytes(text.as_bytes()),
            normalized: mix(joined),
            wordless: words.is_empty(),
            shingles: shingle_set(&words),
        }
    }
}

/// The text's shingles as a sorted set of 64-bit hashes.
pub fn shingles(text: &str) -> Vec<u64> {
    let hashes: Vec<u64> = words(text).map(|w| hash_bytes(w.as_bytes())).collect();
    shingle_set(&hashes)
}

/// The sorted set of shingles of a text's word hashes.
fn shingle_set(hashes: &[u64]) -> Vec<u64> {
    let mut set: Vec<u64> = if hashes.len() < SHINGLE_WORDS {
        if hashes.is_empty() {
            Vec::new()
        } else {
            vec![combine(hashes)]
        }
    } else {
        hashes.windows(SHINGLE_WORDS).map(combine).collect()
    };
    set.sort_unstable();
    set.dedup();
    set
}

fn combine(words: &[u64]) -> u64 {
    words
        .iter()
        .fold(0x9E37_79B9_7F4A_7C15, |acc, w| mix(acc.rotate_left(23) ^ w))
}

/// The Jaccard index of two sorted sets (0 when both are empty).
pub fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 0.0;
    }
    let (mut i, mut j, mut both) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both += 1;
                i += 1;
                j += 1;
            }
        }
    }
    both as f64 / (a.len() + b.len() - both) as f64
}

/// How signatures are cut into bands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Banding {
    /// Bands; a pair sharing any one is a candidate.
    pub bands: usize,
    /// Hash functions per band.
    pub rows: usize,
}

impl Default for Banding {
    /// 24 bands of 3: a pair at Jaccard 0.4 is a candidate with probability 0.80, at
    /// 0.5 with 0.96, at 0.2 with 0.18.
    fn default() -> Self {
        Banding { bands: 24, rows: 3 }
    }
}

impl Banding {
    /// The chance that a pair of Jaccard index `j` shares at least one band.
    pub fn candidate_chance(self, j: f64) -> f64 {
        1.0 - (1.0 - j.powi(self.rows as i32)).powi(self.bands as i32)
    }

    /// The band keys of a shingle set: one 32-bit hash of each band's minima (empty
    /// for an empty set: such a text has no near-duplicates, only exact ones).
    pub fn band_keys(self, shingles: &[u64]) -> Vec<u32> {
        if shingles.is_empty() {
            return Vec::new();
        }
        let bins = self.bands * self.rows;
        let mut minima = vec![u64::MAX; bins];
        for s in shingles {
            let h = mix(s ^ 0x243F_6A88_85A3_08D3);
            // the high bits pick the bin, the whole hash orders within it
            let bin = ((u128::from(h) * bins as u128) >> 64) as usize;
            if h < minima[bin] {
                minima[bin] = h;
            }
        }
        let full: Vec<u64> = minima.clone();
        for (i, slot) in minima.iter_mut().enumerate() {
            if *slot != u64::MAX {
                continue;
            }
            // the next full bin to the right (there is one: the set is not empty)
            if let Some(d) = (1..bins).find(|d| full[(i + d) % bins] != u64::MAX) {
                *slot = mix(full[(i + d) % bins] ^ (d as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            }
        }
        minima
            .chunks(self.rows)
            .enumerate()
            .map(|(band, rows)| {
                let mut h = mix(band as u64 ^ 0x5bd1_e995);
                for r in rows {
                    h = mix(h ^ (r >> 32));
                }
                h as u32
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_of_sets_matches_a_count() {
        let a = shingles("one two three four five");
        let b = shingles("one two three four six");
        // {123, 234, 345} vs {123, 234, 346}: 2 shared of 4
        assert!((jaccard(&a, &b) - 0.5).abs() < 1e-9);
        assert_eq!(jaccard(&a, &a), 1.0);
    }

    #[test]
    fn a_sketch_hashes_what_the_word_by_word_functions_give() {
        for text in [
            "",
            "  ,;",
            "One",
            "Hello,  World!\n",
            "the ledger posts twice when the retry carries no key",
            "ÉCOLE Straße ΟΔΟΣ naïve café 東京 x_y 42 ab",
            "mixed ASCII and Ünïcödé words, with CAPS and digits 1a2b",
        ] {
            let s = Sketch::of(text);
            assert_eq!(s.text, hash_bytes(text.as_bytes()), "{text:?}");
            assert_eq!(
                s.normalized,
                hash_bytes(normalized(text).as_bytes()),
                "{text:?}"
            );
            assert_eq!(s.wordless, normalized(text).is_empty(), "{text:?}");
            assert_eq!(s.shingles, shingles(text), "{text:?}");
        }
    }

    #[test]
    fn normalized_ignores_case_and_punctuation() {
        assert_eq!(normalized("Hello,  World!\n"), normalized("hello world"));
        assert_ne!(normalized("hello world"), normalized("hello there"));
    }

    #[test]
    fn same_set_same_keys_and_different_sets_mostly_differ() {
        let banding = Banding::default();
        let a = shingles("the ledger posts twice when the retry carries no key");
        assert_eq!(banding.band_keys(&a), banding.band_keys(&a));
        let b = shingles("alerts page only when a customer can see the problem");
        let shared = banding
            .band_keys(&a)
            .iter()
            .zip(banding.band_keys(&b))
            .filter(|(x, y)| **x == *y)
            .count();
        assert_eq!(shared, 0);
    }
}
