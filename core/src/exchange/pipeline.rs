//! Reading and writing at once: the readers (parsing, validating, tokenizing each
//! memory into its search record and haystacks) run on a second thread and hand them
//! over in batches, while this thread encodes and inserts them into the store, so an
//! import uses both cores of a small machine.

use super::RecordSink;
use crate::model::{Checked, Memory};
use crate::store::Prepared;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};

/// Records per batch sent between the threads.
const BATCH: usize = 256;

/// Batches the writer may have waiting before the reader leaves index entries to it:
/// with this few it is about to wait for the reader, which is then the slower thread.
const WRITER_STARVING: usize = 1;

/// The batches a reader has sent that the writer has not finished: the reader raises
/// it before sending one, the writer lowers it once the batch is stored.
#[derive(Debug, Clone, Default)]
pub struct Backlog(Arc<AtomicUsize>);

impl Backlog {
    /// The writer finished a batch.
    pub fn stored_one(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }

    fn sending_one(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn writer_starving(&self) -> bool {
        self.0.load(Ordering::Relaxed) <= WRITER_STARVING
    }
}

/// One thing a reader reported, in order.
pub enum Event {
    /// The following events come from this file.
    File(String),
    /// A valid memory at a line, with its index entry.
    Memory(usize, Box<Prepared>),
    /// A problem at a line: field, reason.
    Problem(usize, String, String),
    /// A warning at a line: field, reason.
    Warning(usize, String, String),
}

/// The reader thread's sink: batches events and sends them to the writer, which sends
/// each batch back once stored, so that freeing the memories (and reusing the batch)
/// is the reader's work, not the busier writer's. Each memory goes with its index
/// entry, unless the writer is about to wait for work: then the writer computes it,
/// so that the two threads share the work whichever is the slower.
pub struct ChannelSink {
    batch: Vec<Event>,
    to_writer: Option<SyncSender<Vec<Event>>>,
    spent: Receiver<Vec<Event>>,
    backlog: Backlog,
    closed: bool,
}

impl ChannelSink {
    /// A sink sending to `to_writer` and taking stored batches back from `spent`; the
    /// writer lowers `backlog` as it stores each batch.
    pub fn new(
        to_writer: SyncSender<Vec<Event>>,
        spent: Receiver<Vec<Event>>,
        backlog: Backlog,
    ) -> ChannelSink {
        ChannelSink {
            batch: Vec::with_capacity(BATCH),
            to_writer: Some(to_writer),
            spent,
            backlog,
            closed: false,
        }
    }

    /// Sends what is left, then frees the batches the writer sends back until it
    /// has stored them all (or stopped).
    pub fn finish(mut self) {
        self.flush();
        self.to_writer = None;
        for batch in self.spent.iter() {
            drop(batch);
        }
    }

    /// A batch to fill: one the writer sent back, emptied here, or a new one.
    fn next_batch(&mut self) -> Vec<Event> {
        match self.spent.try_recv() {
            Ok(mut batch) => {
                batch.clear();
                batch
            }
            Err(_) => Vec::with_capacity(BATCH),
        }
    }

    /// Sends a memory at `line`, prepared by `prepare` with its index entry or without
    /// it (when the writer is about to wait for work).
    fn hand_over(&mut self, line: usize, prepare: impl FnOnce(bool) -> Prepared) {
        // nothing to prepare for a writer that has stopped
        if self.closed {
            return;
        }
        let prepared = prepare(!self.backlog.writer_starving());
        self.push(Event::Memory(line, Box::new(prepared)));
    }

    fn push(&mut self, event: Event) {
        if self.closed {
            return;
        }
        self.batch.push(event);
        if self.batch.len() >= BATCH {
            self.flush();
        }
    }

    /// Sends what is batched. When the writer has stopped (it met a store error),
    /// later events are dropped.
    pub fn flush(&mut self) {
        if self.batch.is_empty() || self.closed {
            return;
        }
        let next = self.next_batch();
        let batch = std::mem::replace(&mut self.batch, next);
        self.backlog.sending_one();
        let sent = self.to_writer.as_ref().map(|to| to.send(batch));
        if !matches!(sent, Some(Ok(()))) {
            self.closed = true;
        }
    }
}

impl RecordSink for ChannelSink {
    fn file(&mut self, name: &str) {
        self.push(Event::File(name.to_string()));
    }
    fn memory(&mut self, line: usize, memory: Memory) {
        self.hand_over(line, |with_entry| {
            if with_entry {
                Prepared::new(memory)
            } else {
                Prepared::without_entry(memory)
            }
        });
    }
    fn checked_memory(&mut self, line: usize, memory: Checked) {
        self.hand_over(line, |with_entry| Prepared::of_checked(memory, with_entry));
    }
    fn problem(&mut self, line: usize, field: &str, reason: String) {
        self.push(Event::Problem(line, field.to_string(), reason));
    }
    fn warning(&mut self, line: usize, field: &str, reason: String) {
        self.push(Event::Warning(line, field.to_string(), reason));
    }
}
