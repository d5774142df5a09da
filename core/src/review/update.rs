//! Keeping a [`Review`] current without a second pass over the store: after a write,
//! the memories it names leave every queue and come back where they now belong, and
//! only the duplicate and conflict candidates that hold one of them are checked; as
//! the clock moves, the memories whose time came join the stale queue.
//!
//! An updated review lists what a new [`Review::of`] of the same snapshot lists (the
//! tests hold the two to each other), with one exception named at
//! [`super::duplicates::DuplicateIndex::candidates_with`]. Anchors are looked up for
//! the memories that change only: a file removed from the project later shows once
//! the queues are listed anew.

use super::Queue;
use super::scan::{Memories, Review, summary};
use crate::model::{Memory, Timestamp};
use crate::store::{StoreReader, StoreResult};
use std::cmp::Reverse;
use std::collections::HashSet;

/// Above this many changed memories, listing the queues anew is cheaper than updating
/// them (each changed memory costs a pass over the summaries' band keys).
pub const UPDATE_AT_MOST: usize = 256;

impl Review {
    /// Brings the queues up to date with `reader`'s snapshot, in which the memories
    /// `ids` were written (created, changed, deleted or purged) since the snapshot the
    /// review was made or last updated from.
    pub fn update(&mut self, reader: &StoreReader, ids: &[String]) -> StoreResult<()> {
        let changed: HashSet<&str> = ids.iter().map(String::as_str).collect();
        // the record numbers the changed memories had, and have now
        let mut docs: Vec<u32> = Vec::new();
        for queue in self.queues_mut().iter() {
            for e in queue {
                if changed.contains(e.id.as_str()) {
                    docs.push(e.doc);
                }
                if let Some((doc, id)) = &e.other
                    && changed.contains(id.as_str())
                {
                    docs.push(*doc);
                }
            }
        }
        let mut now: Vec<(u32, Option<Memory>)> = Vec::new();
        for id in ids {
            match reader.doc_of(id)? {
                Some(doc) => {
                    docs.push(doc);
                    now.push((doc, reader.get_doc(doc)?));
                }
                None => {
                    self.marks.remove(id);
                }
            }
        }
        docs.sort_unstable();
        docs.dedup();
        for queue in self.queues_mut().iter_mut() {
            queue.retain(|e| {
                !changed.contains(e.id.as_str())
                    && !e
                        .other
                        .as_ref()
                        .is_some_and(|(_, id)| changed.contains(id.as_str()))
            });
        }
        let known: HashSet<u32> = now.iter().map(|(doc, _)| *doc).collect();
        for &doc in &docs {
            if !known.contains(&doc) {
                self.forget(doc);
            }
        }
        for (doc, m) in now {
            match m.filter(|m| !m.is_deleted()) {
                Some(m) => self.readmit(doc, &m),
                None => self.forget(doc),
            }
        }
        let mut memories = Memories::new(reader);
        if self.scans(Queue::Duplicates) {
            let candidates = self.duplicates.candidates_with(&docs);
            self.add_duplicates(&candidates, &mut memories);
        }
        if self.scans(Queue::Conflicts) {
            let candidates = self.conflicts.candidates_with(&docs);
            self.add_conflicts(&candidates, &mut memories);
        }
        memories.finish()
    }

    /// Moves the clock to `now`: the memories whose `expires_when` passed, or that
    /// went unread long enough, since the review's clock join the stale queue.
    pub fn tick(&mut self, reader: &StoreReader, now: Timestamp) -> StoreResult<()> {
        if now <= self.options.now {
            return Ok(());
        }
        self.options.now = now;
        if !self.scans(Queue::Stale) {
            return Ok(());
        }
        let mut came = Vec::new();
        while let Some(Reverse((at, doc))) = self.due.peek().copied()
            && at <= now.0
        {
            self.due.pop();
            came.push(doc);
        }
        came.sort_unstable();
        came.dedup();
        if came.is_empty() {
            return Ok(());
        }
        // listed ones come up when their reason changes (they expired meanwhile)
        self.queues_mut()[Queue::Stale.index()].retain(|e| came.binary_search(&e.doc).is_err());
        for doc in came {
            if let Some(m) = reader.get_doc(doc)?.filter(|m| !m.is_deleted()) {
                self.admit_stale(doc, &m, true);
            }
        }
        Ok(())
    }

    /// A memory written since: back into the queues it belongs to, its summaries
    /// replaced.
    fn readmit(&mut self, doc: u32, m: &Memory) {
        self.admit(doc, m, true);
        if self.scans(Queue::Duplicates) {
            self.mark(m);
            let banding = self.duplicates.banding();
            self.duplicates.set(doc, summary(&m.body, banding));
        }
        if self.scans(Queue::Conflicts) {
            self.conflicts.set(doc, Some(m));
        }
    }

    /// A memory gone (deleted, purged, or its record now another's): out of the
    /// summaries.
    fn forget(&mut self, doc: u32) {
        if self.scans(Queue::Duplicates) {
            self.duplicates.set(doc, None);
        }
        if self.scans(Queue::Conflicts) {
            self.conflicts.set(doc, None);
        }
    }
}
