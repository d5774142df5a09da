//! Applying one curation change to the store: every memory it touches is read, changed,
//! validated and written in one durable write transaction, or nothing is written.

use super::edit::Edit;
use super::error::{CurateError, CurateResult};
use super::link;
use super::merge;
use super::undo::{Undo, UndoEntry};
use crate::model::memory::DEFAULT_RELATIONSHIP_KIND;
use crate::model::{Memory, Timestamp};
use crate::store::{Store, StoreWriter};

/// One curation request, on one memory or on a whole selection.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// Apply an edit to every listed memory (bulk when there are several).
    Edit {
        /// The memories; duplicates are ignored.
        ids: Vec<String>,
        /// What to do to each.
        edit: Edit,
    },
    /// Remove memories for good (links other memories hold to them stay, shown missing).
    Purge {
        /// The memories; duplicates are ignored.
        ids: Vec<String>,
    },
    /// Link two memories (undirected). An existing link between them keeps its side
    /// and takes the new kind; the same kind again, or no kind, changes nothing.
    Link {
        /// The memory that holds a new relationship.
        a: String,
        /// The memory linked to.
        b: String,
        /// The relationship kind; blank means `related` for a new link and the kind it
        /// has for a link already there.
        kind: String,
    },
    /// Remove every relationship between two memories, whichever side holds it.
    Unlink {
        /// One memory.
        a: String,
        /// The other.
        b: String,
    },
    /// Keep one memory and deprecate another in its favour (hivelore's supersede):
    /// `old` gets status deprecated, a `stale_reason` naming `keep` and a link to it.
    Supersede {
        /// The memory kept.
        keep: String,
        /// The memory superseded.
        old: String,
    },
    /// Merge memories into one, which keeps what they add; the merged ones are
    /// soft-deleted (see [`super::merge::merged_memory`]).
    Merge {
        /// The memory kept.
        into: String,
        /// The memories merged into it; duplicates are ignored.
        from: Vec<String>,
    },
    /// Store a new memory (an agent's); its id must not be taken. Undoing it purges it.
    Create(Box<Memory>),
}

impl Change {
    /// `edit` on the given ids.
    pub fn edit<S: Into<String>>(ids: impl IntoIterator<Item = S>, edit: Edit) -> Change {
        Change::Edit {
            ids: ids.into_iter().map(Into::into).collect(),
            edit,
        }
    }

    /// A link of the default kind, `related`.
    pub fn link(a: impl Into<String>, b: impl Into<String>) -> Change {
        Change::Link {
            a: a.into(),
            b: b.into(),
            kind: DEFAULT_RELATIONSHIP_KIND.into(),
        }
    }

    /// What the change does, for the undo history and messages: `approve 3 memories`.
    pub fn describe(&self) -> String {
        let many = |ids: &[String]| match ids {
            [one] => format!("`{one}`"),
            ids => format!("{} memories", dedup(ids).len()),
        };
        match self {
            Change::Edit { ids, edit } => format!("{} {}", edit.describe(), many(ids)),
            Change::Purge { ids } => format!("purge {}", many(ids)),
            Change::Link { a, b, kind } => {
                format!("link `{a}` and `{b}` ({})", kind_or_default(kind))
            }
            Change::Unlink { a, b } => format!("unlink `{a}` and `{b}`"),
            Change::Merge { into, from } => format!("merge {} into `{into}`", many(from)),
            Change::Supersede { keep, old } => format!("supersede `{old}` by `{keep}`"),
            Change::Create(m) => format!("create `{}`", m.id),
        }
    }

    /// Why this change may leave a memory as it was, when it can say (`None`: a purge,
    /// unlink or merge changes every memory it names or fails).
    pub fn no_op_reason(&self) -> Option<&'static str> {
        match self {
            Change::Edit { edit, .. } => Some(edit.no_op_reason()),
            Change::Link { .. } => Some("already linked (with that kind, or no other given)"),
            Change::Supersede { .. } => Some("already superseded by it"),
            Change::Purge { .. }
            | Change::Unlink { .. }
            | Change::Merge { .. }
            | Change::Create(_) => None,
        }
    }
}

/// The kind as it will be stored: trimmed, `related` when blank.
pub(super) fn kind_or_default(kind: &str) -> &str {
    match kind.trim() {
        "" => DEFAULT_RELATIONSHIP_KIND,
        k => k,
    }
}

/// What a change did: the undo record (whose entries are the changed memories) and the
/// memories it left as they were.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    /// Restores every changed memory; hand it to an [`super::UndoStack`].
    pub undo: Undo,
    /// Ids the change named but did not need to change (already approved, …).
    pub unchanged: Vec<String>,
}

impl Applied {
    /// One entry per changed memory, in the order they were changed.
    pub fn changed(&self) -> &[UndoEntry] {
        &self.undo.entries
    }

    /// True when nothing was written.
    pub fn is_no_op(&self) -> bool {
        self.undo.entries.is_empty()
    }

    /// The changed memories that are soft-deleted after the change (an agent's write
    /// to one is kept, but nothing lists it until it is restored).
    pub fn left_deleted(&self) -> Vec<&str> {
        (self.undo.entries.iter())
            .filter(|e| e.after.as_ref().is_some_and(|m| m.deleted_at.is_some()))
            .filter(|e| e.before.as_ref().is_some_and(|m| m.deleted_at.is_some()))
            .map(|e| e.id.as_str())
            .collect()
    }
}

/// The memories a change has touched so far, inside its write transaction.
pub(super) struct Pending {
    pub(super) entries: Vec<UndoEntry>,
    pub(super) unchanged: Vec<String>,
    pub(super) now: Timestamp,
}

impl Pending {
    /// Stores `after` in place of `before` unless they are equal; `updated_at` moves to
    /// now only on a real change, and the new record must pass validation.
    pub(super) fn save(
        &mut self,
        w: &mut StoreWriter,
        before: Memory,
        mut after: Memory,
    ) -> CurateResult<()> {
        after.normalise();
        if after == before {
            self.unchanged.push(before.id);
            return Ok(());
        }
        after.updated_at = self.now;
        super::marks::note_person_changes(&before, &mut after);
        let errors = after.validate();
        if !errors.is_empty() {
            return Err(CurateError::Invalid {
                id: after.id,
                errors,
            });
        }
        w.put(&after)?;
        self.entries.push(UndoEntry {
            id: after.id.clone(),
            before: Some(before),
            after: Some(after),
        });
        Ok(())
    }
}

/// The memory with this id, or an `UnknownId` error.
pub(super) fn existing(w: &StoreWriter, id: &str) -> CurateResult<Memory> {
    w.get(id)?
        .ok_or_else(|| CurateError::UnknownId(id.to_string()))
}

/// The ids without duplicates, first occurrence kept.
fn dedup(ids: &[String]) -> Vec<&str> {
    let mut seen = std::collections::HashSet::new();
    ids.iter()
        .map(String::as_str)
        .filter(|id| seen.insert(*id))
        .collect()
}

/// Stores a new memory: normalised, valid, and under an id no memory has.
fn create(w: &mut StoreWriter, pending: &mut Pending, memory: &Memory) -> CurateResult<()> {
    let mut memory = memory.clone();
    memory.normalise();
    let errors = memory.validate();
    if !errors.is_empty() {
        // the id may be one made up for it: the rules broken say it all
        return Err(CurateError::InvalidNew(errors));
    }
    if w.get(&memory.id)?.is_some() {
        return Err(CurateError::IdTaken(memory.id));
    }
    w.put(&memory)?;
    pending.entries.push(UndoEntry {
        id: memory.id.clone(),
        before: None,
        after: Some(memory),
    });
    Ok(())
}

/// Applies a change now, in one durable transaction. On any error nothing is written.
pub fn apply(store: &Store, change: &Change) -> CurateResult<Applied> {
    apply_at(store, change, Timestamp::now())
}

/// [`apply`] with the clock given: `now` becomes `updated_at` (and `deleted_at`).
pub fn apply_at(store: &Store, change: &Change, now: Timestamp) -> CurateResult<Applied> {
    if let Change::Edit { edit, .. } = change {
        edit.check()?;
    }
    let mut w = store.write()?;
    let mut pending = Pending {
        entries: Vec::new(),
        unchanged: Vec::new(),
        now,
    };
    match change {
        Change::Edit { ids, edit } => {
            let ids = dedup(ids);
            if ids.is_empty() {
                return Err(CurateError::NoIds);
            }
            for id in ids {
                let before = existing(&w, id)?;
                let mut after = before.clone();
                edit.apply_to(&mut after, now)?;
                pending.save(&mut w, before, after)?;
            }
        }
        Change::Purge { ids } => {
            let ids = dedup(ids);
            if ids.is_empty() {
                return Err(CurateError::NoIds);
            }
            for id in ids {
                existing(&w, id)?;
                let before = w.purge(id)?;
                pending.entries.push(UndoEntry {
                    id: id.to_string(),
                    before: Some(before),
                    after: None,
                });
            }
        }
        Change::Link { a, b, kind } => link::link(&mut w, &mut pending, a, b, kind)?,
        Change::Unlink { a, b } => link::unlink(&mut w, &mut pending, a, b)?,
        Change::Merge { into, from } => merge::merge(&mut w, &mut pending, into, &dedup(from))?,
        Change::Supersede { keep, old } => {
            if keep == old {
                return Err(CurateError::SupersedeItself(keep.clone()));
            }
            let kept = existing(&w, keep)?;
            let before = existing(&w, old)?;
            for m in [&kept, &before] {
                if m.deleted_at.is_some() {
                    return Err(CurateError::SupersedeDeleted(m.id.clone()));
                }
            }
            if crate::curate::edit::is_superseded_by(&kept, old) {
                return Err(CurateError::SupersedeCycle {
                    keep: keep.clone(),
                    old: old.clone(),
                });
            }
            let mut after = before.clone();
            Edit::Supersede { by: keep.clone() }.apply_to(&mut after, now)?;
            pending.save(&mut w, before, after)?;
            // the pair's link is now the one `old` holds: one the kept memory held to
            // it goes, so the pair is not linked twice with two kinds
            if link::held(&kept, old).is_some() {
                let mut unlinked = kept.clone();
                unlinked.relationships.retain(|r| r.target != *old);
                pending.save(&mut w, kept, unlinked)?;
            }
        }
        Change::Create(memory) => create(&mut w, &mut pending, memory)?,
    }
    if !pending.entries.is_empty() {
        w.commit()?;
    }
    Ok(Applied {
        undo: Undo {
            description: change.describe(),
            entries: pending.entries,
        },
        unchanged: pending.unchanged,
    })
}
