//! The names memlens's own JSON form of a memory gives a meaning to. A key in `extra`
//! with one of these names must never sit beside the real fields (it would replace
//! or duplicate them: a memory exported under another's id), so the JSON form keeps
//! such keys inside a nested `"extra"` object, which reads back into `extra`.

use super::feel::feel_field_index;
use super::json::DERIVED_FIELDS;

/// The stored fields `Memory::to_json` writes, in its order (the `feel_*` fields aside).
pub const STORED_FIELDS: [&str; 25] = [
    "id",
    "title",
    "body",
    "type",
    "scope",
    "module",
    "status",
    "tags",
    "weight",
    "trust",
    "confidence",
    "trust_score",
    "created_at",
    "updated_at",
    "deleted_at",
    "deleted_reason",
    "last_read_at",
    "read_count",
    "rating_sum",
    "rating_count",
    "ratings",
    "relationships",
    "rem_visits",
    "source",
    "curated",
];

/// Keys that `get --json` and `search --json` add beside the stored and derived fields.
const OUTPUT_ONLY: [&str; 5] = [
    "score",
    "match_quality",
    "is_discovery",
    "snippet",
    "confidence_tier",
];

/// Other names the JSON reader understands: remember-core's aliases and the nested
/// object of kept keys itself.
const READ_ALIASES: [&str; 3] = ["content", "content_type", "extra"];

/// True when `key` means something in memlens's JSON form (a stored, derived or
/// output field, an alias the reader takes, any `feel_*` or `functional_*` name), so
/// that an `extra` key of that name is written inside the nested `"extra"` object.
pub fn is_model_key(key: &str) -> bool {
    STORED_FIELDS.contains(&key)
        || DERIVED_FIELDS.contains(&key)
        || OUTPUT_ONLY.contains(&key)
        || READ_ALIASES.contains(&key)
        || feel_field_index(key).is_some()
        || key.starts_with("functional_")
        || key.starts_with("feel_")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{FEEL_DIMS, Memory, Timestamp};

    #[test]
    fn every_key_the_json_form_writes_is_a_model_key() {
        let mut m = Memory::new("a", "b", Timestamp(0));
        m.title = Some("t".into());
        m.module = Some("m".into());
        m.confidence = Some(0.5);
        m.deleted_at = Some(Timestamp(1));
        m.deleted_reason = Some("r".into());
        m.last_read_at = Some(Timestamp(2));
        m.rem_visits = Some(1);
        m.source = Some(crate::model::Source {
            system: "s".into(),
            path: None,
            id: None,
            keys: Vec::new(),
        });
        for v in m.feel.iter_mut() {
            *v = Some(0.5);
        }
        for key in m.to_json().keys() {
            assert!(is_model_key(key), "{key}");
        }
        assert!(FEEL_DIMS.iter().all(|d| is_model_key(d.field)));
        assert!(!is_model_key("anchor") && !is_model_key("verified_at"));
    }
}
