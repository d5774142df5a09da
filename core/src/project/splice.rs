//! Changing a hivelore file as little as possible: only the frontmatter entries whose
//! value changes are rewritten (each by the hivelore YAML writer), the others keep their
//! bytes (comments, quoting, line endings), and the body is replaced only when it
//! changed. Frontmatter that cannot be cut into top-level entries safely is written
//! whole instead, keys in their order.

use crate::exchange::hivelore::{split, yaml};
use crate::model::Timestamp;
use serde_json::{Map, Value};

/// What a file should say: `(key, Some(value))` to set, `(key, None)` to remove.
pub type Wanted = Vec<(String, Option<Value>)>;

/// One top-level frontmatter entry: its key and its lines (the key's line and every
/// indented or continuation line after it).
struct Entry<'a> {
    key: String,
    text: &'a str,
}

/// The key a top-level line starts, when it starts one.
fn key_of(line: &str) -> Option<String> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '-' | '?' | '{' | '[' | '}' | ']') {
        return None;
    }
    let unquote = |q: char| {
        let rest = line.strip_prefix(q)?;
        let end = rest.find(q)?;
        rest[end + 1..]
            .trim_start()
            .starts_with(':')
            .then(|| rest[..end].to_string())
    };
    match first {
        '\'' => unquote('\''),
        '"' => unquote('"'),
        _ => {
            let colon = line.find(": ").or_else(|| {
                let t = line.trim_end();
                t.ends_with(':').then(|| t.len() - 1)
            })?;
            Some(line[..colon].trim_end().to_string())
        }
    }
}

/// Cuts frontmatter into its leading lines (comments) and entries.
fn entries(yaml: &str) -> (&str, Vec<Entry<'_>>) {
    let mut starts: Vec<(usize, String)> = Vec::new();
    let mut offset = 0;
    for line in yaml.split_inclusive('\n') {
        if let Some(key) = key_of(line) {
            starts.push((offset, key));
        }
        offset += line.len();
    }
    let lead = &yaml[..starts.first().map_or(yaml.len(), |s| s.0)];
    let mut out = Vec::with_capacity(starts.len());
    for (i, (start, key)) in starts.iter().enumerate() {
        let end = starts.get(i + 1).map_or(yaml.len(), |s| s.0);
        out.push(Entry {
            key: key.clone(),
            text: &yaml[*start..end],
        });
    }
    (lead, out)
}

/// True when two frontmatter values mean the same (timestamps compared as instants).
pub fn same(a: &Value, b: &Value) -> bool {
    if a == b {
        return true;
    }
    match (
        a.as_str().and_then(Timestamp::parse),
        b.as_str().and_then(Timestamp::parse),
    ) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

/// One entry as the YAML writer renders it, in the file's line endings.
fn render_entry(key: &str, value: &Value, crlf: bool) -> String {
    let text = yaml::mapping(std::iter::once((key, value)));
    if crlf {
        text.replace('\n', "\r\n")
    } else {
        text
    }
}

/// The frontmatter of `text` parsed, or `None` when it has none that parses.
pub fn frontmatter(text: &str) -> Option<Map<String, Value>> {
    let parts = split(text).ok()?;
    match serde_yaml_ng::from_str::<Value>(parts.yaml).ok()? {
        Value::Object(map) => Some(map),
        Value::Null => Some(Map::new()),
        _ => None,
    }
}

/// `text` with the wanted frontmatter changes and `body`; `None` when `text` has no
/// frontmatter that parses (the caller then writes the file whole).
pub fn splice(text: &str, wanted: &Wanted, body: &str) -> Option<String> {
    let parts = split(text).ok()?;
    let parsed = frontmatter(text)?;
    let yaml_start = parts.yaml.as_ptr() as usize - text.as_ptr() as usize;
    let yaml_end = yaml_start + parts.yaml.len();
    let body_start = parts.body.as_ptr() as usize - text.as_ptr() as usize;
    let crlf = text[..yaml_start].ends_with("\r\n");
    let (lead, cut) = entries(parts.yaml);
    let keys_match = cut.len() == parsed.len() && cut.iter().all(|e| parsed.contains_key(&e.key));
    let mut yaml = String::with_capacity(parts.yaml.len() + 64);
    if keys_match {
        yaml.push_str(lead);
        for entry in &cut {
            match wanted.iter().find(|(k, _)| *k == entry.key) {
                None => yaml.push_str(entry.text),
                Some((_, None)) => {}
                Some((_, Some(v))) if parsed.get(&entry.key).is_some_and(|old| same(old, v)) => {
                    yaml.push_str(entry.text)
                }
                Some((k, Some(v))) => yaml.push_str(&render_entry(k, v, crlf)),
            }
        }
    } else {
        // written whole: the file's keys in their order, then the new ones
        for (key, old) in &parsed {
            match wanted.iter().find(|(k, _)| k == key) {
                None => yaml.push_str(&render_entry(key, old, crlf)),
                Some((_, None)) => {}
                Some((_, Some(v))) => yaml.push_str(&render_entry(key, v, crlf)),
            }
        }
    }
    for (key, value) in wanted {
        if let Some(v) = value.as_ref().filter(|_| !parsed.contains_key(key)) {
            yaml.push_str(&render_entry(key, v, crlf));
        }
    }
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(&text[..yaml_start]);
    out.push_str(&yaml);
    out.push_str(&text[yaml_end..body_start]);
    out.push_str(body);
    Some(out)
}

/// A new file: frontmatter from `wanted` in its order, then the body.
pub fn whole(wanted: &Wanted, body: &str) -> String {
    let entries: Vec<(&str, &Value)> = wanted
        .iter()
        .filter_map(|(k, v)| v.as_ref().map(|v| (k.as_str(), v)))
        .collect();
    format!("---\n{}---\n{body}", yaml::mapping(entries))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const FILE: &str = "---\nid: a\n# note\nstatus: validated\nanchor:\n  paths:\n    - x.rs\ntags: [one, two]\ncreated_at: '2026-05-04T01:06:01.101Z'\nstale_reason: null\n---\n# T\n\nbody\n";

    #[test]
    fn only_changed_entries_are_rewritten() {
        let wanted = vec![
            ("status".to_string(), Some(json!("deprecated"))),
            ("tags".to_string(), Some(json!(["one", "two"]))),
            (
                "created_at".to_string(),
                Some(json!("2026-05-04T01:06:01.101Z")),
            ),
            ("stale_reason".to_string(), Some(json!("gone"))),
            ("topic".to_string(), Some(json!("t"))),
        ];
        let out = splice(FILE, &wanted, "# T\n\nbody\n").unwrap();
        assert_eq!(
            out,
            "---\nid: a\n# note\nstatus: deprecated\nanchor:\n  paths:\n    - x.rs\ntags: [one, two]\ncreated_at: '2026-05-04T01:06:01.101Z'\nstale_reason: gone\ntopic: t\n---\n# T\n\nbody\n"
        );
        let back = vec![
            ("status".to_string(), Some(json!("validated"))),
            ("stale_reason".to_string(), Some(Value::Null)),
            ("topic".to_string(), None),
        ];
        assert_eq!(splice(&out, &back, "# T\n\nbody\n").unwrap(), FILE);
    }

    #[test]
    fn crlf_files_keep_their_line_endings() {
        let file = FILE.replace('\n', "\r\n");
        let wanted = vec![("status".to_string(), Some(json!("stale")))];
        let out = splice(&file, &wanted, "b").unwrap();
        assert!(out.contains("\r\nstatus: stale\r\nanchor:"), "{out:?}");
        assert!(out.ends_with("---\r\nb"));
        assert_eq!(splice("no frontmatter", &wanted, "b"), None);
    }
}
