//! One pass over a store snapshot that fills the queues asked for: the single-memory
//! queues by predicate, duplicates and conflicts by their LSH indexes, each candidate
//! pair then read again and checked.

use super::Queue;
use super::conflicts::{ConflictIndex, conflict, keep_first};
use super::duplicates::{DEFAULT_THRESHOLD, DuplicateIndex, DuplicateKind, Summary, verify};
use super::fields::not_duplicate_of;
use super::queues::{
    AnchorCheck, ReviewOptions, agent_validated, is_pending, is_stale, needs_approval,
};
use super::shingles::{Banding, Sketch};
use crate::model::{Memory, Timestamp};
use crate::store::{StoreError, StoreReader, StoreResult};
use std::collections::{HashMap, HashSet};

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
}

/// The queues of one snapshot.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Review {
    queues: [Vec<Entry>; 6],
    scanned: [bool; 6],
}

/// Sort keys of a single-memory entry.
struct Keyed {
    entry: Entry,
    read_count: u32,
    created_at: Timestamp,
    last_read: Timestamp,
}

impl Review {
    /// Fills the `wanted` queues from the snapshot (the others stay empty and unscanned).
    pub fn of(
        reader: &StoreReader,
        options: &ReviewOptions,
        wanted: &[Queue],
    ) -> StoreResult<Review> {
        let wants = |q: Queue| wanted.contains(&q);
        let mut single: [Vec<Keyed>; 4] = Default::default();
        let mut anchors = AnchorCheck::default();
        let mut duplicates = DuplicateIndex::new(Banding::default());
        let mut marks: HashSet<(String, String)> = HashSet::new();
        let mut conflicts = ConflictIndex::new();
        let mut texts: Vec<(u32, String)> = Vec::new();
        reader.for_each(|doc, m| {
            if m.is_deleted() {
                return;
            }
            let tests: [(Queue, Option<String>); 4] = [
                (
                    Queue::Approval,
                    wants(Queue::Approval).then(|| needs_approval(&m)).flatten(),
                ),
                (
                    Queue::Pending,
                    wants(Queue::Pending).then(|| is_pending(&m)).flatten(),
                ),
                (
                    Queue::Agent,
                    wants(Queue::Agent).then(|| agent_validated(&m)).flatten(),
                ),
                (
                    Queue::Stale,
                    wants(Queue::Stale)
                        .then(|| is_stale(&m, options, &mut anchors))
                        .flatten(),
                ),
            ];
            for (q, reason) in tests {
                if let Some(reason) = reason {
                    single[q.index()].push(Keyed {
                        entry: Entry {
                            doc,
                            id: m.id.clone(),
                            reason,
                            other: None,
                            similarity: None,
                        },
                        read_count: m.read_count,
                        created_at: m.created_at,
                        last_read: m.last_read_at.unwrap_or(m.created_at).max(m.created_at),
                    });
                }
            }
            if wants(Queue::Duplicates) {
                for other in not_duplicate_of(&m) {
                    marks.insert(ordered_ids(&m.id, other));
                }
                texts.push((doc, m.body.clone()));
                if texts.len() >= SKETCH_BATCH {
                    summarize(&mut texts, &mut duplicates);
                }
            }
            if wants(Queue::Conflicts) {
                conflicts.add(doc, &m);
            }
        })?;
        summarize(&mut texts, &mut duplicates);
        let mut review = Review::default();
        for q in wanted {
            review.scanned[q.index()] = true;
        }
        for (at, mut keyed) in single.into_iter().enumerate() {
            if Queue::ALL[at] == Queue::Stale {
                keyed.sort_by(|a, b| {
                    a.last_read
                        .cmp(&b.last_read)
                        .then(a.entry.id.cmp(&b.entry.id))
                });
            } else {
                keyed.sort_by(|a, b| {
                    b.read_count
                        .cmp(&a.read_count)
                        .then(b.created_at.cmp(&a.created_at))
                        .then(a.entry.id.cmp(&b.entry.id))
                });
            }
            review.queues[at] = keyed.into_iter().map(|k| k.entry).collect();
        }
        let mut memories = Memories::new(reader);
        if wants(Queue::Duplicates) {
            let candidates = duplicates.candidates();
            // the candidates' texts are read once and not kept: only the memories of
            // the pairs found are
            let pairs = verify(&candidates, DEFAULT_THRESHOLD, |doc| memories.body(doc));
            let mut entries = Vec::new();
            for p in pairs {
                let (Some(a), Some(b)) = (memories.get(p.a), memories.get(p.b)) else {
                    continue;
                };
                if marks.contains(&ordered_ids(&a.id, &b.id)) {
                    continue;
                }
                let reason = match p.kind {
                    DuplicateKind::Exact => "same text".to_string(),
                    DuplicateKind::Normalized => "same words".to_string(),
                    DuplicateKind::Similar => format!("{:.0}% alike", p.similarity * 100.0),
                };
                entries.push((pair_entry(&a, p.a, &b, p.b, reason, p.similarity), p.kind));
            }
            entries.sort_by(|(x, xk), (y, yk)| {
                y.similarity
                    .unwrap_or(0.0)
                    .total_cmp(&x.similarity.unwrap_or(0.0))
                    .then(xk.cmp(yk))
                    .then(x.id.cmp(&y.id))
                    .then(x.other.cmp(&y.other))
            });
            review.queues[Queue::Duplicates.index()] = entries.into_iter().map(|e| e.0).collect();
        }
        if wants(Queue::Conflicts) {
            let mut entries = Vec::new();
            for (a, b) in conflicts.candidates() {
                let (Some(x), Some(y)) = (memories.get(a), memories.get(b)) else {
                    continue;
                };
                if let Some(reason) = conflict(&x, &y) {
                    entries.push(pair_entry(&x, a, &y, b, reason, 0.0));
                }
            }
            for e in &mut entries {
                e.similarity = None;
            }
            entries.sort_by(|x, y| x.id.cmp(&y.id).then(x.other.cmp(&y.other)));
            review.queues[Queue::Conflicts.index()] = entries;
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
            .filter_map(|(doc, text)| {
                let sketch = Sketch::of(text);
                (!sketch.wordless).then(|| (*doc, Summary::of_sketch(&sketch, banding)))
            })
            .collect()
    });
    for (doc, summary) in summaries {
        index.push(doc, summary);
    }
    texts.clear();
}

/// A pair as an entry, the one to keep first.
fn pair_entry(a: &Memory, da: u32, b: &Memory, db: u32, reason: String, similarity: f64) -> Entry {
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
        similarity: Some(similarity),
    }
}

fn ordered_ids(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

/// Memories read by record number, each once, keeping the first read error.
struct Memories<'r> {
    reader: &'r StoreReader,
    cache: HashMap<u32, Option<Memory>>,
    error: Option<StoreError>,
}

impl<'r> Memories<'r> {
    fn new(reader: &'r StoreReader) -> Memories<'r> {
        Memories {
            reader,
            cache: HashMap::new(),
            error: None,
        }
    }

    fn get(&mut self, doc: u32) -> Option<Memory> {
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

    fn finish(self) -> StoreResult<()> {
        self.error.map_or(Ok(()), Err)
    }
}
