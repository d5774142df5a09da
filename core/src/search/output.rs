//! How `memlens search` prints results: the `--json` document of SPEC §4 and a
//! readable table, with one-line snippets cleaned of control characters.

use crate::index::tokenize::literal_words;
use crate::model::Composite;
use crate::search::Listing;
use crate::search::request::{Hit, MatchQuality, SearchRequest, SearchResponse};
use serde_json::{Map, Value};

/// Longest snippet, in characters.
pub const SNIPPET_CHARS: usize = 120;
/// Characters of context kept before the first match.
const LEAD_CHARS: usize = 30;

/// Replaces control characters (escape sequences included) with spaces and collapses
/// runs of whitespace, so text from a memory is safe on one terminal line.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for ch in text.chars() {
        if ch.is_control() || ch.is_whitespace() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(ch);
        }
    }
    out
}

/// Cuts `text` to `max` characters, marking the cut with `…`.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let mut s: String = text.chars().take(max.saturating_sub(1)).collect();
    s.push('…');
    s
}

/// A short single-line excerpt of the body around the first query word it contains,
/// or its start.
pub fn snippet(body: &str, query: &str) -> String {
    let line = one_line(body);
    let lower = line.to_lowercase();
    let first = literal_words(query)
        .iter()
        .filter_map(|w| lower.find(w.as_str()))
        .min()
        .map(|byte| lower[..byte].chars().count())
        .unwrap_or(0);
    let start = first.saturating_sub(LEAD_CHARS);
    let rest: String = line.chars().skip(start).collect();
    let excerpt = cut(&rest, SNIPPET_CHARS);
    if start > 0 {
        format!("…{excerpt}")
    } else {
        excerpt
    }
}

fn quality_str(q: MatchQuality) -> &'static str {
    match q {
        MatchQuality::All => "all",
        MatchQuality::Partial => "partial",
    }
}

/// The keys every result starts with: id, title, type, scope, status, tags, created_at.
pub fn summary_json(m: &crate::model::Memory) -> Map<String, Value> {
    let mut o = Map::new();
    o.insert("id".into(), m.id.clone().into());
    o.insert(
        "title".into(),
        m.title.clone().map_or(Value::Null, Value::from),
    );
    o.insert("type".into(), m.memory_type.clone().into());
    o.insert("scope".into(), m.scope.as_str().into());
    o.insert("status".into(), m.status.as_str().into());
    o.insert("tags".into(), m.tags.clone().into());
    o.insert("created_at".into(), m.created_at.to_string().into());
    o
}

/// One result as JSON: the summary keys first, then every other stored field, then
/// the derived values.
pub fn hit_json(hit: &Hit, query: &str) -> Value {
    let m = &crate::project::private::shown_memory(&hit.memory);
    let stored = m.to_json();
    let mut o = summary_json(m);
    if let Some(s) = hit.score {
        o.insert("score".into(), s.into());
    }
    if let Some(q) = hit.match_quality {
        o.insert("match_quality".into(), quality_str(q).into());
    }
    if let Some(d) = hit.is_discovery {
        o.insert("is_discovery".into(), d.into());
    }
    o.insert("snippet".into(), snippet(&m.body, query).into());
    for (k, v) in stored {
        if !o.contains_key(&k) {
            o.insert(k, v);
        }
    }
    o.insert("rating_bayesian".into(), m.rating_bayesian().into());
    if let Some(avg) = m.rating_avg() {
        o.insert("rating_avg".into(), avg.into());
    }
    o.insert("relationship_count".into(), hit.relationship_count.into());
    for c in Composite::ALL {
        if let Some(v) = m.composite(c) {
            o.insert(c.field().into(), v.into());
        }
    }
    Value::Object(o)
}

/// The whole `--json` document.
pub fn response_json(req: &SearchRequest, resp: &SearchResponse) -> Value {
    let mut o = Map::new();
    o.insert("total".into(), resp.total.into());
    o.insert("engine".into(), req.engine.as_str().into());
    // the order the list is in: relevance without a query is time (SPEC §3.3)
    let mode = crate::search::Searcher::effective_mode(req);
    o.insert("mode".into(), mode.as_str().into());
    if let crate::search::BrowseMode::Property(f) = req.mode {
        o.insert("sort_field".into(), f.name().into());
    }
    if let Some(order) = req.order {
        o.insert("order".into(), order.as_str().into());
    }
    o.insert("offset".into(), req.offset.into());
    if let Some(n) = &resp.notice {
        o.insert("notice".into(), n.clone().into());
    }
    let results: Vec<Value> = resp.hits.iter().map(|h| hit_json(h, &req.query)).collect();
    o.insert("results".into(), results.into());
    Value::Object(o)
}

/// The `--json` document of any listing: for the broad scan each result shows slices
/// of its body instead of the body ([`crate::search::broad::hit_json`]); a random draw
/// names its mode and `total` is the size of the set drawn from.
pub fn listing_json(req: &SearchRequest, listing: Listing, resp: &SearchResponse) -> Value {
    let mut doc = response_json(req, resp);
    if let (Some(name), Value::Object(o)) = (listing.mode_name(), &mut doc) {
        o.insert("mode".into(), name.into());
        if let Listing::Random { seed: Some(seed) } = listing {
            o.insert("seed".into(), seed.into());
        }
        if listing == Listing::Broad {
            let results: Vec<Value> = resp
                .hits
                .iter()
                .map(crate::search::broad::hit_json)
                .collect();
            o.insert("results".into(), results.into());
        }
    }
    doc
}

/// A score or a field's value in the table (and the browser's list): a whole number as
/// one, else three decimals.
pub fn shown_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{x:.0}")
    } else {
        format!("{x:.3}")
    }
}

/// The widest the id column is padded to.
const ID_CELLS: usize = 40;

/// The readable table: a header line with counts and the notice, then one row per
/// result; its fifth column is the query's score, or the field a browse mode sorts by.
pub fn table(req: &SearchRequest, resp: &SearchResponse) -> String {
    let mut out = String::new();
    let shown = resp.hits.len();
    let matches = crate::words::counted(resp.total, "match", "matches");
    if shown == 0 {
        out.push_str(&matches);
    } else {
        out.push_str(&format!(
            "{matches}, showing {}–{}",
            req.offset + 1,
            req.offset + shown
        ));
    }
    if let Some(n) = &resp.notice {
        out.push_str(&format!(" ({n})"));
    }
    out.push('\n');
    if shown == 0 {
        return out;
    }
    // a browse mode that sorts by a field shows it where a query's score would be
    let by = crate::search::order::sort_field(crate::search::Searcher::effective_mode(req));
    let rows: Vec<[String; 6]> = resp
        .hits
        .iter()
        .map(|h| {
            let m = &h.memory;
            let created = m.created_at.to_string();
            let number = match by {
                Some(f) => f.value(m, h.relationship_count),
                None => h.score,
            };
            [
                // whole: an id is what `get` and every verb take
                one_line(&m.id),
                cut(&m.memory_type, 14),
                match m.deleted_at {
                    // shown with `--filter deleted=include` (or only)
                    Some(_) => format!("{} (deleted)", m.status.as_str()),
                    None => m.status.as_str().to_string(),
                },
                created.get(..10).unwrap_or(&created).to_string(),
                number.map(shown_number).unwrap_or_default(),
                cut(&one_line(m.shown_headline()), 60),
            ]
        })
        .collect();
    let sorted_by = by.map(|f| f.name().to_uppercase());
    let header = [
        "ID",
        "TYPE",
        "STATUS",
        "CREATED",
        sorted_by.as_deref().unwrap_or("SCORE"),
        "TITLE",
    ];
    // columns as wide as the terminal draws them: a wide character takes two cells
    let cells = |text: &str| unicode_width::UnicodeWidthStr::width(text);
    let mut widths = header.map(cells);
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cells(cell));
        }
    }
    // a UUID fits; a longer id (an MCP memory entity's name) is shown whole and only
    // its own row is pushed along, not every row of the page
    widths[0] = widths[0].min(ID_CELLS);
    let mut line = |row: [&str; 6]| {
        let mut s = String::new();
        for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                s.push_str(cell);
            } else {
                s.push_str(cell);
                s.push_str(&" ".repeat(w.saturating_sub(cells(cell)) + 2));
            }
        }
        out.push_str(s.trim_end());
        out.push('\n');
    };
    line(header);
    for row in &rows {
        line(row.each_ref().map(String::as_str));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_shows_the_field_a_browse_mode_sorts_by_and_counts_in_the_singular() {
        use crate::model::{Memory, Timestamp};
        use crate::search::{BrowseMode, Hit, NumericField, SearchResponse};
        let mut m = Memory::new("a", "body", Timestamp(0));
        m.rating_count = 2;
        m.rating_sum = 10;
        let hit = Hit {
            memory: m.clone(),
            relationship_count: 3,
            score: Some(1.5),
            match_quality: None,
            is_discovery: None,
        };
        let resp = SearchResponse {
            total: 1,
            hits: vec![hit],
            ..SearchResponse::default()
        };
        let shown = |mode, query: &str| {
            let req = SearchRequest {
                mode,
                query: query.into(),
                ..SearchRequest::default()
            };
            let text = table(&req, &resp);
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            let header: Vec<String> = lines[1].split_whitespace().map(str::to_string).collect();
            let row: Vec<String> = lines[2].split_whitespace().map(str::to_string).collect();
            (lines[0].clone(), header[4].clone(), row[4].clone())
        };
        let (count, header, value) = shown(BrowseMode::Density, "");
        assert_eq!(count, "1 match, showing 1–1");
        assert_eq!(
            (header.as_str(), value.as_str()),
            ("RELATIONSHIP_COUNT", "3")
        );
        let bayesian = NumericField::RatingBayesian.value(&m, 3).expect("a rating");
        let (_, header, value) = shown(BrowseMode::Rating, "");
        assert_eq!(
            (header, value),
            ("RATING_BAYESIAN".to_string(), format!("{bayesian:.3}"))
        );
        let (_, header, value) = shown(BrowseMode::Relevance, "body");
        assert_eq!((header.as_str(), value.as_str()), ("SCORE", "1.500"));
        // a deleted memory (listed with deleted=include) says so in its status
        let mut gone = resp.clone();
        gone.hits[0].memory.deleted_at = Some(Timestamp(1));
        let text = table(&SearchRequest::default(), &gone);
        assert!(
            text.lines()
                .nth(2)
                .is_some_and(|row| row.contains("draft (deleted)")),
            "{text}"
        );
    }

    #[test]
    fn ids_are_shown_whole_and_columns_line_up_around_wide_characters() {
        use crate::model::{Memory, Timestamp};
        use crate::search::{Hit, SearchResponse};
        let long = format!("0a000000-0000-4000-8000-{}", "0".repeat(12));
        let longer = "an entity whose name is a whole sentence and then some more";
        let hits = [long.as_str(), "日本語-ノート", "a", longer]
            .iter()
            .map(|id| Hit {
                memory: Memory::new(*id, "body", Timestamp(0)),
                relationship_count: 0,
                score: None,
                match_quality: None,
                is_discovery: None,
            })
            .collect();
        let resp = SearchResponse {
            total: 4,
            hits,
            ..SearchResponse::default()
        };
        let text = table(&SearchRequest::default(), &resp);
        assert!(text.contains(&long) && text.contains(longer), "{text}");
        // the type column starts at the same terminal column on every line but the
        // one of an id longer than a UUID
        let at = |line: &str, word: &str| {
            let byte = line.find(word).expect(word);
            unicode_width::UnicodeWidthStr::width(&line[..byte])
        };
        let lines: Vec<&str> = text.lines().skip(1).collect();
        let header = at(lines[0], "TYPE");
        for row in &lines[1..4] {
            assert_eq!(at(row, "note"), header, "{text}");
        }
        assert_eq!(at(lines[4], "note"), longer.len() + 2, "{text}");
    }

    #[test]
    fn snippets_are_one_clean_line_around_the_first_match() {
        let body = "intro\x1b[31m red\n\nline two has the Needle here and more";
        let s = snippet(body, "needle");
        assert!(!s.chars().any(char::is_control), "{s:?}");
        assert!(s.contains("Needle"));
        assert_eq!(snippet("short body", ""), "short body");
        let long = format!("{} target", "word ".repeat(100));
        let s = snippet(&long, "target");
        assert!(s.starts_with('…') && s.ends_with("target"), "{s}");
        assert!(s.chars().count() <= SNIPPET_CHARS + 1);
    }
}
