//! The search record: what search needs of one memory apart from the text it matches
//! (its fields and BM25 terms), in a compact binary form stored beside it, so opening a
//! store never has to decode every memory. The literal and fuzzy haystacks are
//! stored once, in the haystack chunks ([`super::haystacks`]).

use super::tokenize::{for_each_field, for_each_token};
use crate::codec::{
    Reader, code_of, len_u32, put_feel, put_i64, put_list, put_opt_f64, put_opt_str, put_opt_u32,
    put_str, put_term, put_u32,
};
use crate::model::{FEEL_COUNT, Memory, Scope, Status};

/// Version byte at the start of every encoded record; a record with another version is
/// rebuilt from the memory itself.
pub const RECORD_VERSION: u8 = 3;

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
    /// Distinct BM25 terms with their frequency, sorted by term.
    pub terms: Vec<(String, u32)>,
    /// Number of BM25 tokens in the document (its length, dl).
    pub length: u32,
}

impl SearchRecord {
    /// The search record of a memory.
    pub fn of(m: &Memory) -> SearchRecord {
        // every token into one buffer, then sorted: equal tokens become runs (no hashing,
        // two allocations for the whole memory)
        let mut text = String::new();
        let mut spans: Vec<(usize, usize)> = Vec::new();
        for_each_field(m, |field| {
            for_each_token(field, |t| {
                spans.push((text.len(), text.len() + t.len()));
                text.push_str(t);
            })
        });
        let length = u32::try_from(spans.len()).unwrap_or(u32::MAX);
        spans.sort_unstable_by(|a, b| text[a.0..a.1].cmp(&text[b.0..b.1]));
        let mut terms: Vec<(String, u32)> = Vec::new();
        for (start, end) in spans {
            let t = &text[start..end];
            match terms.last_mut() {
                Some((last, tf)) if last == t => *tf += 1,
                _ => terms.push((t.to_string(), 1)),
            }
        }
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
            created_at: m.created_at.0,
            updated_at: m.updated_at.0,
            deleted: m.deleted_at.is_some(),
            read_count: m.read_count,
            rating_sum: m.rating_sum,
            rating_count: m.rating_count,
            rem_visits: m.rem_visits,
            feel: m.feel,
            targets: m.relationships.iter().map(|r| r.target.clone()).collect(),
            terms,
            length,
        }
    }

    /// The record in its stored form.
    pub fn encode(&self) -> Vec<u8> {
        let mut w = Vec::with_capacity(self.terms.len() * 12 + 384);
        w.push(RECORD_VERSION);
        put_str(&mut w, &self.id);
        put_str(&mut w, &self.memory_type);
        w.push(code_of(Scope::ALL, &self.scope));
        w.push(code_of(Status::ALL, &self.status));
        put_opt_str(&mut w, self.module.as_deref());
        put_list(&mut w, &self.tags);
        w.extend(self.weight.to_le_bytes());
        w.extend(self.trust.to_le_bytes());
        put_opt_f64(&mut w, self.confidence);
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
        put_u32(&mut w, len_u32(self.terms.len()));
        for (t, tf) in &self.terms {
            put_term(&mut w, t.as_bytes(), *tf);
        }
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
            created_at: v.created_at,
            updated_at: v.updated_at,
            deleted: v.deleted,
            read_count: v.read_count,
            rating_sum: v.rating_sum,
            rating_count: v.rating_count,
            rem_visits: v.rem_visits,
            feel: v.feel,
            targets: own(v.targets),
            terms: v
                .terms()
                .map(|(t, tf)| Some((String::from_utf8(t.to_vec()).ok()?, tf)))
                .collect::<Option<Vec<_>>>()?,
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
    term_bytes: &'a [u8],
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
        let weight = r.f64()?;
        let trust = r.f64()?;
        let confidence = r.opt_f64()?;
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
        let term_count = r.u32()?;
        let term_bytes = &bytes[r.at..];
        let view = RecordView {
            id,
            memory_type,
            scope,
            status,
            module,
            tags,
            weight,
            trust,
            confidence,
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
            term_bytes,
        };
        // every term must be readable and nothing may follow them
        let mut check = Reader {
            bytes: term_bytes,
            at: 0,
        };
        for _ in 0..term_count {
            check.term()?;
        }
        (check.at == term_bytes.len()).then_some(view)
    }

    /// The distinct terms (UTF-8 bytes) with their frequencies, sorted by term.
    pub fn terms(&self) -> impl Iterator<Item = (&'a [u8], u32)> + use<'a> {
        section_terms(self.term_bytes)
    }

    /// The stored term section as it is (read it with [`section_terms`]).
    pub fn term_section(&self) -> &'a [u8] {
        self.term_bytes
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

/// The terms of a stored term section (see [`RecordView::term_section`]): each a
/// UTF-8 term after its length and before its frequency, both [`put_varint`]; stops
/// at the first damaged entry.
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
        assert_eq!(rec.terms[0], ("body".to_string(), 2));
        assert!(rec.terms.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(rec.terms.contains(&("body".to_string(), 2)));
        assert_eq!(rec.length, 7); // id, title, note, yy, body, body, text
        let bytes = rec.encode();
        assert_eq!(SearchRecord::decode(&bytes), Some(rec));
        assert_eq!(SearchRecord::decode(&bytes[..bytes.len() - 1]), None);
    }
}
