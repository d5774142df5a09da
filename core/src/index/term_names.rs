//! The names of the terms one write transaction numbered, packed in one buffer: an
//! import numbers a million or more, and a string of its own for each (an allocation,
//! with a pointer and a length beside it) cost the writer more than their bytes.

use std::ops::Index;

/// Term names by term number.
#[derive(Debug, Default)]
pub(crate) struct TermNames {
    bytes: String,
    /// Where each name ends in `bytes`.
    ends: Vec<usize>,
}

impl TermNames {
    /// Adds the name of the next term number (`term` is UTF-8; anything else is
    /// replaced as `String::from_utf8_lossy` does).
    pub(crate) fn push(&mut self, term: &[u8]) {
        self.bytes.push_str(&String::from_utf8_lossy(term));
        self.ends.push(self.bytes.len());
    }

    /// The number of names.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }
}

impl Index<usize> for TermNames {
    type Output = str;

    fn index(&self, term: usize) -> &str {
        let start = if term == 0 { 0 } else { self.ends[term - 1] };
        &self.bytes[start..self.ends[term]]
    }
}

impl<'a> FromIterator<&'a str> for TermNames {
    fn from_iter<I: IntoIterator<Item = &'a str>>(names: I) -> TermNames {
        let mut all = TermNames::default();
        for name in names {
            all.push(name.as_bytes());
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_by_number() {
        let words = ["alpha", "", "straße", "ΣΑΣ", "b"];
        let names: TermNames = words.iter().copied().collect();
        assert_eq!(names.len(), words.len());
        for (t, w) in words.iter().enumerate() {
            assert_eq!(&names[t], *w);
        }
        let mut lossy = TermNames::default();
        lossy.push(b"ok\xff");
        assert_eq!(&lossy[0], "ok\u{fffd}");
    }
}
