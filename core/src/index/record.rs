//! The search record: what search needs of one memory apart from the text it matches
//! (the fields filters and browse modes read, and its BM25 length), in a compact
//! binary form stored beside it, so opening a store never has to decode every memory.
//! The literal and fuzzy haystacks are stored once, in the haystack chunks
//! ([`super::haystacks`]); the terms are in the postings alone ([`super::postings`]),
//! and a write that replaces a memory takes the old terms from the old memory.

use super::tokenize::{for_each_field, for_each_token};
use crate::codec::{
    Reader, code_of, len_u32, put_feel, put_i64, put_list, put_opt_score, put_opt_str, put_opt_u32,
    put_score, put_str, put_u32,
};
use crate::model::{FEEL_COUNT, Memory, Scope, Status};

/// Version byte at the start of every encoded record; a record with another version is
/// rebuilt from the memory itself. (Version 3 also held the memory's terms; version 4
/// held every score in eight bytes.)
pub const RECORD_VERSION: u8 = 6;

/// What search keeps of one memory.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRecord {
    /// The memory's id.
    pub id: String,
    /// Its type.
    pub memory_type: String,
    /// Its scope.
    pub scope: Scope,
    /// Its status.
    pub status: Status,
    /// Its module.
    pub module: Option<String>,
    /// Its tags.
    pub tags: Vec<String>,
    /// weight.
    pub weight: f64,
    /// trust.
    pub trust: f64,
    /// confidence.
    pub confidence: Option<f64>,
    /// remember-core's confidentiality level, 1–5.
    pub trust_level: Option<u8>,
    /// created_at, nanoseconds since the epoch.
    pub created_at: i64,
    /// updated_at, nanoseconds since the epoch.
    pub updated_at: i64,
    /// True when soft-deleted.
    pub deleted: bool,
    /// read_count.
    pub read_count: u32,
    /// rating_sum.
    pub rating_sum: u32,
    /// rating_count.
    pub rating_count: u32,
    /// rem_visits.
    pub rem_visits: Option<u32>,
    /// The `feel_*` scores, indexed like `FEEL_DIMS`.
    pub feel: [Option<f64>; FEEL_COUNT],
    /// Relationship targets (for relationship_count, which depends on the whole store).
    pub targets: Vec<String>,
    /// Number of BM25 tokens in the document (its length, dl).
    pub length: u32,
}

impl SearchRecord {
    /// The search record of a memory.
    pub fn of(m: &Memory) -> SearchRecord {
        let mut length = 0usize;
        for_each_field(m, |field| for_each_token(field, |_| length += 1));
        SearchRecord {
            id: m.id.clone(),
            memory_type: m.memory_type.clone(),
            scope: m.scope,
            status: m.status,
            module: m.module.clone(),
            tags: m.tags.clone(),
            weight: m.weight,
            trust: m.trust,
            confidence: m.confidence,
            trust_level: m.trust_level.map(crate::model::TrustLevel::number),
            created_at: m.created_at.0,
            updated_at: m.updated_at.0,
            deleted: m.deleted_at.is_some(),
            read_count: m.read_count,
            rating_sum: m.rating_sum,
            rating_count: m.rating_count,
            rem_visits: m.rem_visits,
            feel: m.feel,
            targets: m.relationships.iter().map(|r| r.target.clone()).collect(),
            length: len_u32(length),
        }
    }

    /// The record in its stored form.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(384);
        w.push(RECORD_VERSION);
        put_str(&mut w, &self.id);
        put_str(&mut w, &self.memory_type);
        w.push(code_of(Scope::ALL, &self.scope));
        w.push(code_of(Status::ALL, &self.status));
        put_opt_str(&mut w, self.module.as_deref());
        put_list(&mut w, &self.tags);
        put_score(&mut w, self.weight);
        put_score(&mut w, self.trust);
        put_opt_score(&mut w, self.confidence);
        w.push(self.trust_level.unwrap_or(0));
        put_i64(&mut w, self.created_at);
        put_i64(&mut w, self.updated_at);
        w.push(u8::from(self.deleted));
        put_u32(&mut w, self.read_count);
        put_u32(&mut w, self.rating_sum);
        put_u32(&mut w, self.rating_count);
        put_opt_u32(&mut w, self.rem_visits);
        put_feel(&mut w, &self.feel);
        put_list(&mut w, &self.targets);
        put_u32(&mut w, self.length);
        w
    }

    /// Reads a stored record; `None` when it is damaged or of another version.
    pub fn decode(bytes: &[u8]) -> Option<SearchRecord> {
        let v = RecordView::parse(bytes)?;
        let own = |list: StrList<'_>| list.iter().map(str::to_string).collect::<Vec<_>>();
        Some(SearchRecord {
            id: v.id.to_string(),
            memory_type: v.memory_type.to_string(),
            scope: v.scope,
            status: v.status,
            module: v.module.map(str::to_string),
            tags: own(v.tags),
            weight: v.weight,
            trust: v.trust,
            confidence: v.confidence,
            trust_level: v.trust_level,
            created_at: v.created_at,
            updated_at: v.updated_at,
            deleted: v.deleted,
            read_count: v.read_count,
            rating_sum: v.rating_sum,
            rating_count: v.rating_count,
            rem_visits: v.rem_visits,
            feel: v.feel,
            targets: own(v.targets),
            length: v.length,
        })
    }
}

/// A stored record read in place: strings borrow the stored bytes.
#[derive(Debug, Clone)]
pub struct RecordView<'a> {
    /// The memory's id.
    pub id: &'a str,
    /// Its type.
    pub memory_type: &'a str,
    /// Its scope.
    pub scope: Scope,
    /// Its status.
    pub status: Status,
    /// Its module.
    pub module: Option<&'a str>,
    /// Its tags.
    pub tags: StrList<'a>,
    /// weight.
    pub weight: f64,
    /// trust.
    pub trust: f64,
    /// confidence.
    pub confidence: Option<f64>,
    /// remember-core's confidentiality level, 1–5.
    pub trust_level: Option<u8>,
    /// created_at, nanoseconds since the epoch.
    pub created_at: i64,
    /// updated_at, nanoseconds since the epoch.
    pub updated_at: i64,
    /// True when soft-deleted.
    pub deleted: bool,
    /// read_count.
    pub read_count: u32,
    /// rating_sum.
    pub rating_sum: u32,
    /// rating_count.
    pub rating_count: u32,
    /// rem_visits.
    pub rem_visits: Option<u32>,
    /// The `feel_*` scores.
    pub feel: [Option<f64>; FEEL_COUNT],
    /// Relationship targets.
    pub targets: StrList<'a>,
    /// Number of BM25 tokens.
    pub length: u32,
}

impl<'a> RecordView<'a> {
    /// Reads a stored record in place; `None` when it is damaged or of another version.
    pub fn parse(bytes: &'a [u8]) -> Option<RecordView<'a>> {
        let mut r = Reader { bytes, at: 0 };
        if r.u8()? != RECORD_VERSION {
            return None;
        }
        let id = r.str()?;
        let memory_type = r.str()?;
        let scope = r.code(Scope::ALL)?;
        let status = r.code(Status::ALL)?;
        let module = match r.u8()? {
            0 => None,
            _ => Some(r.str()?),
        };
        let tags = str_list(r.list()?);
        let weight = r.score()?;
        let trust = r.score()?;
        let confidence = r.opt_score()?;
        let trust_level = match r.u8()? {
            0 => None,
            n @ 1..=5 => Some(n),
            _ => return None,
        };
        let created_at = r.i64()?;
        let updated_at = r.i64()?;
        let deleted = r.u8()? != 0;
        let read_count = r.u32()?;
        let rating_sum = r.u32()?;
        let rating_count = r.u32()?;
        let rem_visits = r.opt_u32()?;
        let feel = r.feel()?;
        let targets = str_list(r.list()?);
        let length = r.u32()?;
        // nothing may follow the record
        if r.at != bytes.len() {
            return None;
        }
        Some(RecordView {
            id,
            memory_type,
            scope,
            status,
            module,
            tags,
            weight,
            trust,
            confidence,
            trust_level,
            created_at,
            updated_at,
            deleted,
            read_count,
            rating_sum,
            rating_count,
            rem_visits,
            feel,
            targets,
            length,
        })
    }
}

fn str_list((bytes, len): (&[u8], usize)) -> StrList<'_> {
    StrList { bytes, len }
}

/// A counted list of strings read in place (tags, relationship targets), checked
/// when its record was parsed: reading a record allocates nothing.
#[derive(Debug, Clone, Copy)]
pub struct StrList<'a> {
    bytes: &'a [u8],
    len: usize,
}

impl<'a> StrList<'a> {
    /// The strings, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + use<'a> {
        let mut r = Reader {
            bytes: self.bytes,
            at: 0,
        };
        (0..self.len).map_while(move |_| r.str())
    }

    /// How many strings it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The terms of a term section (see [`super::IndexEntry::term_section`]): the
/// distinct terms of a memory, sorted, each a UTF-8 term after its length and before
/// its frequency, both `put_varint`; stops at the first damaged entry.
pub fn section_terms(section: &[u8]) -> impl Iterator<Item = (&[u8], u32)> {
    let mut r = Reader {
        bytes: section,
        at: 0,
    };
    std::iter::from_fn(move || {
        if r.at >= r.bytes.len() {
            return None;
        }
        r.term()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Relationship, Timestamp};

    #[test]
    fn a_record_survives_encoding_and_rejects_truncation() {
        let mut m = Memory::new("Id-1", "Body body TEXT", Timestamp(1_000));
        m.title = Some("Title".into());
        m.tags = vec!["x".into(), "yy".into()];
        m.feel[3] = Some(0.25);
        m.feel[16] = Some(-0.5);
        m.rem_visits = Some(7);
        m.relationships.push(Relationship {
            target: "other".into(),
            kind: "related".into(),
            strength: None,
        });
        let rec = SearchRecord::of(&m);
        assert_eq!(rec.length, 7); // id, title, note, yy, body, body, text
        let bytes = rec.encode();
        assert_eq!(SearchRecord::decode(&bytes), Some(rec));
        assert_eq!(SearchRecord::decode(&bytes[..bytes.len() - 1]), None);
    }
}
