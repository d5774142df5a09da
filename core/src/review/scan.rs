//! One pass over a store snapshot that fills the queues asked for: the single-memory
//! queues by predicate, duplicates and conflicts by their LSH indexes, each candidate
//! pair then read again and checked. The [`Review`] keeps what the pass built (the
//! LSH summaries, the "not a duplicate" marks, when each memory turns stale by the
//! clock), so that [`Review::update`] brings it up to date after a few memories change
//! without a second pass (see `update.rs`).

use super::Queue;
use super::conflicts::{ConflictIndex, conflict, keep_first};
use super::duplicates::{DEFAULT_THRESHOLD, DuplicateIndex, DuplicateKind, Summary, verify};
use super::fields::{expires_when, not_duplicate_of};
use super::queues::{
    AnchorCheck, ReviewOptions, agent_validated, is_pending, is_stale, last_attended,
    needs_approval, stale_from,
};
use super::shingles::{Banding, Sketch};
use crate::curate::edit::is_superseded_by;
use crate::model::Memory;
use crate::store::{StoreError, StoreReader, StoreResult};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// One entry of a queue: a memory, or a pair of them.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The memory's record number in the snapshot.
    pub doc: u32,
    /// Its id.
    pub id: String,
    /// Why it is in the queue, in a few words.
    pub reason: String,
    /// The other memory of a pair (record number and id): the one to merge or
    /// supersede; `doc` is the one to keep.
    pub other: Option<(u32, String)>,
    /// How alike the pair is (Jaccard of shingles; 1 for the same text).
    pub similarity: Option<f64>,
    /// Its place in the queue's order, before the ids (see [`Review`]).
    rank: (i64, i64),
}

impl Entry {
    /// The key a queue is sorted by.
    fn key(&self) -> ((i64, i64), &str, Option<&str>) {
        (
            self.rank,
            &self.id,
            self.other.as_ref().map(|(_, id)| id.as_str()),
        )
    }
}

/// The queues of one snapshot, and what keeps them current.
///
/// Orders: `approval`, `pending` and `agent` most read first, then newest, then id;
/// `stale` least recently read first, then id; `duplicates` most alike first, exact
/// before normalized before similar, then ids; `conflicts` by ids.
#[derive(Debug)]
pub struct Review {
    queues: [Vec<Entry>; 6],
    scanned: [bool; 6],
    pub(super) options: ReviewOptions,
    pub(super) anchors: AnchorCheck,
    pub(super) duplicates: DuplicateIndex,
    /// Each memory's own "not a duplicate" list (only memories that have one).
    pub(super) marks: HashMap<String, Vec<String>>,
    pub(super) conflicts: ConflictIndex,
    /// When memories not yet stale turn stale by the clock, soonest on top (an entry
    /// may be out of date: it is checked against the memory when it comes up).
    pub(super) due: BinaryHeap<Reverse<(i64, u32)>>,
}

impl Review {
    /// Fills the `wanted` queues from the snapshot (the others stay empty and unscanned).
    pub fn of(
        reader: &StoreReader,
        options: &ReviewOptions,
        wanted: &[Queue],
    ) -> StoreResult<Review> {
        let mut review = Review {
            queues: Default::default(),
            scanned: Queue::ALL.map(|q| wanted.contains(&q)),
            options: options.clone(),
            anchors: AnchorCheck::default(),
            duplicates: DuplicateIndex::new(Banding::default()),
            marks: HashMap::new(),
            conflicts: ConflictIndex::new(),
            due: BinaryHeap::new(),
        };
        let mut texts: Vec<(u32, String)> = Vec::new();
        let wants_duplicates = review.scans(Queue::Duplicates);
        reader.for_each(|doc, m| {
            if m.is_deleted() {
                return;
            }
            review.admit(doc, &m, false);
            if wants_duplicates {
                review.mark(&m);
                texts.push((doc, m.body.clone()));
                if texts.len() >= SKETCH_BATCH {
                    summarize(&mut texts, &mut review.duplicates);
                }
            }
            if review.scans(Queue::Conflicts) {
                review.conflicts.add(doc, &m);
            }
        })?;
        summarize(&mut texts, &mut review.duplicates);
        for queue in &mut review.queues {
            queue.sort_by(|a, b| a.key().cmp(&b.key()));
        }
        let mut memories = Memories::new(reader);
        if wants_duplicates {
            let candidates = review.duplicates.candidates();
            review.add_duplicates(&candidates, &mut memories);
        }
        if review.scans(Queue::Conflicts) {
            let candidates = review.conflicts.candidates();
            review.add_conflicts(&candidates, &mut memories);
        }
        memories.finish()?;
        Ok(review)
    }

    /// The entries of a queue, in order.
    pub fn entries(&self, queue: Queue) -> &[Entry] {
        &self.queues[queue.index()]
    }

    /// How many entries a queue holds; `None` when it was not scanned.
    pub fn count(&self, queue: Queue) -> Option<usize> {
        self.scanned[queue.index()].then(|| self.queues[queue.index()].len())
    }

    /// True when `queue` was asked for.
    pub(super) fn scans(&self, queue: Queue) -> bool {
        self.scanned[queue.index()]
    }

    /// Every queue's entries, to drop some of them.
    pub(super) fn queues_mut(&mut self) -> &mut [Vec<Entry>; 6] {
        &mut self.queues
    }

    /// Puts a memory into the single-memory queues it belongs to, and notes when it
    /// turns stale by the clock. `sorted`: insert in place (an update), else append
    /// (the scan sorts at its end).
    pub(super) fn admit(&mut self, doc: u32, m: &Memory, sorted: bool) {
        let most_read = (-i64::from(m.read_count), m.created_at.0.saturating_neg());
        let tests: [(Queue, Membership); 3] = [
            (Queue::Approval, needs_approval),
            (Queue::Pending, is_pending),
            (Queue::Agent, agent_validated),
        ];
        for (queue, test) in tests {
            if self.scans(queue)
                && let Some(reason) = test(m)
            {
                self.put(queue, single(doc, m, reason, most_read), sorted);
            }
        }
        self.admit_stale(doc, m, sorted);
    }

    /// Puts a memory into the stale queue when it is stale now, else notes when it
    /// turns stale by the clock.
    pub(super) fn admit_stale(&mut self, doc: u32, m: &Memory, sorted: bool) {
        if !self.scans(Queue::Stale) {
            return;
        }
        match is_stale(m, &self.options, &mut self.anchors) {
            Some(reason) => {
                // a memory stale for another reason expires later: its reason changes
                if let Some(at) = expires_when(m)
                    && at > self.options.now
                {
                    self.due.push(Reverse((at.0, doc)));
                }
                let entry = single(doc, m, reason, (last_attended(m).0, 0));
                self.put(Queue::Stale, entry, sorted);
            }
            None => {
                if let Some(at) = stale_from(m) {
                    self.due.push(Reverse((at.0, doc)));
                }
            }
        }
    }

    /// Adds an entry to a queue: in its place, or at the end.
    pub(super) fn put(&mut self, queue: Queue, entry: Entry, sorted: bool) {
        let list = &mut self.queues[queue.index()];
        if sorted {
            let at = list.partition_point(|e| e.key() < entry.key());
            list.insert(at, entry);
        } else {
            list.push(entry);
        }
    }

    /// Notes the memory's own "not a duplicate" list.
    pub(super) fn mark(&mut self, m: &Memory) {
        let others: Vec<String> = not_duplicate_of(m)
            .into_iter()
            .map(str::to_string)
            .collect();
        if others.is_empty() {
            self.marks.remove(&m.id);
        } else {
            self.marks.insert(m.id.clone(), others);
        }
    }

    /// True when a person said the two are not duplicates (on either memory).
    fn marked(&self, a: &str, b: &str) -> bool {
        let says = |x: &str, y: &str| self.marks.get(x).is_some_and(|l| l.iter().any(|o| o == y));
        says(a, b) || says(b, a)
    }

    /// Checks duplicate candidates and puts the pairs found in the queue, in place:
    /// not a pair a person said are not duplicates, nor one whose older memory was
    /// superseded by the other.
    pub(super) fn add_duplicates(&mut self, candidates: &[(u32, u32)], memories: &mut Memories) {
        // the candidates' texts are read once and not kept: only the memories of the
        // pairs found are
        let pairs = verify(candidates, DEFAULT_THRESHOLD, |doc| memories.body(doc));
        for p in pairs {
            let (Some(a), Some(b)) = (memories.get(p.a), memories.get(p.b)) else {
                continue;
            };
            if a.is_deleted() || b.is_deleted() || self.marked(&a.id, &b.id) {
                continue;
            }
            // one superseded by the other: the pair is decided
            if is_superseded_by(&a, &b.id) || is_superseded_by(&b, &a.id) {
                continue;
            }
            let reason = match p.kind {
                DuplicateKind::Exact => "same text".to_string(),
                DuplicateKind::Normalized => "same words".to_string(),
                DuplicateKind::Similar => format!("{:.0}% alike", p.similarity * 100.0),
            };
            // most alike first (a positive float's bits order as the float does)
            let rank = (-(p.similarity.to_bits() as i64), p.kind as i64);
            let entry = pair(&a, p.a, &b, p.b, reason, Some(p.similarity), rank);
            self.put(Queue::Duplicates, entry, true);
        }
    }

    /// Checks conflict candidates and puts the pairs found in the queue, in place.
    pub(super) fn add_conflicts(&mut self, candidates: &[(u32, u32)], memories: &mut Memories) {
        for &(a, b) in candidates {
            let (Some(x), Some(y)) = (memories.get(a), memories.get(b)) else {
                continue;
            };
            if let Some(reason) = conflict(&x, &y) {
                let entry = pair(&x, a, &y, b, reason, None, (0, 0));
                self.put(Queue::Conflicts, entry, true);
            }
        }
    }
}

/// Whether a memory belongs in a queue, and why.
type Membership = fn(&Memory) -> Option<String>;

/// A single-memory entry.
fn single(doc: u32, m: &Memory, reason: String, rank: (i64, i64)) -> Entry {
    Entry {
        doc,
        id: m.id.clone(),
        reason,
        other: None,
        similarity: None,
        rank,
    }
}

/// A pair as an entry, the one to keep first.
fn pair(
    a: &Memory,
    da: u32,
    b: &Memory,
    db: u32,
    reason: String,
    similarity: Option<f64>,
    rank: (i64, i64),
) -> Entry {
    let (keep, dk, other, dother) = if keep_first(a, b).is_le() {
        (a, da, b, db)
    } else {
        (b, db, a, da)
    };
    Entry {
        doc: dk,
        id: keep.id.clone(),
        reason,
        other: Some((dother, other.id.clone())),
        similarity,
        rank,
    }
}

/// Texts sketched together, on every core.
const SKETCH_BATCH: usize = 2 * crate::parallel::PARALLEL_FROM;

/// Adds the duplicate summaries of `texts` (those with words) to `index`, computed on
/// every core, and empties `texts`.
fn summarize(texts: &mut Vec<(u32, String)>, index: &mut DuplicateIndex) {
    let banding = index.banding();
    let summaries = crate::parallel::in_parts(texts.len(), |range| {
        texts[range]
            .iter()
            .filter_map(|(doc, text)| summary(text, banding).map(|s| (*doc, s)))
            .collect()
    });
    for (doc, summary) in summaries {
        index.push(doc, summary);
    }
    texts.clear();
}

/// The duplicate summary of a text; `None` for one without words.
pub(super) fn summary(text: &str, banding: Banding) -> Option<Summary> {
    let sketch = Sketch::of(text);
    (!sketch.wordless).then(|| Summary::of_sketch(&sketch, banding))
}

/// Memories read by record number, each once, keeping the first read error.
pub(super) struct Memories<'r> {
    reader: &'r StoreReader,
    cache: HashMap<u32, Option<Memory>>,
    error: Option<StoreError>,
}

impl<'r> Memories<'r> {
    pub(super) fn new(reader: &'r StoreReader) -> Memories<'r> {
        Memories {
            reader,
            cache: HashMap::new(),
            error: None,
        }
    }

    pub(super) fn get(&mut self, doc: u32) -> Option<Memory> {
        if let Some(m) = self.cache.get(&doc) {
            return m.clone();
        }
        let m = self.read(doc);
        self.cache.insert(doc, m.clone());
        m
    }

    /// The body of a memory, read without keeping the memory.
    fn body(&mut self, doc: u32) -> Option<String> {
        match self.cache.get(&doc) {
            Some(m) => m.as_ref().map(|m| m.body.clone()),
            None => self.read(doc).map(|m| m.body),
        }
    }

    /// Reads a memory from the store, keeping the first error.
    fn read(&mut self, doc: u32) -> Option<Memory> {
        self.reader.get_doc(doc).unwrap_or_else(|e| {
            self.error.get_or_insert(e);
            None
        })
    }

    pub(super) fn finish(self) -> StoreResult<()> {
        self.error.map_or(Ok(()), Err)
    }
}
