//! The zip OpenMemory's UI downloads (`POST /api/v1/backup/export` of its API): a
//! `memories.jsonl.gz` of one record per memory, as [`super::openmemory`] reads, and a
//! `memories.json` of its tables (user, apps, categories, memories with `deleted_at`
//! and `archived_at`, the links between memories and categories, status history).
//!
//! memlens reads the records of `memories.jsonl.gz`, each completed with the
//! `deleted_at` and `archived_at` of the same memory in `memories.json` (the records
//! lack them). A zip without `memories.jsonl.gz` is read from `memories.json`'s
//! memories, their app and category ids replaced by names, as OpenMemory's own import
//! falls back to it. Members are found by file name in any folder, as OpenMemory's
//! import finds them. Every member is read within the bounds of a gzip file
//! ([`super::lines::gzip_limit`]), so a zip bomb is an error, not an exhausted memory.

use super::lines::{MAX_RECORD_BYTES, gunzip, gzip_limit};
use super::{ExchangeError, RecordSink, openmemory};
use crate::model::Timestamp;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

/// The four bytes every zip archive (with at least one member) starts with.
const ZIP_MAGIC: &[u8; 4] = b"PK\x03\x04";

/// True when the file at `path` starts like a zip archive.
pub fn is_zip(path: &Path) -> bool {
    let mut head = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| &head == ZIP_MAGIC)
}

fn bad(path: &Path, reason: String) -> ExchangeError {
    ExchangeError::BadPath {
        path: path.to_path_buf(),
        reason,
    }
}

/// Reads OpenMemory's export zip at `path` into the sink; `name` is the path as the
/// user gave it.
pub fn read(
    path: &Path,
    name: &str,
    sink: &mut dyn RecordSink,
    now: Timestamp,
) -> Result<(), ExchangeError> {
    let file = File::open(path).map_err(|e| ExchangeError::io(path, e))?;
    let mut zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| {
        bad(
            path,
            format!("is not a zip archive OpenMemory could have written ({e})"),
        )
    })?;
    let member = |zip: &zip::ZipArchive<_>, wanted: &str| {
        zip.file_names()
            .filter_map(Result::ok)
            .find(|n| !n.ends_with('/') && n.rsplit('/').next() == Some(wanted))
            .map(|n| n.into_owned())
    };
    let records = member(&zip, "memories.jsonl.gz");
    let tables = member(&zip, "memories.json");
    let tables = match &tables {
        Some(m) => Some(read_tables(&mut zip, path, m)?),
        None => None,
    };
    match (records, tables) {
        (Some(records), tables) => {
            let more = tables.as_ref().map(state_times).unwrap_or_default();
            let entry = zip
                .by_name(&records)
                .map_err(|e| bad(path, format!("{records}: {e}")))?;
            // the zip's own deflate layer is held to the gzip bounds too
            let stored = entry.compressed_size();
            let inner = gunzip(entry.take(gzip_limit(stored)), stored);
            let label = format!("{name}:{records}");
            sink.file(&label);
            openmemory::read_with(
                BufReader::new(inner),
                Path::new(&label),
                &label,
                sink,
                now,
                &more,
            )
        }
        (None, Some(tables)) => {
            let label = format!("{name}:memories.json");
            sink.file(&label);
            for (i, record) in records_of_tables(&tables).iter().enumerate() {
                openmemory::record(record, &label, sink, i + 1, now);
            }
            Ok(())
        }
        (None, None) => Err(bad(
            path,
            "holds neither memories.jsonl.gz nor memories.json (OpenMemory's export zip has both)"
                .into(),
        )),
    }
}

/// `memories.json`, parsed, read within the gzip bounds of its compressed size.
fn read_tables(
    zip: &mut zip::ZipArchive<BufReader<File>>,
    path: &Path,
    member: &str,
) -> Result<Map<String, Value>, ExchangeError> {
    let entry = zip
        .by_name(member)
        .map_err(|e| bad(path, format!("{member}: {e}")))?;
    let limit = gzip_limit(entry.compressed_size()).max(MAX_RECORD_BYTES as u64);
    let mut bytes = Vec::new();
    entry
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| bad(path, format!("{member}: {e}")))?;
    if bytes.len() as u64 > limit {
        return Err(ExchangeError::TooLarge {
            path: path.join(member),
            line: 1,
            reason: format!(
                "decompresses to more than {limit} bytes; not read further, as it may be a zip bomb"
            ),
        });
    }
    match serde_json::from_slice(&bytes) {
        Ok(Value::Object(tables)) => Ok(tables),
        Ok(_) => Err(bad(path, format!("{member}: expected a JSON object"))),
        Err(e) => Err(bad(path, format!("{member}: invalid JSON: {e}"))),
    }
}

fn rows<'a>(
    tables: &'a Map<String, Value>,
    table: &str,
) -> impl Iterator<Item = &'a Map<String, Value>> {
    tables
        .get(table)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

/// Per memory id, the `deleted_at` and `archived_at` of `memories.json` that are set.
fn state_times(tables: &Map<String, Value>) -> HashMap<String, Map<String, Value>> {
    let mut out = HashMap::new();
    for m in rows(tables, "memories") {
        let Some(id) = m.get("id").and_then(Value::as_str) else {
            continue;
        };
        let mut fields = Map::new();
        for key in ["deleted_at", "archived_at"] {
            if let Some(v) = m.get(key).filter(|v| !v.is_null()) {
                fields.insert(key.to_string(), v.clone());
            }
        }
        if !fields.is_empty() {
            out.insert(id.to_string(), fields);
        }
    }
    out
}

/// `memories.json`'s memories as the records of `memories.jsonl.gz` would be: app and
/// category ids replaced by their names.
fn records_of_tables(tables: &Map<String, Value>) -> Vec<Map<String, Value>> {
    let names = |table: &str| -> HashMap<&str, &Value> {
        rows(tables, table)
            .filter_map(|r| Some((r.get("id")?.as_str()?, r.get("name")?)))
            .collect()
    };
    let (apps, categories) = (names("apps"), names("categories"));
    rows(tables, "memories")
        .map(|m| {
            let mut out = Map::new();
            for (k, v) in m {
                match k.as_str() {
                    "user_id" => {}
                    "app_id" => {
                        let app = v.as_str().and_then(|id| apps.get(id)).copied();
                        out.insert("app".into(), app.cloned().unwrap_or(Value::Null));
                    }
                    "category_ids" => {
                        let tags: Vec<Value> = v
                            .as_array()
                            .into_iter()
                            .flatten()
                            .filter_map(|id| categories.get(id.as_str()?).copied().cloned())
                            .collect();
                        out.insert("categories".into(), tags.into());
                    }
                    _ => {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            out
        })
        .collect()
}
