//! OpenMemory's export (`memories.jsonl`, or `.jsonl.gz`): lines of `{id, content,
//! metadata, created_at, updated_at, state, app, categories[]}`. The zip its UI
//! downloads holds that file beside `memories.json` ([`super::openmemory_zip`]).
//!
//! Mapping: `content` → body; `categories` → tags; `state` `active` keeps the default
//! status (draft), `archived` → deprecated, `paused` → stale, `deleted` → `deleted_at` =
//! `updated_at` (else `created_at`, else the import time); `metadata`, `app` and every
//! other field memlens does not model → `extra`. Timestamps may be RFC 3339, naive ISO
//! times (read as UTC, as OpenMemory writes them) or Unix seconds (milliseconds when
//! the number is too large to be seconds). `source` = `{system: "openmemory", path}`.

use super::{ExchangeError, RecordSink, deliver, jsonl, lines};
use crate::model::{Memory, Timestamp};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::io::BufRead;
use std::path::Path;

/// Reads an OpenMemory export into the sink; `name` is the file as the user gave it.
pub fn read(
    reader: impl BufRead,
    path: &Path,
    name: &str,
    sink: &mut dyn RecordSink,
    now: Timestamp,
) -> Result<(), ExchangeError> {
    read_with(reader, path, name, sink, now, &HashMap::new())
}

/// [`read`], each record completed with the fields `more` holds for its id (those it
/// lacks: the `deleted_at` and `archived_at` that only the zip's `memories.json` has).
pub fn read_with(
    reader: impl BufRead,
    path: &Path,
    name: &str,
    sink: &mut dyn RecordSink,
    now: Timestamp,
    more: &HashMap<String, Map<String, Value>>,
) -> Result<(), ExchangeError> {
    lines::for_each_line(reader, path, sink, |sink, line, text| {
        let Some(mut obj) = jsonl::parse_object(sink, line, text) else {
            return;
        };
        if let Some(fields) = obj
            .get("id")
            .and_then(Value::as_str)
            .and_then(|id| more.get(id))
        {
            for (k, v) in fields {
                if !obj.contains_key(k) {
                    obj.insert(k.clone(), v.clone());
                }
            }
        }
        record(&obj, name, sink, line, now);
    })
}

/// Delivers one OpenMemory record (`line` in `name`) as a memory, or its problems.
pub fn record(
    obj: &Map<String, Value>,
    name: &str,
    sink: &mut dyn RecordSink,
    line: usize,
    now: Timestamp,
) {
    if let Some(canonical) = to_canonical(obj, name, sink, line, now) {
        // problems are said in the file's own names: `content`, not `body`
        let in_file_names = |mut errors: Vec<crate::model::FieldError>| {
            for e in &mut errors {
                if let Some((_, theirs)) = FILE_NAMES.iter().find(|(ours, _)| e.field == *ours) {
                    e.field = (*theirs).to_string();
                }
            }
            errors
        };
        let outcome = Memory::from_json(&canonical, now)
            .map(|(m, warnings)| (m, in_file_names(warnings)))
            .map_err(in_file_names);
        deliver(sink, line, outcome);
    }
}

/// memlens's field names and the names an OpenMemory record gives those fields.
const FILE_NAMES: [(&str, &str); 2] = [("body", "content"), ("tags", "categories")];

/// The OpenMemory states and the status each one maps to (`deleted` is handled apart).
const STATES: [(&str, Option<&str>); 3] = [
    ("active", None),
    ("archived", Some("deprecated")),
    ("paused", Some("stale")),
];

/// Rewrites one OpenMemory record in memlens's field names; `None` after reporting a
/// problem.
fn to_canonical(
    obj: &Map<String, Value>,
    name: &str,
    sink: &mut dyn RecordSink,
    line: usize,
    now: Timestamp,
) -> Option<Map<String, Value>> {
    let mut out = Map::new();
    let mut ok = true;
    let mut deleted = false;
    for (key, value) in obj {
        match key.as_str() {
            "content" if !obj.contains_key("body") => {
                out.insert("body".into(), value.clone());
            }
            "categories" if !obj.contains_key("tags") => {
                out.insert("tags".into(), value.clone());
            }
            "created_at" | "updated_at" | "deleted_at" => match time_value(value) {
                Ok(Some(t)) => {
                    out.insert(key.clone(), t.to_string().into());
                }
                Ok(None) => {}
                Err(reason) => {
                    sink.problem(line, key, reason);
                    ok = false;
                }
            },
            "state" => match value.as_str() {
                Some("deleted") => deleted = true,
                Some(state) => match STATES.iter().find(|(s, _)| *s == state) {
                    Some((_, Some(status))) if !obj.contains_key("status") => {
                        out.insert("status".into(), (*status).into());
                    }
                    Some(_) => {}
                    None => {
                        sink.problem(
                            line,
                            key,
                            format!("`{state}` is not one of active, paused, archived, deleted"),
                        );
                        ok = false;
                    }
                },
                None => {
                    sink.problem(line, key, "expected a string".into());
                    ok = false;
                }
            },
            _ => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    if deleted && !out.contains_key("deleted_at") {
        let at = out
            .get("updated_at")
            .or_else(|| out.get("created_at"))
            .cloned()
            .unwrap_or_else(|| now.to_string().into());
        out.insert("deleted_at".into(), at);
    }
    if !out.contains_key("source") {
        out.insert(
            "source".into(),
            json!({"system": "openmemory", "path": name}),
        );
    }
    ok.then_some(out)
}

/// A timestamp in any of the forms OpenMemory exports write.
fn time_value(value: &Value) -> Result<Option<Timestamp>, String> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => parse_time(s)
            .map(Some)
            .ok_or_else(|| format!("`{s}` is not a timestamp")),
        Value::Number(n) => {
            let secs = n.as_f64().unwrap_or(f64::NAN);
            let secs = if secs.abs() > 1e11 {
                secs / 1000.0
            } else {
                secs
            };
            if secs.is_finite() && secs.abs() < 1e11 {
                Ok(Some(Timestamp((secs * 1e9).round() as i64)))
            } else {
                Err(format!("{n} is not a Unix time"))
            }
        }
        other => Err(format!("expected a timestamp, found {other}")),
    }
}

/// RFC 3339, or a naive `YYYY-MM-DD[T ]HH:MM:SS[.fff]` read as UTC.
fn parse_time(s: &str) -> Option<Timestamp> {
    let s = s.trim();
    Timestamp::parse(s).or_else(|| {
        let t = s.replacen(' ', "T", 1);
        Timestamp::parse(&t).or_else(|| Timestamp::parse(&format!("{t}Z")))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Collected;
    use crate::model::Status;

    #[test]
    fn maps_states_categories_and_keeps_metadata_and_app() {
        let text = concat!(
            r#"{"id":"m1","content":"likes tea","metadata":{"k":1},"created_at":"2025-01-02T03:04:05.123456","updated_at":"2025-01-03 00:00:00","state":"archived","app":"cursor","categories":["food","food"," prefs "]}"#,
            "\n",
            r#"{"id":"m2","content":"gone","created_at":1735689600,"updated_at":1735776000000,"state":"deleted","app":"x","categories":[]}"#,
            "\n",
            r#"{"id":"m3","content":"x","state":"frozen"}"#,
            "\n"
        );
        let mut sink = Collected::default();
        sink.file("m.jsonl");
        read(
            text.as_bytes(),
            Path::new("m.jsonl"),
            "m.jsonl",
            &mut sink,
            Timestamp(0),
        )
        .unwrap();
        assert_eq!(sink.memories.len(), 2);
        let m1 = &sink.memories[0].2;
        assert_eq!(m1.body, "likes tea");
        assert_eq!(m1.status, Status::Deprecated);
        assert_eq!(m1.tags, ["food", "prefs"]);
        assert_eq!(m1.created_at.to_string(), "2025-01-02T03:04:05.123456Z");
        assert_eq!(m1.updated_at.to_string(), "2025-01-03T00:00:00.000Z");
        assert_eq!(m1.extra["metadata"], json!({"k": 1}));
        assert_eq!(m1.extra["app"], json!("cursor"));
        assert_eq!(m1.source.as_ref().unwrap().system, "openmemory");
        let m2 = &sink.memories[1].2;
        assert_eq!(m2.created_at.to_string(), "2025-01-01T00:00:00.000Z");
        assert_eq!(m2.deleted_at, Some(m2.updated_at));
        assert_eq!(m2.updated_at.to_string(), "2025-01-02T00:00:00.000Z");
        assert_eq!(sink.problems.len(), 1);
        assert_eq!(
            sink.problems[0].to_string(),
            "m.jsonl:3: state: `frozen` is not one of active, paused, archived, deleted"
        );
    }
}
