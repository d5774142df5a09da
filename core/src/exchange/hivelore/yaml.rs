//! A small, deterministic YAML writer for hivelore frontmatter.
//!
//! hivelore reads frontmatter with js-yaml, which types plain scalars the YAML 1.1 way
//! (an unquoted `2026-04-25T23:39:56.766Z` is a date, `yes` may be a boolean, `1_000` a
//! number). So a string is written plain only when it is unmistakably a string in every
//! YAML version; otherwise single-quoted, or double-quoted with escapes when it holds
//! characters a single-quoted scalar cannot, or as a literal block (`|`) when it is
//! multi-line text that a block keeps exactly. Floats always carry a `.` and a signed
//! exponent, so YAML 1.1 readers see a number too.

use serde_json::{Map, Value};

/// Writes `entries` as a block mapping at indentation zero, one `key: value` per entry.
pub fn mapping<'a>(entries: impl IntoIterator<Item = (&'a str, &'a Value)>) -> String {
    let mut out = String::new();
    for (key, value) in entries {
        write_entry(&mut out, 0, key, value);
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_entry(out: &mut String, level: usize, key: &str, value: &Value) {
    indent(out, level);
    out.push_str(&key_string(key));
    out.push(':');
    write_value_after(out, level, value);
}

/// Writes a value that follows `key:` or `-` on the current line, at nesting `level`.
fn write_value_after(out: &mut String, level: usize, value: &Value) {
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push('\n');
            for item in items {
                indent(out, level + 2);
                out.push('-');
                match item {
                    Value::Object(map) if !map.is_empty() => write_compact_map(out, level + 4, map),
                    _ => write_value_after(out, level + 2, item),
                }
            }
        }
        Value::Object(map) if !map.is_empty() => {
            out.push('\n');
            for (k, v) in map {
                write_entry(out, level + 2, k, v);
            }
        }
        _ => {
            out.push(' ');
            out.push_str(&scalar(value, level + 2));
            out.push('\n');
        }
    }
}

/// A mapping inside a sequence entry: the first key on the `-` line, the rest below it.
fn write_compact_map(out: &mut String, level: usize, map: &Map<String, Value>) {
    for (i, (k, v)) in map.iter().enumerate() {
        if i == 0 {
            out.push(' ');
            out.push_str(&key_string(k));
            out.push(':');
            write_value_after(out, level, v);
        } else {
            write_entry(out, level, k, v);
        }
    }
}

/// A scalar (or an empty collection) written on one line, or as a block starting on it.
fn scalar(value: &Value, level: usize) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => scalar_string(s, level),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// A number as YAML 1.1 and 1.2 readers both read it back.
pub fn number(n: &serde_json::Number) -> String {
    if n.is_f64() {
        let text = n.to_string();
        match text.split_once(['e', 'E']) {
            Some((mantissa, exp)) => {
                let mantissa = if mantissa.contains('.') {
                    mantissa.to_string()
                } else {
                    format!("{mantissa}.0")
                };
                let exp = if exp.starts_with(['-', '+']) {
                    exp.to_string()
                } else {
                    format!("+{exp}")
                };
                format!("{mantissa}e{exp}")
            }
            None if text.contains('.') => text,
            None => format!("{text}.0"),
        }
    } else {
        n.to_string()
    }
}

/// Words YAML 1.1 or 1.2 reads as booleans or null when unquoted.
const RESERVED: [&str; 11] = [
    "y", "n", "yes", "no", "on", "off", "true", "false", "null", "nan", "inf",
];

/// True when `s` can be written unquoted and still reads back as this very string.
pub fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    let lower = s.to_ascii_lowercase();
    // A digit may start a string only when a letter that no number, date or time can
    // contain follows (`2026-04-25-decision-esm-only`); a dot only before a name
    // (`.github/…`), never `.inf`/`.nan`/`.5`.
    let digit_ok = || {
        s.chars()
            .any(|c| c.is_alphabetic() && !"abcdefxobtzABCDEFXOBTZ".contains(c))
    };
    let dot_ok = || {
        s[1..].starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '/')
            && !matches!(lower.as_str(), ".inf" | ".nan")
    };
    let start_ok = first.is_alphabetic()
        || first == '_'
        || first == '/'
        || (first.is_ascii_digit() && digit_ok())
        || (first == '.' && dot_ok());
    if !start_ok || s.ends_with(char::is_whitespace) || RESERVED.contains(&lower.as_str()) {
        return false;
    }
    s.chars().all(|c| {
        !c.is_control()
            && !matches!(
                c,
                ':' | '#'
                    | '{'
                    | '}'
                    | '['
                    | ']'
                    | ','
                    | '&'
                    | '*'
                    | '!'
                    | '|'
                    | '>'
                    | '\''
                    | '"'
                    | '%'
                    | '@'
                    | '`'
                    | '\\'
            )
            && (c == ' ' || !c.is_whitespace())
            && !is_unsafe_unicode(c)
    })
}

/// A mapping key: plain or quoted, never a block.
fn key_string(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_string()
    } else if s.chars().all(is_single_quotable) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        double_quoted(s)
    }
}

/// A string scalar at nesting `level` (used for block indentation).
pub fn scalar_string(s: &str, level: usize) -> String {
    if is_plain_safe(s) {
        s.to_string()
    } else if let Some(block) = literal_block(s, level) {
        block
    } else if s.chars().all(is_single_quotable) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        double_quoted(s)
    }
}

fn is_single_quotable(c: char) -> bool {
    (c == ' ' || !c.is_control()) && !is_unsafe_unicode(c) && c != '\t'
}

/// Multi-line text as a literal block, when a block keeps it exactly: no tabs or other
/// control characters, no line of only spaces, no leading space on the first line.
fn literal_block(s: &str, level: usize) -> Option<String> {
    if !s.contains('\n') || s.contains('\r') || s.starts_with([' ', '\n']) {
        return None;
    }
    let content = s.trim_end_matches('\n');
    let trailing = s.len() - content.len();
    if content.split('\n').any(|line| {
        !line.chars().all(is_single_quotable) || (!line.is_empty() && line.trim().is_empty())
    }) {
        return None;
    }
    let chomp = match trailing {
        0 => "|-",
        1 => "|",
        _ => "|+",
    };
    let mut out = String::from(chomp);
    let pad = " ".repeat(level);
    for line in s
        .split('\n')
        .take(content.split('\n').count() + trailing.saturating_sub(1))
    {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    Some(out)
}

fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() || is_unsafe_unicode(c) => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{n:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Characters a YAML reader refuses or changes outside a double-quoted escape: the
/// byte-order mark, the Unicode line separators, the C1 controls, and U+FFFE and
/// U+FFFF (outside YAML's printable set: a file holding them raw does not load).
fn is_unsafe_unicode(c: char) -> bool {
    matches!(
        c,
        '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{85}' | '\u{fffe}' | '\u{ffff}'
    ) || ('\u{80}'..='\u{9f}').contains(&c)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn strings_a_yaml_1_1_reader_would_retype_are_quoted() {
        for s in [
            "2026-04-25T23:39:56.850Z",
            "2026-04-25",
            "yes",
            "No",
            "on",
            "null",
            "~",
            "1_000",
            "0x1F",
            "12:30",
            ".inf",
            "-1",
            "+1",
            "1e3",
            "",
            " padded",
            "a: b",
            "x #y",
            "@scoped/pkg",
            "NaN",
            "2026-04-25-face",
            "0o17",
            ".5",
            ".Inf",
            "1.0e+3",
        ] {
            assert!(!is_plain_safe(s), "{s:?} must be quoted");
        }
        for s in [
            "team",
            "validated",
            "packages/core/src/x.ts",
            "skill/close-session",
            "EmbedderLike",
            "2026-04-25-decision-esm-only",
            ".github/workflows/ci.yml",
        ] {
            assert!(is_plain_safe(s), "{s:?} can be plain");
        }
    }

    #[test]
    fn floats_keep_a_point_and_a_signed_exponent() {
        let n = |v: f64| number(&serde_json::Number::from_f64(v).unwrap());
        assert_eq!(n(0.5), "0.5");
        assert_eq!(n(2.0), "2.0");
        assert_eq!(n(1e300), "1.0e+300");
        assert_eq!(n(1.5e-7), "1.5e-7");
    }

    #[test]
    fn nested_values_read_back_equal() {
        let v = json!({
            "anchor": {"paths": ["a/b.ts", "2026"], "symbols": []},
            "sensor": {"kind": "regex", "pattern": "console\\.(log)\\(['\"]", "message": "line one\nline two\n", "timeout_ms": 5},
            "list": [[1, 2], {"a": null, "b": [true]}, "x\ty", "tail\n\n", "\u{85}odd"],
            "empty": {},
            "quote": "it's",
        });
        let Value::Object(map) = &v else {
            unreachable!()
        };
        let text = mapping(map.iter().map(|(k, v)| (k.as_str(), v)));
        let back: Value = serde_yaml_ng::from_str(&text).unwrap();
        assert_eq!(back, v, "{text}");
    }
}
