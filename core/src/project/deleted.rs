//! How a soft delete looks in a hivelore file: `status: deprecated` (which hivelore's
//! loader, briefing and search treat as retired, as its own `memory archive` does) and
//! a `stale_reason` saying memlens deleted it, when, what the status was, and why:
//!
//! `deleted in memlens at 2026-12-02T10:00:00.000Z (status was validated): duplicate`
//!
//! The index keeps the memory's real status and `stale_reason`, so a restore writes
//! back exactly what the file had. The marker lets an index built afresh (its cache
//! removed) still see the memory as deleted and restore its status.

use crate::model::{Status, Timestamp};

const PREFIX: &str = "deleted in memlens at ";
const WAS: &str = " (status was ";

/// What a deletion marker says.
#[derive(Debug, Clone, PartialEq)]
pub struct Deletion {
    /// When the memory was deleted.
    pub at: Timestamp,
    /// Its status before.
    pub status: Status,
    /// Why, when a reason was given.
    pub reason: Option<String>,
}

/// The `stale_reason` written for a deleted memory.
pub fn marker(at: Timestamp, status: Status, reason: Option<&str>) -> String {
    let mut out = format!("{PREFIX}{at}{WAS}{})", status.as_str());
    if let Some(r) = reason.filter(|r| !r.is_empty()) {
        out.push_str(": ");
        out.push_str(r);
    }
    out
}

/// Reads a deletion marker back; `None` for any other `stale_reason`.
pub fn parse(stale_reason: &str) -> Option<Deletion> {
    let rest = stale_reason.strip_prefix(PREFIX)?;
    let (at, rest) = rest.split_once(WAS)?;
    let (status, rest) = rest.split_once(')')?;
    let reason = match rest.strip_prefix(": ") {
        Some(r) => Some(r.to_string()),
        None if rest.is_empty() => None,
        None => return None,
    };
    Some(Deletion {
        at: Timestamp::parse(at)?,
        status: status.parse().ok()?,
        reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_read_back() {
        let at = Timestamp::parse("2026-12-02T10:00:00.000Z").unwrap();
        let text = marker(at, Status::Validated, Some("dup: see x"));
        assert_eq!(
            text,
            "deleted in memlens at 2026-12-02T10:00:00.000Z (status was validated): dup: see x"
        );
        let back = parse(&text).unwrap();
        assert_eq!(back.status, Status::Validated);
        assert_eq!(back.reason.as_deref(), Some("dup: see x"));
        assert_eq!(
            parse(&marker(at, Status::Draft, None)).unwrap().reason,
            None
        );
        assert_eq!(parse("superseded by y"), None);
    }
}
