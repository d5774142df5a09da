//! A brute-force implementation of SPEC §3, written plainly from the specification text,
//! that the search tests hold the engine against; plus helpers to build stores.
#![allow(dead_code)]

use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use memlens::model::{Composite, FEEL_DIMS, Memory, Status};
use memlens::search::{
    BrowseMode, DeletedFilter, Engine, Filters, MatchQuality, NumericField, Order, Range,
    SearchRequest, SearchResponse, Searcher,
};
use memlens::store::Store;
use std::cmp::Ordering;

/// A store in a temporary directory holding `memories`.
pub fn store_with(memories: &[Memory]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("t.redb")).expect("open store");
    let mut w = store.write().expect("write");
    for m in memories {
        w.put(m).expect("put");
    }
    w.commit().expect("commit");
    (dir, store)
}

/// A store holding `memories`, the searcher loaded from it and the oracle's view of
/// it; keep the directory alive while the searcher is used.
pub fn loaded(memories: &[Memory]) -> (tempfile::TempDir, Searcher, Vec<Doc>) {
    let (dir, store) = store_with(memories);
    let reader = store.read().expect("read");
    let searcher = Searcher::load(&reader).expect("load");
    let docs = docs_of(reader.memories().expect("memories"));
    (dir, searcher, docs)
}

/// One memory as the oracle sees it: the record and its relationship_count.
pub struct Doc {
    pub m: Memory,
    pub rel: u32,
}

/// The memories of a store with relationship counts computed plainly: distinct other
/// memories of the store linked either way.
pub fn docs_of(memories: Vec<Memory>) -> Vec<Doc> {
    let ids: std::collections::HashSet<String> = memories.iter().map(|m| m.id.clone()).collect();
    let mut out = Vec::new();
    for m in &memories {
        let mut linked = std::collections::BTreeSet::new();
        for r in &m.relationships {
            if r.target != m.id && ids.contains(&r.target) {
                linked.insert(r.target.clone());
            }
        }
        for other in &memories {
            if other.id != m.id && other.relationships.iter().any(|r| r.target == m.id) {
                linked.insert(other.id.clone());
            }
        }
        out.push(Doc {
            m: m.clone(),
            rel: linked.len() as u32,
        });
    }
    out
}

/// What the oracle expects for a request.
#[derive(Debug, PartialEq)]
pub struct Expected {
    pub total: usize,
    pub ids: Vec<String>,
    pub scores: Vec<Option<f64>>,
    pub quality: Vec<Option<MatchQuality>>,
    pub discovery: Vec<Option<bool>>,
    pub notice: Option<String>,
}

fn admits(r: &Range, v: Option<f64>) -> bool {
    if r.min.is_none() && r.max.is_none() {
        return true;
    }
    match v {
        None => false,
        Some(v) => r.min.is_none_or(|lo| v >= lo) && r.max.is_none_or(|hi| v <= hi),
    }
}

pub fn rating_bayesian(m: &Memory) -> f64 {
    (m.rating_sum as f64 + 15.0) / (m.rating_count as f64 + 5.0)
}

/// A field's value, from the SPEC's definitions.
pub fn value(d: &Doc, f: NumericField) -> Option<f64> {
    let m = &d.m;
    match f {
        NumericField::Feel(i) => m.feel[i],
        NumericField::Composite(c) => composite(m, c),
        NumericField::Weight => Some(m.weight),
        NumericField::Trust => Some(m.trust),
        NumericField::Confidence => m.confidence,
        NumericField::TrustLevel => m.trust_level.map(|l| f64::from(l.number())),
        NumericField::RatingBayesian => Some(rating_bayesian(m)),
        NumericField::RatingCount => Some(m.rating_count as f64),
        NumericField::RatingSum => Some(m.rating_sum as f64),
        NumericField::RelationshipCount => Some(d.rel as f64),
        NumericField::ReadCount => Some(m.read_count as f64),
        NumericField::RemVisits => m.rem_visits.map(|v| v as f64),
        NumericField::CreatedAt => Some(m.created_at.0 as f64 / 1e9),
        NumericField::UpdatedAt => Some(m.updated_at.0 as f64 / 1e9),
    }
}

fn layer_mean(m: &Memory, layer1: bool) -> Option<f64> {
    let mut sum = 0.0;
    let mut n = 0;
    for (dim, v) in FEEL_DIMS.iter().zip(&m.feel) {
        let inside = if layer1 {
            dim.in_layer1()
        } else {
            dim.in_layer2()
        };
        if let (true, Some(v)) = (inside, v) {
            sum += v.abs();
            n += 1;
        }
    }
    (n > 0).then(|| sum / n as f64)
}

fn composite(m: &Memory, c: Composite) -> Option<f64> {
    match c {
        Composite::FeelSignificance => layer_mean(m, true),
        Composite::FunctionalSignificance => layer_mean(m, false),
        Composite::TotalSignificance => match (layer_mean(m, true), layer_mean(m, false)) {
            (Some(a), Some(b)) => Some(a + b),
            (Some(a), None) => Some(a),
            (None, b) => b,
        },
    }
}

/// SPEC §3.1, one filter after the other.
pub fn passes(d: &Doc, f: &Filters) -> bool {
    let m = &d.m;
    let ok_deleted = match f.deleted {
        DeletedFilter::Exclude => m.deleted_at.is_none(),
        DeletedFilter::Include => true,
        DeletedFilter::Only => m.deleted_at.is_some(),
    };
    let t = &m.memory_type;
    ok_deleted
        && (f.types.is_empty() || f.types.contains(t))
        && !f.exclude_types.contains(t)
        && (t != "session_recap"
            || f.include_session_recap
            || f.types.iter().any(|x| x == "session_recap"))
        && (f.scopes.is_empty() || f.scopes.contains(&m.scope))
        && (f.modules.is_empty() || m.module.as_ref().is_some_and(|x| f.modules.contains(x)))
        && (f.statuses.is_empty() || f.statuses.contains(&m.status))
        && !(f.exclude_rejected && m.status == Status::Rejected)
        && (f.tags.is_empty() || m.tags.iter().any(|x| f.tags.contains(x)))
        && admits(&f.weight, Some(m.weight))
        && admits(&f.trust, Some(m.trust))
        && admits(&f.trust_level, m.trust_level.map(|l| f64::from(l.number())))
        && f.created_from.is_none_or(|t| m.created_at >= t)
        && f.created_to.is_none_or(|t| m.created_at <= t)
        && f.rating_min.is_none_or(|r| rating_bayesian(m) >= r)
        && admits(&f.relationship_count, Some(d.rel as f64))
        && f.has_relationships.is_none_or(|h| (d.rel > 0) == h)
        && (0..FEEL_DIMS.len()).all(|i| admits(&f.feel[i], m.feel[i]))
        && Composite::ALL
            .iter()
            .enumerate()
            .all(|(i, c)| admits(&f.composites[i], composite(m, *c)))
}

/// The text fields of SPEC §3.2 in order: id, title (when present), type, module (when
/// present), each tag, each hivelore anchor path and symbol, domain and topic (when
/// present), body without its `<private>…</private>` blocks (each becomes one space).
pub fn fields(m: &Memory) -> Vec<String> {
    let mut v = vec![m.id.clone()];
    if let Some(t) = &m.title {
        v.push(t.clone());
    }
    v.push(m.memory_type.clone());
    if let Some(x) = &m.module {
        v.push(x.clone());
    }
    v.extend(m.tags.iter().cloned());
    let text = |v: &serde_json::Value| v.as_str().map(str::to_string);
    for key in ["paths", "symbols"] {
        if let Some(items) = m
            .extra
            .get("anchor")
            .and_then(|a| a.get(key))
            .and_then(|x| x.as_array())
        {
            v.extend(items.iter().filter_map(text));
        }
    }
    for key in ["domain", "topic"] {
        v.extend(m.extra.get(key).and_then(text));
    }
    let mut body = String::new();
    let mut rest = m.body.as_str();
    while let Some(s) = rest.find("<private>") {
        let Some(e) = rest[s..].find("</private>") else {
            break;
        };
        body.push_str(&rest[..s]);
        body.push(' ');
        rest = &rest[s + e + "</private>".len()..];
    }
    body.push_str(rest);
    v.push(body);
    v
}

/// SPEC §3.2 BM25 tokens: maximal runs of alphanumerics or `_`, lowercased, ≥ 2 chars.
pub fn bm25_tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut run = String::new();
    for ch in text.chars().chain(std::iter::once(' ')) {
        if ch.is_alphanumeric() || ch == '_' {
            run.push(ch);
        } else if !run.is_empty() {
            let low = run.to_lowercase();
            if low.chars().count() >= 2 {
                out.push(low);
            }
            run.clear();
        }
    }
    out
}

/// SPEC §3.2's fuzzy haystack: HEADLINE, the tags and the id joined by single spaces,
/// empty parts left out.
pub fn fuzzy_haystack(m: &Memory) -> String {
    let title = m.title.as_deref().map(str::trim).unwrap_or("");
    let headline = if !title.is_empty() {
        title
    } else {
        m.body
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("")
    };
    let headline: String = headline.chars().take(200).collect();
    let mut parts = vec![headline];
    parts.extend(m.tags.iter().cloned());
    parts.push(m.id.clone());
    parts.retain(|p| !p.is_empty());
    parts.join(" ")
}

/// (doc index, score) pairs found by an engine, and how to show them.
struct Found {
    items: Vec<(usize, f64)>,
    scored: bool,
    quality: Option<MatchQuality>,
    notice: Option<String>,
}

fn literal(docs: &[Doc], set: &[usize], query: &str, notice_if_any: Option<&str>) -> Found {
    let mut words: Vec<String> = Vec::new();
    for w in query.split_whitespace() {
        let w = w.to_lowercase();
        if !words.contains(&w) {
            words.push(w);
        }
    }
    let count = |d: &Doc| {
        let lowered: Vec<String> = fields(&d.m).iter().map(|f| f.to_lowercase()).collect();
        words
            .iter()
            .filter(|w| lowered.iter().any(|f| f.contains(w.as_str())))
            .count()
    };
    let all: Vec<(usize, f64)> = set
        .iter()
        .filter(|&&i| count(&docs[i]) == words.len())
        .map(|&i| (i, words.len() as f64))
        .collect();
    if !all.is_empty() {
        return Found {
            items: all,
            scored: false,
            quality: Some(MatchQuality::All),
            notice: notice_if_any.map(str::to_string),
        };
    }
    let some: Vec<(usize, f64)> = set
        .iter()
        .map(|&i| (i, count(&docs[i])))
        .filter(|(_, n)| *n > 0)
        .map(|(i, n)| (i, n as f64))
        .collect();
    let partial = !some.is_empty();
    Found {
        notice: if !partial {
            None
        } else {
            Some(
                notice_if_any
                    .unwrap_or("no memory matches every word; showing partial matches")
                    .to_string(),
            )
        },
        items: some,
        scored: false,
        quality: Some(if partial {
            MatchQuality::Partial
        } else {
            MatchQuality::All
        }),
    }
}

/// BM25 scores of SPEC §3.2 over the filtered set `set`.
pub fn bm25_scores(docs: &[Doc], set: &[usize], query: &str) -> Vec<(usize, f64)> {
    let mut q: Vec<String> = Vec::new();
    for t in bm25_tokens(query) {
        if !q.contains(&t) {
            q.push(t);
        }
    }
    let toks: Vec<Vec<String>> = set
        .iter()
        .map(|&i| {
            fields(&docs[i].m)
                .iter()
                .flat_map(|f| bm25_tokens(f))
                .collect()
        })
        .collect();
    let n = set.len() as f64;
    let total: u64 = toks.iter().map(|t| t.len() as u64).sum();
    let avgdl = total as f64 / n;
    let dfs: Vec<f64> = q
        .iter()
        .map(|term| toks.iter().filter(|t| t.contains(term)).count() as f64)
        .collect();
    let mut out = Vec::new();
    for (k, &i) in set.iter().enumerate() {
        let dl = toks[k].len() as f64;
        let mut score = 0.0;
        for (term, &df) in q.iter().zip(&dfs) {
            let tf = toks[k].iter().filter(|t| *t == term).count() as f64;
            if tf == 0.0 {
                continue;
            }
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            score += idf * tf * (1.2 + 1.0) / (tf + 1.2 * (1.0 - 0.75 + 0.75 * dl / avgdl));
        }
        if score > 0.0 {
            out.push((i, score));
        }
    }
    out
}

fn ties(a: &Doc, b: &Doc) -> Ordering {
    b.m.created_at
        .cmp(&a.m.created_at)
        .then(a.m.id.cmp(&b.m.id))
}

fn cmp(a: f64, b: f64) -> Ordering {
    a.partial_cmp(&b).unwrap_or(Ordering::Equal)
}

fn dir(o: Ordering, order: Order) -> Ordering {
    if order == Order::Desc { o.reverse() } else { o }
}

fn by_time(a: &Doc, b: &Doc, order: Order) -> Ordering {
    if order == Order::Desc {
        ties(a, b)
    } else {
        a.m.created_at
            .cmp(&b.m.created_at)
            .then(a.m.id.cmp(&b.m.id))
    }
}

fn by_field(a: &Doc, b: &Doc, f: NumericField, order: Order) -> Ordering {
    match (value(a, f), value(b, f)) {
        (Some(x), Some(y)) => dir(cmp(x, y), order).then(ties(a, b)),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => ties(a, b),
    }
}

/// The answer SPEC §3 asks for, computed by brute force.
pub fn oracle(docs: &[Doc], req: &SearchRequest) -> Expected {
    let set: Vec<usize> = (0..docs.len())
        .filter(|&i| passes(&docs[i], &req.filters))
        .collect();
    let active = !req.query.trim().is_empty();
    let found = if !active {
        Found {
            items: set.iter().map(|&i| (i, 0.0)).collect(),
            scored: false,
            quality: None,
            notice: None,
        }
    } else {
        match req.engine {
            Engine::Literal => literal(docs, &set, &req.query, None),
            Engine::Bm25 => {
                let hits = bm25_scores(docs, &set, &req.query);
                if hits.is_empty() {
                    literal(
                        docs,
                        &set,
                        &req.query,
                        Some("no ranked match; showing literal matches"),
                    )
                } else {
                    Found {
                        items: hits,
                        scored: true,
                        quality: None,
                        notice: None,
                    }
                }
            }
            // a fresh matcher per memory: a reused one carries state between haystacks
            Engine::Fuzzy => Found {
                items: set
                    .iter()
                    .filter_map(|&i| {
                        SkimMatcherV2::default()
                            .fuzzy_match(&fuzzy_haystack(&docs[i].m), &req.query)
                            .map(|s| (i, s as f64))
                    })
                    .collect(),
                scored: true,
                quality: None,
                notice: None,
            },
        }
    };
    let order = req.order.unwrap_or(Order::Desc);
    let mut items = found.items.clone();
    let mut discovery: Vec<Option<bool>> = Vec::new();
    let mode = match req.mode {
        BrowseMode::Relevance if !active => BrowseMode::Time,
        m => m,
    };
    let field = match mode {
        BrowseMode::Density => Some(NumericField::RelationshipCount),
        BrowseMode::Rating => Some(NumericField::RatingBayesian),
        BrowseMode::Property(f) => Some(f),
        BrowseMode::Significance => Some(NumericField::Composite(Composite::TotalSignificance)),
        _ => None,
    };
    match mode {
        BrowseMode::Relevance => {
            items.sort_by(|a, b| cmp(b.1, a.1).then(ties(&docs[a.0], &docs[b.0])));
            if order == Order::Asc {
                items.reverse();
            }
        }
        BrowseMode::Time => items.sort_by(|a, b| by_time(&docs[a.0], &docs[b.0], order)),
        BrowseMode::Discovery => {
            let mut rated: Vec<(usize, f64)> = items
                .iter()
                .copied()
                .filter(|x| docs[x.0].m.rating_count >= 5)
                .collect();
            let mut fresh: Vec<(usize, f64)> = items
                .iter()
                .copied()
                .filter(|x| docs[x.0].m.rating_count < 5)
                .collect();
            rated.sort_by(|a, b| {
                by_field(&docs[a.0], &docs[b.0], NumericField::RatingBayesian, order)
            });
            fresh.sort_by(|a, b| by_time(&docs[a.0], &docs[b.0], order));
            items.clear();
            let (mut r, mut f) = (0, 0);
            while r < rated.len() || f < fresh.len() {
                let p = items.len();
                let want_fresh = (p + 1) % 5 == 0;
                let take_fresh = if r == rated.len() {
                    true
                } else if f == fresh.len() {
                    false
                } else {
                    want_fresh
                };
                if take_fresh {
                    items.push(fresh[f]);
                    f += 1;
                } else {
                    items.push(rated[r]);
                    r += 1;
                }
                discovery.push(Some(take_fresh));
            }
        }
        _ => {
            let f = field.expect("a field mode");
            items.sort_by(|a, b| by_field(&docs[a.0], &docs[b.0], f, order));
        }
    }
    if discovery.is_empty() {
        discovery = vec![None; items.len()];
    }
    let page: Vec<usize> = (0..items.len()).skip(req.offset).take(req.limit).collect();
    Expected {
        total: items.len(),
        ids: page
            .iter()
            .map(|&k| docs[items[k].0].m.id.clone())
            .collect(),
        scores: page
            .iter()
            .map(|&k| found.scored.then_some(items[k].1))
            .collect(),
        quality: page.iter().map(|_| found.quality).collect(),
        discovery: page.iter().map(|&k| discovery[k]).collect(),
        notice: found.notice,
    }
}

/// The engine's response in the oracle's terms.
pub fn actual(resp: &SearchResponse) -> Expected {
    Expected {
        total: resp.total,
        ids: resp.hits.iter().map(|h| h.memory.id.clone()).collect(),
        scores: resp.hits.iter().map(|h| h.score).collect(),
        quality: resp.hits.iter().map(|h| h.match_quality).collect(),
        discovery: resp.hits.iter().map(|h| h.is_discovery).collect(),
        notice: resp.notice.clone(),
    }
}

/// Asserts the engine's answer equals the oracle's: ids, order, totals, flags, notice,
/// and scores to 1e-12 relative.
pub fn assert_agrees(expected: &Expected, got: &Expected, context: &str) {
    assert_eq!(expected.total, got.total, "total differs for {context}");
    assert_eq!(expected.ids, got.ids, "ids differ for {context}");
    assert_eq!(
        expected.quality, got.quality,
        "match_quality differs for {context}"
    );
    assert_eq!(
        expected.discovery, got.discovery,
        "is_discovery differs for {context}"
    );
    assert_eq!(expected.notice, got.notice, "notice differs for {context}");
    for (e, g) in expected.scores.iter().zip(&got.scores) {
        match (e, g) {
            (Some(e), Some(g)) => assert!(
                (e - g).abs() <= 1e-12 * e.abs().max(1.0),
                "score {g} != {e} for {context}"
            ),
            _ => assert_eq!(e, g, "score presence differs for {context}"),
        }
    }
}

/// The filters with the range on `field` left open: what a slider's histogram counts
/// over.
pub fn without_range(f: &Filters, field: NumericField) -> Filters {
    let mut f = f.clone();
    let open = memlens::search::Range::default();
    match field {
        NumericField::Weight => f.weight = open,
        NumericField::Trust => f.trust = open,
        NumericField::TrustLevel => f.trust_level = open,
        NumericField::RatingBayesian => f.rating_min = None,
        NumericField::RelationshipCount => f.relationship_count = open,
        NumericField::Feel(i) => f.feel[i] = open,
        NumericField::Composite(c) => f.composites[c.index()] = open,
        NumericField::CreatedAt => (f.created_from, f.created_to) = (None, None),
        _ => {}
    }
    f
}

/// A slider's histogram by brute force: `bins` equal bins of `field` over the memories
/// the other filters keep, between the field's nominal bounds or else the smallest and
/// largest value among them; `kept` counts the memories passing every filter.
pub fn histogram_oracle(
    docs: &[Doc],
    f: &Filters,
    field: NumericField,
    bins: usize,
) -> memlens::search::Histogram {
    let others = without_range(f, field);
    let values: Vec<f64> = docs
        .iter()
        .filter(|d| passes(d, &others))
        .filter_map(|d| value(d, field))
        .collect();
    let (min, max) = memlens::search::nominal_range(field).unwrap_or_else(|| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) }
    });
    let mut counts = vec![0u32; bins];
    for v in &values {
        let at = if max > min {
            (((v - min) / (max - min) * bins as f64).floor().max(0.0) as usize).min(bins - 1)
        } else {
            0
        };
        counts[at] += 1;
    }
    memlens::search::Histogram {
        min,
        max,
        counts,
        kept: docs.iter().filter(|d| passes(d, f)).count(),
        present: values.len(),
    }
}
