//! How a soft delete looks in a hivelore file: `status: deprecated` (which hivelore's
//! loader, briefing and search treat as retired, as its own `memory archive` does) and
//! a `stale_reason` saying memlens deleted it, when, what the status was, and why:
//!
//! `deleted in memlens at 2026-12-02T10:00:00.000Z (status was validated): duplicate`
//!
//! and, when the memory had a `stale_reason` of its own (a rejection's reason), that
//! too, as a JSON string: `… (status was rejected; stale_reason was "ships CJS"): dup`.
//!
//! The index keeps the memory's real status and `stale_reason`, so a restore writes
//! back exactly what the file had. The marker lets an index built afresh (its cache
//! removed) still see the memory as deleted and restore its status and reason.

use crate::model::{Memory, Status, Timestamp};
use serde_json::Value;

const PREFIX: &str = "deleted in memlens at ";
const WAS: &str = " (status was ";
const EARLIER: &str = "; stale_reason was ";

/// What a deletion marker says.
#[derive(Debug, Clone, PartialEq)]
pub struct Deletion {
    /// When the memory was deleted.
    pub at: Timestamp,
    /// Its status before.
    pub status: Status,
    /// Why, when a reason was given.
    pub reason: Option<String>,
    /// The `stale_reason` the memory had before it was deleted.
    pub stale_reason: Option<String>,
}

/// The `stale_reason` written for a deleted memory that had `earlier` as its own.
pub fn marker(
    at: Timestamp,
    status: Status,
    reason: Option<&str>,
    earlier: Option<&str>,
) -> String {
    let mut out = format!("{PREFIX}{at}{WAS}{}", status.as_str());
    if let Some(e) = earlier.filter(|e| !e.is_empty()) {
        out.push_str(EARLIER);
        out.push_str(&serde_json::Value::from(e).to_string());
    }
    out.push(')');
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
    let end = rest.find([')', ';'])?;
    let (status, mut rest) = rest.split_at(end);
    let mut stale_reason = None;
    if let Some(quoted) = rest.strip_prefix(EARLIER) {
        let mut strings = serde_json::Deserializer::from_str(quoted).into_iter::<String>();
        stale_reason = Some(strings.next()?.ok()?);
        rest = &quoted[strings.byte_offset()..];
    }
    let rest = rest.strip_prefix(')')?;
    let reason = match rest.strip_prefix(": ") {
        Some(r) => Some(r.to_string()),
        None if rest.is_empty() => None,
        None => return None,
    };
    Some(Deletion {
        at: Timestamp::parse(at)?,
        status: status.parse().ok()?,
        reason,
        stale_reason,
    })
}

/// The key the marker is written under.
const STALE_REASON: &str = "stale_reason";

/// A soft-deleted memory as a hivelore file shows it (`status: deprecated` and the
/// marker; its `deleted_at` and `deleted_reason` go into the marker); any other memory
/// as it is.
pub fn as_file(memory: &Memory) -> std::borrow::Cow<'_, Memory> {
    let Some(at) = memory.deleted_at else {
        return std::borrow::Cow::Borrowed(memory);
    };
    let mut m = memory.clone();
    let earlier = memory.extra.get(STALE_REASON).and_then(Value::as_str);
    let said = marker(at, memory.status, memory.deleted_reason.as_deref(), earlier);
    m.status = Status::Deprecated;
    m.extra.insert(STALE_REASON.into(), said.into());
    m.deleted_at = None;
    m.deleted_reason = None;
    std::borrow::Cow::Owned(m)
}

/// The deletion a memory read from a hivelore file is marked with, if any: its status
/// is `deprecated` and its `stale_reason` a marker.
pub fn marked(m: &Memory) -> Option<Deletion> {
    (m.status == Status::Deprecated)
        .then(|| m.extra.get(STALE_REASON).and_then(Value::as_str))
        .flatten()
        .and_then(parse)
}

/// Gives a memory read from a file marked deleted (`d`, [`marked`]) back what the
/// marker says: soft-deleted when it says, with its reason, and its own status and
/// `stale_reason`.
pub fn restore_from(m: &mut Memory, d: Deletion) {
    m.status = d.status;
    m.deleted_at = Some(d.at);
    m.deleted_reason = d.reason;
    match d.stale_reason {
        Some(earlier) => m.extra.insert(STALE_REASON.into(), earlier.into()),
        None => m.extra.shift_remove(STALE_REASON),
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_read_back() {
        let at = Timestamp::parse("2026-12-02T10:00:00.000Z").unwrap();
        let text = marker(at, Status::Validated, Some("dup: see x"), None);
        assert_eq!(
            text,
            "deleted in memlens at 2026-12-02T10:00:00.000Z (status was validated): dup: see x"
        );
        let back = parse(&text).unwrap();
        assert_eq!(back.status, Status::Validated);
        assert_eq!(back.reason.as_deref(), Some("dup: see x"));
        assert_eq!(back.stale_reason, None);
        assert_eq!(
            parse(&marker(at, Status::Draft, None, None))
                .unwrap()
                .reason,
            None
        );
        assert_eq!(parse("superseded by y"), None);
        // a rejection's reason, quotes, parentheses and all, comes back whole
        let earlier = r#"we "now" ship (CJS) too; see \x"#;
        let text = marker(at, Status::Rejected, Some("dup (b)"), Some(earlier));
        let back = parse(&text).unwrap();
        assert_eq!(back.status, Status::Rejected);
        assert_eq!(back.stale_reason.as_deref(), Some(earlier));
        assert_eq!(back.reason.as_deref(), Some("dup (b)"));
    }
}
