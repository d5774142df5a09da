//! The undo history a session keeps: applied changes, newest last, several levels deep,
//! with redo of what was just undone.

use super::apply::{Applied, Change, apply_at};
use super::error::{CurateError, CurateResult};
use super::undo::{Undo, undo};
use crate::model::Timestamp;
use crate::store::Store;

/// How many changes an [`UndoStack`] remembers by default.
pub const DEFAULT_UNDO_DEPTH: usize = 100;

/// The undo and redo history of one session (the TUI holds one).
#[derive(Debug, Clone)]
pub struct UndoStack {
    done: Vec<Undo>,
    undone: Vec<Undo>,
    depth: usize,
}

impl Default for UndoStack {
    fn default() -> Self {
        UndoStack::new(DEFAULT_UNDO_DEPTH)
    }
}

impl UndoStack {
    /// An empty history remembering at most `depth` changes (at least one).
    pub fn new(depth: usize) -> UndoStack {
        UndoStack {
            done: Vec::new(),
            undone: Vec::new(),
            depth: depth.max(1),
        }
    }

    /// Applies a change now and remembers how to undo it.
    pub fn apply(&mut self, store: &Store, change: &Change) -> CurateResult<Applied> {
        self.apply_at(store, change, Timestamp::now())
    }

    /// [`UndoStack::apply`] with the clock given.
    pub fn apply_at(
        &mut self,
        store: &Store,
        change: &Change,
        now: Timestamp,
    ) -> CurateResult<Applied> {
        let applied = apply_at(store, change, now)?;
        self.push(applied.undo.clone());
        Ok(applied)
    }

    /// Remembers an applied change; a change that wrote nothing is not remembered.
    /// A new change forgets what was undone (no redo past it); the oldest change is
    /// forgotten beyond the depth.
    pub fn push(&mut self, undo: Undo) {
        if undo.entries.is_empty() {
            return;
        }
        self.undone.clear();
        self.done.push(undo);
        if self.done.len() > self.depth {
            self.done.remove(0);
        }
    }

    /// Number of changes that can be undone.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// True when there is nothing to undo.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// The change the next undo takes back, to name it in the UI.
    pub fn next_undo(&self) -> Option<&Undo> {
        self.done.last()
    }

    /// The change the next redo applies again.
    pub fn next_redo(&self) -> Option<&Undo> {
        self.undone.last()
    }

    /// Takes back the newest change. When a memory changed since (a conflict) the change
    /// can never be undone and is dropped from the history; after any other error it
    /// stays, to try again.
    pub fn undo(&mut self, store: &Store) -> CurateResult<Applied> {
        let top = self.done.pop().ok_or(CurateError::NothingToUndo("undo"))?;
        match undo(store, &top) {
            Ok(applied) => {
                self.undone.push(applied.undo.clone());
                Ok(applied)
            }
            Err(e) => {
                if !matches!(e, CurateError::Conflict { .. }) {
                    self.done.push(top);
                }
                Err(e)
            }
        }
    }

    /// Applies again the change most recently undone.
    pub fn redo(&mut self, store: &Store) -> CurateResult<Applied> {
        let top = self
            .undone
            .pop()
            .ok_or(CurateError::NothingToUndo("redo"))?;
        let redone = undo(store, &top).map_err(|e| match e {
            CurateError::Conflict {
                description, id, ..
            } => CurateError::Conflict {
                action: "redo",
                description,
                id,
            },
            other => other,
        });
        match redone {
            Ok(applied) => {
                self.done.push(applied.undo.clone());
                Ok(applied)
            }
            Err(e) => {
                if !matches!(e, CurateError::Conflict { .. }) {
                    self.undone.push(top);
                }
                Err(e)
            }
        }
    }
}
