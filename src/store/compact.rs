//! The compact stored form of a memory: its fields in binary, in a fixed order, about
//! half the bytes of its JSON line (the `feel_*` names and the decimal numbers are what
//! make the line long), so a store is smaller and an import writes less. It starts with
//! [`COMPACT_TAG`], never `{`: stores written before it hold JSON lines, which are
//! still read. Scores (weight, trust, confidence, `feel_*`) take two bytes when they
//! have at most four decimals ([`crate::codec`]); memories written with
//! [`COMPACT_TAG_WIDE`], every score in eight bytes, are still read.

use crate::codec::{
    Reader, code_of, put_feel_by, put_i64, put_list, put_opt_f64, put_opt_str, put_opt_u32,
    put_score, put_str, put_u32,
};
use crate::model::{Memory, Relationship, Scope, Source, Status, Timestamp};
use serde_json::{Map, Value};

/// The first byte of the compact form.
pub const COMPACT_TAG: u8 = 2;
/// The first byte of the compact form's first version, which held every score in
/// eight bytes.
pub const COMPACT_TAG_WIDE: u8 = 1;

fn put_opt_time(w: &mut Vec<u8>, t: Option<Timestamp>) {
    match t {
        Some(t) => {
            w.push(1);
            put_i64(w, t.0);
        }
        None => w.push(0),
    }
}

/// Appends the compact form of `m` to `w`.
pub fn encode_into(m: &Memory, w: &mut Vec<u8>) {
    encode_with(m, w, false);
}

/// [`encode_into`], or when `wide` the form of [`COMPACT_TAG_WIDE`].
fn encode_with(m: &Memory, w: &mut Vec<u8>, wide: bool) {
    let score = |w: &mut Vec<u8>, v: f64| {
        if wide {
            w.extend(v.to_le_bytes());
        } else {
            put_score(w, v);
        }
    };
    w.push(if wide { COMPACT_TAG_WIDE } else { COMPACT_TAG });
    put_str(w, &m.id);
    put_opt_str(w, m.title.as_deref());
    put_str(w, &m.body);
    put_str(w, &m.memory_type);
    w.push(code_of(Scope::ALL, &m.scope));
    put_opt_str(w, m.module.as_deref());
    w.push(code_of(Status::ALL, &m.status));
    put_list(w, &m.tags);
    score(w, m.weight);
    score(w, m.trust);
    match m.confidence {
        Some(v) => {
            w.push(1);
            score(w, v);
        }
        None => w.push(0),
    }
    put_i64(w, m.created_at.0);
    put_i64(w, m.updated_at.0);
    put_opt_time(w, m.deleted_at);
    put_opt_str(w, m.deleted_reason.as_deref());
    put_opt_time(w, m.last_read_at);
    put_u32(w, m.read_count);
    put_u32(w, m.rating_sum);
    put_u32(w, m.rating_count);
    put_u32(w, u32::try_from(m.relationships.len()).unwrap_or(u32::MAX));
    for r in &m.relationships {
        put_str(w, &r.target);
        put_str(w, &r.kind);
        put_opt_f64(w, r.strength);
    }
    put_opt_u32(w, m.rem_visits);
    put_feel_by(w, &m.feel, score);
    match &m.source {
        Some(s) => {
            w.push(1);
            put_str(w, &s.system);
            put_opt_str(w, s.path.as_deref());
            put_opt_str(w, s.id.as_deref());
            put_list(w, &s.keys);
        }
        None => w.push(0),
    }
    if m.extra.is_empty() {
        put_str(w, "");
    } else {
        // a map of JSON values always serializes
        put_str(w, &serde_json::to_string(&m.extra).unwrap_or_default());
    }
}

fn opt<T>(
    r: &mut Reader<'_>,
    read: impl FnOnce(&mut Reader<'_>) -> Option<T>,
) -> Option<Option<T>> {
    match r.u8()? {
        0 => Some(None),
        1 => Some(Some(read(r)?)),
        _ => None,
    }
}

fn string(r: &mut Reader<'_>) -> Option<String> {
    r.str().map(str::to_string)
}

fn strings(r: &mut Reader<'_>) -> Option<Vec<String>> {
    let (bytes, len) = r.list()?;
    let mut items = Reader { bytes, at: 0 };
    (0..len).map(|_| string(&mut items)).collect()
}

/// The memory of a compact form written by [`encode_into`]; `None` when the bytes are
/// damaged (cut short, run on, or decoding to a memory the store would have refused).
pub fn decode(bytes: &[u8]) -> Option<Memory> {
    let mut r = Reader { bytes, at: 0 };
    let wide = match r.u8()? {
        COMPACT_TAG => false,
        COMPACT_TAG_WIDE => true,
        _ => return None,
    };
    let score = |r: &mut Reader<'_>| if wide { r.f64() } else { r.score() };
    let mut m = Memory::new(string(&mut r)?, String::new(), Timestamp(0));
    m.title = opt(&mut r, string)?;
    m.body = string(&mut r)?;
    m.memory_type = string(&mut r)?;
    m.scope = r.code(Scope::ALL)?;
    m.module = opt(&mut r, string)?;
    m.status = r.code(Status::ALL)?;
    m.tags = strings(&mut r)?;
    m.weight = score(&mut r)?;
    m.trust = score(&mut r)?;
    m.confidence = opt(&mut r, score)?;
    m.created_at = Timestamp(r.i64()?);
    m.updated_at = Timestamp(r.i64()?);
    m.deleted_at = opt(&mut r, |r| r.i64().map(Timestamp))?;
    m.deleted_reason = opt(&mut r, string)?;
    m.last_read_at = opt(&mut r, |r| r.i64().map(Timestamp))?;
    m.read_count = r.u32()?;
    m.rating_sum = r.u32()?;
    m.rating_count = r.u32()?;
    let links = r.u32()?;
    m.relationships = (0..links)
        .map(|_| {
            Some(Relationship {
                target: string(&mut r)?,
                kind: string(&mut r)?,
                strength: r.opt_f64()?,
            })
        })
        .collect::<Option<_>>()?;
    m.rem_visits = r.opt_u32()?;
    m.feel = r.feel_by(score)?;
    m.source = opt(&mut r, |r| {
        Some(Source {
            system: string(r)?,
            path: opt(r, string)?,
            id: opt(r, string)?,
            keys: strings(r)?,
        })
    })?;
    let extra = r.str()?;
    if !extra.is_empty() {
        m.extra = serde_json::from_str::<Map<String, Value>>(extra).ok()?;
    }
    let whole = r.at == bytes.len();
    (whole && m.validate().is_empty() && m.is_normalised()).then_some(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memories_read_back_from_both_forms_and_scores_take_less_room() {
        let spec = crate::corpus::CorpusSpec {
            seed: 11,
            size: 300,
            body_bytes_target: 200,
        };
        let (mut narrow_bytes, mut wide_bytes) = (0, 0);
        for mut m in crate::corpus::generate(spec) {
            if m.id.ends_with('7') {
                // scores that need all eight bytes still read back
                m.weight = 0.1 + 0.2;
                m.feel[0] = Some(-0.0);
                m.confidence = Some(1.0 / 3.0);
            }
            let mut narrow = Vec::new();
            encode_into(&m, &mut narrow);
            let mut wide = Vec::new();
            encode_with(&m, &mut wide, true);
            assert_eq!(decode(&narrow).as_ref(), Some(&m), "{}", m.id);
            assert_eq!(decode(&wide).as_ref(), Some(&m), "{} (wide)", m.id);
            assert_eq!(
                decode(&narrow[..narrow.len() - 1]),
                None,
                "{} cut short",
                m.id
            );
            narrow_bytes += narrow.len();
            wide_bytes += wide.len();
        }
        assert!(narrow_bytes < wide_bytes, "{narrow_bytes} vs {wide_bytes}");
    }
}
