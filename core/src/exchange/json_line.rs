//! The canonical JSON line written directly: the very bytes of `Memory::to_json_line`
//! (canonical key order, serde_json's escaping and number formatting) without building a
//! JSON map first, which would cost an export more than reading the store.

use crate::model::{FEEL_DIMS, Memory, Timestamp};
use serde::Serialize;
use serde_json::Value;

/// Appends the canonical JSON line of `memory` to `out`.
pub fn write_json_line(memory: &Memory, out: &mut Vec<u8>) {
    // Keys kept in the nested `"extra"` object are rare: those memories take the
    // general path.
    // So are those with a confidentiality level or raters (from remember-core, or
    // rated in memlens).
    if memory.extra.keys().any(|k| crate::model::is_model_key(k))
        || memory.trust_level.is_some()
        || !memory.ratings.is_empty()
        || !memory.curated.is_empty()
    {
        out.extend_from_slice(memory.to_json_line().as_bytes());
        return;
    }
    let mut w = Writer { out, first: true };
    w.out.push(b'{');
    w.string("id", &memory.id);
    if let Some(t) = &memory.title {
        w.string("title", t);
    }
    w.string("body", &memory.body);
    w.string("type", &memory.memory_type);
    w.string("scope", memory.scope.as_str());
    if let Some(m) = &memory.module {
        w.string("module", m);
    }
    w.string("status", memory.status.as_str());
    w.key("tags");
    w.json(&memory.tags);
    w.number("weight", memory.weight);
    w.number("trust", memory.trust);
    if let Some(c) = memory.confidence {
        w.number("confidence", c);
    }
    w.time("created_at", memory.created_at);
    w.time("updated_at", memory.updated_at);
    if let Some(t) = memory.deleted_at {
        w.time("deleted_at", t);
    }
    if let Some(r) = &memory.deleted_reason {
        w.string("deleted_reason", r);
    }
    if let Some(t) = memory.last_read_at {
        w.time("last_read_at", t);
    }
    w.key("read_count");
    w.json(&memory.read_count);
    w.key("rating_sum");
    w.json(&memory.rating_sum);
    w.key("rating_count");
    w.json(&memory.rating_count);
    w.key("relationships");
    w.out.push(b'[');
    for (i, rel) in memory.relationships.iter().enumerate() {
        if i > 0 {
            w.out.push(b',');
        }
        let mut inner = Writer {
            out: &mut *w.out,
            first: true,
        };
        inner.out.push(b'{');
        inner.string("target", &rel.target);
        inner.string("kind", &rel.kind);
        if let Some(s) = rel.strength {
            inner.number("strength", s);
        }
        inner.out.push(b'}');
    }
    w.out.push(b']');
    for (dim, value) in FEEL_DIMS.iter().zip(&memory.feel) {
        if let Some(v) = value {
            w.number(dim.field, *v);
        }
    }
    if let Some(v) = memory.rem_visits {
        w.key("rem_visits");
        w.json(&v);
    }
    if let Some(s) = &memory.source {
        w.key("source");
        let mut inner = Writer {
            out: &mut *w.out,
            first: true,
        };
        inner.out.push(b'{');
        inner.string("system", &s.system);
        if let Some(p) = &s.path {
            inner.string("path", p);
        }
        if let Some(id) = &s.id {
            inner.string("id", id);
        }
        if !s.keys.is_empty() {
            inner.key("keys");
            inner.json(&s.keys);
        }
        inner.out.push(b'}');
    }
    let mut extra: Vec<(&String, &Value)> = memory.extra.iter().collect();
    extra.sort_by(|a, b| a.0.cmp(b.0));
    for (k, v) in extra {
        w.key(k);
        w.json(v);
    }
    w.out.push(b'}');
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
    first: bool,
}

impl Writer<'_> {
    fn key(&mut self, key: &str) {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.json(key);
        self.out.push(b':');
    }

    /// serde_json's compact serialization of any value (strings escaped its way,
    /// floats written by its shortest round-trip formatter, non-finite as null).
    fn json<T: Serialize + ?Sized>(&mut self, value: &T) {
        // Writing into a Vec cannot fail, and these values have no failing Serialize.
        let _ = crate::text::json::write_compact(&mut *self.out, value);
    }

    fn string(&mut self, key: &str, value: &str) {
        self.key(key);
        self.json(value);
    }

    fn number(&mut self, key: &str, value: f64) {
        self.key(key);
        // `Value::from(f64)` is what `to_json` stores: null when not finite.
        match serde_json::Number::from_f64(value) {
            Some(n) => self.json(&n),
            None => self.out.extend_from_slice(b"null"),
        }
    }

    fn time(&mut self, key: &str, t: Timestamp) {
        self.key(key);
        self.json(&t.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Relationship, Source};
    use serde_json::json;

    #[test]
    fn writes_exactly_the_canonical_line() {
        let mut m = Memory::new(
            "a\"b\u{1}",
            "line\nbreak\t\u{7f}é",
            Timestamp(1_700_000_000_123_456_789),
        );
        m.title = Some("t".into());
        m.module = Some("core".into());
        m.tags = vec!["x".into(), "y\\z".into()];
        m.weight = 1.0;
        m.trust = 1e-7;
        m.confidence = Some(0.3);
        m.deleted_at = Some(Timestamp(0));
        m.deleted_reason = Some("r".into());
        m.last_read_at = Some(Timestamp(5));
        m.feel[16] = Some(-0.25);
        m.feel[28] = Some(1e300);
        m.rem_visits = Some(3);
        m.relationships.push(Relationship {
            target: "b".into(),
            kind: "k".into(),
            strength: Some(0.5),
        });
        m.relationships.push(Relationship {
            target: "c".into(),
            kind: "related".into(),
            strength: None,
        });
        m.source = Some(Source {
            system: "s".into(),
            path: Some("p".into()),
            id: None,
            keys: vec!["a".into()],
        });
        m.extra
            .insert("zeta".into(), json!({"b": [1, 2.5, null], "a": "x"}));
        m.extra.insert("alpha".into(), json!(true));
        let mut out = Vec::new();
        write_json_line(&m, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), m.to_json_line());
        m.extra.insert("title".into(), json!("clash"));
        let mut out = Vec::new();
        write_json_line(&m, &mut out);
        assert_eq!(String::from_utf8(out).unwrap(), m.to_json_line());
    }
}
