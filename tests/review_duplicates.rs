//! Duplicate detection held to plain references: the inverted-index reference against
//! a loop over every pair, and MinHash LSH against the reference (never a pair below the
//! threshold, and the pairs well above it found).

use memlens::corpus::Rng;
use memlens::review::duplicates::{
    DEFAULT_THRESHOLD, DuplicateIndex, DuplicateKind, all_pairs, verify,
};
use memlens::review::shingles::{Banding, jaccard, normalized, shingles};
use std::collections::BTreeSet;

const WORDS: [&str; 40] = [
    "ledger",
    "payout",
    "webhook",
    "retry",
    "key",
    "bank",
    "merchant",
    "shard",
    "batch",
    "invoice",
    "refund",
    "currency",
    "amount",
    "minor",
    "units",
    "replica",
    "primary",
    "schema",
    "column",
    "backfill",
    "deploy",
    "alert",
    "ticket",
    "customer",
    "cursor",
    "feed",
    "event",
    "outbox",
    "worker",
    "commit",
    "offset",
    "kafka",
    "timeout",
    "poll",
    "status",
    "statement",
    "export",
    "settle",
    "window",
    "clock",
];

/// Texts of 12–30 random words, with edited copies of some (word swaps, a word
/// replaced, case and punctuation changed, an exact copy).
fn texts() -> Vec<String> {
    let mut rng = Rng(7);
    let mut out: Vec<String> = Vec::new();
    for _ in 0..300 {
        let n = 12 + rng.below(19);
        let words: Vec<&str> = (0..n).map(|_| WORDS[rng.below(WORDS.len())]).collect();
        out.push(words.join(" "));
    }
    for i in 0..120 {
        let src = out[i * 2].clone();
        let mut words: Vec<String> = src.split(' ').map(str::to_string).collect();
        let edited = match i % 4 {
            0 => src.clone(),
            1 => format!("{}!", src.to_uppercase()),
            2 => {
                let at = rng.below(words.len() - 1);
                words.swap(at, at + 1);
                words.join(" ")
            }
            _ => {
                for _ in 0..(1 + rng.below(4)) {
                    let at = rng.below(words.len());
                    words[at] = WORDS[rng.below(WORDS.len())].to_string();
                }
                words.join(" ")
            }
        };
        out.push(edited);
    }
    out
}

type Found = BTreeSet<(u32, u32, DuplicateKind)>;

fn naive(texts: &[String], threshold: f64) -> Found {
    let words: Vec<String> = texts.iter().map(|t| normalized(t)).collect();
    let sets: Vec<Vec<u64>> = texts.iter().map(|t| shingles(t)).collect();
    let mut out = Found::new();
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            let kind = if texts[i] == texts[j] {
                Some(DuplicateKind::Exact)
            } else if words[i] == words[j] {
                Some(DuplicateKind::Normalized)
            } else {
                (jaccard(&sets[i], &sets[j]) >= threshold).then_some(DuplicateKind::Similar)
            };
            if let Some(k) = kind {
                out.insert((i as u32, j as u32, k));
            }
        }
    }
    out
}

#[test]
fn the_reference_is_every_pair_compared() {
    let texts = texts();
    for threshold in [0.2, DEFAULT_THRESHOLD, 0.7] {
        let reference: Found = all_pairs(&texts, threshold)
            .into_iter()
            .map(|p| (p.a, p.b, p.kind))
            .collect();
        assert_eq!(reference, naive(&texts, threshold), "threshold {threshold}");
    }
}

#[test]
fn lsh_lists_only_reference_pairs_and_finds_the_close_ones() {
    let texts = texts();
    let mut index = DuplicateIndex::new(Banding::default());
    for (i, t) in texts.iter().enumerate() {
        index.add(i as u32, t);
    }
    let found: Vec<_> = verify(&index.candidates(), DEFAULT_THRESHOLD, |k| {
        texts.get(k as usize).cloned()
    });
    let reference = all_pairs(&texts, DEFAULT_THRESHOLD);
    let listed: BTreeSet<(u32, u32)> = reference.iter().map(|p| (p.a, p.b)).collect();
    for p in &found {
        assert!(
            listed.contains(&(p.a, p.b)),
            "{p:?} is not a reference pair"
        );
    }
    let got: BTreeSet<(u32, u32)> = found.iter().map(|p| (p.a, p.b)).collect();
    let close: Vec<_> = reference.iter().filter(|p| p.similarity >= 0.6).collect();
    let missed = close.iter().filter(|p| !got.contains(&(p.a, p.b))).count();
    assert!(
        close.len() >= 80,
        "the set has close pairs: {}",
        close.len()
    );
    // each is found with probability ≥ 0.997; allow a few misses
    assert!(
        missed * 50 <= close.len(),
        "missed {missed} of {}",
        close.len()
    );
    // exact and normalized copies are never missed: they share a bucket
    for p in reference
        .iter()
        .filter(|p| p.kind != DuplicateKind::Similar)
    {
        assert!(got.contains(&(p.a, p.b)), "{p:?}");
    }
}
