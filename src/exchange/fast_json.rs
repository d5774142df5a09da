//! A fast path for canonical JSONL lines: fields deserialized straight into a `Memory`
//! instead of through a `serde_json::Value` map (which cost more than every other step
//! of an import together).
//!
//! It accepts only what it can read exactly as `Memory::from_json` would: a line with an
//! `id` and a `body`, every known field of the right type, no remember-core alias
//! (`content`, `trust_score`, `functional_*`), no derived field, no nested `extra`, and a
//! result that passes validation. Anything else returns `None`, and the caller reads the
//! line the general way, which reports problems and warnings precisely.

use crate::model::json::DERIVED_FIELDS;
use crate::model::{FEEL_COUNT, Memory, Relationship, Source, Timestamp, feel_field_index};
use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// The memory a canonical line holds, normalised and validated, or `None` when the
/// general reader must decide.
pub fn parse_canonical(line: &str, now: Timestamp) -> Option<Memory> {
    let mut de = serde_json::Deserializer::from_str(line);
    let read = de.deserialize_map(LineVisitor { now }).ok()?;
    de.end().ok()?;
    let mut memory = read?;
    memory.normalise();
    memory.validate().is_empty().then_some(memory)
}

/// A known field, or another key (kept for `extra`).
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
    Other(String),
}

fn key_of(k: &str) -> Key {
    match k {
        "id" => Key::Id,
        "title" => Key::Title,
        "body" => Key::Body,
        "type" => Key::Type,
        "scope" => Key::Scope,
        "module" => Key::Module,
        "status" => Key::Status,
        "tags" => Key::Tags,
        "weight" => Key::Weight,
        "trust" => Key::Trust,
        "confidence" => Key::Confidence,
        "created_at" => Key::CreatedAt,
        "updated_at" => Key::UpdatedAt,
        "deleted_at" => Key::DeletedAt,
        "deleted_reason" => Key::DeletedReason,
        "last_read_at" => Key::LastReadAt,
        "read_count" => Key::ReadCount,
        "rating_sum" => Key::RatingSum,
        "rating_count" => Key::RatingCount,
        "relationships" => Key::Relationships,
        "rem_visits" => Key::RemVisits,
        "source" => Key::Source,
        "content" | "trust_score" | "extra" => Key::Special,
        k if k.starts_with("functional_") || DERIVED_FIELDS.contains(&k) => Key::Special,
        k => match feel_field_index(k) {
            Some(i) => Key::Feel(i),
            None => Key::Other(k.to_string()),
        },
    }
}

struct KeySeed;

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = Key;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(KeySeed)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = Key;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }
    fn visit_str<E: de::Error>(self, k: &str) -> Result<Key, E> {
        Ok(key_of(k))
    }
}

#[derive(Deserialize)]
struct RelationshipIn {
    target: String,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    strength: Option<f64>,
}

#[derive(Deserialize)]
struct SourceIn {
    system: String,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    keys: Option<Vec<String>>,
}

struct LineVisitor {
    now: Timestamp,
}

fn time<E: de::Error>(s: &str) -> Result<Timestamp, E> {
    Timestamp::parse(s).ok_or_else(|| E::custom("not a timestamp"))
}

fn opt_time<E: de::Error>(s: Option<String>) -> Result<Option<Timestamp>, E> {
    s.map(|s| time(&s)).transpose()
}

impl<'de> Visitor<'de> for LineVisitor {
    /// `None` when the line needs the general reader; else the memory.
    type Value = Option<Memory>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a memory object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut m = Memory::new(String::new(), String::new(), self.now);
        let (mut saw_id, mut saw_body, mut saw_created, mut saw_updated) =
            (false, false, false, false);
        let mut feel = [None; FEEL_COUNT];
        let mut extra = Map::new();
        while let Some(key) = map.next_key_seed(KeySeed)? {
            match key {
                Key::Id => {
                    m.id = map.next_value()?;
                    saw_id = true;
                }
                Key::Title => m.title = map.next_value()?,
                Key::Body => {
                    m.body = map.next_value()?;
                    saw_body = true;
                }
                Key::Type => m.memory_type = map.next_value()?,
                Key::Scope => {
                    m.scope = map
                        .next_value::<String>()?
                        .parse()
                        .map_err(de::Error::custom)?
                }
                Key::Module => m.module = map.next_value()?,
                Key::Status => {
                    m.status = map
                        .next_value::<String>()?
                        .parse()
                        .map_err(de::Error::custom)?
                }
                Key::Tags => m.tags = map.next_value::<Option<Vec<String>>>()?.unwrap_or_default(),
                Key::Weight => m.weight = map.next_value()?,
                Key::Trust => m.trust = map.next_value()?,
                Key::Confidence => m.confidence = map.next_value()?,
                Key::CreatedAt => {
                    m.created_at = time(&map.next_value::<String>()?)?;
                    saw_created = true;
                }
                Key::UpdatedAt => {
                    m.updated_at = time(&map.next_value::<String>()?)?;
                    saw_updated = true;
                }
                Key::DeletedAt => m.deleted_at = opt_time(map.next_value()?)?,
                Key::DeletedReason => m.deleted_reason = map.next_value()?,
                Key::LastReadAt => m.last_read_at = opt_time(map.next_value()?)?,
                Key::ReadCount => m.read_count = map.next_value()?,
                Key::RatingSum => m.rating_sum = map.next_value()?,
                Key::RatingCount => m.rating_count = map.next_value()?,
                Key::Relationships => {
                    let rels: Option<Vec<RelationshipIn>> = map.next_value()?;
                    m.relationships = rels
                        .unwrap_or_default()
                        .into_iter()
                        .map(|r| Relationship {
                            target: r.target,
                            kind: r.kind.unwrap_or_else(|| "related".to_string()),
                            strength: r.strength,
                        })
                        .collect();
                }
                Key::RemVisits => m.rem_visits = map.next_value()?,
                Key::Source => {
                    let s: Option<SourceIn> = map.next_value()?;
                    m.source = s.map(|s| Source {
                        system: s.system,
                        path: s.path,
                        id: s.id,
                        keys: s.keys.unwrap_or_default(),
                    });
                }
                Key::Feel(i) => feel[i] = map.next_value()?,
                Key::Special => return Err(de::Error::custom("needs the general reader")),
                Key::Other(k) => {
                    let v: Value = map.next_value()?;
                    extra.insert(k, v);
                }
            }
        }
        if !saw_id || !saw_body {
            return Ok(None);
        }
        if saw_created && !saw_updated {
            m.updated_at = m.created_at;
        }
        m.feel = feel;
        m.extra = extra;
        Ok(Some(m))
    }
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
        ];
        let expect_fast = [
            true, true, false, false, false, false, false, false, true, true, true,
        ];
        for (line, fast) in lines.iter().zip(expect_fast) {
            let got = parse_canonical(line, Timestamp(7));
            assert_eq!(got.is_some(), fast, "{line}");
            if let Some(m) = got {
                assert_eq!(Some(m), general(line), "{line}");
            }
        }
    }
}
