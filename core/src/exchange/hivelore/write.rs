//! Writing a memory as a hivelore Markdown file: frontmatter, then the body exactly.
//!
//! A memory imported from hivelore gets back the keys its file had, in their order,
//! each with its current value (a changed status or tag list is written as changed);
//! then every memlens field that now differs from its default and was not a key (say a
//! rating, `read_count` from the usage sidecar, or an `updated_at` after an edit), in
//! [`super::field_keys_in_order`]; then `extra` keys the file did not have, sorted. Other
//! memories start from `id, scope, type, status, tags, created_at`. A field whose value
//! is now absent is written `null` when it was a key of the file. `extra` keys that
//! would clash with a field key are left out.

use super::{field_keys_in_order, heading, is_field_key, yaml};
use crate::model::{FEEL_DIMS, Memory, Relationship, Scope, Status, feel_field_index};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The keys a memory not imported from hivelore starts with.
const BASE_KEYS: [&str; 6] = ["id", "scope", "type", "status", "tags", "created_at"];

/// The text of the `.md` file for a memory.
pub fn render(memory: &Memory) -> String {
    let entries = frontmatter(memory);
    let yaml = yaml::mapping(entries.iter().map(|(k, v)| (k.as_str(), v)));
    let mut out = String::with_capacity(yaml.len() + memory.body.len() + 8);
    out.push_str("---\n");
    out.push_str(&yaml);
    out.push_str("---\n");
    out.push_str(&memory.body);
    out
}

/// The frontmatter entries of a memory, in the order they are written.
pub fn frontmatter(memory: &Memory) -> Vec<(String, Value)> {
    let original: Vec<&str> = match &memory.source {
        Some(s) if s.system == "hivelore" && !s.keys.is_empty() => {
            s.keys.iter().map(String::as_str).collect()
        }
        _ => BASE_KEYS.to_vec(),
    };
    let mut out: Vec<(String, Value)> = Vec::new();
    for key in &original {
        if out.iter().any(|(k, _)| k == key) {
            continue;
        }
        if is_field_key(key) {
            out.push((
                (*key).to_string(),
                field_value(memory, key).unwrap_or(Value::Null),
            ));
        } else if let Some(v) = memory.extra.get(*key) {
            out.push(((*key).to_string(), v.clone()));
        }
    }
    for key in field_keys_in_order() {
        if !original.contains(&key) && !is_default(memory, key) {
            out.push((
                key.to_string(),
                field_value(memory, key).unwrap_or(Value::Null),
            ));
        }
    }
    let mut added: Vec<(&String, &Value)> = memory
        .extra
        .iter()
        .filter(|(k, _)| !original.contains(&k.as_str()) && !is_field_key(k))
        .collect();
    added.sort_by(|a, b| a.0.cmp(b.0));
    out.extend(added.into_iter().map(|(k, v)| (k.clone(), v.clone())));
    out
}

/// True for a link `relationships` carries: one with a kind or strength, or any link
/// to a memory such a link goes to.
fn described(m: &Memory, rel: &Relationship) -> bool {
    !is_plain_related(rel)
        || (m.relationships.iter()).any(|r| r.target == rel.target && !is_plain_related(r))
}

/// True for a relationship `related_ids` can carry (kind `related`, no strength).
pub(super) fn is_plain_related(rel: &Relationship) -> bool {
    rel.kind == "related" && rel.strength.is_none()
}

/// The current value of a field key; `None` when the field is absent.
fn field_value(m: &Memory, key: &str) -> Option<Value> {
    let time = |t: crate::model::Timestamp| Value::from(t.to_string());
    Some(match key {
        "id" => m.id.clone().into(),
        "title" => m.title.clone()?.into(),
        "scope" => m.scope.as_str().into(),
        "module" => m.module.clone()?.into(),
        "type" => m.memory_type.clone().into(),
        "status" => m.status.as_str().into(),
        "tags" => m.tags.clone().into(),
        "created_at" => time(m.created_at),
        "updated_at" => time(m.updated_at),
        "last_read_at" => time(m.last_read_at?),
        "read_count" => m.read_count.into(),
        // every linked memory, so hivelore (which reads no kinds) sees each link; the
        // kind and strength of the others go in `relationships`
        "related_ids" => {
            let mut ids: Vec<&str> = Vec::new();
            let plain_first = (m.relationships.iter().filter(|r| is_plain_related(r)))
                .chain(m.relationships.iter().filter(|r| !is_plain_related(r)));
            for r in plain_first {
                if !ids.contains(&r.target.as_str()) {
                    ids.push(&r.target);
                }
            }
            ids.into_iter().map(Value::from).collect::<Vec<_>>().into()
        }
        // the links `related_ids` alone cannot say: those with a kind or strength, and
        // every link to a memory one of those goes to (so that `related_ids` naming it
        // reads as that listing, not as one more link)
        "relationships" => m
            .relationships
            .iter()
            .filter(|r| described(m, r))
            .map(|r| match r.strength {
                Some(s) => json!({"target": r.target, "kind": r.kind, "strength": s}),
                None => json!({"target": r.target, "kind": r.kind}),
            })
            .collect::<Vec<_>>()
            .into(),
        "weight" => m.weight.into(),
        "trust" => m.trust.into(),
        "trust_score" => m.trust_level?.number().into(),
        "ratings" => m.to_json().remove("ratings")?,
        "curated" => crate::model::json::curated_json(&m.curated),
        "confidence" => m.confidence?.into(),
        "deleted_at" => time(m.deleted_at?),
        "deleted_reason" => m.deleted_reason.clone()?.into(),
        "rating_sum" => m.rating_sum.into(),
        "rating_count" => m.rating_count.into(),
        "rem_visits" => m.rem_visits?.into(),
        feel => m.feel[feel_field_index(feel)?]?.into(),
    })
}

/// True when a field holds the value a hivelore file without that key would give.
fn is_default(m: &Memory, key: &str) -> bool {
    match key {
        "id" | "type" | "created_at" => false,
        "title" => m.title == heading(&m.body),
        "scope" => m.scope == Scope::Personal,
        "module" => m.module.is_none(),
        "status" => m.status == Status::Draft,
        "tags" => m.tags.is_empty(),
        "updated_at" => m.updated_at == m.created_at,
        "last_read_at" => m.last_read_at.is_none(),
        "read_count" => m.read_count == 0,
        "related_ids" => m.relationships.is_empty(),
        "relationships" => m.relationships.iter().all(is_plain_related),
        "weight" => m.weight == 0.5,
        "trust" => m.trust == 0.5,
        "trust_score" => m.trust_level.is_none(),
        "ratings" => m.ratings.is_empty(),
        "curated" => m.curated.is_empty(),
        "confidence" => m.confidence.is_none(),
        "deleted_at" => m.deleted_at.is_none(),
        "deleted_reason" => m.deleted_reason.is_none(),
        "rating_sum" => m.rating_sum == 0,
        "rating_count" => m.rating_count == 0,
        "rem_visits" => m.rem_visits.is_none(),
        feel => FEEL_DIMS
            .iter()
            .position(|d| d.field == feel)
            .is_none_or(|i| m.feel[i].is_none()),
    }
}

/// Where a memory's file goes under the export directory (a `.ai/memories`): its
/// hivelore path below `.ai/memories` when it came from hivelore and that path is a
/// plain relative `.md` path, else
/// `<scope>/<id>.md` with the id made safe for file names.
pub fn relative_path(memory: &Memory) -> PathBuf {
    if let Some(path) = memory
        .source
        .as_ref()
        .filter(|s| s.system == "hivelore")
        .and_then(|s| s.path.as_deref())
        .filter(|p| is_safe_relative(p))
    {
        // read from a project root: its place under the memories directory, which is
        // what an export writes
        let under_memories = path.strip_prefix(".ai/memories/").unwrap_or(path);
        return PathBuf::from(under_memories);
    }
    PathBuf::from(memory.scope.as_str()).join(format!("{}.md", file_name_for(&memory.id)))
}

fn is_safe_relative(path: &str) -> bool {
    path.ends_with(".md")
        && !path.starts_with('/')
        && !path.contains('\\')
        && path
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != ".." && !part.contains('\0'))
}

/// An id as a file name: characters other than ASCII letters, digits, `.`, `_` and `-`
/// become `_`, and a leading `.` too (no hidden files).
pub fn file_name_for(id: &str) -> String {
    let mut name: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.starts_with('.') {
        name.replace_range(0..1, "_");
    }
    if name.is_empty() { "_".into() } else { name }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Source, Timestamp};

    fn at(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    #[test]
    fn keeps_the_original_keys_in_order_and_adds_changed_fields() {
        let mut m = Memory::new("x", "# Heading\nbody", at("2026-04-25T23:39:56.850Z"));
        m.title = Some("Heading".into());
        m.source = Some(Source {
            system: "hivelore".into(),
            path: Some("team/x.md".into()),
            id: None,
            keys: vec![
                "id".into(),
                "type".into(),
                "verified_at".into(),
                "created_at".into(),
                "last_read_at".into(),
            ],
        });
        m.extra
            .insert("verified_at".into(), json!("2026-07-02T22:21:21.933Z"));
        m.extra.insert("zeta".into(), json!(1));
        m.rating_sum = 9;
        m.rating_count = 2;
        let keys: Vec<String> = frontmatter(&m).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            keys,
            [
                "id",
                "type",
                "verified_at",
                "created_at",
                "last_read_at",
                "rating_sum",
                "rating_count",
                "zeta"
            ]
        );
        let text = render(&m);
        assert!(text.starts_with("---\nid: x\ntype: note\nverified_at: '2026-07-02T22:21:21.933Z'\ncreated_at: '2026-04-25T23:39:56.850Z'\nlast_read_at: null\n"), "{text}");
        assert!(text.ends_with("---\n# Heading\nbody"));
        assert_eq!(relative_path(&m), PathBuf::from("team/x.md"));
    }

    #[test]
    fn unsafe_paths_and_ids_become_safe_file_names() {
        let mut m = Memory::new("../../etc/passwd", "b", Timestamp(0));
        assert_eq!(
            relative_path(&m),
            PathBuf::from("personal/_._.._etc_passwd.md")
        );
        m.source = Some(Source {
            system: "hivelore".into(),
            path: Some("../x.md".into()),
            ..Source::default()
        });
        assert_eq!(
            relative_path(&m),
            PathBuf::from("personal/_._.._etc_passwd.md")
        );
        // a path read from a project root: its place under the memories directory
        m.source = Some(Source {
            system: "hivelore".into(),
            path: Some(".ai/memories/modules/ledger/x.md".into()),
            ..Source::default()
        });
        assert_eq!(relative_path(&m), PathBuf::from("modules/ledger/x.md"));
    }
}
