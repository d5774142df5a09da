//! The compact stored form of a memory: its fields in binary, in a fixed order, about
//! half the bytes of its JSON line (the `feel_*` names and the decimal numbers are what
//! make the line long), so a store is smaller and an import writes less. It starts with
//! [`COMPACT_TAG`], never `{`: stores written before it hold JSON lines, which are
//! still read. Scores (weight, trust, confidence, `feel_*`) take two bytes when they
//! have at most four decimals ([`crate::codec`]); memories written with
//! [`COMPACT_TAG_WIDE`], every score in eight bytes, are still read.
//!
//! A memory is written with [`COMPACT_TAG_SUMMED`]: the fields of [`COMPACT_TAG`]
//! followed by the CRC-32 of every byte before it, so that a flipped bit or an
//! overwritten range reads back as damage instead of as a changed memory. CRC-32
//! finds every error confined to 32 consecutive bits and all but one in four billion
//! of the others. Forms without it (tags 1 and 2, JSON lines) are read from stores of
//! older schemas, which their first writable open rewrites in this one
//! ([`super::tables::CHECKSUM_SCHEMA`]).

use crate::codec::{
    Reader, code_of, put_feel_by, put_i64, put_list, put_opt_f64, put_opt_str, put_opt_u32,
    put_score, put_str, put_u32,
};
use crate::model::{
    Curated, Memory, Rating, Relationship, Scope, Source, Status, Timestamp, TrustLevel,
};
use serde_json::{Map, Value};

/// The first byte of the compact form with its checksum: what memlens writes.
pub const COMPACT_TAG_SUMMED: u8 = 3;
/// The first byte of the compact form written before checksums (schema 3 and 4).
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

/// Bytes of the checksum that ends the form of [`COMPACT_TAG_SUMMED`].
const CHECKSUM_BYTES: usize = 4;

/// The checksum of a stored form's bytes before it.
fn checksum(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Appends the compact form of `m` with its checksum ([`COMPACT_TAG_SUMMED`]) to `w`.
pub fn encode_into(m: &Memory, w: &mut Vec<u8>) {
    let start = w.len();
    encode_with(m, w, COMPACT_TAG_SUMMED);
    let sum = checksum(&w[start..]);
    w.extend(sum.to_le_bytes());
}

/// The fields of `m` after the first byte `tag`: scores in eight bytes for
/// [`COMPACT_TAG_WIDE`], else in two where they fit. No checksum.
fn encode_with(m: &Memory, w: &mut Vec<u8>, tag: u8) {
    let wide = tag == COMPACT_TAG_WIDE;
    let score = |w: &mut Vec<u8>, v: f64| {
        if wide {
            w.extend(v.to_le_bytes());
        } else {
            put_score(w, v);
        }
    };
    w.push(tag);
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
    // Fields of schema 6, after all the others and only when a memory has them, so the
    // memories of before decode unchanged.
    if m.trust_level.is_some() || !m.ratings.is_empty() || !m.curated.is_empty() {
        w.push(m.trust_level.map_or(0, TrustLevel::number));
        put_u32(w, u32::try_from(m.ratings.len()).unwrap_or(u32::MAX));
        for r in &m.ratings {
            put_str(w, &r.rater);
            w.push(r.value);
        }
    }
    // What a person changed in memlens, after those and only when there is some.
    if !m.curated.is_empty() {
        // one byte of marks: the status (1), the text (2; written by schema 6's later
        // versions only, so every byte an earlier one wrote reads the same), links
        // marked (4: their two lists follow the tags', written by later versions only)
        let links = !(m.curated.links_added.is_empty() && m.curated.links_removed.is_empty());
        // the rating aggregate merges brought (8, two counts after the links')
        let merged = m.curated.ratings_merged != (0, 0);
        w.push(
            u8::from(m.curated.status)
                | (u8::from(m.curated.text) << 1)
                | (u8::from(links) << 2)
                | (u8::from(merged) << 3),
        );
        put_list(w, &m.curated.tags_added);
        put_list(w, &m.curated.tags_removed);
        if links {
            put_list(w, &m.curated.links_added);
            put_list(w, &m.curated.links_removed);
        }
        if merged {
            put_u32(w, m.curated.ratings_merged.0);
            put_u32(w, m.curated.ratings_merged.1);
        }
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

/// Why stored bytes are not a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Damage {
    /// The bytes do not match the checksum stored with them.
    Checksum,
    /// The bytes are not a memory of any stored form (cut short, run on, an unknown
    /// form, or a memory the store would have refused).
    Undecodable,
}

/// True when `bytes` are in the form with a checksum ([`COMPACT_TAG_SUMMED`]).
pub fn is_summed(bytes: &[u8]) -> bool {
    bytes.first() == Some(&COMPACT_TAG_SUMMED)
}

/// The memory of a compact form written by [`encode_into`] (or by an older memlens
/// without the checksum), or why the bytes are damaged.
pub fn decode(bytes: &[u8]) -> Result<Memory, Damage> {
    if is_summed(bytes) {
        let split = bytes
            .len()
            .checked_sub(CHECKSUM_BYTES)
            .ok_or(Damage::Undecodable)?;
        let (fields, stored) = bytes.split_at(split);
        let stored = u32::from_le_bytes(stored.try_into().map_err(|_| Damage::Undecodable)?);
        if checksum(fields) != stored {
            return Err(Damage::Checksum);
        }
        return decode_fields(fields).ok_or(Damage::Undecodable);
    }
    decode_fields(bytes).ok_or(Damage::Undecodable)
}

/// The id a stored form starts with, as far as it can be read (for naming a damaged
/// memory; its checksum may say the id itself is damaged).
pub fn stored_id(bytes: &[u8]) -> Option<String> {
    let mut r = Reader { bytes, at: 1 };
    string(&mut r).filter(|id| !id.is_empty() && !id.chars().any(char::is_control))
}

/// The memory of a form's bytes without a checksum (after it is checked); `None` when
/// they are damaged.
fn decode_fields(bytes: &[u8]) -> Option<Memory> {
    let mut r = Reader { bytes, at: 0 };
    let wide = match r.u8()? {
        COMPACT_TAG | COMPACT_TAG_SUMMED => false,
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
    if r.at < bytes.len() {
        m.trust_level = match r.u8()? {
            0 => None,
            n => Some(TrustLevel::from_number(n)?),
        };
        let ratings = r.u32()?;
        m.ratings = (0..ratings)
            .map(|_| {
                Some(Rating {
                    rater: string(&mut r)?,
                    value: r.u8()?,
                })
            })
            .collect::<Option<_>>()?;
    }
    if r.at < bytes.len() {
        let marks = r.u8()?;
        if marks > 15 {
            return None;
        }
        m.curated = Curated {
            status: marks & 1 != 0,
            text: marks & 2 != 0,
            tags_added: strings(&mut r)?,
            tags_removed: strings(&mut r)?,
            ..Curated::default()
        };
        if marks & 4 != 0 {
            m.curated.links_added = strings(&mut r)?;
            m.curated.links_removed = strings(&mut r)?;
            if m.curated.links_added.is_empty() && m.curated.links_removed.is_empty() {
                return None; // never written so: damage
            }
        }
        if marks & 8 != 0 {
            m.curated.ratings_merged = (r.u32()?, r.u32()?);
            if m.curated.ratings_merged == (0, 0) {
                return None; // never written so: damage
            }
        }
        if m.curated.is_empty() {
            return None; // never written so: damage
        }
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
            if m.id.ends_with('3') {
                // the fields of schema 6 read back too
                m.trust_level = Some(TrustLevel::Restricted);
                m.rating_sum += 9;
                m.curated.status = true;
                m.curated.text = m.id.ends_with("13");
                m.curated.tags_removed = vec!["gone".into()];
                if m.id.ends_with("23") {
                    // link marks, which only later versions write
                    m.curated.links_added = vec!["other".into()];
                    m.curated.links_removed = vec!["old".into(), "older".into()];
                    m.curated.ratings_merged = (9, 2);
                }
                m.rating_count += 2;
                m.ratings = vec![
                    Rating {
                        rater: "ann".into(),
                        value: 4,
                    },
                    Rating {
                        rater: "bo".into(),
                        value: 5,
                    },
                ];
            }
            let mut summed = Vec::new();
            encode_into(&m, &mut summed);
            let mut narrow = Vec::new();
            encode_with(&m, &mut narrow, COMPACT_TAG);
            let mut wide = Vec::new();
            encode_with(&m, &mut wide, COMPACT_TAG_WIDE);
            assert_eq!(decode(&summed).as_ref(), Ok(&m), "{}", m.id);
            assert_eq!(decode(&narrow).as_ref(), Ok(&m), "{} (unsummed)", m.id);
            assert_eq!(decode(&wide).as_ref(), Ok(&m), "{} (wide)", m.id);
            assert_eq!(stored_id(&summed).as_deref(), Some(m.id.as_str()));
            assert_eq!(
                decode(&narrow[..narrow.len() - 1]),
                Err(Damage::Undecodable),
                "{} cut short",
                m.id
            );
            assert_eq!(
                decode(&summed[..summed.len() - 1]),
                Err(Damage::Checksum),
                "{} summed, cut short",
                m.id
            );
            narrow_bytes += narrow.len();
            wide_bytes += wide.len();
        }
        assert!(narrow_bytes < wide_bytes, "{narrow_bytes} vs {wide_bytes}");
    }

    #[test]
    fn every_flipped_bit_and_overwritten_byte_of_a_summed_memory_is_damage() {
        let spec = crate::corpus::CorpusSpec {
            seed: 5,
            size: 20,
            body_bytes_target: 200,
        };
        for m in crate::corpus::generate(spec) {
            let mut bytes = Vec::new();
            encode_into(&m, &mut bytes);
            for bit in 0..bytes.len() * 8 {
                let mut flipped = bytes.clone();
                flipped[bit / 8] ^= 1 << (bit % 8);
                let back = decode(&flipped);
                assert!(back.is_err(), "{}: bit {bit} read back as {back:?}", m.id);
            }
            for at in 0..bytes.len() {
                let mut zeroed = bytes.clone();
                let end = (at + 16).min(zeroed.len());
                zeroed[at..end].fill(0xa5);
                if zeroed != bytes {
                    assert!(decode(&zeroed).is_err(), "{}: bytes {at}..{end}", m.id);
                }
            }
        }
    }
}
