//! Curation: every change a person makes to memories (edit, approve, reject, rate,
//! delete, restore, purge, link, unlink, merge, and the same on a selection), each one durable
//! write transaction that can be undone, for the TUI and the command line alike.
//!
//! How it behaves, where SPEC §5 leaves room:
//! - A change names memories by id; an unknown id, a bad value or a record that would
//!   break a rule aborts the whole change and nothing is written.
//! - `updated_at` moves to now on every memory that really changed; a change that
//!   alters nothing (approving an approved memory) writes nothing and is not undoable.
//! - Approve sets `status: validated` and `validated_by: human` (in `extra`, as
//!   hivelore keeps it) and clears a recorded `stale_reason` to null; reject sets
//!   `status: rejected` and `stale_reason`, and clears a recorded `validated_by`.
//!   The agents' verbs (hivelore's `mem_approve` and `mem_reject` through `memlens
//!   mcp`) record `validated_by: agent`, and reject without a reason keeps the one
//!   recorded.
//!   `set status=…` changes only the status.
//! - Delete of a deleted memory keeps its first `deleted_at` (a new reason replaces the
//!   old one); restore clears `deleted_at` and `deleted_reason`.
//! - Link stores the relationship on the first memory unless the other already holds
//!   one to it; linking again with another kind changes that kind. Unlink removes the
//!   link from both sides and also clears a dangling relationship to a purged memory.
//! - Merge keeps one memory and soft-deletes the others with the reason `merged into
//!   <id>` and a `merged` link from the kept one (see [`merge::merged_memory`] for what
//!   it gains); links other memories hold to a merged one stay as they are.
//! - Undo puts back the exact before-images, refusing if a memory changed since;
//!   tracked reads are not edits, so reads made since are kept and do not block it.

pub mod apply;
pub mod edit;
pub mod error;
pub mod field;
mod link;
mod marks;
pub mod merge;
pub mod read;
mod report;
pub mod stack;
pub mod undo;

pub use apply::{Applied, Change, apply, apply_at};
pub use edit::Edit;
pub use error::{CurateError, CurateResult};
pub use field::FieldValue;
pub use read::{track_hits, track_read, track_reads, track_reads_at};
pub use report::report;
pub use stack::UndoStack;
pub use undo::{Undo, UndoEntry, undo};
