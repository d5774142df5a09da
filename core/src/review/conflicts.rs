//! Memories that may contradict each other, after hivelore's rules
//! (`packages/core/src/conflict-candidates.ts`, `conflict-resolve.ts`):
//! - the same `topic` with one memory validated and the other rejected;
//! - decisions and architecture notes on the same subject — the same topic, or word
//!   sets (words of three letters or more from the id, the title and the first 2,000
//!   bytes of the body) with a Jaccard index of at least 0.45 — whose texts differ
//!   (same text is a duplicate, not a conflict).
//!
//! hivelore compares every pair of at most 500 memories; memlens finds the similar
//! word sets with the same MinHash banding as duplicates, so every decision and
//! architecture note of a large store is considered.

use super::duplicates::{DuplicateIndex, Summary};
use super::fields::topic;
use super::shingles::{Banding, hash_bytes, jaccard, normalized};
use crate::model::{Memory, Status};
use std::cmp::Ordering;

/// The least word-set Jaccard index of two decisions on the same subject (hivelore's
/// `min_jaccard` default).
pub const SUBJECT_THRESHOLD: f64 = 0.45;

/// The types compared for disagreeing text (hivelore's default `types`).
pub const CONFLICT_TYPES: [&str; 2] = ["decision", "architecture"];

/// The sorted hashes of a memory's subject words.
pub fn subject_words(m: &Memory) -> Vec<u64> {
    let mut cut = m.body.len().min(2000);
    while !m.body.is_char_boundary(cut) {
        cut -= 1;
    }
    let blob = format!(
        "{} {} {}",
        m.id,
        m.title.as_deref().unwrap_or(""),
        &m.body[..cut]
    );
    let mut set: Vec<u64> = super::shingles::words(&blob)
        .filter(|w| w.chars().count() >= 3)
        .map(|w| hash_bytes(w.as_bytes()))
        .collect();
    set.sort_unstable();
    set.dedup();
    set
}

/// True when the memory takes part in conflicts at all: not deleted, not already
/// superseded.
pub fn in_play(m: &Memory) -> bool {
    !m.is_deleted() && m.status != Status::Deprecated
}

/// True when the memory is compared for disagreeing text.
pub fn is_decision(m: &Memory) -> bool {
    in_play(m) && m.status != Status::Rejected && CONFLICT_TYPES.contains(&m.memory_type.as_str())
}

/// The LSH summary of a memory's subject words (for [`DuplicateIndex`]).
pub fn subject_summary(m: &Memory, banding: Banding) -> Summary {
    Summary::of_set(&subject_words(m), banding)
}

/// Why two memories conflict, when they do.
pub fn conflict(a: &Memory, b: &Memory) -> Option<String> {
    if !in_play(a) || !in_play(b) {
        return None;
    }
    let same_topic = topic(a).is_some() && topic(a) == topic(b);
    if same_topic {
        let pair = (a.status, b.status);
        if matches!(
            pair,
            (Status::Validated, Status::Rejected) | (Status::Rejected, Status::Validated)
        ) {
            return Some(format!(
                "topic {}: one validated, one rejected",
                topic(a).unwrap_or_default()
            ));
        }
    }
    if !is_decision(a) || !is_decision(b) || normalized(&a.body) == normalized(&b.body) {
        return None;
    }
    if same_topic {
        return Some(format!(
            "topic {}: texts differ",
            topic(a).unwrap_or_default()
        ));
    }
    let j = jaccard(&subject_words(a), &subject_words(b));
    (j >= SUBJECT_THRESHOLD)
        .then(|| format!("same subject ({:.0}% of words), texts differ", j * 100.0))
}

/// hivelore's order of who wins a conflict: the better status (validated, proposed,
/// draft, stale, then deprecated and rejected), then more revisions, then the newer.
pub fn keep_first(a: &Memory, b: &Memory) -> Ordering {
    let rank = |m: &Memory| match m.status {
        Status::Validated => 4,
        Status::Proposed => 3,
        Status::Draft => 2,
        Status::Stale => 1,
        Status::Deprecated | Status::Rejected => 0,
    };
    let revisions = |m: &Memory| {
        m.extra
            .get("revision_count")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0)
    };
    rank(b)
        .cmp(&rank(a))
        .then(revisions(b).cmp(&revisions(a)))
        .then(b.created_at.cmp(&a.created_at))
        .then(a.id.cmp(&b.id))
}

/// The index the conflict pass fills: subject words of decisions and architecture
/// notes, and topics of every memory in play.
#[derive(Debug)]
pub struct ConflictIndex {
    /// Subject-word LSH over the decisions and architecture notes.
    pub subjects: DuplicateIndex,
    /// `(topic hash, key)` of every memory in play with a topic.
    pub topics: Vec<(u64, u32)>,
}

impl ConflictIndex {
    /// An empty index.
    pub fn new() -> ConflictIndex {
        ConflictIndex {
            subjects: DuplicateIndex::new(Banding::default()),
            topics: Vec::new(),
        }
    }

    /// Adds a memory under `key` when it can conflict.
    pub fn add(&mut self, key: u32, m: &Memory) {
        if !in_play(m) {
            return;
        }
        if let Some(t) = topic(m) {
            self.topics.push((hash_bytes(t.as_bytes()), key));
        }
        if is_decision(m) {
            let banding = self.subjects.banding();
            self.subjects.push(key, subject_summary(m, banding));
        }
    }

    /// Puts the memory now under `key` in place of what the key held (`None`: gone).
    pub fn set(&mut self, key: u32, m: Option<&Memory>) {
        self.topics.retain(|(_, k)| *k != key);
        let m = m.filter(|m| in_play(m));
        if let Some(t) = m.and_then(topic) {
            self.topics.push((hash_bytes(t.as_bytes()), key));
        }
        let banding = self.subjects.banding();
        let subject = m
            .filter(|m| is_decision(m))
            .map(|m| subject_summary(m, banding));
        self.subjects.set(key, subject);
    }

    /// Candidate pairs: a shared topic or a shared subject band.
    pub fn candidates(&self) -> Vec<(u32, u32)> {
        let mut pairs = self.subjects.candidates();
        let mut topics: Vec<(u64, u32)> = self.topics.clone();
        super::duplicates::link_runs(&mut topics, &mut pairs);
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }

    /// The pairs of [`ConflictIndex::candidates`] that hold one of `keys` (sorted).
    pub fn candidates_with(&self, keys: &[u32]) -> Vec<(u32, u32)> {
        let mut pairs = self.subjects.candidates_with(keys);
        let mut wanted: Vec<u64> = self
            .topics
            .iter()
            .filter(|(_, k)| keys.binary_search(k).is_ok())
            .map(|(t, _)| *t)
            .collect();
        wanted.sort_unstable();
        let mut topics: Vec<(u64, u32)> = self
            .topics
            .iter()
            .filter(|(t, _)| wanted.binary_search(t).is_ok())
            .copied()
            .collect();
        let mut linked = Vec::new();
        super::duplicates::link_runs(&mut topics, &mut linked);
        pairs.extend(
            linked
                .into_iter()
                .filter(|(a, b)| keys.binary_search(a).is_ok() || keys.binary_search(b).is_ok()),
        );
        pairs.sort_unstable();
        pairs.dedup();
        pairs
    }
}

impl Default for ConflictIndex {
    fn default() -> Self {
        ConflictIndex::new()
    }
}
