//! What can go wrong while curating, split into mistakes in the request (usage errors,
//! exit 2) and failures of the store or of the world (exit 1).

use crate::model::FieldError;
use crate::store::StoreError;

/// Every way a curation request can fail. Nothing is written when one is returned.
#[derive(Debug, thiserror::Error)]
pub enum CurateError {
    /// No memory has this id.
    #[error("no memory with id `{0}`")]
    UnknownId(String),
    /// A verb was given no ids at all.
    #[error("no memory ids given")]
    NoIds,
    /// `supersede` was asked to supersede a memory by itself.
    #[error("`{0}` cannot supersede itself; name the memory kept and the one superseded")]
    SupersedeItself(String),
    /// A supersede of (or by) a soft-deleted memory.
    #[error("memory `{0}` is deleted; restore it before superseding")]
    SupersedeDeleted(String),
    /// A supersede in favour of a memory that the other already supersedes.
    #[error(
        "`{keep}` is itself superseded by `{old}`; restore `{keep}`'s status first (memlens set {keep} status=…) to turn the supersede around"
    )]
    SupersedeCycle {
        /// The memory asked to be kept.
        keep: String,
        /// The memory asked to be superseded, which supersedes it.
        old: String,
    },
    /// `set` was given a field memlens does not know.
    #[error("unknown field `{0}`; fields that can be set: {FIELDS}, feel_*")]
    UnknownField(String),
    /// `set` was given a field that exists but is derived or kept by memlens.
    #[error("field `{field}` cannot be set: {why}")]
    NotSettable {
        /// The field as typed.
        field: String,
        /// Why, and what to use instead.
        why: &'static str,
    },
    /// `set` was given something other than `FIELD=VALUE`.
    #[error("expected FIELD=VALUE, found `{0}`")]
    NotAnAssignment(String),
    /// `set` was given the same field twice.
    #[error("field `{0}` is given more than once")]
    RepeatedField(String),
    /// A value that does not fit its field.
    #[error("{field}: `{value}` {reason}")]
    BadValue {
        /// The field.
        field: String,
        /// The value as typed.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The change would leave a memory breaking a rule of the data model.
    #[error("memory `{id}` would become invalid: {}", list(.errors))]
    Invalid {
        /// The memory.
        id: String,
        /// Every rule it would break.
        errors: Vec<FieldError>,
    },
    /// A new memory that breaks a rule of the data model.
    #[error("the memory cannot be created: {}", list(.0))]
    InvalidNew(Vec<FieldError>),
    /// A new memory was given an id another memory has.
    #[error("a memory with id `{0}` exists already")]
    IdTaken(String),
    /// A reject without a reason.
    #[error("a rejection needs a reason: say why the memory is rejected")]
    MissingReason,
    /// A purge that was not confirmed.
    #[error(
        "purge removes {} for good and cannot be undone from the command line; pass --yes to confirm",
        crate::words::memories(*.0)
    )]
    PurgeNotConfirmed(usize),
    /// A memory linked to, or unlinked from, itself.
    #[error("memory `{0}` cannot be linked to itself")]
    SelfLink(String),
    /// A merge that names the kept memory among the merged ones.
    #[error("memory `{0}` cannot be merged into itself")]
    MergeIntoItself(String),
    /// A merge of (or into) a soft-deleted memory.
    #[error("memory `{0}` is deleted; restore it before merging")]
    MergeDeleted(String),
    /// Unlink of two memories that are not linked.
    #[error("memories `{a}` and `{b}` are not linked")]
    NotLinked {
        /// One memory.
        a: String,
        /// The other.
        b: String,
    },
    /// Undo refused: the memory changed since the change being undone.
    #[error(
        "cannot {action} \"{description}\": memory `{id}` was changed since; nothing was written"
    )]
    Conflict {
        /// `undo` or `redo`.
        action: &'static str,
        /// What the change being undone did.
        description: String,
        /// The memory that changed.
        id: String,
    },
    /// Undo (or redo) with an empty history.
    #[error("nothing to {0}")]
    NothingToUndo(&'static str),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Writing the report failed.
    #[error("cannot write output: {0}")]
    Output(#[from] std::io::Error),
}

/// The fields `memlens set` accepts, for messages.
pub const FIELDS: &str = "title, body, type, scope, module, status, tags, weight, trust, trust_level, confidence, rem_visits";

fn list(errors: &[FieldError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl CurateError {
    /// True for mistakes in the request itself (exit code 2); false for failures
    /// (unknown ids, conflicts, storage and output errors: exit code 1).
    pub fn is_usage(&self) -> bool {
        match self {
            CurateError::NoIds
            | CurateError::SupersedeItself(_)
            | CurateError::UnknownField(_)
            | CurateError::NotSettable { .. }
            | CurateError::NotAnAssignment(_)
            | CurateError::RepeatedField(_)
            | CurateError::BadValue { .. }
            | CurateError::Invalid { .. }
            | CurateError::InvalidNew(_)
            | CurateError::MissingReason
            | CurateError::PurgeNotConfirmed(_)
            | CurateError::SelfLink(_)
            | CurateError::MergeIntoItself(_) => true,
            CurateError::UnknownId(_)
            | CurateError::IdTaken(_)
            | CurateError::MergeDeleted(_)
            | CurateError::SupersedeDeleted(_)
            | CurateError::SupersedeCycle { .. }
            | CurateError::NotLinked { .. }
            | CurateError::Conflict { .. }
            | CurateError::NothingToUndo(_)
            | CurateError::Store(_)
            | CurateError::Output(_) => false,
        }
    }
}

/// Result of a curation request.
pub type CurateResult<T> = Result<T, CurateError>;
