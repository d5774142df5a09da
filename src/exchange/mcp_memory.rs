//! The MCP reference memory server's `memory.jsonl`: a knowledge graph of
//! `{"type":"entity", name, entityType, observations[]}` and
//! `{"type":"relation", from, to, relationType}` lines.
//!
//! Mapping: an entity is a memory with id = title = `name`, body = the observations
//! joined by newlines (the name itself when it has none, with a warning), type =
//! `entityType` lowercased with every character outside `[a-z0-9_-]` made `_` and cut to
//! 40 (`note` when nothing is left; the original goes to `extra.entityType` when it
//! differs). A relation becomes a relationship `{target: to, kind: relationType}` on the
//! `from` memory, which must be an entity of the same file; a relation from an entity
//! to itself is skipped with a warning, a repeated one dropped. The file has no
//! timestamps, so memories are created at the import time. `source` =
//! `{system: "mcp-memory", path}`.

use super::{ExchangeError, RecordSink, deliver, jsonl, lines};
use crate::model::validate::id_problem;
use crate::model::{Memory, Timestamp};
use serde_json::{Map, Value, json};
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
                if let Some(entity) = entity(&obj, name, sink, line) {
                    if let Some(Value::String(n)) = entity.fields.get("id") {
                        by_name.entry(n.clone()).or_insert(entities.len());
                    }
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

fn entity(
    obj: &Map<String, Value>,
    file: &str,
    sink: &mut dyn RecordSink,
    line: usize,
) -> Option<Entity> {
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
    let body = if observations.iter().all(|o| o.trim().is_empty()) {
        sink.warning(
            line,
            "observations",
            "none; the entity's name is used as its body".into(),
        );
        entity_name.clone()
    } else {
        observations.join("\n")
    };
    let memory_type = memory_type(&entity_type);
    let mut fields = Map::new();
    fields.insert("id".into(), entity_name.clone().into());
    fields.insert("title".into(), entity_name.into());
    fields.insert("body".into(), body.into());
    fields.insert("type".into(), memory_type.clone().into());
    fields.insert(
        "source".into(),
        json!({"system": "mcp-memory", "path": file}),
    );
    if memory_type != entity_type {
        fields.insert("entityType".into(), entity_type.into());
    }
    for (key, value) in obj {
        if !matches!(
            key.as_str(),
            "type" | "name" | "entityType" | "observations"
        ) {
            fields.insert(key.clone(), value.clone());
        }
    }
    Some(Entity {
        line,
        fields,
        relationships: Vec::new(),
    })
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
    if let Some(p) = id_problem(&to) {
        sink.problem(line, "to", p);
        return;
    }
    let Some(&index) = by_name.get(&from) else {
        sink.problem(
            line,
            "from",
            format!("no entity named {from:?} in this file"),
        );
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
    let rel = json!({"target": to, "kind": kind});
    let rels = &mut entities[index].relationships;
    if !rels.contains(&rel) {
        rels.push(rel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Collected;

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
        assert_eq!(sink.memories.len(), 2);
        let ada = &sink.memories[0].2;
        assert_eq!(sink.memories[0].1, 2);
        assert_eq!(ada.id, "Ada");
        assert_eq!(ada.body, "wrote notes\nfirst program");
        assert_eq!(ada.memory_type, "person");
        assert_eq!(ada.extra["entityType"], json!("Person"));
        assert_eq!(ada.relationships.len(), 1);
        assert_eq!(ada.relationships[0].target, "Analytical Engine");
        assert_eq!(ada.relationships[0].kind, "works_on");
        let engine = &sink.memories[1].2;
        assert_eq!(engine.body, "Analytical Engine");
        assert!(!engine.extra.contains_key("entityType"));
        assert_eq!(sink.warnings.len(), 1);
        assert_eq!(
            sink.problems[0].to_string(),
            "memory.jsonl:4: from: no entity named \"Ghost\" in this file"
        );
    }

    #[test]
    fn entity_types_are_made_valid() {
        assert_eq!(memory_type("Software Project"), "software_project");
        assert_eq!(memory_type(""), "note");
        assert_eq!(memory_type("日本"), "note");
        assert_eq!(memory_type(&"x".repeat(50)).len(), 40);
    }
}
