//! hivelore's memories: Markdown files with YAML frontmatter under `.ai/memories`.
//!
//! Mapping (both ways): frontmatter keys that name a memlens field map to it (`id`,
//! `scope`, `module`, `type`, `status`, `tags`, `created_at`, `last_read_at`, and the
//! fields memlens itself writes back such as `title`, `updated_at`, `read_count`,
//! `weight`, `feel_*`); `related_ids` are relationships of kind `related`; every other
//! key (`anchor`, `sensor`, `expires_when`, `verified_at`, `stale_reason`,
//! `revision_count`, `requires_human_approval`, `validated_by`, `topic`, …) goes to
//! `extra` unchanged. The title is the body's first `# ` heading (outside code fences);
//! the body is kept byte for byte, heading included. hivelore has no `updated_at`, so it
//! is `created_at` until memlens changes the memory. `source` records the file's path
//! under the import root and the frontmatter keys in their order, so an export writes
//! the same keys back in the same order.

pub mod read;
pub mod write;
pub mod yaml;

use crate::model::FEEL_DIMS;

/// The memory types hivelore itself accepts.
pub const HIVELORE_TYPES: [&str; 8] = [
    "convention",
    "decision",
    "gotcha",
    "architecture",
    "glossary",
    "skill",
    "attempt",
    "session_recap",
];

/// Frontmatter keys that name memlens fields, in the order an export adds them when
/// a file did not have them (`feel_*` follow `rating_count`, `rem_visits` comes last).
pub const FIELD_KEYS: [&str; 23] = [
    "id",
    "title",
    "scope",
    "module",
    "type",
    "status",
    "tags",
    "created_at",
    "updated_at",
    "last_read_at",
    "read_count",
    "related_ids",
    "relationships",
    "weight",
    "trust",
    "trust_score",
    "confidence",
    "deleted_at",
    "deleted_reason",
    "rating_sum",
    "rating_count",
    "ratings",
    "curated",
];

/// True when a frontmatter key maps to a memlens field rather than to `extra`.
pub fn is_field_key(key: &str) -> bool {
    FIELD_KEYS.contains(&key) || key == "rem_visits" || FEEL_DIMS.iter().any(|d| d.field == key)
}

/// Every field key in export order.
pub fn field_keys_in_order() -> impl Iterator<Item = &'static str> {
    FIELD_KEYS
        .into_iter()
        .chain(FEEL_DIMS.iter().map(|d| d.field))
        .chain(std::iter::once("rem_visits"))
}

/// The first `# ` heading of a Markdown body, outside fenced code blocks.
pub fn heading(body: &str) -> Option<String> {
    let mut fence: Option<&str> = None;
    for line in body.lines() {
        let trimmed = line.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) {
                fence = None;
            }
            continue;
        }
        if trimmed.starts_with("```") {
            fence = Some("```");
        } else if trimmed.starts_with("~~~") {
            fence = Some("~~~");
        } else if let Some(rest) = line.strip_prefix("# ") {
            let title = rest.trim();
            if !title.is_empty() {
                return Some(title.to_string());
            }
        }
    }
    None
}

/// A Markdown file split at its frontmatter.
#[derive(Debug, PartialEq, Eq)]
pub struct Parts<'a> {
    /// The YAML between the `---` lines.
    pub yaml: &'a str,
    /// Everything after the closing `---` line, byte for byte.
    pub body: &'a str,
}

/// Line of the file on which the YAML starts (the opening `---` is line 1).
pub const YAML_FIRST_LINE: usize = 2;

/// Splits a file into frontmatter and body; `Err((line, reason))` when there is none.
pub fn split(text: &str) -> Result<Parts<'_>, (usize, String)> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let is_fence = |line: &str| line.trim_end() == "---";
    let Some((first, rest)) = text.split_once('\n') else {
        return Err((
            1,
            "no frontmatter (a hivelore memory starts with a `---` line)".into(),
        ));
    };
    if !is_fence(first) {
        return Err((
            1,
            "no frontmatter (a hivelore memory starts with a `---` line)".into(),
        ));
    }
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if is_fence(line) {
            let body_start = offset + line.len();
            return Ok(Parts {
                yaml: &rest[..offset],
                body: &rest[body_start..],
            });
        }
        offset += line.len();
    }
    Err((1, "the frontmatter has no closing `---` line".into()))
}

/// The line of the file where a top-level frontmatter key is written (line 1 when it
/// cannot be found, e.g. for a key that is missing).
pub fn key_line(yaml: &str, key: &str) -> usize {
    for (i, line) in yaml.lines().enumerate() {
        let unquoted = line
            .strip_prefix(key)
            .or_else(|| line.strip_prefix(&format!("'{key}'")))
            .or_else(|| line.strip_prefix(&format!("\"{key}\"")));
        if unquoted.is_some_and(|rest| rest.trim_start().starts_with(':')) {
            return YAML_FIRST_LINE + i;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_frontmatter_and_keeps_the_body_exactly() {
        let parts = split("---\nid: a\n---\n# T\n\nbody\n").unwrap();
        assert_eq!(parts.yaml, "id: a\n");
        assert_eq!(parts.body, "# T\n\nbody\n");
        let crlf = split("---\r\nid: a\r\n---\r\nx").unwrap();
        assert_eq!(crlf.yaml, "id: a\r\n");
        assert_eq!(crlf.body, "x");
        assert_eq!(split("---\nid: a\n---").unwrap().body, "");
        assert!(split("# no frontmatter\n").is_err());
        assert!(split("---\nid: a\n").is_err());
    }

    #[test]
    fn heading_skips_code_fences_and_needs_a_space() {
        assert_eq!(heading("intro\n# Title \nx").as_deref(), Some("Title"));
        assert_eq!(
            heading("```sh\n# comment\n```\n#nospace\n# Real").as_deref(),
            Some("Real")
        );
        assert_eq!(heading("## Sub only"), None);
    }

    #[test]
    fn key_lines_count_from_the_opening_fence() {
        let yaml = "id: a\nanchor:\n  paths: []\nstatus: x\n";
        assert_eq!(key_line(yaml, "status"), 5);
        assert_eq!(key_line(yaml, "paths"), 1);
        assert_eq!(key_line(yaml, "id"), 2);
    }
}
