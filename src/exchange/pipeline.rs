//! Reading and writing at once: the readers (parsing, validating, encoding the memory
//! and its search record) run on a second thread and hand ready bytes over in batches,
//! while this thread only inserts them into the store, so an import uses both cores of
//! a small machine.

use super::RecordSink;
use crate::model::Memory;
use crate::store::Prepared;
use std::sync::mpsc::SyncSender;

/// Records per batch sent between the threads.
const BATCH: usize = 256;

/// One thing a reader reported, in order.
pub enum Event {
    /// The following events come from this file.
    File(String),
    /// A valid memory at a line, with its stored forms.
    Memory(usize, Box<Prepared>),
    /// A problem at a line: field, reason.
    Problem(usize, String, String),
    /// A warning at a line: field, reason.
    Warning(usize, String, String),
}

/// The reader thread's sink: batches events and sends them to the writer.
pub struct ChannelSink {
    batch: Vec<Event>,
    to_writer: SyncSender<Vec<Event>>,
    closed: bool,
}

impl ChannelSink {
    /// A sink sending to `to_writer`.
    pub fn new(to_writer: SyncSender<Vec<Event>>) -> ChannelSink {
        ChannelSink {
            batch: Vec::with_capacity(BATCH),
            to_writer,
            closed: false,
        }
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
        let batch = std::mem::replace(&mut self.batch, Vec::with_capacity(BATCH));
        if self.to_writer.send(batch).is_err() {
            self.closed = true;
        }
    }
}

impl RecordSink for ChannelSink {
    fn file(&mut self, name: &str) {
        self.push(Event::File(name.to_string()));
    }
    fn memory(&mut self, line: usize, memory: Memory) {
        self.push(Event::Memory(line, Box::new(Prepared::new(memory))));
    }
    fn problem(&mut self, line: usize, field: &str, reason: String) {
        self.push(Event::Problem(line, field.to_string(), reason));
    }
    fn warning(&mut self, line: usize, field: &str, reason: String) {
        self.push(Event::Warning(line, field.to_string(), reason));
    }
}
