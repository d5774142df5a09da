//! `--format auto`: telling the formats apart by the path and the first record.
//!
//! A directory or a `.md` file is hivelore; a `.gz` file or a zip archive is OpenMemory
//! (its export and the zip its UI downloads); otherwise the
//! first non-blank line decides: `content` and `state` keys mean OpenMemory, a `type` of
//! `entity` with a `name`, or `relation` with `from` and `to`, and no `body` means the
//! MCP memory server, anything else is canonical JSONL (whose reader then reports what
//! is wrong with it, if anything): a memory of type `entity` in memlens's own export
//! has a `body`, which no line of the server's has.

use super::{ExchangeError, Format, lines};
use serde_json::Value;
use std::path::Path;

/// The format of the file or directory at `path`.
pub fn detect(path: &Path) -> Result<Format, ExchangeError> {
    let meta = std::fs::metadata(path).map_err(|e| ExchangeError::io(path, e))?;
    if meta.is_dir() || has_extension(path, "md") {
        return Ok(Format::Hivelore);
    }
    if lines::is_gzip(path) || super::openmemory_zip::is_zip(path) {
        return Ok(Format::Openmemory);
    }
    Ok(match lines::first_line(path)? {
        Some(line) => detect_line(&line),
        None => Format::Jsonl,
    })
}

/// The format a first line of JSON suggests.
pub fn detect_line(line: &str) -> Format {
    let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(line) else {
        return Format::Jsonl;
    };
    if obj.contains_key("content") && obj.contains_key("state") {
        Format::Openmemory
    } else if !obj.contains_key("body")
        && match obj.get("type").and_then(Value::as_str) {
            Some("entity") => obj.contains_key("name"),
            Some("relation") => obj.contains_key("from") && obj.contains_key("to"),
            _ => false,
        }
    {
        Format::McpMemory
    } else {
        Format::Jsonl
    }
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_lines_tell_the_json_formats_apart() {
        assert_eq!(
            detect_line(r#"{"id":"a","content":"x","state":"active"}"#),
            Format::Openmemory
        );
        assert_eq!(
            detect_line(r#"{"type":"entity","name":"a","entityType":"person","observations":[]}"#),
            Format::McpMemory
        );
        assert_eq!(
            detect_line(r#"{"type":"relation","from":"a","to":"b","relationType":"knows"}"#),
            Format::McpMemory
        );
        assert_eq!(
            detect_line(r#"{"id":"a","body":"x","type":"decision"}"#),
            Format::Jsonl
        );
        assert_eq!(detect_line("not json"), Format::Jsonl);
        // memlens's own export of memories whose type is `entity` or `relation`
        assert_eq!(
            detect_line(
                r#"{"id":"Aardvark","body":"x","type":"entity","created_at":"2026-01-01T00:00:00Z"}"#
            ),
            Format::Jsonl
        );
        assert_eq!(
            detect_line(r#"{"id":"r","body":"","type":"relation"}"#),
            Format::Jsonl
        );
    }
}
