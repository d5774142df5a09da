//! Running the browser's writes: curation changes, undo and redo through one session
//! `UndoStack`, and tracked reads — each one durable write transaction through
//! the collection, run off the UI loop. The worker and the headless browser both call these.

use super::action::Action;
use super::offload::{Waits, offload};
use crate::collection::{Collection, CollectionResult};
use crate::curate::{Applied, Change};
use crate::model::Memory;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;

/// One write the browser asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteJob {
    /// Apply a curation change and remember how to undo it.
    Change {
        /// Tag the outcome carries back (the editor waits for its own save).
        token: u64,
        /// What to change.
        change: Change,
    },
    /// Take back the newest change.
    Undo,
    /// Apply again the change most recently undone.
    Redo,
    /// Count one read of a memory (not an edit, never undone).
    Read {
        /// The memory opened.
        id: String,
    },
    /// Read the files of the project that changed on disk (not an edit, never undone).
    Reread(Box<crate::project::live::Changed>),
}

/// Which kind of write an outcome reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteKind {
    /// A curation change.
    Change,
    /// An undo.
    Undo,
    /// A redo.
    Redo,
    /// Files read again because they changed on disk.
    Disk,
}

/// One memory a write touched, as it is stored now (`None` = no longer in the store).
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The memory's id.
    pub id: String,
    /// The record after the write.
    pub after: Option<Memory>,
}

/// What a successful write did.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteReport {
    /// The change in words: `approve 3 memories`.
    pub description: String,
    /// The memories it changed.
    pub changed: Vec<Written>,
    /// Memories named but left as they were.
    pub unchanged: Vec<String>,
    /// Why those were left, when the change knows: `already approved`.
    pub no_op_reason: Option<&'static str>,
}

/// The answer to a change, undo or redo.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteOutcome {
    /// What was asked.
    pub kind: WriteKind,
    /// The change's tag (0 for undo and redo).
    pub token: u64,
    /// What it did, or the one-line reason it did nothing.
    pub result: Result<WriteReport, String>,
    /// What the next undo would take back.
    pub next_undo: Option<String>,
    /// What the next redo would apply again.
    pub next_redo: Option<String>,
    /// How long the write took, commit included.
    pub elapsed: Duration,
}

fn report(applied: Applied, no_op_reason: Option<&'static str>) -> WriteReport {
    WriteReport {
        description: applied.undo.description,
        changed: applied
            .undo
            .entries
            .into_iter()
            .map(|e| Written {
                id: e.id,
                after: e.after,
            })
            .collect(),
        unchanged: applied.unchanged,
        no_op_reason,
    }
}

/// Runs one write through the collection and answers with the action that reports it.
pub fn run_write(memories: &dyn Collection, job: &WriteJob) -> Action {
    let started = Instant::now();
    let (kind, token, result, reason): (_, _, CollectionResult<Applied>, _) = match job {
        WriteJob::Read { id } => {
            let result = memories
                .track_read(id)
                .map(Box::new)
                .map_err(|e| e.to_string());
            return Action::ReadTracked {
                id: id.clone(),
                result,
            };
        }
        WriteJob::Change { token, change } => (
            WriteKind::Change,
            *token,
            memories.apply(change),
            change.no_op_reason(),
        ),
        WriteJob::Reread(changed) => {
            return crate::project::live::reread(memories, changed, started);
        }
        WriteJob::Undo => (WriteKind::Undo, 0, memories.undo(), None),
        WriteJob::Redo => (WriteKind::Redo, 0, memories.redo(), None),
    };
    let history = memories.history();
    Action::Written(Box::new(WriteOutcome {
        kind,
        token,
        result: result
            .map(|applied| report(applied, reason))
            .map_err(|e| e.to_string()),
        next_undo: history.next_undo,
        next_redo: history.next_redo,
        elapsed: started.elapsed(),
    }))
}

/// The answer to a write that could not run at all (its thread failed).
fn write_failed(job: &WriteJob, reason: String) -> Action {
    let (kind, token) = match job {
        WriteJob::Read { id } => {
            return Action::ReadTracked {
                id: id.clone(),
                result: Err(reason),
            };
        }
        WriteJob::Change { token, .. } => (WriteKind::Change, *token),
        WriteJob::Reread(_) => (WriteKind::Disk, 0),
        WriteJob::Undo => (WriteKind::Undo, 0),
        WriteJob::Redo => (WriteKind::Redo, 0),
    };
    Action::Written(Box::new(WriteOutcome {
        kind,
        token,
        result: Err(reason),
        next_undo: None,
        next_redo: None,
        elapsed: Duration::ZERO,
    }))
}

/// Runs the writes one at a time, in the order sent, each on a blocking thread timed
/// in `waits` (the session's undo history is the collection's). Ends when the sender is dropped
/// and every write already sent is done, so none is lost on quit. A write that panics
/// on a damaged store is dropped whole (redb never commits half a transaction) and
/// answers with the damage.
pub async fn write_task(
    memories: Arc<dyn Collection>,
    mut jobs: mpsc::UnboundedReceiver<WriteJob>,
    actions: mpsc::UnboundedSender<Action>,
    waits: Waits,
) {
    while let Some(job) = jobs.recv().await {
        let (m, j) = (memories.clone(), job.clone());
        let answer = offload(&waits, move || run_write(m.as_ref(), &j))
            .await
            .unwrap_or_else(|reason| write_failed(&job, reason));
        // The screen may be gone already on quit; the write is done either way.
        let _ = actions.send(answer);
    }
}
