//! The broad scan (remember-core's byBroad): the time-ordered list in which each memory
//! shows, instead of its body, about 100 characters from the body's head, middle and
//! tail, so that an agent or a person can skim many memories cheaply.

use crate::model::Composite;
use crate::search::request::{BrowseMode, Hit, SearchRequest};
use serde_json::Value;

/// How many memories a broad scan lists unless told otherwise.
pub const DEFAULT_LIMIT: usize = 50;

/// Characters in each slice.
pub const SLICE_CHARS: usize = 100;

/// The three slices of a body. A body of at most three slices' length is all in
/// `head` (the other two are empty), so no text is shown twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slices {
    /// The first characters.
    pub head: String,
    /// The characters around the middle.
    pub middle: String,
    /// The last characters.
    pub tail: String,
}

/// The slices of `body`, cut at character (Unicode scalar value) boundaries.
pub fn slices(body: &str) -> Slices {
    let chars: Vec<char> = body.chars().collect();
    let n = chars.len();
    if n <= 3 * SLICE_CHARS {
        return Slices {
            head: body.to_string(),
            middle: String::new(),
            tail: String::new(),
        };
    }
    let mid_start = n / 2 - SLICE_CHARS / 2;
    Slices {
        head: chars[..SLICE_CHARS].iter().collect(),
        middle: chars[mid_start..mid_start + SLICE_CHARS].iter().collect(),
        tail: chars[n - SLICE_CHARS..].iter().collect(),
    }
}

/// The request a broad scan runs: the same filters and query, in time order (newest
/// first unless `order` says otherwise).
pub fn request(req: &SearchRequest) -> SearchRequest {
    SearchRequest {
        mode: BrowseMode::Time,
        ..req.clone()
    }
}

/// One memory of a broad scan as JSON: id, title, type, scope, status, tags, weight,
/// dates, the three slices (`content_head`, `content_mid`, `content_tail`, as
/// remember-core names them) and the significance scores present.
pub fn hit_json(hit: &Hit) -> Value {
    let m = &crate::project::private::shown_memory(&hit.memory);
    let s = slices(&m.body);
    let mut o = crate::search::output::summary_json(m);
    o.insert("weight".into(), m.weight.into());
    o.insert("content_head".into(), s.head.into());
    o.insert("content_mid".into(), s.middle.into());
    o.insert("content_tail".into(), s.tail.into());
    o.insert("content_chars".into(), m.body.chars().count().into());
    for c in Composite::ALL {
        if let Some(v) = m.composite(c) {
            o.insert(c.field().into(), v.into());
        }
    }
    Value::Object(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_bodies_stay_whole_in_the_head_and_long_ones_are_cut_in_three() {
        assert_eq!(slices("").head, "");
        let short = "é".repeat(300);
        let s = slices(&short);
        assert_eq!(
            (s.head.as_str(), s.middle.len(), s.tail.len()),
            (short.as_str(), 0, 0)
        );

        let long: String = (0..1001)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        let s = slices(&long);
        let chars: Vec<char> = long.chars().collect();
        assert_eq!(s.head, chars[..100].iter().collect::<String>());
        assert_eq!(s.tail, chars[901..].iter().collect::<String>());
        assert_eq!(s.middle, chars[450..550].iter().collect::<String>());
        assert!(long.contains(&s.middle));
    }

    #[test]
    fn slices_cut_between_characters_never_inside_one() {
        let body = "日本語のテキスト".repeat(60);
        let s = slices(&body);
        for part in [&s.head, &s.middle, &s.tail] {
            assert_eq!(part.chars().count(), SLICE_CHARS);
            assert!(body.contains(part.as_str()));
        }
    }
}
