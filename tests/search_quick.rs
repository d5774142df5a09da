//! The quick path (`search::quick`, answers read from the persisted postings and facts)
//! against the full searcher and the brute-force oracle: after random writes, every
//! request the quick path answers gets exactly the full searcher's response (ids,
//! order, scores to the bit, totals, relationship counts), and the oracle agrees.

mod search_support;

use memlens::model::{Memory, Relationship, Timestamp};
use memlens::search::{
    BrowseMode, DeletedFilter, Engine, Filters, Order, SearchRequest, Searcher, quick,
};
use memlens::store::Store;
use proptest::prelude::*;
use search_support::{actual, assert_agrees, docs_of, oracle, store_with};

const WORDS: &[&str] = &[
    "alpha", "beta", "Gamma", "cache", "École", "redb", "42", "go", "x", "naïve",
];
const TYPES: &[&str] = &["note", "decision", "session_recap"];
const POOL: usize = 24;

fn id(i: usize) -> String {
    format!("m{i:02}")
}

/// A memory from small random choices; equal choices give equal scores, so ties on
/// score and created_at (decided by id) are common.
#[derive(Debug, Clone)]
struct Seed {
    body: Vec<usize>,
    /// The body breaks into a second line after its first word (fuzzy sees only the
    /// first line), and the memory carries a title and a tag from the vocabulary.
    shape: Option<(usize, usize)>,
    ty: usize,
    created: i64,
    deleted: bool,
    link: Option<usize>,
}

fn seed() -> impl Strategy<Value = Seed> {
    (
        prop::collection::vec(0..WORDS.len(), 1..5),
        prop::option::weighted(0.4, (0..WORDS.len(), 0..WORDS.len())),
        prop::sample::select(&[0usize, 0, 0, 1, 2][..]),
        0..4i64,
        prop::bool::weighted(0.2),
        prop::option::weighted(0.3, 0..POOL + 2),
    )
        .prop_map(|(body, shape, ty, created, deleted, link)| Seed {
            body,
            shape,
            ty,
            created,
            deleted,
            link,
        })
}

fn memory(i: usize, s: &Seed) -> Memory {
    let words: Vec<&str> = s.body.iter().map(|&w| WORDS[w]).collect();
    let body = match s.shape {
        Some(_) => format!("{}\n{}", words[0], words[1..].join(" ")),
        None => words.join(" "),
    };
    let mut m = Memory::new(
        id(i),
        body,
        Timestamp(1_700_000_000_000_000_000 + s.created),
    );
    m.memory_type = TYPES[s.ty].to_string();
    if let Some((title, tag)) = s.shape {
        m.title = Some(format!("{} notes", WORDS[title]));
        m.tags = vec![WORDS[tag].to_string()];
    }
    if s.deleted {
        m.deleted_at = Some(Timestamp(1_800_000_000_000_000_000));
    }
    m.relationships = s
        .link
        .map(|t| Relationship {
            target: id(t),
            kind: "related".into(),
            strength: None,
        })
        .into_iter()
        .filter(|r| r.target != m.id)
        .collect();
    m.normalise();
    m
}

/// One transaction: puts (new or replacing) and purges of ids that may be absent.
#[derive(Debug, Clone)]
enum Write {
    Put(usize, Seed),
    Purge(usize),
}

fn write() -> impl Strategy<Value = Write> {
    prop_oneof![
        4 => (0..POOL, seed()).prop_map(|(i, s)| Write::Put(i, s)),
        1 => (0..POOL).prop_map(Write::Purge),
    ]
}

fn apply(store: &Store, batch: &[Write]) {
    let mut w = store.write().expect("write");
    for op in batch {
        match op {
            Write::Put(i, s) => {
                w.put(&memory(*i, s)).expect("put");
            }
            Write::Purge(i) => {
                // purging an id that is not stored is refused and changes nothing
                let _ = w.purge(&id(*i));
            }
        }
    }
    w.commit().expect("commit");
}

fn request() -> impl Strategy<Value = SearchRequest> {
    let queries: &'static [&'static str] = &[
        "",
        "",
        "alpha",
        "cache 42",
        "gamma gamma beta",
        "x",
        "go naïve",
        "zzz",
        "alpha zzz",
        "ÉCO",
        "m0",
        "ach",
        "  ",
        "Gamma",
        "notes",
        "ca42",
        // text that runs from one memory's body into the next one's id (neighbours in
        // the store's haystack chunks) matches neither
        "42m",
        "xm0",
        "dbm",
        "em1",
    ];
    (
        prop::sample::select(queries),
        prop::sample::select(&[Engine::Bm25, Engine::Literal, Engine::Fuzzy][..]),
        prop::sample::select(&[BrowseMode::Relevance, BrowseMode::Time, BrowseMode::Rating][..]),
        prop::option::of(prop::sample::select(&[Order::Asc, Order::Desc][..])),
        (0..4usize, 1..12usize),
        0..3usize,
        prop::bool::weighted(0.1),
    )
        .prop_map(
            |(query, engine, mode, order, (offset, limit), deleted, typed)| {
                let filters = Filters {
                    deleted: [
                        DeletedFilter::Exclude,
                        DeletedFilter::Include,
                        DeletedFilter::Only,
                    ][deleted],
                    types: typed
                        .then(|| "session_recap".to_string())
                        .into_iter()
                        .collect(),
                    ..Filters::default()
                };
                SearchRequest {
                    query: query.to_string(),
                    engine,
                    filters,
                    mode,
                    order,
                    offset,
                    limit,
                }
            },
        )
}

/// Checks every request; returns how many the quick path answered.
fn check(store: &Store, requests: &[SearchRequest], context: &str) -> usize {
    let reader = store.read().expect("read");
    let full = Searcher::load(&reader).expect("load");
    let docs = docs_of(reader.memories().expect("memories"));
    let mut answered = 0;
    for req in requests {
        let Some(got) = quick::answer(&reader, req).expect("quick") else {
            continue;
        };
        answered += 1;
        let want = full.search(req);
        assert_eq!(got, want, "{context}: {req:?}");
        assert_agrees(
            &oracle(&docs, req),
            &actual(&got),
            &format!("{context}: {req:?}"),
        );
    }
    answered
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn quick_answers_equal_the_full_searcher(
        seeds in prop::collection::vec(seed(), 0..POOL),
        batches in prop::collection::vec(prop::collection::vec(write(), 1..4), 0..4),
        requests in prop::collection::vec(request(), 1..10),
    ) {
        let memories: Vec<Memory> = seeds.iter().enumerate().map(|(i, s)| memory(i, s)).collect();
        let (_dir, store) = store_with(&memories);
        check(&store, &requests, "after the first import");
        for (n, batch) in batches.iter().enumerate() {
            apply(&store, batch);
            check(&store, &requests, &format!("after batch {n} {batch:?}"));
        }
    }
}

/// The plain requests a browser and `memlens search` send most are answered quickly
/// (so the property test above is not vacuous), and a request outside the quick path
/// is left to the full searcher.
#[test]
fn the_common_requests_take_the_quick_path() {
    let seeds: Vec<Seed> = (0..POOL)
        .map(|i| Seed {
            body: vec![i % WORDS.len(), 3],
            shape: (i % 3 == 0).then_some((i % 5, 2)),
            ty: i % 3,
            created: (i % 4) as i64,
            deleted: i % 7 == 0,
            link: Some((i * 5) % POOL),
        })
        .collect();
    let memories: Vec<Memory> = seeds
        .iter()
        .enumerate()
        .map(|(i, s)| memory(i, s))
        .collect();
    let (_dir, store) = store_with(&memories);
    let browse = SearchRequest {
        limit: 5,
        ..SearchRequest::default()
    };
    let bm25 = SearchRequest {
        query: "cache alpha".into(),
        engine: Engine::Bm25,
        limit: 7,
        offset: 2,
        ..SearchRequest::default()
    };
    let rating = SearchRequest {
        mode: BrowseMode::Rating,
        ..browse.clone()
    };
    assert_eq!(
        check(&store, &[browse.clone(), bm25.clone()], "fixed store"),
        2
    );
    let reader = store.read().expect("read");
    assert!(quick::answer(&reader, &rating).expect("quick").is_none());
    // BM25 without a ranked match falls back to literal matches, here none
    let unmatched = SearchRequest {
        query: "nothing_here".into(),
        ..bm25.clone()
    };
    let none = quick::answer(&reader, &unmatched)
        .expect("quick")
        .expect("answer");
    assert_eq!((none.total, none.hits.len()), (0, 0));
    // a word of one letter is no BM25 token: the literal fallback and its notice
    let fallback = SearchRequest {
        query: "x".into(),
        ..bm25
    };
    let literal = quick::answer(&reader, &fallback)
        .expect("quick")
        .expect("answer");
    assert_eq!(
        literal,
        Searcher::load(&reader).expect("load").search(&fallback)
    );
    assert!(literal.total > 0);
    assert_eq!(
        literal.notice.as_deref(),
        Some(memlens::search::bm25::FALLBACK_NOTICE)
    );
    let got = quick::answer(&reader, &browse)
        .expect("quick")
        .expect("answer");
    assert_eq!(got.hits.len(), 5);
    assert_eq!(
        got.total,
        memories
            .iter()
            .filter(|m| m.deleted_at.is_none() && m.memory_type != "session_recap")
            .count()
    );
}

/// Above 16,384 kept memories the literal engine reads the haystack chunks on every
/// core, each core its share of the kept memories (the chunk at a boundary read by
/// both): still the full searcher's answer, including the OR fallback; and a chunk
/// missing from any share leaves the request to the full searcher. Queries whose words
/// the vocabulary and postings answer read no haystack, and keep their answer.
#[test]
fn a_literal_scan_shared_between_cores_gives_the_full_answer() {
    let n = 24_000;
    let seeds: Vec<Seed> = (0..n)
        .map(|i| Seed {
            body: vec![i % WORDS.len(), (i / 7) % WORDS.len()],
            shape: (i % 4 == 0).then_some(((i / 3) % WORDS.len(), i % WORDS.len())),
            ty: if i % 10 == 0 { 2 } else { i % 2 },
            created: (i % 9) as i64,
            deleted: i % 13 == 0,
            link: None,
        })
        .collect();
    let mut memories: Vec<Memory> = seeds
        .iter()
        .enumerate()
        .map(|(i, s)| memory(i, s))
        .collect();
    for m in memories.iter_mut().skip(17).step_by(5_000) {
        m.body.push_str(" xylophone");
    }
    let (_dir, store) = store_with(&memories);
    let literal = |query: &str| SearchRequest {
        query: query.into(),
        engine: Engine::Literal,
        limit: 20,
        ..SearchRequest::default()
    };
    let requests = [
        literal("gamma"),
        literal("école cache"),
        literal("naïve nowhere"),
        literal("xylophone"),
        literal("m239"),
        // a one-letter word is left to the haystacks, and so is a query holding one
        literal("g"),
        literal("xylophone m"),
    ];
    assert_eq!(
        check(&store, &requests, "24,000 memories"),
        requests.len(),
        "a literal request left the quick path"
    );
    let before: std::collections::HashMap<String, _> = {
        let reader = store.read().expect("read");
        requests
            .iter()
            .map(|r| {
                let answer = quick::answer(&reader, r).expect("quick").expect("answered");
                (r.query.clone(), answer)
            })
            .collect()
    };
    // a chunk gone from the second core's share, of each kind of haystack
    {
        use memlens::index::haystacks::{FUZZY_TEXT, LITERAL_TEXT};
        use redb::ReadableTable;
        let w = store.write().expect("write");
        for table in [LITERAL_TEXT, FUZZY_TEXT] {
            let mut table = w.table(table).expect("haystacks");
            // the chunk holding the document three quarters of the way in
            let chunk = table
                .range(..=(n as u32 * 3 / 4))
                .expect("range")
                .next_back()
                .expect("a chunk")
                .expect("entry")
                .0
                .value();
            assert!(table.remove(chunk).expect("remove").is_some());
        }
        w.commit().expect("commit");
    }
    let reader = store.read().expect("read");
    // words of ASCII letters and digits are answered from the vocabulary and postings,
    // which read no haystack; the others scan the haystacks and notice the lost chunk
    for req in &requests {
        let answer = quick::answer(&reader, req).expect("quick");
        let from_postings = req
            .query
            .split_whitespace()
            .all(|w| w.len() >= 2 && w.bytes().all(|b| b.is_ascii_alphanumeric()));
        if from_postings {
            assert_eq!(
                answer.as_ref(),
                before.get(&req.query),
                "a postings answer changed: {req:?}"
            );
        } else {
            assert!(answer.is_none(), "answered without a chunk: {req:?}");
        }
    }
}
