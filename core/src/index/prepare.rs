//! The stored search record of a memory written straight into bytes, for the write
//! path: the same bytes as `SearchRecord::of(m).encode()`, without building the
//! record's strings first (an import prepares one per memory, so the allocations of
//! the general form would cost more than the rest of the write), followed by the
//! memory's term section, which the postings are made from.

use super::record::RECORD_VERSION;
use super::tokenize::{
    HEADLINE_CHARS, for_each_ascii_run, for_each_field, for_each_token, sort_prefix,
};
use crate::codec::{
    code_of, len_u32, put_feel, put_i64, put_list_of, put_opt_score, put_opt_str, put_opt_u32,
    put_score, put_str, put_term, put_u32,
};
use crate::model::{Memory, Scope, Status};
use std::cell::RefCell;

/// Token buffers reused between memories on one thread.
#[derive(Default)]
struct Scratch {
    /// Every token of the memory, lowercased, back to back.
    text: Vec<u8>,
    /// Each token as (first 8 bytes big-endian, start, end) into `text`.
    spans: Vec<(u64, u32, u32)>,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Where the term section written after a record starts in the buffer they were
/// written to (where the record ends), and the document's length (its number of BM25
/// tokens).
#[derive(Debug, Clone, Copy, Default)]
pub struct TermSection {
    /// Offset of the first term (the end of the record).
    pub at: usize,
    /// Number of BM25 tokens (dl).
    pub length: u32,
}

/// Appends the encoded search record of `m` to `w`, followed by the memory's term
/// section (its distinct terms, sorted, with their frequencies: see
/// [`super::record::section_terms`]); returns where the terms start.
pub fn encode_record(m: &Memory, w: &mut Vec<u8>) -> TermSection {
    w.push(RECORD_VERSION);
    put_str(w, &m.id);
    put_str(w, &m.memory_type);
    w.push(code_of(Scope::ALL, &m.scope));
    w.push(code_of(Status::ALL, &m.status));
    put_opt_str(w, m.module.as_deref());
    put_list_of(w, m.tags.iter().map(String::as_str));
    put_score(w, m.weight);
    put_score(w, m.trust);
    put_opt_score(w, m.confidence);
    w.push(m.trust_level.map_or(0, crate::model::TrustLevel::number));
    put_i64(w, m.created_at.0);
    put_i64(w, m.updated_at.0);
    w.push(u8::from(m.deleted_at.is_some()));
    put_u32(w, m.read_count);
    put_u32(w, m.rating_sum);
    put_u32(w, m.rating_count);
    put_opt_u32(w, m.rem_visits);
    put_feel(w, &m.feel);
    put_list_of(w, m.relationships.iter().map(|r| r.target.as_str()));
    SCRATCH.with(|s| terms_into(m, &mut s.borrow_mut(), w))
}

/// `tokenize::literal_haystack`, appended.
pub fn literal_into(m: &Memory, w: &mut Vec<u8>) {
    let mut first = true;
    for_each_field(m, |field| {
        if !first {
            w.push(b'\n');
        }
        first = false;
        if field.is_ascii() {
            let start = w.len();
            w.extend_from_slice(field.as_bytes());
            w[start..].make_ascii_lowercase();
        } else {
            w.extend_from_slice(field.to_lowercase().as_bytes());
        }
    });
}

/// `tokenize::fuzzy_haystack`, appended.
pub fn fuzzy_into(m: &Memory, w: &mut Vec<u8>) {
    let headline = m.headline();
    let cut = headline
        .char_indices()
        .nth(HEADLINE_CHARS)
        .map_or(headline, |(i, _)| &headline[..i]);
    let mut first = true;
    let parts = std::iter::once(cut)
        .chain(m.tags.iter().map(String::as_str))
        .chain(std::iter::once(m.id.as_str()));
    for part in parts.filter(|p| !p.is_empty()) {
        if !first {
            w.push(b' ');
        }
        first = false;
        w.extend_from_slice(part.as_bytes());
    }
}

/// The document length (the record's last field, as `SearchRecord::encode` writes
/// it), then the sorted distinct terms with their frequencies; returns where the
/// terms start.
fn terms_into(m: &Memory, s: &mut Scratch, w: &mut Vec<u8>) -> TermSection {
    s.text.clear();
    s.spans.clear();
    let Scratch { text, spans } = s;
    // a token's span in `text`, keyed by its first 8 bytes
    let span = |text: &[u8], start: usize, end: usize| {
        (sort_prefix(&text[start..end]), len_u32(start), len_u32(end))
    };
    for_each_field(m, |field| {
        let base = text.len();
        if field.is_ascii() {
            // the whole field lowercased at once; its tokens are spans of that copy
            text.extend_from_slice(field.as_bytes());
            text[base..].make_ascii_lowercase();
            let copy = &text[base..];
            for_each_ascii_run(copy, |run| {
                let start = base + (run.as_ptr() as usize - copy.as_ptr() as usize);
                spans.push(span(text, start, start + run.len()));
            });
        } else {
            // the tokens of non-ASCII text come lowercased
            for_each_token(field, |t| {
                let start = text.len();
                text.extend_from_slice(t.as_bytes());
                spans.push(span(text, start, text.len()));
            });
        }
    });
    let length = len_u32(spans.len());
    put_u32(w, length);
    // Tokens never contain NUL, so zero-padded prefixes order like the strings, and
    // two tokens of at most eight bytes with the same prefix are the same token: the
    // spans are sorted by prefix alone, and only a run of one prefix that holds a
    // longer token is ordered by the whole bytes.
    spans.sort_unstable_by_key(|s| s.0);
    let bytes = |&(_, a, b): &(u64, u32, u32)| &text[a as usize..b as usize];
    let at = w.len();
    let mut i = 0;
    while i < spans.len() {
        let mut end = i + 1;
        while end < spans.len() && spans[end].0 == spans[i].0 {
            end += 1;
        }
        let run = &mut spans[i..end];
        if run.iter().all(|&(_, a, b)| b - a <= 8) {
            put_term(w, bytes(&run[0]), len_u32(run.len()));
        } else {
            run.sort_unstable_by(|x, y| bytes(x).cmp(bytes(y)));
            for group in run.chunk_by(|x, y| bytes(x) == bytes(y)) {
                put_term(w, bytes(&group[0]), len_u32(group.len()));
            }
        }
        i = end;
    }
    TermSection { at, length }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::SearchRecord;
    use crate::index::tokenize::{fuzzy_haystack, literal_haystack};
    use crate::model::{Relationship, Timestamp};

    /// The distinct terms of a memory with their frequencies, sorted, the plain way.
    fn plain_terms(m: &Memory) -> Vec<(String, u32)> {
        let mut tokens: Vec<String> = Vec::new();
        for_each_field(m, |field| {
            for_each_token(field, |t| tokens.push(t.to_string()))
        });
        tokens.sort();
        let mut terms: Vec<(String, u32)> = Vec::new();
        for t in tokens {
            match terms.last_mut() {
                Some((last, tf)) if *last == t => *tf += 1,
                _ => terms.push((t, 1)),
            }
        }
        terms
    }

    /// The record written straight into bytes, after checking that the terms and
    /// haystacks written after it are those of the plain ways.
    fn fast(m: &Memory) -> Vec<u8> {
        let mut w = Vec::new();
        let terms = encode_record(m, &mut w);
        let entry = crate::index::IndexEntry::of(m);
        assert_eq!(entry.record(), &w[..terms.at]);
        assert_eq!(entry.term_section(), &w[terms.at..], "{}", m.id);
        let section: Vec<(String, u32)> = crate::index::record::section_terms(&w[terms.at..])
            .map(|(t, tf)| (String::from_utf8(t.to_vec()).expect("UTF-8"), tf))
            .collect();
        assert_eq!(section, plain_terms(m), "{}", m.id);
        w.truncate(terms.at);
        let view = crate::index::RecordView::parse(&w).expect("a readable record");
        assert_eq!(view.length, terms.length, "{}", m.id);
        let fact = crate::index::facts::Fact::of_record(&view);
        assert_eq!(entry.fact(), fact, "{}", m.id);
        let text = entry.text();
        assert_eq!(text.literal, literal_haystack(m).as_bytes(), "{}", m.id);
        assert_eq!(text.fuzzy, fuzzy_haystack(m), "{}", m.id);
        w
    }

    #[test]
    fn the_fast_encoding_is_the_record_encoding() {
        let mut m = Memory::new("Id-1", "Body body TEXT\n second line", Timestamp(1_000));
        assert_eq!(fast(&m), SearchRecord::of(&m).encode());
        m.title = Some("  ÉCOLE Straße ".repeat(30));
        m.tags = vec!["x".into(), "".into(), "Yy-ZZ".into()];
        m.module = Some("Mod_ule".into());
        m.feel[3] = Some(0.25);
        m.feel[16] = Some(-0.5);
        m.rem_visits = Some(7);
        m.confidence = Some(0.5);
        m.relationships.push(Relationship {
            target: "other".into(),
            kind: "related".into(),
            strength: None,
        });
        m.body = "aa ab aa abcdefghij abcdefghi abcdefgh abcdefghij a_b 42 ΣΑΣ σας".into();
        assert_eq!(fast(&m), SearchRecord::of(&m).encode());
        m.title = None;
        m.body = "\n\n   ".into();
        assert_eq!(fast(&m), SearchRecord::of(&m).encode());
    }

    #[test]
    fn the_fast_encoding_matches_on_a_generated_corpus() {
        let spec = crate::corpus::CorpusSpec {
            seed: 7,
            size: 500,
            body_bytes_target: 200,
        };
        for m in crate::corpus::generate(spec) {
            assert_eq!(fast(&m), SearchRecord::of(&m).encode(), "memory {}", m.id);
        }
    }
}
