//! How text becomes searchable: BM25 tokens, the lowercased literal haystack and the
//! fuzzy haystack, all defined once so the index, the engines and the tests agree.

use crate::model::Memory;

/// Longest headline part of the fuzzy haystack, in Unicode scalar values.
pub const HEADLINE_CHARS: usize = 200;

/// Calls `f` with every BM25 token of `text`: a maximal run of Unicode alphanumerics or
/// `_` (found in the original text), lowercased, kept when the lowercased run has at
/// least 2 characters.
pub fn for_each_token(text: &str, f: impl FnMut(&str)) {
    if text.is_ascii() {
        for_each_ascii_token(text, f);
    } else {
        for_each_unicode_token(text, f);
    }
}

/// [`for_each_token`] for any text, character by character.
fn for_each_unicode_token(text: &str, mut f: impl FnMut(&str)) {
    let mut start = None;
    let mut buf = String::new();
    let mut emit = |run: &str, buf: &mut String| {
        if run.is_ascii() {
            if run.len() >= 2 {
                buf.clear();
                buf.push_str(run);
                buf.make_ascii_lowercase();
                f(buf);
            }
        } else {
            let lower = run.to_lowercase();
            if lower.chars().nth(1).is_some() {
                f(&lower);
            }
        }
    };
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || c == '_';
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                emit(&text[s..i], &mut buf);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        emit(&text[s..], &mut buf);
    }
}

/// True for the ASCII bytes a token is made of: letters, digits and `_` (in ASCII
/// text, exactly the characters `char::is_alphanumeric` or `_` accepts).
static ASCII_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// [`for_each_token`] for ASCII text (most of it): runs found byte by byte, with no
/// character decoding or Unicode tables.
fn for_each_ascii_token(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    for_each_ascii_run(text.as_bytes(), |run| {
        buf.clear();
        // an ASCII run of an ASCII text
        buf.extend(run.iter().map(|&b| char::from(b.to_ascii_lowercase())));
        f(&buf);
    });
}

/// Calls `f` with every run of token bytes (ASCII letters, digits, `_`) of at least 2
/// bytes in `bytes`, not lowercased: for ASCII text, the BM25 tokens before lowercasing.
pub(crate) fn for_each_ascii_run(bytes: &[u8], mut f: impl FnMut(&[u8])) {
    let mut i = 0;
    while i < bytes.len() {
        while i < bytes.len() && !ASCII_WORD[bytes[i] as usize] {
            i += 1;
        }
        let start = i;
        while i < bytes.len() && ASCII_WORD[bytes[i] as usize] {
            i += 1;
        }
        if i - start >= 2 {
            f(&bytes[start..i]);
        }
    }
}

/// The first eight bytes of a term, zero-padded, as a big-endian number: terms never
/// contain NUL, so these order like the terms themselves (a sort key that needs the
/// whole terms only where it ties).
pub(crate) fn sort_prefix(term: &[u8]) -> u64 {
    match term.first_chunk::<8>() {
        Some(eight) => u64::from_be_bytes(*eight),
        None => term
            .iter()
            .enumerate()
            .fold(0, |acc, (i, &b)| acc | u64::from(b) << (56 - 8 * i)),
    }
}

/// The BM25 tokens of `text`, in order.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
}

/// Calls `f` with each text field a memory is searched by, in the order of SPEC §3.2:
/// id, title, type, module, each tag, what hivelore searches beside them (each anchor
/// path, each anchor symbol, domain, topic: `extra` keys of a hivelore memory), body.
/// `<private>…</private>` blocks of the body are left out (see `project::private`).
pub fn for_each_field(m: &Memory, mut f: impl FnMut(&str)) {
    f(&m.id);
    if let Some(t) = &m.title {
        f(t);
    }
    f(&m.memory_type);
    if let Some(module) = &m.module {
        f(module);
    }
    for tag in &m.tags {
        f(tag);
    }
    for_each_hivelore_field(m, &mut f);
    f(&crate::project::private::searchable(&m.body));
}

/// The hivelore fields searched: `anchor.paths`, `anchor.symbols`, `domain`, `topic`.
fn for_each_hivelore_field(m: &Memory, f: &mut impl FnMut(&str)) {
    use serde_json::Value;
    if m.extra.is_empty() {
        return;
    }
    if let Some(anchor) = m.extra.get("anchor").and_then(Value::as_object) {
        for key in ["paths", "symbols"] {
            let items = anchor.get(key).and_then(Value::as_array);
            for item in items.into_iter().flatten().filter_map(Value::as_str) {
                f(item);
            }
        }
    }
    for key in ["domain", "topic"] {
        if let Some(text) = m.extra.get(key).and_then(Value::as_str) {
            f(text);
        }
    }
}

/// The literal haystack: every searched field lowercased, joined by `\n`. A query word
/// never contains whitespace, so it is a substring of the haystack exactly when it is a
/// substring of one field.
pub fn literal_haystack(m: &Memory) -> String {
    let mut out = String::with_capacity(m.body.len() + m.id.len() + 32);
    let mut first = true;
    for_each_field(m, |field| {
        if !first {
            out.push('\n');
        }
        first = false;
        if field.is_ascii() {
            let start = out.len();
            out.push_str(field);
            out[start..].make_ascii_lowercase();
        } else {
            out.push_str(&field.to_lowercase());
        }
    });
    out
}

/// The fuzzy haystack: HEADLINE, the tags and the id joined by single spaces, empty
/// parts left out. HEADLINE is the title, or else the first non-blank body line,
/// trimmed, cut to its first 200 characters.
pub fn fuzzy_haystack(m: &Memory) -> String {
    let headline: String = m.headline().chars().take(HEADLINE_CHARS).collect();
    let mut parts: Vec<&str> = Vec::with_capacity(m.tags.len() + 2);
    parts.push(&headline);
    parts.extend(m.tags.iter().map(String::as_str));
    parts.push(&m.id);
    parts.retain(|p| !p.is_empty());
    parts.join(" ")
}

/// The distinct query words of the literal engine: split on whitespace, lowercased,
/// duplicates dropped (first occurrence kept).
pub fn literal_words(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in query.split_whitespace() {
        let w = w.to_lowercase();
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The distinct BM25 tokens of a query, in order of first appearance.
pub fn query_tokens(query: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for_each_token(query, |t| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_lowercased_alphanumeric_runs_of_two_or_more() {
        assert_eq!(
            tokens("Foo_bar, a b2 x-yz ÉCOLE 42"),
            ["foo_bar", "b2", "yz", "école", "42"]
        );
        assert!(tokens("!! a . b").is_empty());
    }

    /// The tokens of both paths of [`for_each_token`] for the same text.
    fn both_paths(text: &str) -> (Vec<String>, Vec<String>) {
        let mut ascii = Vec::new();
        for_each_ascii_token(text, |t| ascii.push(t.to_string()));
        let mut unicode = Vec::new();
        for_each_unicode_token(text, |t| unicode.push(t.to_string()));
        (ascii, unicode)
    }

    #[test]
    fn the_ascii_path_finds_the_tokens_of_the_character_path() {
        // every ASCII byte, in runs around each other
        let all: String = (0u8..128).map(char::from).collect();
        for text in [
            all.as_str(),
            "Foo_bar, a b2 x-yz 42",
            "",
            "a",
            "ab",
            "_",
            "__ x",
        ] {
            let (ascii, unicode) = both_paths(text);
            assert_eq!(ascii, unicode, "{text:?}");
        }
        assert_eq!(both_paths("A1_z9 Q").0, ["a1_z9"]);
    }

    proptest::proptest! {
        #[test]
        fn on_any_ascii_text_both_paths_agree(text in "[ -~\t\n\x00-\x1f\x7f]{0,80}") {
            let (ascii, unicode) = both_paths(&text);
            proptest::prop_assert_eq!(ascii, unicode);
        }
    }

    #[test]
    fn fuzzy_haystack_skips_empty_parts_and_cuts_the_headline() {
        let mut m = Memory::new(
            "id1",
            "\n  first line  \nsecond",
            crate::model::Timestamp(0),
        );
        assert_eq!(fuzzy_haystack(&m), "first line id1");
        m.tags = vec!["t1".into(), "t2".into()];
        m.title = Some("é".repeat(250));
        let h = fuzzy_haystack(&m);
        assert!(h.starts_with(&"é".repeat(200)));
        assert!(h.ends_with(" t1 t2 id1"));
    }
}
