//! JSON as memlens writes it: serde_json's compact or pretty form, with every
//! character [`super::is_unsafe`] names (DEL, the C1 controls, bidi controls, line and
//! paragraph separators) escaped as `\uXXXX` on top of the C0 controls serde_json
//! escapes itself, so a JSON document printed to a terminal carries no raw control.

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, PrettyFormatter, Serializer};
use std::io::{self, Write};

/// A formatter that escapes what [`super::is_unsafe`] names inside strings.
struct Escaping<F>(F);

impl<F: Formatter> Formatter for Escaping<F> {
    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if super::is_unsafe(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                write!(writer, "\\u{:04x}", u32::from(c))?;
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Writes `value` as compact JSON (one line) to `out`.
pub fn write_compact<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(out, Escaping(CompactFormatter));
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// Writes `value` as indented JSON to `out`.
pub fn write_pretty<T: Serialize + ?Sized>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    let mut ser = Serializer::with_formatter(out, Escaping(PrettyFormatter::new()));
    // an error of the output keeps its kind (a closed pipe is not a failure)
    value.serialize(&mut ser).map_err(io::Error::from)
}

/// `value` as compact JSON text.
pub fn to_compact<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail, and memlens's values have no failing Serialize.
    let _ = write_compact(&mut out, value);
    String::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn every_unsafe_character_is_escaped_and_reads_back() {
        let text = "a\u{1b}[31mb\u{7f}c\u{85}d\u{9b}e\u{202e}f\u{2028}g\"\\\n";
        let value = json!({ "k\u{9b}": text, "n": [1.5, null] });
        for written in [to_compact(&value), {
            let mut v = Vec::new();
            write_pretty(&mut v, &value).unwrap();
            String::from_utf8(v).unwrap()
        }] {
            assert!(
                !written
                    .chars()
                    .any(|c| super::super::is_unsafe(c) && c != '\n'),
                "{written:?}"
            );
            assert!(written.contains("\\u007f") && written.contains("\\u202e"));
            let back: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(back, value);
        }
    }

    #[test]
    fn clean_text_is_what_serde_json_writes() {
        let value = json!({"a": "plain é → 🇫🇷", "b": [1, 2.5e300, true]});
        assert_eq!(to_compact(&value), value.to_string());
    }
}
