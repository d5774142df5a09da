//! Reading a hivelore memory tree (or one file) into memories.
//!
//! The path given may be a `.ai/memories` directory, a project directory that has one,
//! any directory of `.md` files (read recursively, in path order, hidden entries
//! skipped), or a single `.md` file. The usage sidecar `.ai/.cache/usage.json` is read
//! when the tree has one: its `read_count` replaces the memory's, and its `last_read_at`
//! wins when it is later. Problems point at the line of the `.md` file: the key's own
//! line for a bad value, the YAML parser's line for broken YAML. A file without `id`
//! takes its file name (without `.md`) as id, one without `created_at` the import time;
//! both with a warning.

use super::{YAML_FIRST_LINE, heading, is_field_key, key_line, split};
use crate::exchange::lines::{self, MAX_RECORD_BYTES};
use crate::exchange::{ExchangeError, RecordSink};
use crate::model::{Memory, Timestamp};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Reads every memory under `root` (named `name` in messages) into the sink.
pub fn read(
    root: &Path,
    name: &str,
    sink: &mut dyn RecordSink,
    now: Timestamp,
) -> Result<(), ExchangeError> {
    let meta = std::fs::metadata(root).map_err(|e| ExchangeError::io(root, e))?;
    if !meta.is_dir() {
        let file_name = root
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| name.to_string());
        return read_file(root, name, &file_name, sink, &HashMap::new(), now);
    }
    let nested = root.join(".ai").join("memories");
    let (memories, shown) = if nested.is_dir() {
        (
            nested,
            format!("{}/.ai/memories", name.trim_end_matches('/')),
        )
    } else {
        (root.to_path_buf(), name.trim_end_matches('/').to_string())
    };
    let usage = read_usage(root, &memories, sink);
    let mut files = Vec::new();
    collect_markdown(&memories, &mut files)?;
    files.sort();
    if files.is_empty() {
        // said, not an error: a new project's memory directory is empty
        sink.file(&shown);
        sink.warning(
            0,
            "directory",
            "holds no hivelore memory (a .md file), so nothing was read from it; a file \
             of another format is imported by naming it (memlens import DIR/FILE.jsonl)"
                .into(),
        );
    }
    for file in files {
        let relative = file
            .strip_prefix(&memories)
            .unwrap_or(&file)
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let display = format!("{shown}/{relative}");
        read_file(&file, &display, &relative, sink, &usage, now)?;
    }
    Ok(())
}

fn collect_markdown(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ExchangeError> {
    let entries = std::fs::read_dir(dir).map_err(|e| ExchangeError::io(dir, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| ExchangeError::io(dir, e))?;
        let path = entry.path();
        if entry.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        let kind = entry.file_type().map_err(|e| ExchangeError::io(&path, e))?;
        if kind.is_dir() {
            collect_markdown(&path, out)?;
        } else if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
            && std::fs::metadata(&path).is_ok_and(|m| m.is_file())
        {
            out.push(path);
        }
    }
    Ok(())
}

/// The largest usage sidecar read (about half a million memories' counts); a larger
/// one is a warning and its counts are not imported.
pub const MAX_USAGE_BYTES: usize = 64 << 20;

/// What hivelore's usage sidecar says about one memory.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Usage {
    /// Tracked reads.
    pub read_count: u32,
    /// The last tracked read.
    pub last_read_at: Option<Timestamp>,
}

/// The usage sidecar of a tree, when it has one; a broken one is a warning.
fn read_usage(root: &Path, memories: &Path, sink: &mut dyn RecordSink) -> HashMap<String, Usage> {
    let mut candidates = vec![
        root.join(".ai/.cache/usage.json"),
        root.join(".cache/usage.json"),
    ];
    if memories.file_name().is_some_and(|n| n == "memories")
        && let Some(ai) = memories.parent()
    {
        candidates.push(ai.join(".cache/usage.json"));
    }
    let Some(path) = candidates.into_iter().find(|p| p.is_file()) else {
        return HashMap::new();
    };
    let shown = path.display().to_string();
    let too_long = format!("longer than {}", lines::mebibytes(MAX_USAGE_BYTES as u64));
    match lines::read_at_most(&path, MAX_USAGE_BYTES)
        .map_err(|e| e.to_string())
        .and_then(|bytes| bytes.ok_or(too_long))
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "not valid UTF-8".to_string()))
        .and_then(|t| parse_usage(&t))
    {
        Ok(usage) => usage,
        Err(reason) => {
            sink.file(&shown);
            sink.warning(1, "usage", format!("{reason}; read counts not imported"));
            HashMap::new()
        }
    }
}

/// Parses `usage.json` (`{by_id: {<id>: {read_count, last_read_at}}}`).
pub fn parse_usage(text: &str) -> Result<HashMap<String, Usage>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("invalid JSON: {e}"))?;
    let by_id = value
        .get("by_id")
        .and_then(Value::as_object)
        .ok_or("no `by_id` object")?;
    let mut out = HashMap::new();
    for (id, entry) in by_id {
        let read_count = entry
            .get("read_count")
            .and_then(Value::as_u64)
            .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
        let last_read_at = entry
            .get("last_read_at")
            .and_then(Value::as_str)
            .and_then(Timestamp::parse);
        out.insert(
            id.clone(),
            Usage {
                read_count,
                last_read_at,
            },
        );
    }
    Ok(out)
}

fn read_file(
    path: &Path,
    display: &str,
    relative: &str,
    sink: &mut dyn RecordSink,
    usage: &HashMap<String, Usage>,
    now: Timestamp,
) -> Result<(), ExchangeError> {
    sink.file(display);
    let bytes = lines::read_at_most(path, MAX_RECORD_BYTES)
        .map_err(|e| ExchangeError::io(path, e))?
        .ok_or_else(|| lines::too_long(path, 1, "file"))?;
    let Ok(text) = String::from_utf8(bytes) else {
        sink.problem(1, "file", "not valid UTF-8".into());
        return Ok(());
    };
    let stem = Path::new(relative)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    parse_memory(&text, relative, &stem, sink, usage, now);
    Ok(())
}

/// Reads one memory file's text; `relative` is its path under the import root.
pub fn parse_memory(
    text: &str,
    relative: &str,
    stem: &str,
    sink: &mut dyn RecordSink,
    usage: &HashMap<String, Usage>,
    now: Timestamp,
) {
    let parts = match split(text) {
        Ok(p) => p,
        Err((line, reason)) => return sink.problem(line, "frontmatter", reason),
    };
    let frontmatter = match serde_yaml_ng::from_str::<Value>(parts.yaml) {
        Ok(Value::Object(map)) => map,
        Ok(Value::Null) => Map::new(),
        Ok(_) => {
            return sink.problem(
                YAML_FIRST_LINE,
                "frontmatter",
                "expected a mapping of keys".into(),
            );
        }
        Err(e) => {
            let line = e.location().map_or(1, |l| l.line() + YAML_FIRST_LINE - 1);
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message);
            return sink.problem(line, "frontmatter", format!("invalid YAML: {message}"));
        }
    };
    let line_of = |key: &str| key_line(parts.yaml, key);
    let mut fields = Map::new();
    let mut extra = Map::new();
    let mut related = Vec::new();
    for (key, value) in &frontmatter {
        if key == "related_ids" {
            match value {
                Value::Null => {}
                Value::Array(items) if items.iter().all(Value::is_string) => {
                    related.extend(items.iter().cloned())
                }
                _ => return sink.problem(line_of(key), key, "expected a list of ids".into()),
            }
        } else if is_field_key(key) {
            fields.insert(key.clone(), value.clone());
        } else {
            if crate::model::is_model_key(key) {
                sink.warning(
                    line_of(key),
                    key,
                    "names a memlens field hivelore's frontmatter does not set; kept in extra"
                        .into(),
                );
            }
            extra.insert(key.clone(), value.clone());
        }
    }
    if !fields.contains_key("id") {
        sink.warning(1, "id", format!("missing; the file name `{stem}` is used"));
        fields.insert("id".into(), stem.into());
    }
    if !fields.contains_key("created_at") {
        sink.warning(1, "created_at", "missing; the import time is used".into());
    }
    if !fields.contains_key("title")
        && let Some(title) = heading(parts.body)
    {
        fields.insert("title".into(), title.into());
    }
    fields.insert("body".into(), parts.body.into());
    if !related.is_empty() {
        let mut rels = match fields.remove("relationships") {
            Some(Value::Array(items)) => items,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        // `related_ids` lists every linked memory; one `relationships` gives a kind is
        // that link, not a second one
        let typed: Vec<Value> = rels
            .iter()
            .filter_map(|r| r.get("target").cloned())
            .collect();
        rels.extend(
            related
                .into_iter()
                .filter(|t| !typed.contains(t))
                .map(|t| json!({"target": t, "kind": "related"})),
        );
        fields.insert("relationships".into(), Value::Array(rels));
    }
    if let Some(u) = fields
        .get("id")
        .and_then(Value::as_str)
        .and_then(|id| usage.get(id))
    {
        fields.insert("read_count".into(), u.read_count.into());
        let current = fields
            .get("last_read_at")
            .and_then(Value::as_str)
            .and_then(Timestamp::parse);
        if let Some(t) = u.last_read_at.filter(|t| current.is_none_or(|c| *t > c)) {
            fields.insert("last_read_at".into(), t.to_string().into());
        }
    }
    let keys: Vec<String> = frontmatter.keys().cloned().collect();
    fields.insert(
        "source".into(),
        json!({"system": "hivelore", "path": relative, "keys": keys}),
    );
    let field_line = |field: &str| {
        let top = field.split('.').next().unwrap_or(field);
        match top {
            "relationships" if !frontmatter.contains_key("relationships") => line_of("related_ids"),
            _ => line_of(top),
        }
    };
    match Memory::from_json(&fields, now) {
        Ok((mut memory, warnings)) => {
            for w in warnings {
                sink.warning(field_line(&w.field), &w.field, w.reason);
            }
            memory.extra = extra;
            // the file memlens writes lists the plain `related` links in `related_ids`
            // after the others in `relationships`; read every file in that order, so
            // that what memlens writes reads back as it was
            memory
                .relationships
                .sort_by_key(super::write::is_plain_related);
            // a file memlens marked deleted (an export, a project curated in place)
            // is the soft-deleted memory it was, with its own status; in a project the
            // index refines this with what it kept
            if let Some(d) = crate::project::deleted::marked(&memory) {
                crate::project::deleted::restore_from(&mut memory, d);
            }
            sink.memory(1, memory);
        }
        Err(errors) => {
            for e in crate::exchange::first_per_field(errors) {
                sink.problem(field_line(&e.field), &e.field, e.reason);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Collected;

    #[test]
    fn a_directory_without_markdown_says_so_and_one_with_it_does_not() {
        let dir = tempfile::tempdir().expect("dir");
        std::fs::write(
            dir.path().join("a.jsonl"),
            "{\"id\":\"a\",\"body\":\"x\"}\n",
        )
        .expect("write");
        let mut sink = Collected::default();
        read(dir.path(), "notes", &mut sink, Timestamp(0)).expect("read");
        assert!(sink.memories.is_empty());
        assert_eq!(sink.warnings.len(), 1, "{:?}", sink.warnings);
        let said = sink.warnings[0].to_string();
        assert!(
            said.starts_with("notes: directory: holds no hivelore memory"),
            "{said}"
        );
        let md = "---\nid: b\ncreated_at: 2026-01-01T00:00:00Z\n---\nbody\n";
        std::fs::write(dir.path().join("b.md"), md).expect("write");
        let mut sink = Collected::default();
        read(dir.path(), "notes", &mut sink, Timestamp(0)).expect("read");
        assert_eq!(sink.memories.len(), 1);
        assert!(sink.warnings.is_empty(), "{:?}", sink.warnings);
    }
}
