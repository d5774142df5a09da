//! Which memories wait in the queues that hold one memory each (`approval`, `pending`,
//! `agent`, `stale`), and in what order: pure predicates over a memory, the clock and
//! the project root given.

use super::fields::{anchor_paths, expires_when, requires_human_approval, validated_by};
use crate::model::{Memory, Status, Timestamp};
use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Days without a read after which a memory is stale (SPEC §2.3's tier drop).
pub const STALE_AFTER_DAYS: i64 = 180;

/// What the queues are judged against: the clock and, for anchors, the project.
#[derive(Debug, Clone)]
pub struct ReviewOptions {
    /// Now, for `expires_when` and days without a read.
    pub now: Timestamp,
    /// The project the memories are about, when there is one: anchors whose path no
    /// longer exists under it make a memory stale.
    pub root: Option<PathBuf>,
}

impl ReviewOptions {
    /// Options at `now` without a project.
    pub fn at(now: Timestamp) -> ReviewOptions {
        ReviewOptions { now, root: None }
    }
}

/// True for a status that has left review for good (superseded or turned down).
fn retired(m: &Memory) -> bool {
    matches!(m.status, Status::Deprecated | Status::Rejected)
}

/// `approval`: asks for a person's approval and no person has decided yet.
pub fn needs_approval(m: &Memory) -> Option<String> {
    let decided = retired(m) || (m.status == Status::Validated && validated_by(m) == Some("human"));
    (requires_human_approval(m) && !decided).then(|| "requires human approval".to_string())
}

/// `pending`: draft or proposed.
pub fn is_pending(m: &Memory) -> Option<String> {
    matches!(m.status, Status::Draft | Status::Proposed).then(|| m.status.to_string())
}

/// `agent`: validated, but by an agent or an automatic rule rather than a person.
pub fn agent_validated(m: &Memory) -> Option<String> {
    match validated_by(m) {
        Some(by @ ("agent" | "auto")) if m.status == Status::Validated => {
            Some(format!("validated by {by}"))
        }
        _ => None,
    }
}

/// Remembers which anchor paths exist, so a path shared by many memories is looked up
/// once.
#[derive(Debug, Default)]
pub struct AnchorCheck {
    seen: HashMap<String, bool>,
}

impl AnchorCheck {
    /// The first of the memory's anchor paths missing under `root`. A path with a glob
    /// character cannot be looked up, so it is taken as present.
    pub fn missing<'m>(&mut self, root: &Path, m: &'m Memory) -> Option<&'m str> {
        anchor_paths(m).into_iter().find(|path| {
            if path.contains(['*', '?', '[']) {
                return false;
            }
            let exists = *self
                .seen
                .entry((*path).to_string())
                .or_insert_with(|| root.join(path.trim_start_matches('/')).exists());
            !exists
        })
    }
}

/// `stale`: status stale, or neither read nor changed for [`STALE_AFTER_DAYS`]
/// ([`last_attended`]), or `expires_when` passed, or an anchor gone from the project. Memories
/// already deprecated or rejected are done with and not listed.
pub fn is_stale(m: &Memory, options: &ReviewOptions, anchors: &mut AnchorCheck) -> Option<String> {
    if retired(m) {
        return None;
    }
    if m.status == Status::Stale {
        return Some("status stale".into());
    }
    if let Some(at) = expires_when(m)
        && at <= options.now
    {
        return Some("expired".into());
    }
    let last = last_attended(m);
    if last.days_until(options.now) >= STALE_AFTER_DAYS {
        let day: String = last.to_string().chars().take(10).collect();
        return Some(format!("neither read nor changed since {day}"));
    }
    if let Some(root) = &options.root
        && let Some(path) = anchors.missing(root, m)
    {
        return Some(format!("anchor {path} is gone"));
    }
    None
}

/// When someone last attended to the memory: its last read, its writing, or its last
/// change (a person's approval or edit, an agent's update), whichever came last. A
/// memory a person just approved from the stale queue is not stale any more.
pub fn last_attended(m: &Memory) -> Timestamp {
    m.last_read_at
        .unwrap_or(m.created_at)
        .max(m.created_at)
        .max(m.updated_at)
}

/// When a memory that is not stale now becomes stale by the clock alone (its
/// `expires_when`, or [`STALE_AFTER_DAYS`] after its last read); `None` for one done
/// with.
pub fn stale_from(m: &Memory) -> Option<Timestamp> {
    if retired(m) || m.status == Status::Stale {
        return None;
    }
    let unread = Timestamp(last_attended(m).0.saturating_add(STALE_AFTER_DAYS * DAY));
    Some(expires_when(m).map_or(unread, |at| at.min(unread)))
}

/// A day in nanoseconds.
const DAY: i64 = 86_400_000_000_000;

/// The order of the single-memory queues: most read first (as hivelore's
/// `mem_pending`), then newest, then id.
pub fn most_read_first(a: &Memory, b: &Memory) -> Ordering {
    b.read_count
        .cmp(&a.read_count)
        .then(b.created_at.cmp(&a.created_at))
        .then(a.id.cmp(&b.id))
}
