//! Canonical JSONL in: one JSON object per line, read by `Memory::from_json` (which also
//! takes remember-core's field names and keeps unknown fields in `extra`).
//!
//! Lines in canonical form take a fast path (`fast_json`); the rest, and every line
//! with a problem, go through `Memory::from_json`.
//!
//! `source` is left as the line gives it: canonical JSONL is memlens's own exchange
//! format, so an export imports back exactly as it was.

use super::{ExchangeError, RecordSink, deliver, fast_json, lines};
use crate::model::{Memory, Timestamp};
use serde_json::{Map, Value};
use std::io::BufRead;
use std::path::Path;

/// Reads every line of a JSONL stream into the sink.
pub fn read(
    reader: impl BufRead,
    path: &Path,
    sink: &mut dyn RecordSink,
    now: Timestamp,
) -> Result<(), ExchangeError> {
    lines::for_each_line(reader, path, sink, |sink, line, text| {
        if let Some(memory) = fast_json::parse_canonical(text, now) {
            sink.checked_memory(line, memory);
        } else if let Some(obj) = parse_object(sink, line, text) {
            deliver(sink, line, Memory::from_json(&obj, now));
        }
    })
}

/// Parses one line as a JSON object, reporting broken JSON or another kind of value as a
/// problem in field `json`.
pub fn parse_object(
    sink: &mut dyn RecordSink,
    line: usize,
    text: &str,
) -> Option<Map<String, Value>> {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(obj)) => Some(obj),
        Ok(other) => {
            let kind = crate::model::json::kind_of(&other);
            sink.problem(line, "json", format!("expected an object, found {kind}"));
            None
        }
        Err(e) => {
            sink.problem(line, "json", json_reason(&e));
            None
        }
    }
}

/// serde_json's message with the position given as a column of this line.
pub fn json_reason(e: &serde_json::Error) -> String {
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(at) => &message[..at],
        None => message.as_str(),
    };
    // what serde_json says of a `\ud800` without its other half ("unexpected end of hex
    // escape", "lone leading surrogate") does not say what is wrong with the text
    let surrogate = message.contains("surrogate") || message.contains("end of hex escape");
    let why = if surrogate {
        " — a \\u escape from D800 to DFFF is half of a UTF-16 pair and names no character without its other half (a program wrote a string cut inside a character)"
    } else {
        ""
    };
    format!("invalid JSON: {message} (column {}){why}", e.column())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Collected;

    fn read_text(text: &str) -> Collected {
        let mut sink = Collected::default();
        sink.file("t.jsonl");
        read(
            text.as_bytes(),
            Path::new("t.jsonl"),
            &mut sink,
            Timestamp(0),
        )
        .unwrap();
        sink
    }

    #[test]
    fn reports_broken_json_and_bad_fields_at_their_lines() {
        let text = "{\"id\":\"a\",\"body\":\"x\"}\n\n{\"id\":\"b\",\n{\"id\":\"c\",\"body\":\"x\",\"feel_fear\":2}\n[1]\n";
        let got = read_text(text);
        assert_eq!(got.memories.len(), 1);
        assert_eq!(got.memories[0].1, 1);
        let lines: Vec<String> = got.problems.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[0].starts_with("t.jsonl:3: json: invalid JSON: "),
            "{}",
            lines[0]
        );
        assert_eq!(lines[1], "t.jsonl:4: feel_fear: 2 is outside 0–1");
        assert_eq!(
            lines[2],
            "t.jsonl:5: json: expected an object, found an array"
        );
    }

    #[test]
    fn half_a_surrogate_pair_is_said_to_name_no_character() {
        let text = r#"{"id":"a","body":"\ud800"}
{"id":"b","body":"a\udc00b"}
{"id":"c","body":"\ud83d\ude00"}
"#;
        let got = read_text(text);
        let lines: Vec<String> = got.problems.iter().map(ToString::to_string).collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        for (line, n) in lines.iter().zip(1..) {
            assert!(
                line.starts_with(&format!("t.jsonl:{n}: json: invalid JSON: "))
                    && line.contains("half of a UTF-16 pair"),
                "{line}"
            );
        }
        // a whole pair is a character
        assert_eq!(got.memories.len(), 1);
        assert_eq!(got.memories[0].2.body, "\u{1f600}");
    }

    #[test]
    fn a_crlf_file_with_a_byte_order_mark_reads_like_a_plain_one() {
        let got =
            read_text("\u{feff}{\"id\":\"a\",\"body\":\"x\"}\r\n{\"id\":\"b\",\"body\":\"y\"}\r\n");
        assert!(got.problems.is_empty(), "{:?}", got.problems);
        let ids: Vec<&str> = got.memories.iter().map(|m| m.2.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
    }
}
