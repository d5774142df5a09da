//! A fast path for canonical JSONL lines: fields read straight from the line's text
//! into a `Memory` ([`json_scan`](super::json_scan)), instead of through a
//! `serde_json::Value` map (which cost more than every other step of an import
//! together) or serde's field-by-field deserializer.
//!
//! It accepts only what it can read exactly as `Memory::from_json` would: a line with an
//! `id` and a `body`, every known field of the right type, no remember-core alias
//! (`content`, `content_type`, `trust_score`, the `feel_salience` … aliases), no derived field, no nested `extra`, and a
//! result that passes validation. Anything else returns `None`, and the caller reads the
//! line the general way, which reports problems and warnings precisely.

use super::json_scan::Scan;
use crate::model::memory::DEFAULT_RELATIONSHIP_KIND;
use crate::model::{Checked, FEEL_COUNT, FEEL_DIMS, Memory, Relationship, Source, Timestamp};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::sync::LazyLock;

/// The memory a canonical line holds, normalised and checked, or `None` when the
/// general reader must decide.
pub fn parse_canonical(line: &str, now: Timestamp) -> Option<Checked> {
    let mut scan = Scan::new(line);
    let memory = read_memory(&mut scan, now)?;
    if !scan.at_end() {
        return None;
    }
    memory.checked()
}

/// A known field, or another key (kept for `extra`).
#[derive(Clone, Copy)]
enum Key {
    Id,
    Title,
    Body,
    Type,
    Scope,
    Module,
    Status,
    Tags,
    Weight,
    Trust,
    Confidence,
    CreatedAt,
    UpdatedAt,
    DeletedAt,
    DeletedReason,
    LastReadAt,
    ReadCount,
    RatingSum,
    RatingCount,
    Relationships,
    RemVisits,
    Source,
    Feel(usize),
    /// A key the general reader treats specially: give up.
    Special,
    Other,
}

/// A key read by name: a known field, one the general reader treats specially, or
/// another.
fn key_of(k: &str) -> Key {
    if let Some(&(_, key)) = IN_ORDER.iter().find(|(name, _)| *name == k) {
        return key;
    }
    // Every other name the JSON form gives a meaning (aliases, derived and output
    // fields, the nested `extra`) is left to the general reader.
    if crate::model::is_model_key(k) {
        Key::Special
    } else {
        Key::Other
    }
}

/// The known fields in the order canonical lines write them, so that the key after
/// a known one is mostly found a few places further on, without a lookup by name.
static IN_ORDER: LazyLock<Vec<(&'static str, Key)>> = LazyLock::new(|| {
    let mut order = vec![
        ("id", Key::Id),
        ("title", Key::Title),
        ("body", Key::Body),
        ("type", Key::Type),
        ("scope", Key::Scope),
        ("module", Key::Module),
        ("status", Key::Status),
        ("tags", Key::Tags),
        ("weight", Key::Weight),
        ("trust", Key::Trust),
        ("confidence", Key::Confidence),
        ("created_at", Key::CreatedAt),
        ("updated_at", Key::UpdatedAt),
        ("deleted_at", Key::DeletedAt),
        ("deleted_reason", Key::DeletedReason),
        ("last_read_at", Key::LastReadAt),
        ("read_count", Key::ReadCount),
        ("rating_sum", Key::RatingSum),
        ("rating_count", Key::RatingCount),
        ("relationships", Key::Relationships),
    ];
    order.extend(
        FEEL_DIMS
            .iter()
            .enumerate()
            .map(|(i, d)| (d.field, Key::Feel(i))),
    );
    order.extend([("rem_visits", Key::RemVisits), ("source", Key::Source)]);
    order
});

/// How many known fields further on a key is looked for before it is read and looked
/// up by name (a line leaves out the fields it does not have).
const LOOK_AHEAD: usize = 12;

/// Reads the keys of one line, expecting them in canonical order.
#[derive(Default)]
struct Keys {
    /// Where in [`IN_ORDER`] the next key is looked for first.
    next: usize,
}

impl Keys {
    /// The next key of the object, with its text (needed for `extra`).
    fn read<'a>(&mut self, scan: &mut Scan<'a>) -> Option<(Key, Cow<'a, str>)> {
        let order = &IN_ORDER[..];
        let ahead = order.len().min(self.next + LOOK_AHEAD);
        scan.skip_space();
        for (i, &(name, key)) in order.iter().enumerate().take(ahead).skip(self.next) {
            if scan.key_if(name) {
                self.next = i + 1;
                return Some((key, Cow::Borrowed(name)));
            }
        }
        let text = scan.string()?;
        Some((key_of(&text), text))
    }
}

fn owned(scan: &mut Scan<'_>) -> Option<String> {
    scan.string().map(|s| s.into_owned())
}

fn opt_owned(scan: &mut Scan<'_>) -> Option<Option<String>> {
    scan.opt(owned)
}

fn time(scan: &mut Scan<'_>) -> Option<Timestamp> {
    Timestamp::parse(&scan.string()?)
}

/// Sets `slot` once; a second value for the same field is refused (as serde's derived
/// readers refuse it).
fn once<T>(slot: &mut Option<T>, value: Option<T>) -> Option<()> {
    if slot.is_some() {
        return None;
    }
    *slot = Some(value?);
    Some(())
}

fn relationship(scan: &mut Scan<'_>) -> Option<Relationship> {
    let (mut target, mut kind, mut strength) = (None, None, None);
    scan.object(|s, key| match &*key {
        "target" => once(&mut target, owned(s)),
        "kind" => once(&mut kind, opt_owned(s)),
        "strength" => once(&mut strength, s.opt(Scan::f64)),
        _ => s.raw_value().map(drop),
    })?;
    Some(Relationship {
        target: target?,
        kind: kind
            .flatten()
            .unwrap_or_else(|| DEFAULT_RELATIONSHIP_KIND.to_string()),
        strength: strength.flatten(),
    })
}

fn source(scan: &mut Scan<'_>) -> Option<Source> {
    let (mut system, mut path, mut id, mut keys) = (None, None, None, None);
    scan.object(|s, key| match &*key {
        "system" => once(&mut system, owned(s)),
        "path" => once(&mut path, opt_owned(s)),
        "id" => once(&mut id, opt_owned(s)),
        "keys" => once(&mut keys, s.opt(Scan::strings)),
        _ => s.raw_value().map(drop),
    })?;
    Some(Source {
        system: system?,
        path: path.flatten(),
        id: id.flatten(),
        keys: keys.flatten().unwrap_or_default(),
    })
}

/// Reads the object of a line into a memory (before normalising and validating).
fn read_memory(scan: &mut Scan<'_>, now: Timestamp) -> Option<Memory> {
    let mut m = Memory::new(String::new(), String::new(), now);
    let (mut saw_id, mut saw_body, mut saw_created, mut saw_updated) = (false, false, false, false);
    let mut feel = [None; FEEL_COUNT];
    let mut extra = Map::new();
    let mut keys = Keys::default();
    scan.object_with(
        |s| keys.read(s),
        |s, (known, key)| {
            match known {
                Key::Id => {
                    m.id = owned(s)?;
                    saw_id = true;
                }
                Key::Title => m.title = opt_owned(s)?,
                Key::Body => {
                    m.body = owned(s)?;
                    saw_body = true;
                }
                Key::Type => m.memory_type = owned(s)?,
                Key::Scope => m.scope = s.string()?.parse().ok()?,
                Key::Module => m.module = opt_owned(s)?,
                Key::Status => m.status = s.string()?.parse().ok()?,
                Key::Tags => m.tags = s.opt(Scan::strings)?.unwrap_or_default(),
                Key::Weight => m.weight = s.f64()?,
                Key::Trust => m.trust = s.f64()?,
                Key::Confidence => m.confidence = s.opt(Scan::f64)?,
                Key::CreatedAt => {
                    m.created_at = time(s)?;
                    saw_created = true;
                }
                Key::UpdatedAt => {
                    m.updated_at = time(s)?;
                    saw_updated = true;
                }
                Key::DeletedAt => m.deleted_at = s.opt(time)?,
                Key::DeletedReason => m.deleted_reason = opt_owned(s)?,
                Key::LastReadAt => m.last_read_at = s.opt(time)?,
                Key::ReadCount => m.read_count = s.u32()?,
                Key::RatingSum => m.rating_sum = s.u32()?,
                Key::RatingCount => m.rating_count = s.u32()?,
                Key::Relationships => {
                    let mut rels = Vec::new();
                    s.opt(|s| {
                        s.array(|s| {
                            rels.push(relationship(s)?);
                            Some(())
                        })
                    })?;
                    m.relationships = rels;
                }
                Key::RemVisits => m.rem_visits = s.opt(Scan::u32)?,
                Key::Source => m.source = s.opt(source)?,
                Key::Feel(i) => feel[i] = s.opt(Scan::f64)?,
                Key::Special => return None,
                Key::Other => {
                    let value: Value = serde_json::from_str(s.raw_value()?).ok()?;
                    extra.insert(key.into_owned(), value);
                }
            }
            Some(())
        },
    )?;
    if !saw_id || !saw_body {
        return None;
    }
    if saw_created && !saw_updated {
        m.updated_at = m.created_at;
    }
    m.feel = feel;
    m.extra = extra;
    Some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn general(line: &str) -> Option<Memory> {
        let obj: Map<String, Value> = serde_json::from_str(line).ok()?;
        match Memory::from_json(&obj, Timestamp(7)) {
            Ok((m, w)) if w.is_empty() => Some(m),
            _ => None,
        }
    }

    #[test]
    fn agrees_with_the_general_reader_or_steps_aside() {
        let lines = [
            r#"{"id":"a","body":"x","feel_humor":0.5,"anchor":{"p":[1]},"tags":null,"created_at":"2026-01-01T00:00:00+02:00"}"#,
            r#"{"id":"a","body":"x","relationships":[{"target":"b","kind":null,"strength":0.2,"note":1}],"source":{"system":"s","keys":null}}"#,
            r#"{"id":"a","content":"x"}"#,
            r#"{"id":"a","body":"x","functional_urgency":0.3}"#,
            r#"{"id":"a","body":"x","rating_bayesian":3}"#,
            r#"{"id":"a","body":"x","read_count":3.0}"#,
            r#"{"id":"a","body":"x","feel_fear":2}"#,
            r#"{"body":"x"}"#,
            r#"{"id":"a","body":"x","weight":1}"#,
            r#"{"id":"a","body":"x","humor":0.1,"status":"stale","scope":"module","module":"m"}"#,
            r#"{"id":"a","body":"x","feel_feel_humor":0.2,"feel_humor":0.3}"#,
            r#"{"id":"a","body":"x","feel_urgency":0.3}"#,
            r#"{"id":"a","body":"x","trust_score":5}"#,
            r#"{"id":"a","body":"","functional_valence":0.1,"feel_valence":-0.1}"#,
        ];
        let expect_fast = [
            true, true, false, true, false, false, false, false, true, true, false, false, false,
            true,
        ];
        for (line, fast) in lines.iter().zip(expect_fast) {
            let got = parse_canonical(line, Timestamp(7)).map(Checked::into_memory);
            assert_eq!(got.is_some(), fast, "{line}");
            if let Some(m) = got {
                assert_eq!(Some(m), general(line), "{line}");
            }
        }
    }

    #[test]
    fn every_exported_line_of_a_generated_corpus_takes_the_fast_path() {
        let spec = crate::corpus::CorpusSpec {
            seed: 11,
            size: 400,
            body_bytes_target: 200,
        };
        let mut line = Vec::new();
        for m in crate::corpus::generate(spec) {
            line.clear();
            crate::exchange::json_line::write_json_line(&m, &mut line);
            let text = std::str::from_utf8(&line).unwrap();
            assert_eq!(
                parse_canonical(text.trim_end(), Timestamp(7)).map(Checked::into_memory),
                Some(m)
            );
        }
    }

    use proptest::prelude::*;

    /// Values a field may hold: of the right type or not, escaped, out of range,
    /// written the ways JSON allows.
    const VALUES: &[&str] = &[
        r#""x""#,
        r#""Tab\tQuote\"É\u00e9\ud83d\ude00""#,
        r#""\ud800""#,
        r#""  padded  ""#,
        r#""""#,
        r#""2026-01-02T03:04:05Z""#,
        r#""2026-01-02T03:04:05.123+02:00""#,
        r#""2026-01-02""#,
        r#""team""#,
        r#""module""#,
        r#""validated""#,
        r#""note""#,
        "null",
        "true",
        "0",
        "-0",
        "-0.0",
        "1",
        "2",
        "0.5",
        "-0.25",
        "1e-1",
        "5E-1",
        "3.0",
        "4294967296",
        "[]",
        r#"["a"," b ","a",""]"#,
        r#"[null]"#,
        r#"[{"target":"t"}]"#,
        r#"[{"target":"t","kind":null,"strength":0.5,"x":[1]}]"#,
        r#"[{"target":"t","target":"u"}]"#,
        r#"[{"kind":"k"}]"#,
        r#"{"system":"s","path":null,"keys":["a"],"other":{}}"#,
        r#"{"system":"s","system":"t"}"#,
        r#"{"a":[1,{"b":"c"}]}"#,
    ];
    const KEYS: &[&str] = &[
        "id",
        "title",
        "body",
        "type",
        "scope",
        "module",
        "status",
        "tags",
        "weight",
        "trust",
        "confidence",
        "created_at",
        "updated_at",
        "deleted_at",
        "deleted_reason",
        "last_read_at",
        "read_count",
        "rating_sum",
        "rating_count",
        "relationships",
        "rem_visits",
        "source",
        "feel_humor",
        "feel_valence",
        "humor",
        "anchor",
        "feel_significance",
        "content",
        "functional_urgency",
    ];

    fn line() -> impl Strategy<Value = String> {
        let field = (0..KEYS.len(), 0..VALUES.len());
        (
            prop::collection::vec(field, 0..8),
            0..VALUES.len(),
            any::<bool>(),
        )
            .prop_map(|(fields, body, spaced)| {
                let sep = if spaced { " , " } else { "," };
                let mut parts = vec![
                    r#""id":"m-1""#.to_string(),
                    format!(r#""body":{}"#, VALUES[body]),
                ];
                parts.extend(
                    fields
                        .into_iter()
                        .map(|(k, v)| format!(r#""{}":{}"#, KEYS[k], VALUES[v])),
                );
                format!("{{{}}}", parts.join(sep))
            })
    }

    /// Bytes a damaged line may gain: JSON structure, escapes, digits, signs, exponents,
    /// a control character, a multibyte letter.
    const NOISE: &[&str] = &[
        "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "0", "7", "-", ".", "e", "E", "+", "null",
        "\u{1}", "é", "\\u00e9", "\\ud83d", "x", "Z", "T",
    ];

    /// A canonical line of a generated memory with a few random edits: a byte range cut
    /// out, or noise put in.
    fn damaged_line() -> impl Strategy<Value = String> {
        let edit = (
            any::<prop::sample::Index>(),
            0..4usize,
            0..NOISE.len(),
            any::<bool>(),
        );
        (0..60u64, prop::collection::vec(edit, 1..4)).prop_map(|(seed, edits)| {
            let spec = crate::corpus::CorpusSpec {
                seed,
                size: 1,
                body_bytes_target: 120,
            };
            let Some(memory) = crate::corpus::generate(spec).next() else {
                return String::new();
            };
            let mut bytes = Vec::new();
            crate::exchange::json_line::write_json_line(&memory, &mut bytes);
            let mut line = String::from_utf8(bytes).unwrap_or_default();
            for (at, len, noise, cut) in edits {
                let mut start = at.index(line.len().max(1));
                while !line.is_char_boundary(start) {
                    start -= 1;
                }
                if cut {
                    let mut end = (start + len).min(line.len());
                    while !line.is_char_boundary(end) {
                        end += 1;
                    }
                    line.replace_range(start..end, "");
                } else {
                    line.insert_str(start, NOISE[noise]);
                }
            }
            line
        })
    }

    proptest! {
        #[test]
        fn whatever_the_fast_path_reads_the_general_reader_reads_alike(line in line()) {
            if let Some(m) = parse_canonical(&line, Timestamp(7)).map(Checked::into_memory) {
                prop_assert_eq!(Some(m), general(&line), "{}", line);
            }
        }

        #[test]
        fn a_damaged_line_is_read_alike_or_left_to_the_general_reader(
            line in damaged_line(),
        ) {
            if let Some(m) = parse_canonical(line.trim_end(), Timestamp(7)).map(Checked::into_memory) {
                prop_assert_eq!(Some(m), general(line.trim_end()), "{}", line);
            }
        }
    }
}
