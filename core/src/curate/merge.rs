//! Merging memories that say the same thing: one memory keeps what the others add, and
//! the others are soft-deleted with a link back to it, so nothing is lost and `restore`
//! (or undo) brings them back.

use super::apply::{Pending, existing};
use super::edit::Edit;
use super::error::{CurateError, CurateResult};
use super::link::held;
use crate::model::{Memory, Relationship};
use crate::store::StoreWriter;
use serde_json::{Map, Value};

/// The relationship kind from the memory kept to each memory merged into it.
pub const MERGED_KIND: &str = "merged";

/// What the kept memory becomes once `merged` are merged into it. It keeps its own id,
/// title, type, scope, status, scores and feel_* values, and gains:
/// - the first merged memory's title when it has none;
/// - each merged body it does not already contain, after a blank line;
/// - the tags it lacks;
/// - the ratings and reads of all (sums; the latest read);
/// - the earliest creation time;
/// - the relationships the merged memories hold to other memories, and a `merged`
///   relationship to each merged memory;
/// - in the fields memlens does not model (`extra`), the lists' items and the lists and
///   mappings the merged memories add: hivelore's `anchor` paths and symbols, a
///   `sensor` when it has none ([`gain_lists`]).
pub fn merged_memory(kept: &Memory, merged: &[Memory]) -> Memory {
    let mut after = kept.clone();
    for m in merged {
        gain_lists(&mut after.extra, &m.extra);
        if after.title.is_none() {
            after.title.clone_from(&m.title);
        }
        let body = m.body.trim();
        if !body.is_empty() && !after.body.contains(body) {
            // the kept text's own ending (a file's final newline) stays at the end
            let kept_text = after.body.trim_end();
            let ending = &after.body[kept_text.len()..];
            after.body = format!("{kept_text}\n\n{body}{ending}");
        }
        for tag in &m.tags {
            if !after.tags.contains(tag) {
                after.tags.push(tag.clone());
            }
        }
        after.rating_sum = after.rating_sum.saturating_add(m.rating_sum);
        after.rating_count = after.rating_count.saturating_add(m.rating_count);
        // what a re-import of the kept memory's source adds back to its own aggregate
        let (sum, count) = after.curated.ratings_merged;
        after.curated.ratings_merged = (
            sum.saturating_add(m.rating_sum),
            count.saturating_add(m.rating_count),
        );
        after.read_count = after.read_count.saturating_add(m.read_count);
        after.last_read_at = after.last_read_at.max(m.last_read_at);
        after.created_at = after.created_at.min(m.created_at);
    }
    let merged_ids: Vec<&str> = merged.iter().map(|m| m.id.as_str()).collect();
    for rel in merged.iter().flat_map(|m| &m.relationships) {
        let elsewhere = rel.target != kept.id && !merged_ids.contains(&rel.target.as_str());
        if elsewhere && held(&after, &rel.target).is_none() {
            after.relationships.push(rel.clone());
        }
    }
    for id in merged_ids {
        after.relationships.retain(|r| r.target != id);
        after.relationships.push(Relationship {
            target: id.to_string(),
            kind: MERGED_KIND.to_string(),
            strength: None,
        });
    }
    after
}

/// What the kept memory's `extra` gains from a merged memory's `other`: each list (of
/// paths, of names) gains the items it lacks, a list or a mapping it lacks is taken
/// whole (a `sensor` of the merged memory's when it has none), and hivelore's `anchor`
/// gains the merged anchor's `paths` and `symbols`, which each name a place the
/// memory is about. A mapping both hold otherwise stays the kept memory's: its parts
/// go together (a sensor's paths are where its pattern is looked for, not where the
/// other's is). A single value (a date, a reason, a topic, a count) stays the kept
/// memory's, and one only the merged memory had is not taken: it says something of
/// that memory alone (`verified_at`, `stale_reason`, `expires_when`); the merged memory
/// keeps it, soft-deleted.
fn gain_lists(kept: &mut Map<String, Value>, other: &Map<String, Value>) {
    for (key, theirs) in other {
        match (kept.get_mut(key), theirs) {
            (None, Value::Array(_) | Value::Object(_)) => {
                kept.insert(key.clone(), theirs.clone());
            }
            (Some(Value::Array(mine)), Value::Array(items)) => gain_items(mine, items),
            (Some(Value::Object(mine)), Value::Object(fields)) if key == ANCHOR => {
                for list in ANCHOR_LISTS {
                    match (mine.get_mut(list), fields.get(list)) {
                        (Some(Value::Array(mine)), Some(Value::Array(items))) => {
                            gain_items(mine, items);
                        }
                        (None, Some(items @ Value::Array(_))) => {
                            mine.insert(list.to_string(), items.clone());
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
}

/// hivelore's frontmatter key for the files and symbols a memory is about.
const ANCHOR: &str = "anchor";

/// The lists of an anchor, each naming places the memory is about.
const ANCHOR_LISTS: [&str; 2] = ["paths", "symbols"];

/// Adds to `mine` each of `items` it lacks, in their order.
fn gain_items(mine: &mut Vec<Value>, items: &[Value]) {
    for item in items {
        if !mine.contains(item) {
            mine.push(item.clone());
        }
    }
}

/// Merges `from` into `into` (see [`merged_memory`]) and soft-deletes each of `from`
/// with the reason `merged into <into>`. None of them may be deleted already, and
/// `into` may not be among `from`.
pub(super) fn merge(
    w: &mut StoreWriter,
    pending: &mut Pending,
    into: &str,
    from: &[&str],
) -> CurateResult<()> {
    if from.is_empty() {
        return Err(CurateError::NoIds);
    }
    if from.contains(&into) {
        return Err(CurateError::MergeIntoItself(into.to_string()));
    }
    let kept = live(w, into)?;
    let mut merged = Vec::with_capacity(from.len());
    for id in from {
        merged.push(live(w, id)?);
    }
    pending.save(w, kept.clone(), merged_memory(&kept, &merged))?;
    let delete = Edit::Delete {
        reason: Some(format!("merged into {into}")),
    };
    for before in merged {
        let mut after = before.clone();
        delete.apply_to(&mut after, pending.now)?;
        pending.save(w, before, after)?;
    }
    Ok(())
}

/// The memory with this id, which must not be soft-deleted.
fn live(w: &StoreWriter, id: &str) -> CurateResult<Memory> {
    let memory = existing(w, id)?;
    if memory.deleted_at.is_some() {
        return Err(CurateError::MergeDeleted(id.to_string()));
    }
    Ok(memory)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timestamp;

    fn memory(id: &str, body: &str, tags: &[&str], created: &str) -> Memory {
        let at = Timestamp::parse(created).expect("timestamp");
        let mut m = Memory::new(id, body, at);
        m.tags = tags.iter().map(|t| t.to_string()).collect();
        m
    }

    fn link(target: &str, kind: &str) -> Relationship {
        Relationship {
            target: target.into(),
            kind: kind.into(),
            strength: None,
        }
    }

    #[test]
    fn the_kept_memory_gains_what_the_others_add() {
        let mut kept = memory("a", "Use UTC.", &["time"], "2026-03-01T00:00:00Z");
        kept.rating_sum = 4;
        kept.rating_count = 1;
        kept.relationships = vec![link("x", "related")];
        let mut b = memory(
            "b",
            "Store UTC, show local.",
            &["time", "ui"],
            "2026-01-01T00:00:00Z",
        );
        b.rating_sum = 7;
        b.rating_count = 2;
        b.read_count = 3;
        b.relationships = vec![
            link("x", "supports"),
            link("y", "related"),
            link("a", "related"),
        ];
        let mut c = memory("c", "Use UTC.", &[], "2026-05-01T00:00:00Z");
        c.title = Some("Time zones".into());
        let after = merged_memory(&kept, &[b.clone(), c.clone()]);
        assert_eq!(after.id, "a");
        // the kept memory had no title, b none either: c's
        assert_eq!(after.title.as_deref(), Some("Time zones"));
        kept.title = Some("UTC everywhere".into());
        let titled = merged_memory(&kept, &[b.clone(), c.clone()]);
        assert_eq!(titled.title.as_deref(), Some("UTC everywhere"));
        // c's body is already there; b's comes after a blank line
        assert_eq!(after.body, "Use UTC.\n\nStore UTC, show local.");
        // a body that ends in a newline (a file's) still does
        kept.body = "Use UTC.\n".into();
        let ended = merged_memory(&kept, std::slice::from_ref(&b));
        assert_eq!(ended.body, "Use UTC.\n\nStore UTC, show local.\n");
        assert_eq!(after.tags, ["time", "ui"]);
        assert_eq!((after.rating_sum, after.rating_count), (11, 3));
        assert_eq!(
            after.curated.ratings_merged,
            (7, 2),
            "what b brought, for a re-import"
        );
        assert_eq!(after.read_count, 3);
        assert_eq!(after.created_at, b.created_at);
        let rels: Vec<(&str, &str)> = after
            .relationships
            .iter()
            .map(|r| (r.target.as_str(), r.kind.as_str()))
            .collect();
        // x kept as it was, y gained, no link to itself, a `merged` link to each merged one
        assert_eq!(
            rels,
            [
                ("x", "related"),
                ("y", "related"),
                ("b", "merged"),
                ("c", "merged")
            ]
        );
    }

    #[test]
    fn the_kept_memory_gains_the_lists_and_mappings_of_the_others_fields() {
        let extra = |v: serde_json::Value| v.as_object().cloned().expect("an object");
        let mut kept = memory("a", "one", &[], "2026-01-01T00:00:00Z");
        kept.extra = extra(serde_json::json!({
            "anchor": {"paths": ["src/a.ts"], "symbols": []},
            "verified_at": "2026-02-01T00:00:00.000Z",
            "revision_count": 1,
            "topics": ["esm"],
        }));
        let mut b = memory("b", "two", &[], "2026-01-01T00:00:00Z");
        b.extra = extra(serde_json::json!({
            "anchor": {"paths": ["tsconfig.base.json", "src/a.ts"], "symbols": ["init"], "commit": "abc"},
            "sensor": {"kind": "regex", "pattern": "require\\(", "paths": ["src/"], "message": "ESM only"},
            "verified_at": "2026-03-01T00:00:00.000Z",
            "stale_reason": "old",
            "revision_count": 4,
            "topics": ["cjs", "esm"],
        }));
        let after = merged_memory(&kept, std::slice::from_ref(&b));
        let b_sensor = b.extra["sensor"].clone();
        assert_eq!(
            serde_json::Value::Object(after.extra.clone()),
            serde_json::json!({
                "anchor": {"paths": ["src/a.ts", "tsconfig.base.json"], "symbols": ["init"]},
                "sensor": b_sensor,
                "verified_at": "2026-02-01T00:00:00.000Z",
                "revision_count": 1,
                "topics": ["esm", "cjs"],
            })
        );
        // a sensor of its own stays whole: the other's paths are not its
        let mut c = memory("c", "three", &[], "2026-01-01T00:00:00Z");
        c.extra = extra(serde_json::json!({
            "sensor": {"kind": "regex", "pattern": "version", "paths": ["cli/"], "message": "no"},
        }));
        let again = merged_memory(&after, std::slice::from_ref(&c));
        assert_eq!(again.extra["sensor"], b_sensor);
    }

    #[test]
    fn a_link_between_the_merged_memories_becomes_the_merged_link() {
        let kept = memory("a", "one", &[], "2026-01-01T00:00:00Z");
        let mut b = memory("b", "two", &[], "2026-01-01T00:00:00Z");
        b.relationships = vec![link("c", "related")];
        let c = memory("c", "three", &[], "2026-01-01T00:00:00Z");
        let mut kept_linked = kept.clone();
        kept_linked.relationships = vec![link("b", "related")];
        for k in [kept, kept_linked] {
            let after = merged_memory(&k, &[b.clone(), c.clone()]);
            let targets: Vec<(&str, &str)> = after
                .relationships
                .iter()
                .map(|r| (r.target.as_str(), r.kind.as_str()))
                .collect();
            assert_eq!(targets, [("b", MERGED_KIND), ("c", MERGED_KIND)]);
            assert_eq!(after.body, "one\n\ntwo\n\nthree");
        }
    }
}
