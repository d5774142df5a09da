//! One memory from its file and what the index knew of it.
//!
//! The file owns what hivelore has a field for: id, scope, module, type, status, tags,
//! `created_at`, the body, `related_ids`, and every other frontmatter key (`anchor`,
//! `sensor`, `stale_reason`, `validated_by`, `topic`, …, kept in `extra`); `usage.json`
//! owns the reads. The index owns the rest — ratings, `weight`, `trust`, `confidence`,
//! the scored dimensions, `rem_visits`, a title the person set, `updated_at`, the kind
//! and strength of a link, and the details of a soft delete — so they survive an agent
//! rewriting the file (hivelore's writer drops frontmatter keys it does not know).

use crate::exchange::hivelore::heading;
use crate::model::{Memory, Relationship, Timestamp};

/// The memory a file now describes, given the index's record of it (`stored`) and
/// whether another memory in the index holds a link to it from `target`
/// (`held_by(target)`: such a link is the one `related_ids` lists, not a second one).
/// `changed_at` becomes `updated_at` when the file says something new.
pub fn merge(
    stored: Option<&Memory>,
    file: Memory,
    held_by: &dyn Fn(&str) -> bool,
    changed_at: Timestamp,
) -> Memory {
    // what the file says of a soft delete (its marker, read as the deletion)
    let marked = (file.deleted_at, file.deleted_reason.clone());
    let mut m = match stored {
        Some(s) => {
            let mut m = s.clone();
            m.scope = file.scope;
            m.module = file.module.clone();
            m.memory_type = file.memory_type.clone();
            m.status = file.status;
            m.tags = file.tags.clone();
            m.created_at = file.created_at;
            m.read_count = file.read_count;
            m.last_read_at = file.last_read_at;
            m.source = file.source.clone();
            m.extra = file.extra.clone();
            if s.title == heading(&s.body) {
                m.title = file.title.clone();
            }
            m.body = file.body.clone();
            m.relationships = relationships(s, &file, held_by);
            m
        }
        None => file.clone(),
    };
    apply_deletion(&mut m, marked, stored);
    if let Some(s) = stored {
        let mut same = m.clone();
        same.updated_at = s.updated_at;
        if &same != s {
            m.updated_at = changed_at.max(s.updated_at);
        }
    }
    m
}

/// The file's `related_ids` as links: the index's link to the same memory keeps its
/// kind and strength; a memory listed there that itself holds the link is not linked
/// twice.
fn relationships(
    stored: &Memory,
    file: &Memory,
    held_by: &dyn Fn(&str) -> bool,
) -> Vec<Relationship> {
    let mut out: Vec<Relationship> = Vec::new();
    for rel in &file.relationships {
        if out.iter().any(|r| r.target == rel.target) {
            continue;
        }
        if let Some(known) = stored.relationships.iter().find(|r| r.target == rel.target) {
            out.push(known.clone());
        } else if rel.kind != "related" || rel.strength.is_some() || !held_by(&rel.target) {
            out.push(rel.clone());
        }
    }
    out
}

/// A file marked deleted by memlens is a soft-deleted memory with its real status (the
/// reading of the file has already taken the marker's word,
/// [`super::deleted::restore_from`]; the index's own record of the deletion is more exact); a
/// file no longer marked (an agent revived it) is not deleted.
fn apply_deletion(
    m: &mut Memory,
    (marked, reason): (Option<Timestamp>, Option<String>),
    stored: Option<&Memory>,
) {
    match (marked, stored.filter(|s| s.deleted_at.is_some())) {
        (Some(_), Some(s)) => {
            m.status = s.status;
            m.deleted_at = s.deleted_at;
            m.deleted_reason = s.deleted_reason.clone();
            match s.extra.get("stale_reason") {
                Some(v) => m.extra.insert("stale_reason".into(), v.clone()),
                None => m.extra.shift_remove("stale_reason"),
            };
        }
        (Some(at), None) => {
            m.deleted_at = Some(at);
            m.deleted_reason = reason;
        }
        (None, _) => {
            m.deleted_at = None;
            m.deleted_reason = None;
        }
    }
}
