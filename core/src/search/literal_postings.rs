//! Literal query words answered from the vocabulary and the postings instead of the
//! haystacks, for a searcher that holds no text of its own.
//!
//! A word of ASCII letters, digits and `_`, at least 2 long, is a substring of a
//! memory's literal haystack exactly when it is a substring of one of the memory's
//! BM25 tokens: both come from the same fields (`tokenize::for_each_field`); around
//! the word's bytes in the haystack stand characters of the same run of word
//! characters in the field, which the run's token holds lowercased alike (a token is
//! lowercased on its own, the haystack field by field, which only tells a final sigma
//! apart, never an ASCII byte). So the memories holding such a word are those in the
//! postings of the vocabulary's terms that contain it, and no haystack is read.
//! A word that is not of that kind, or that too many terms or postings contain (a
//! scan of the haystacks is then cheaper), leaves the query to the haystacks.

use crate::index::facts::Totals;
use crate::index::postings::{self, POSTINGS};
use crate::index::vocabulary::{self, VOCABULARY};
use crate::store::{StoreReader, tables::META};

/// The most vocabulary terms one word may name before the haystacks answer instead.
const MOST_TERMS: usize = 4096;

/// True for a word the postings can answer (see the module's notes).
pub(crate) fn answerable(word: &str) -> bool {
    word.len() >= 2
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// For each of the lowercased `words`, the documents whose literal haystack holds it,
/// ascending; `None` when a word is not [`answerable`], when the words name more terms
/// or postings than a scan of the haystacks would read, or when the vocabulary or
/// postings cannot be read (the haystacks answer then, and say what is damaged).
pub(crate) fn word_docs(reader: &StoreReader, words: &[String]) -> Option<Vec<Vec<u32>>> {
    if words.is_empty() || !words.iter().all(|w| answerable(w)) {
        return None;
    }
    let meta = reader.table_if_present(META).ok()??;
    let totals = Totals::read(&meta).ok()??;
    // about as many postings as there are memories cost what a scan of their text does
    let mut budget = (totals.live + totals.deleted).max(1024) as usize;
    let vocabulary = reader.table_if_present(VOCABULARY).ok()??;
    let table = reader.table(POSTINGS).ok()?;
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        let terms = vocabulary::containing(&vocabulary, word, MOST_TERMS).ok()??;
        let mut docs: Vec<u32> = Vec::new();
        for term in &terms {
            let list = postings::read_term(&table, term).ok()??;
            budget = budget.checked_sub(list.len())?;
            docs.extend(list.iter().map(|&(doc, _)| doc));
        }
        if terms.len() > 1 {
            docs.sort_unstable();
            docs.dedup();
        }
        out.push(docs);
    }
    Some(out)
}

/// How many of the words each of `docs` (ascending) holds, given each word's
/// documents (ascending): (position in `docs`, count) for the positions holding some,
/// ascending, as `literal::from_counts` takes them.
pub(crate) fn counts(docs: &[u32], word_docs: &[Vec<u32>]) -> Vec<(u32, u32)> {
    let mut counts: Vec<(u32, u32)> = Vec::new();
    for (i, holding) in word_docs.iter().enumerate() {
        let mut found = Vec::new();
        let mut from = 0;
        for &doc in holding {
            from += docs[from..].partition_point(|&d| d < doc);
            if docs.get(from) == Some(&doc) {
                found.push(from as u32);
            }
        }
        counts = if i == 0 {
            found.into_iter().map(|pos| (pos, 1)).collect()
        } else {
            add_one(&counts, &found)
        };
    }
    counts
}

/// `counts` with one more for each of `found` (both ascending by position).
fn add_one(counts: &[(u32, u32)], found: &[u32]) -> Vec<(u32, u32)> {
    let mut out = Vec::with_capacity(counts.len() + found.len());
    let (mut i, mut j) = (0, 0);
    while i < counts.len() || j < found.len() {
        match (counts.get(i), found.get(j)) {
            (Some(&(pos, n)), Some(&f)) if pos == f => {
                out.push((pos, n + 1));
                i += 1;
                j += 1;
            }
            (Some(&(pos, n)), Some(&f)) if pos < f => {
                out.push((pos, n));
                i += 1;
            }
            (Some(&c), None) => {
                out.push(c);
                i += 1;
            }
            (_, Some(&f)) => {
                out.push((f, 1));
                j += 1;
            }
            (None, None) => unreachable!("the loop runs while either has more"),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lowercase_ascii_word_characters_two_or_more_are_answerable() {
        for w in ["ab", "a_", "x9", "water", "snake_case", "42"] {
            assert!(answerable(w), "{w}");
        }
        for w in ["a", "", "a-b", "c++", "über", "foo.bar", "Ab", "a b"] {
            assert!(!answerable(w), "{w}");
        }
    }

    #[test]
    fn counts_agree_with_counting_each_position() {
        let docs: Vec<u32> = (0..200).map(|i| i * 3 + 1).collect();
        let words: Vec<Vec<u32>> = vec![
            (0..700).filter(|d| d % 2 == 0).collect(),
            (0..700).filter(|d| d % 5 == 1).collect(),
            vec![],
            (0..700).filter(|d| d % 7 == 0).collect(),
        ];
        let got = counts(&docs, &words);
        let expected: Vec<(u32, u32)> = docs
            .iter()
            .enumerate()
            .map(|(pos, d)| {
                (
                    pos as u32,
                    words.iter().filter(|w| w.contains(d)).count() as u32,
                )
            })
            .filter(|&(_, n)| n > 0)
            .collect();
        assert_eq!(got, expected);
    }
}
