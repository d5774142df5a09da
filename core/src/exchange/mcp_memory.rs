//! The MCP reference memory server's `memory.jsonl`: a knowledge graph of
//! `{"type":"entity", name, entityType, observations[]}` and
//! `{"type":"relation", from, to, relationType}` lines.
//!
//! Mapping: an entity is a memory with title = `name` (its full text, however long,
//! newlines included), id = [`entity_id`] of the name, body = the observations joined
//! by newlines (empty when it has none: an empty memory; when the body split at its
//! newlines would not give the observations back, one holding a newline or being
//! empty, the list is kept in `extra.observations` too), type = `entityType`
//! lowercased with every character outside `[a-z0-9_-]` made `_` and cut to 40 (`note`
//! when nothing is left; the original goes to `extra.entityType` when it differs). A
//! relation becomes a relationship `{target: entity_id(to), kind: relationType}` on
//! the `from` memory; the server accepts relations whose `from` or `to` entity was
//! deleted or never created, and such a relation is kept as a link to a missing
//! memory, held by the end that is in the file (links are undirected); one held by its
//! `to` end also goes to that memory's `extra.relationsIn` as `{from, relationType}`,
//! so the direction it was written in is not lost: `get` and the detail pane read such
//! a link inwards ([`written_towards`]). One with
//! neither end in the file has no memory to hold it and is skipped with a warning; a
//! relation from an entity to itself is skipped with a warning, a repeated one
//! dropped. The file has no timestamps, so memories are created at the import time.
//! `source` = `{system: "mcp-memory", path}`, with `id` = the entity's name when the
//! memlens id differs from it.

use super::{ExchangeError, RecordSink, deliver, jsonl, lines};
use crate::model::validate::id_problem;
use crate::model::{Memory, Timestamp};
use serde_json::{Map, Value, json};
use std::borrow::Cow;
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// One entity being assembled: its line and its fields in memlens's names.
struct Entity {
    line: usize,
    fields: Map<String, Value>,
    relationships: Vec<Value>,
}

/// Reads an MCP memory file into the sink; `name` is the file as the user gave it.
pub fn read(
    reader: impl BufRead,
    path: &Path,
    name: &str,
    sink: &mut dyn RecordSink,
    now: Timestamp,
) -> Result<(), ExchangeError> {
    let mut entities: Vec<Entity> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut relations: Vec<(usize, Map<String, Value>)> = Vec::new();
    lines::for_each_line(reader, path, sink, |sink, line, text| {
        let Some(obj) = jsonl::parse_object(sink, line, text) else {
            return;
        };
        match obj.get("type").and_then(Value::as_str) {
            Some("entity") => {
                if let Some((entity_name, entity)) = entity(&obj, name, sink, line) {
                    by_name.entry(entity_name).or_insert(entities.len());
                    entities.push(entity);
                }
            }
            Some("relation") => relations.push((line, obj)),
            _ => sink.problem(
                line,
                "type",
                "expected \"entity\" or \"relation\" (an MCP memory line)".into(),
            ),
        }
    })?;
    for (line, obj) in relations {
        attach(&obj, line, &mut entities, &by_name, sink);
    }
    for mut e in entities {
        if !e.relationships.is_empty() {
            e.fields
                .insert("relationships".into(), Value::Array(e.relationships));
        }
        deliver(sink, e.line, Memory::from_json(&e.fields, now));
    }
    Ok(())
}

fn string_field(
    obj: &Map<String, Value>,
    key: &str,
    sink: &mut dyn RecordSink,
    line: usize,
) -> Option<String> {
    match obj.get(key) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            sink.problem(line, key, "expected a string".into());
            None
        }
        None => {
            sink.problem(line, key, "required field is missing".into());
            None
        }
    }
}

/// The memlens id of an entity named `name`: the name itself when it is a valid id
/// (1–200 characters, no control character), else its first 180 characters with each
/// control character made a space, `~`, and the 16 hex digits of the 64-bit FNV-1a
/// hash of the whole name's UTF-8. The same name always gives the same id, so a
/// re-import finds its memories again and a relation to a long name finds its memory;
/// the name itself is kept as the title and as `source.id`.
pub fn entity_id(name: &str) -> Cow<'_, str> {
    if id_problem(name).is_none() {
        return Cow::Borrowed(name);
    }
    let hash = crate::stable_hash::fnv1a(name.as_bytes());
    let head: String = name
        .chars()
        .take(180)
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    Cow::Owned(format!("{}~{hash:016x}", head.trim_end()))
}

/// One entity line read: its name and the memory being assembled.
fn entity(
    obj: &Map<String, Value>,
    file: &str,
    sink: &mut dyn RecordSink,
    line: usize,
) -> Option<(String, Entity)> {
    let entity_name = string_field(obj, "name", sink, line)?;
    let entity_type = match obj.get("entityType") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(_) => {
            sink.problem(line, "entityType", "expected a string".into());
            return None;
        }
    };
    let mut observations = Vec::new();
    match obj.get("observations") {
        None | Some(Value::Null) => {}
        Some(Value::Array(items)) => {
            for item in items {
                match item {
                    Value::String(s) => observations.push(s.as_str()),
                    _ => {
                        sink.problem(line, "observations", "expected an array of strings".into());
                        return None;
                    }
                }
            }
        }
        Some(_) => {
            sink.problem(line, "observations", "expected an array of strings".into());
            return None;
        }
    }
    let body = observations.join("\n");
    // the body says the observations back when split at its newlines; when it cannot
    // (one holds a newline, or is empty, or there are none but an empty one) the list
    // is kept as it was in `extra.observations`
    let split_back: Vec<&str> = if body.is_empty() {
        Vec::new()
    } else {
        body.split('\n').collect()
    };
    let keep_list = split_back != observations;
    let memory_type = memory_type(&entity_type);
    let id = entity_id(&entity_name);
    let mut fields = Map::new();
    fields.insert("id".into(), id.as_ref().into());
    fields.insert("title".into(), entity_name.clone().into());
    fields.insert("body".into(), body.into());
    fields.insert("type".into(), memory_type.clone().into());
    let source = if id == entity_name.as_str() {
        json!({"system": "mcp-memory", "path": file})
    } else {
        json!({"system": "mcp-memory", "path": file, "id": entity_name})
    };
    fields.insert("source".into(), source);
    if memory_type != entity_type {
        fields.insert("entityType".into(), entity_type.into());
    }
    if keep_list {
        fields.insert("observations".into(), observations.into());
    }
    for (key, value) in obj {
        if !matches!(
            key.as_str(),
            "type" | "name" | "entityType" | "observations"
        ) {
            fields.insert(key.clone(), value.clone());
        }
    }
    Some((
        entity_name,
        Entity {
            line,
            fields,
            relationships: Vec::new(),
        },
    ))
}

/// A valid memory type made from an MCP `entityType`.
pub fn memory_type(entity_type: &str) -> String {
    let t: String = entity_type
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| match c {
            'a'..='z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .take(40)
        .collect();
    if t.trim_matches('_').is_empty() {
        crate::model::memory::DEFAULT_TYPE.to_string()
    } else {
        t
    }
}

fn attach(
    obj: &Map<String, Value>,
    line: usize,
    entities: &mut [Entity],
    by_name: &HashMap<String, usize>,
    sink: &mut dyn RecordSink,
) {
    let from = string_field(obj, "from", sink, line);
    let to = string_field(obj, "to", sink, line);
    let kind = match obj.get("relationType") {
        None | Some(Value::Null) => Some(String::new()),
        Some(Value::String(s)) => Some(s.clone()),
        Some(_) => {
            sink.problem(line, "relationType", "expected a string".into());
            None
        }
    };
    let (Some(from), Some(to), Some(kind)) = (from, to, kind) else {
        return;
    };
    if from == to {
        sink.warning(
            line,
            "to",
            "a relation from an entity to itself is skipped".into(),
        );
        return;
    }
    // The end in the file holds the link; its other end may be missing.
    let (holder, target, held_by_to) = match (by_name.get(&from), by_name.get(&to)) {
        (Some(&index), _) => (index, &to, false),
        (None, Some(&index)) => (index, &from, true),
        (None, None) => {
            sink.warning(
                line,
                "from",
                format!(
                    "neither {from:?} nor {to:?} is an entity of this file; the relation is skipped"
                ),
            );
            return;
        }
    };
    let rel = json!({"target": entity_id(target), "kind": kind});
    let entity = &mut entities[holder];
    if entity.relationships.contains(&rel) {
        return;
    }
    entity.relationships.push(rel);
    if held_by_to {
        // the link reads from its holder: the relation's own direction is kept beside it
        let incoming = json!({"from": from, "relationType": kind});
        let kept = entity
            .fields
            .entry(RELATIONS_IN)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(list) = kept {
            list.push(incoming);
        }
    }
}

/// The key of `extra` that keeps the relations held by their `to` end (their `from`
/// entity is not in the file), each as `{from, relationType}`: the link alone would read
/// the other way.
pub const RELATIONS_IN: &str = "relationsIn";

/// True when `memory` holds `rel` for a relation written towards it (from the link's
/// target, kept in [`RELATIONS_IN`]): the link reads from the target to the memory.
pub fn written_towards(memory: &crate::model::Memory, rel: &crate::model::Relationship) -> bool {
    let Some(Value::Array(list)) = memory.extra.get(RELATIONS_IN) else {
        return false;
    };
    list.iter().any(|r| {
        r.get("relationType").and_then(Value::as_str) == Some(rel.kind.as_str())
            && r.get("from")
                .and_then(Value::as_str)
                .is_some_and(|from| entity_id(from) == rel.target)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Collected;

    /// What reading `text` as a `memory.jsonl` gives.
    fn read_file_text(text: &str) -> Collected {
        let mut sink = Collected::default();
        sink.file("memory.jsonl");
        read(
            text.as_bytes(),
            Path::new("memory.jsonl"),
            "memory.jsonl",
            &mut sink,
            Timestamp(0),
        )
        .unwrap();
        sink
    }

    /// Observations the body says back (split at its newlines) are not kept twice;
    /// those it cannot (a newline inside one, a lone empty one) are kept as the list.
    #[test]
    fn observations_the_body_cannot_say_back_are_kept_as_the_list() {
        let cases: [(&str, Option<Value>); 6] = [
            (r#"["a","b"]"#, None),
            (r#"[]"#, None),
            (r#"["one"]"#, None),
            (r#"["a\nb"]"#, Some(json!(["a\nb"]))),
            (r#"[""]"#, Some(json!([""]))),
            (r#"["a","","b"]"#, None),
        ];
        for (list, kept) in cases {
            let text =
                format!(r#"{{"type":"entity","name":"E","entityType":"t","observations":{list}}}"#);
            let sink = read_file_text(&text);
            let m = &sink.memories[0].2;
            assert_eq!(m.extra.get("observations").cloned(), kept, "{list}");
        }
    }

    #[test]
    fn entities_become_memories_and_relations_their_links() {
        let text = concat!(
            r#"{"type":"relation","from":"Ada","to":"Analytical Engine","relationType":"works_on"}"#,
            "\n",
            r#"{"type":"entity","name":"Ada","entityType":"Person","observations":["wrote notes","first program"]}"#,
            "\n",
            r#"{"type":"entity","name":"Analytical Engine","entityType":"machine","observations":[]}"#,
            "\n",
            r#"{"type":"relation","from":"Ghost","to":"Ada","relationType":"knows"}"#,
            "\n",
        );
        let sink = read_file_text(text);
        assert_eq!(sink.memories.len(), 2);
        let ada = &sink.memories[0].2;
        assert_eq!(sink.memories[0].1, 2);
        assert_eq!(ada.id, "Ada");
        assert_eq!(ada.body, "wrote notes\nfirst program");
        assert_eq!(ada.memory_type, "person");
        assert_eq!(ada.extra["entityType"], json!("Person"));
        assert_eq!(ada.relationships.len(), 2);
        assert_eq!(ada.relationships[0].target, "Analytical Engine");
        assert_eq!(ada.relationships[0].kind, "works_on");
        let engine = &sink.memories[1].2;
        assert_eq!(engine.body, "");
        assert!(!engine.extra.contains_key("entityType"));
        assert!(sink.warnings.is_empty(), "{:?}", sink.warnings);
        assert!(sink.problems.is_empty(), "{:?}", sink.problems);
        // the relation from an entity the file lacks is held by its other end
        assert_eq!(ada.relationships[1].target, "Ghost");
        assert_eq!(ada.relationships[1].kind, "knows");
        // ... with the direction it was written in
        assert_eq!(
            ada.extra[RELATIONS_IN],
            json!([{"from": "Ghost", "relationType": "knows"}])
        );
        assert!(!sink.memories[1].2.extra.contains_key(RELATIONS_IN));
    }

    #[test]
    fn names_that_are_not_ids_get_a_stable_id_and_keep_their_text() {
        assert_eq!(entity_id("Ada"), "Ada");
        let long = "x".repeat(250);
        let id = entity_id(&long);
        assert_eq!(id, entity_id(&long));
        assert!(crate::model::validate::id_problem(&id).is_none(), "{id}");
        assert_ne!(entity_id(&"x".repeat(251)), id);
        let two = entity_id("first\nsecond");
        assert!(two.starts_with("first second~"), "{two}");
        assert_ne!(entity_id("first\tsecond"), two);
        assert!(crate::model::validate::id_problem(&entity_id("")).is_none());
    }

    #[test]
    fn entity_types_are_made_valid() {
        assert_eq!(memory_type("Software Project"), "software_project");
        assert_eq!(memory_type(""), "note");
        assert_eq!(memory_type("日本"), "note");
        assert_eq!(memory_type(&"x".repeat(50)).len(), 40);
    }
}
