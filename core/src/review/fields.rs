//! The review fields hivelore writes in a memory's frontmatter, read from where memlens
//! keeps them: `extra` (hivelore imports and JSONL lines with the same names put them
//! there), by hivelore's own names and types (`packages/core/src/schema.ts`).

use crate::model::{Memory, Timestamp};
use serde_json::Value;

/// `requires_human_approval`: the agent must not act on it before a person confirms.
pub const REQUIRES_HUMAN_APPROVAL: &str = "requires_human_approval";
/// `expires_when`: an instant after which the memory no longer holds.
pub const EXPIRES_WHEN: &str = "expires_when";
/// `anchor`: `{paths: [...], symbols: [...]}`, the files the memory is about.
pub const ANCHOR: &str = "anchor";
/// `topic`: hivelore's stable key for one subject.
pub const TOPIC: &str = "topic";
pub use crate::curate::edit::{NOT_DUPLICATE_OF, STALE_REASON, VALIDATED_BY};

/// True when the memory asks for a person's approval. hivelore writes a YAML boolean;
/// a quoted `"true"` (a hand-edited file, a JSONL string) counts too.
pub fn requires_human_approval(m: &Memory) -> bool {
    match m.extra.get(REQUIRES_HUMAN_APPROVAL) {
        Some(Value::Bool(b)) => *b,
        Some(Value::String(s)) => s.trim().eq_ignore_ascii_case("true"),
        _ => false,
    }
}

/// A text field of `extra`, trimmed, when it holds any text.
fn text<'m>(m: &'m Memory, key: &str) -> Option<&'m str> {
    m.extra
        .get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Who trusted the memory (`human`, `agent`, `auto`), when recorded.
pub fn validated_by(m: &Memory) -> Option<&str> {
    text(m, VALIDATED_BY)
}

/// The instant `expires_when` names, when it names one (hivelore ignores a value that
/// does not parse as a date, and so does memlens).
pub fn expires_when(m: &Memory) -> Option<Timestamp> {
    m.extra
        .get(EXPIRES_WHEN)
        .and_then(Value::as_str)
        .and_then(Timestamp::parse)
}

/// The anchor's paths, relative to the project root.
pub fn anchor_paths(m: &Memory) -> Vec<&str> {
    m.extra
        .get(ANCHOR)
        .and_then(|a| a.get("paths"))
        .and_then(Value::as_array)
        .map(|paths| {
            paths
                .iter()
                .filter_map(Value::as_str)
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The memory's topic, trimmed, when it has one.
pub fn topic(m: &Memory) -> Option<&str> {
    text(m, TOPIC)
}

/// The ids a person marked as not duplicated by this memory.
pub fn not_duplicate_of(m: &Memory) -> Vec<&str> {
    m.extra
        .get(NOT_DUPLICATE_OF)
        .and_then(Value::as_array)
        .map(|ids| ids.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}
