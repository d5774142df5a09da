//! hivelore's read counts, `.ai/.cache/usage.json`, read and written as hivelore's own
//! `usage.ts` does: `{version: 1, updated_at, by_id: {<id>: {read_count, last_read_at,
//! rejected_count, …}}}`, pretty-printed with two spaces and no final newline
//! (`JSON.stringify(index, null, 2)`). A file of another version is one hivelore
//! ignores; memlens then neither reads counts from it nor writes to it. Every key memlens
//! does not change is written back as it was, in its order.

use super::ProjectError;
use crate::exchange::hivelore::read::{Usage, parse_usage};
use crate::model::Timestamp;
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::path::Path;

/// The file's name in `.ai/.cache`.
pub const USAGE_FILE: &str = "usage.json";

/// The usage index of a project, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct UsageIndex {
    /// The whole document (`None`: no file, or one hivelore would not read).
    doc: Option<Map<String, Value>>,
    /// True when the file exists but is not version 1 or not JSON: left alone.
    foreign: bool,
}

/// The fields hivelore gives a new entry (`emptyUsage()`).
fn empty_entry() -> Value {
    json!({
        "read_count": 0,
        "last_read_at": null,
        "rejected_count": 0,
        "last_rejected_at": null,
        "rejection_reason": null,
        "applied_count": 0,
        "last_applied_at": null,
        "prevented_count": 0,
        "last_prevented_at": null,
    })
}

impl UsageIndex {
    /// Reads the file at `path` (missing: an empty index).
    pub fn load(path: &Path) -> Result<UsageIndex, ProjectError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(UsageIndex {
                    doc: None,
                    foreign: false,
                });
            }
            Err(e) => return Err(ProjectError::io(path, e)),
        };
        Ok(match serde_json::from_str::<Value>(&text) {
            Ok(Value::Object(doc)) if doc.get("version") == Some(&json!(1)) => UsageIndex {
                doc: Some(doc),
                foreign: false,
            },
            _ => UsageIndex {
                doc: None,
                foreign: true,
            },
        })
    }

    /// The read counts by id, as hivelore sees them.
    pub fn counts(&self) -> HashMap<String, Usage> {
        match &self.doc {
            Some(doc) => parse_usage(&Value::Object(doc.clone()).to_string()).unwrap_or_default(),
            None => HashMap::new(),
        }
    }

    /// Sets one memory's reads; true when that changed the document. A foreign file
    /// is never changed.
    pub fn set_reads(
        &mut self,
        id: &str,
        read_count: u32,
        last_read_at: Option<Timestamp>,
    ) -> bool {
        if self.foreign {
            return false;
        }
        let doc = self.doc.get_or_insert_with(|| {
            let mut doc = Map::new();
            doc.insert("version".into(), json!(1));
            doc.insert("updated_at".into(), Value::Null);
            doc.insert("by_id".into(), json!({}));
            doc
        });
        let by_id = doc.entry("by_id").or_insert_with(|| json!({}));
        if !by_id.is_object() {
            *by_id = json!({});
        }
        let Some(by_id) = by_id.as_object_mut() else {
            return false;
        };
        let current = by_id.get(id);
        let count_now = current
            .and_then(|e| e.get("read_count"))
            .and_then(Value::as_u64);
        let at_now = current
            .and_then(|e| e.get("last_read_at"))
            .and_then(Value::as_str)
            .and_then(Timestamp::parse);
        if count_now == Some(u64::from(read_count)) && at_now == last_read_at {
            return false;
        }
        if current.is_none() && read_count == 0 && last_read_at.is_none() {
            return false;
        }
        let entry = by_id.entry(id).or_insert_with(empty_entry);
        if let Some(e) = entry.as_object_mut() {
            e.insert("read_count".into(), read_count.into());
            e.insert(
                "last_read_at".into(),
                last_read_at.map_or(Value::Null, |t| t.to_string().into()),
            );
        }
        true
    }

    /// Adds the reads memlens counted (the memory's count went from `before` to
    /// `after`) to the count the file has now, which hivelore may have raised
    /// meanwhile; the later `last_read_at` wins. Returns the new count when the
    /// document changed.
    pub fn add_reads(
        &mut self,
        id: &str,
        before: u32,
        after: u32,
        last_read_at: Option<Timestamp>,
    ) -> Option<u32> {
        if before == after {
            return None;
        }
        let entry = self
            .doc
            .as_ref()
            .and_then(|d| d.get("by_id"))
            .and_then(|b| b.get(id));
        let now = Usage {
            read_count: entry
                .and_then(|e| e.get("read_count"))
                .and_then(Value::as_u64)
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX)),
            last_read_at: entry
                .and_then(|e| e.get("last_read_at"))
                .and_then(Value::as_str)
                .and_then(Timestamp::parse),
        };
        let count = if after > before {
            now.read_count.saturating_add(after - before)
        } else {
            now.read_count.saturating_sub(before - after)
        };
        let last = match (now.last_read_at, last_read_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self.set_reads(id, count, last).then_some(count)
    }

    /// Removes a memory's entry (as hivelore's `mem_delete` does); true when it had one.
    pub fn remove(&mut self, id: &str) -> bool {
        self.doc
            .as_mut()
            .filter(|_| !self.foreign)
            .and_then(|doc| doc.get_mut("by_id"))
            .and_then(Value::as_object_mut)
            .is_some_and(|by_id| by_id.shift_remove(id).is_some())
    }

    /// The file's text with `updated_at` set to `now`, as hivelore writes it.
    pub fn render(&mut self, now: Timestamp) -> Option<String> {
        let doc = self.doc.as_mut()?;
        doc.insert("updated_at".into(), now.to_string().into());
        serde_json::to_string_pretty(&Value::Object(doc.clone())).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_set_keeping_every_other_field() {
        let dir = std::env::temp_dir().join(format!("memlens-usage-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(USAGE_FILE);
        std::fs::write(
            &path,
            r#"{"version":1,"updated_at":"x","by_id":{"a":{"read_count":2,"last_read_at":null,"applied_count":4}}}"#,
        )
        .unwrap();
        let mut usage = UsageIndex::load(&path).unwrap();
        assert_eq!(usage.counts()["a"].read_count, 2);
        let at = Timestamp::parse("2026-12-01T00:00:00.000Z");
        assert!(usage.set_reads("a", 3, at));
        assert!(!usage.set_reads("a", 3, at));
        assert!(usage.set_reads("b", 1, at));
        // reads memlens counted are added to what hivelore counted meanwhile
        assert_eq!(usage.add_reads("a", 1, 3, at), Some(5));
        assert_eq!(usage.add_reads("a", 3, 3, at), None);
        assert!(usage.set_reads("a", 3, at));
        let text = usage.render(Timestamp(0)).unwrap();
        let back: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back["by_id"]["a"]["applied_count"], 4);
        assert_eq!(back["by_id"]["a"]["read_count"], 3);
        assert_eq!(back["by_id"]["b"]["prevented_count"], 0);
        assert!(text.starts_with("{\n  \"version\": 1,\n"));
        std::fs::write(&path, r#"{"version":2}"#).unwrap();
        let mut foreign = UsageIndex::load(&path).unwrap();
        assert!(!foreign.set_reads("a", 1, at));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
