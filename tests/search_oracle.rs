//! The engine against the brute-force oracle of SPEC §3 on random collections, queries,
//! filters, modes and pages.

mod search_support;

use memlens::model::{FEEL_COUNT, Memory, Relationship, Scope, Status, Timestamp};
use memlens::search::{
    BrowseMode, DeletedFilter, Engine, Filters, NumericField, Order, Range, SearchRequest, Searcher,
};
use proptest::prelude::*;
use search_support::{actual, assert_agrees, docs_of, loaded, oracle, store_with};

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "Gamma",
    "delta",
    "foo_bar",
    "x",
    "École",
    "straße",
    "ΣΊΣΥΦΟΣ",
    "naïve",
    "日本語",
    "CamelCase",
    "a-b",
    "cache",
    "cached",
    "caching",
    "redb",
    "42",
    "go",
    "ok",
];
const TYPES: &[&str] = &["note", "decision", "gotcha", "session_recap", "skill"];
const TAGS: &[&str] = &["rust", "db", "ui", "Perf", "x"];
/// Scores as agents write them (a few decimals) and two that are no whole number of
/// thousandths, which the searcher keeps differently.
const FEELS: &[Option<f64>] = &[
    None,
    None,
    Some(0.0),
    Some(0.25),
    Some(0.5),
    Some(1.0),
    Some(0.123_456_7),
    Some(1.0 / 3.0),
];

fn text(max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            prop::sample::select(WORDS),
            prop::sample::select(&[" ", "\n", ", ", "-", "  "][..]),
        ),
        1..max,
    )
    .prop_map(|v| {
        v.into_iter()
            .map(|(w, sep)| format!("{w}{sep}"))
            .collect::<String>()
    })
}

prop_compose! {
    fn memory(i: usize)(
        title in prop::option::of(text(4)),
        body in text(12),
        ty in prop::sample::select(TYPES),
        scope in 0..4usize,
        module in prop::option::of(prop::sample::select(&["core", "ui"][..])),
        status in 0..6usize,
        tags in prop::collection::vec(prop::sample::select(TAGS), 0..3),
        weight in prop::sample::select(&[0.0, 0.5, 0.75, 1.0][..]),
        trust in prop::sample::select(&[0.25, 0.5][..]),
        confidence in prop::option::of(prop::sample::select(&[0.1, 0.9][..])),
        created in 0..6i64,
        deleted in prop::bool::weighted(0.2),
        read_count in 0..3u32,
        ratings in (0..8u32, 1..=5u32),
        rels in prop::collection::vec(0..22usize, 0..3),
        feel in prop::collection::vec(prop::sample::select(FEELS), FEEL_COUNT),
        valence in prop::sample::select(&[None, Some(-1.0), Some(-0.5), Some(0.5)][..]),
        rem in prop::option::of(0..3u32),
    ) -> Memory {
        let mut m = Memory::new(
            format!("m{i}{}", if i.is_multiple_of(3) { "-Beta" } else { "" }),
            body,
            Timestamp(1_700_000_000_000_000_000 + created * 1_000_000_000),
        );
        m.title = title.map(|t| t.trim().to_string()).filter(|t| !t.is_empty());
        m.memory_type = ty.to_string();
        m.scope = Scope::ALL[scope];
        if m.scope == Scope::Module {
            m.module = Some(module.unwrap_or("core").to_string());
        } else {
            m.module = module.map(str::to_string);
        }
        m.status = Status::ALL[status];
        m.tags = tags.into_iter().map(str::to_string).collect();
        m.tags.dedup();
        m.weight = weight;
        m.trust = trust;
        m.confidence = confidence;
        m.updated_at = Timestamp(m.created_at.0 + (read_count as i64) * 7);
        if deleted {
            m.deleted_at = Some(m.created_at);
        }
        m.read_count = read_count;
        m.rating_count = ratings.0;
        m.rating_sum = ratings.0 * ratings.1;
        m.relationships = rels
            .into_iter()
            .map(|t| Relationship {
                target: if t < 20 { format!("m{t}{}", if t.is_multiple_of(3) { "-Beta" } else { "" }) } else { format!("gone{t}") },
                kind: "related".into(),
                strength: None,
            })
            .filter(|r: &Relationship| r.target != m.id)
            .collect();
        for (slot, v) in m.feel.iter_mut().zip(feel) {
            *slot = v;
        }
        m.feel[16] = valence;
        m.rem_visits = rem;
        m.normalise();
        m
    }
}

fn collection() -> impl Strategy<Value = Vec<Memory>> {
    (0..24usize).prop_flat_map(|n| (0..n).map(memory).collect::<Vec<_>>())
}

fn range(lo: &'static [f64]) -> impl Strategy<Value = Range> {
    (
        prop::option::of(prop::sample::select(lo)),
        prop::option::of(prop::sample::select(lo)),
    )
        .prop_map(|(min, max)| Range { min, max })
}

fn filters() -> impl Strategy<Value = Filters> {
    let units: &'static [f64] = &[0.0, 0.25, 0.5, 0.75, 1.0];
    (
        (
            prop::collection::vec(prop::sample::select(TYPES), 0..2),
            prop::collection::vec(prop::sample::select(TYPES), 0..2),
            prop::collection::vec(0..4usize, 0..2),
            prop::collection::vec(prop::sample::select(&["core", "ui", "none"][..]), 0..2),
            prop::collection::vec(0..6usize, 0..3),
            prop::bool::weighted(0.2),
            prop::collection::vec(prop::sample::select(TAGS), 0..2),
        ),
        (
            prop::option::weighted(0.2, range(units)),
            prop::option::weighted(0.2, range(units)),
            prop::option::weighted(0.2, (prop::option::of(0..6i64), prop::option::of(0..6i64))),
            prop::option::weighted(0.2, prop::sample::select(&[2.0, 3.0, 3.5][..])),
            prop::option::weighted(0.2, range(&[0.0, 1.0, 2.0])),
            prop::option::weighted(0.2, any::<bool>()),
            0..3usize,
            prop::collection::vec((0..FEEL_COUNT + 3, range(units)), 0..2),
        ),
    )
        .prop_map(|(a, b)| {
            let mut f = Filters {
                types: a.0.into_iter().map(str::to_string).collect(),
                exclude_types: a.1.into_iter().map(str::to_string).collect(),
                scopes: a.2.into_iter().map(|i| Scope::ALL[i]).collect(),
                modules: a.3.into_iter().map(str::to_string).collect(),
                statuses: a.4.into_iter().map(|i| Status::ALL[i]).collect(),
                exclude_rejected: a.5,
                tags: a.6.into_iter().map(str::to_string).collect(),
                ..Filters::default()
            };
            f.weight = b.0.unwrap_or_default();
            f.trust = b.1.unwrap_or_default();
            if let Some((from, to)) = b.2 {
                let t = |s: i64| Timestamp(1_700_000_000_000_000_000 + s * 1_000_000_000);
                f.created_from = from.map(t);
                f.created_to = to.map(t);
            }
            f.rating_min = b.3;
            f.relationship_count = b.4.unwrap_or_default();
            f.has_relationships = b.5;
            f.deleted = [
                DeletedFilter::Exclude,
                DeletedFilter::Include,
                DeletedFilter::Only,
            ][b.6];
            for (i, r) in b.7 {
                if i < FEEL_COUNT {
                    f.feel[i] = r;
                } else {
                    f.composites[i - FEEL_COUNT] = r;
                }
            }
            f
        })
}

fn query() -> impl Strategy<Value = String> {
    let pieces: &'static [&'static str] = &[
        "alpha",
        "GAMMA",
        "ach",
        "cache",
        "caching",
        "éc",
        "STRASSE",
        "straße",
        "σίσυφος",
        "foo",
        "_bar",
        "x",
        "42",
        "nothing",
        "b",
        "m1",
        "beta",
        "日本",
        "a-b",
        "!!",
        "rust",
        "perf",
        "decision",
        "core",
        "ok go",
    ];
    prop::collection::vec(prop::sample::select(pieces), 0..4).prop_map(|v| v.join(" "))
}

fn mode() -> impl Strategy<Value = BrowseMode> {
    let fields = NumericField::all();
    prop_oneof![
        Just(BrowseMode::Relevance),
        Just(BrowseMode::Time),
        Just(BrowseMode::Density),
        Just(BrowseMode::Rating),
        Just(BrowseMode::Discovery),
        Just(BrowseMode::Significance),
        prop::sample::select(fields).prop_map(BrowseMode::Property),
    ]
}

fn request() -> impl Strategy<Value = SearchRequest> {
    (
        query(),
        prop::sample::select(&Engine::ALL[..]),
        prop::option::weighted(0.6, filters()),
        mode(),
        prop::option::of(prop::sample::select(&[Order::Asc, Order::Desc][..])),
        prop::sample::select(&[0usize, 0, 1, 3, 100][..]),
        prop::sample::select(&[0usize, 1, 4, 50][..]),
    )
        .prop_map(
            |(query, engine, filters, mode, order, offset, limit)| SearchRequest {
                query,
                engine,
                filters: filters.unwrap_or_default(),
                mode,
                order,
                offset,
                limit,
            },
        )
}

#[test]
fn a_searcher_can_be_shared_between_threads() {
    fn shared<T: Send + Sync>() {}
    shared::<Searcher>();
    shared::<std::sync::Arc<Searcher>>();
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn engine_agrees_with_the_brute_force_oracle(
        memories in collection(),
        requests in prop::collection::vec(request(), 1..10),
    ) {
        let (_dir, store) = store_with(&memories);
        let reader = store.read().unwrap();
        let searcher = Searcher::load(&reader).unwrap();
        prop_assert_eq!(searcher.len(), memories.len());
        let docs = docs_of(reader.memories().unwrap());
        // first without the lazily built structures (BM25 scans stored terms), then
        // with them (BM25 reads the inverted index), then a searcher that reads each
        // page of memories from its snapshot: the answers must not change
        let opened = Searcher::open(store.read().unwrap()).unwrap();
        for (how, s) in [("loaded", &searcher), ("warmed", &searcher), ("opened", &opened)] {
            if how == "warmed" {
                searcher.warm();
            }
            for req in &requests {
                let expected = oracle(&docs, req);
                let got = actual(&s.search(req));
                assert_agrees(&expected, &got, &format!("{how}: {req:?}"));
            }
        }
    }

    /// A progressive search reports partial pages made only of real matches, with
    /// growing progress, and settles on exactly the oracle's answer.
    #[test]
    fn progressive_search_settles_on_the_exact_list(
        memories in collection(),
        requests in prop::collection::vec(request(), 1..6),
        first_chunk in 1..6usize,
    ) {
        let (_dir, searcher, docs) = loaded(&memories);
        for req in &requests {
            let expected = oracle(&docs, req);
            let everything = oracle(&docs, &SearchRequest { offset: 0, limit: usize::MAX, ..req.clone() });
            let mut last = 0;
            let got = searcher
                .search_progressive(req, first_chunk, &mut |p| {
                    assert!(p.scanned > last && p.scanned < p.of, "progress {} of {}", p.scanned, p.of);
                    last = p.scanned;
                    for h in &p.partial.hits {
                        assert!(everything.ids.contains(&h.memory.id), "{} is no match of {req:?}", h.memory.id);
                    }
                    true
                })
                .expect("not cancelled");
            assert_agrees(&expected, &actual(&got), &format!("progressive: {req:?}"));
            // cancelling at the first report stops the search; without a report it ran
            // to the end and is exact
            let mut reports = 0;
            let cancelled = searcher.search_progressive(req, first_chunk, &mut |_| {
                reports += 1;
                false
            });
            prop_assert_eq!(cancelled.is_none(), reports > 0);
            if let Some(r) = cancelled {
                assert_agrees(&expected, &actual(&r), &format!("uncancelled: {req:?}"));
            }
        }
    }

    /// Typing a query one character at a time (and then deleting it again) gives at every
    /// step what a fresh search gives: narrowing by the previous matches is exact.
    #[test]
    fn typing_and_deleting_agree_with_the_oracle_at_every_keystroke(
        memories in collection(),
        req in request(),
    ) {
        let (_dir, searcher, docs) = loaded(&memories);
        let chars: Vec<char> = req.query.chars().collect();
        let steps = (1..=chars.len()).chain((1..chars.len()).rev());
        for end in steps {
            let step = SearchRequest {
                query: chars[..end].iter().collect(),
                ..req.clone()
            };
            let expected = oracle(&docs, &step);
            assert_agrees(&expected, &actual(&searcher.search(&step)), &format!("{step:?}"));
        }
    }
}

/// Applies one slider move to `f`: `field` picks a range (weight, trust, relationship
/// count, the rating minimum, the time window's ends, a composite, a `feel_*`), and
/// `min`/`max` its new bounds (as steps of that field's scale).
fn move_slider(f: &mut Filters, field: usize, min: Option<usize>, max: Option<usize>) {
    let unit = |i: usize| i as f64 / 4.0;
    let units = Range {
        min: min.map(unit),
        max: max.map(unit),
    };
    let t = |s: usize| Timestamp(1_700_000_000_000_000_000 + s as i64 * 1_000_000_000);
    match field {
        0 => f.weight = units,
        1 => f.trust = units,
        2 => {
            f.relationship_count = Range {
                min: min.map(|i| i as f64),
                max: max.map(|i| i as f64),
            }
        }
        3 => f.rating_min = min.map(|i| 2.0 + i as f64 / 2.0),
        4 => f.created_from = min.map(t),
        5 => f.created_to = max.map(t),
        6..=8 => f.composites[field - 6] = units,
        _ => f.feel[(field - 9) % FEEL_COUNT] = units,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Dragging sliders in and out gives the oracle's answer at every step: a narrower
    /// set picked out of the last step's set is exact.
    #[test]
    fn moving_sliders_agrees_with_the_oracle(
        memories in collection(),
        start in prop::option::weighted(0.2, filters()),
        steps in prop::collection::vec(
            (
                prop_oneof![4 => 0..9usize, 1 => 9..9 + FEEL_COUNT],
                prop::collection::vec(
                    (prop::option::of(0..5usize), prop::option::of(0..5usize)),
                    3,
                ),
            ),
            1..5,
        ),
        query in prop::option::weighted(0.3, query()),
        engine in prop::sample::select(&Engine::ALL[..]),
    ) {
        let (_dir, searcher, docs) = loaded(&memories);
        let mut filters = start.unwrap_or_default();
        let query = query.unwrap_or_default();
        // each step drags one slider through three positions
        let moves = steps
            .into_iter()
            .flat_map(|(field, at)| at.into_iter().map(move |(min, max)| (field, min, max)));
        for (field, min, max) in moves {
            move_slider(&mut filters, field, min, max);
            let req = SearchRequest {
                query: query.clone(),
                engine,
                filters: filters.clone(),
                limit: 50,
                ..SearchRequest::default()
            };
            let expected = oracle(&docs, &req);
            assert_agrees(&expected, &actual(&searcher.search(&req)), &format!("{req:?}"));
        }
    }

    /// Every one-character query agrees with the oracle: one letter is answered from
    /// the letters each memory holds, without reading its text.
    #[test]
    fn every_single_character_agrees_with_the_oracle(
        bodies in prop::collection::vec("[a-zA-Z0-9_ é.-]{1,24}", 1..40),
        title_every in 1..4usize,
    ) {
        let memories: Vec<Memory> = bodies
            .iter()
            .enumerate()
            .map(|(i, body)| {
                let mut m = Memory::new(format!("m{i}"), body.clone(), Timestamp(i as i64 * 1_000));
                if i % title_every == 0 {
                    m.title = Some(body.chars().rev().collect::<String>().trim().to_string());
                }
                m.normalise();
                m
            })
            .filter(|m| !m.body.trim().is_empty())
            .collect();
        let (_dir, searcher, docs) = loaded(&memories);
        for c in "abcdefghijklmnopqrstuvwxyzQZ09_é.-".chars() {
            let req = SearchRequest {
                query: c.to_string(),
                limit: 50,
                ..SearchRequest::default()
            };
            let expected = oracle(&docs, &req);
            assert_agrees(&expected, &actual(&searcher.search(&req)), &format!("{req:?}"));
        }
    }
}

/// A store whose search records are partly missing (written before the index existed)
/// or damaged still searches exactly: those memories are indexed from their JSON.
#[test]
fn missing_or_damaged_search_records_are_rebuilt_from_the_memories() {
    let memories: Vec<Memory> = (0..30)
        .map(|i| {
            let mut m = Memory::new(
                format!("m{i}"),
                format!("{} body {i}", WORDS[i % WORDS.len()]),
                Timestamp(1_700_000_000_000_000_000 + (i as i64 % 7) * 1_000_000_000),
            );
            m.rating_count = (i % 8) as u32;
            m.rating_sum = m.rating_count * 4;
            m
        })
        .collect();
    // with records and every haystack removed (counts differ), and with damaged records
    // and haystacks only (counts equal)
    for remove in [true, false] {
        damaged_store_agrees(&memories, remove);
    }
}

fn damaged_store_agrees(memories: &[Memory], remove: bool) {
    use memlens::index::SEARCH_DOCS;
    use memlens::index::haystacks::{self, Chunk, FUZZY_TEXT, LITERAL_TEXT};
    use memlens::index::sealed::SealedBuf;
    use redb::ReadableTable;
    let (_dir, store) = store_with(memories);
    {
        let w = store.write().unwrap();
        {
            let mut table = w.table(SEARCH_DOCS).unwrap();
            for doc in [0u32, 5, 6, 29].into_iter().filter(|_| remove) {
                table.remove(doc).unwrap();
            }
            // records that are intact (sealed) but of no version this build reads
            let garbage = SealedBuf::new(&7u32, b"\x01garbage");
            table.insert(7u32, garbage.value()).unwrap();
            let unknown = SealedBuf::new(&8u32, b"\x09unknown version");
            table.insert(8u32, unknown.value()).unwrap();
            for (kind, table) in [LITERAL_TEXT, FUZZY_TEXT].into_iter().enumerate() {
                let mut texts = w.table(table).unwrap();
                if remove {
                    assert!(texts.remove(0u32).unwrap().is_some(), "no haystacks chunk");
                    continue;
                }
                let stored = texts.get(0u32).unwrap().unwrap();
                let bytes = stored.value().open(&0u32).unwrap().to_vec();
                drop(stored);
                let c = Chunk::parse(&bytes).unwrap();
                let mut slots: Vec<Vec<u8>> = (0..c.len()).map(|s| c.get(s).to_vec()).collect();
                // a blank slot, and a fuzzy haystack that is not UTF-8
                slots[10].clear();
                if kind == 1 {
                    slots[12] = vec![0xff, 0xfe];
                }
                let slots: Vec<&[u8]> = slots.iter().map(Vec::as_slice).collect();
                texts
                    .insert(
                        0u32,
                        SealedBuf::new(&0u32, &haystacks::encode(&slots)).value(),
                    )
                    .unwrap();
            }
        }
        w.commit().unwrap();
    }
    let docs = docs_of(store.read().unwrap().memories().unwrap());
    let loaded = Searcher::load(&store.read().unwrap()).unwrap();
    let opened = Searcher::open(store.read().unwrap()).unwrap();
    assert_eq!((loaded.len(), opened.len()), (30, 30));
    for engine in Engine::ALL {
        for query in ["", "alpha", "body 7", "garbage", "gamma cache", "10", "m12"] {
            for mode in [
                BrowseMode::Relevance,
                BrowseMode::Discovery,
                BrowseMode::Rating,
            ] {
                let req = SearchRequest {
                    query: query.into(),
                    engine,
                    mode,
                    limit: 100,
                    ..SearchRequest::default()
                };
                let expected = oracle(&docs, &req);
                for s in [&loaded, &opened] {
                    assert_agrees(&expected, &actual(&s.search(&req)), &format!("{req:?}"));
                }
            }
        }
    }
}

/// By ascending relevance, memories tied in score come older first, also where a
/// match's score is told from where its characters stand (capitals after capitals: no
/// bonus, the other case, so the positions' bound is the score itself): with more tied
/// memories than the page holds, the page is the oldest of them, from the loaded index
/// and from the persisted one, which scan the newest first.
#[test]
fn ascending_relevance_keeps_the_oldest_of_a_tie_told_from_positions() {
    let memories: Vec<Memory> = (0..40usize)
        .map(|i| {
            Memory::new(
                format!("doc{i}"),
                "XAXXB".to_string(),
                Timestamp(1_700_000_000_000_000_000 + i as i64 * 1_000_000_000),
            )
        })
        .collect();
    let (_dir, store) = store_with(&memories);
    let reader = store.read().unwrap();
    let searcher = Searcher::load(&reader).unwrap();
    let docs = docs_of(reader.memories().unwrap());
    for limit in [1, 5, 39] {
        let req = SearchRequest {
            query: "ab".into(),
            engine: Engine::Fuzzy,
            order: Some(Order::Asc),
            limit,
            ..SearchRequest::default()
        };
        let expected = oracle(&docs, &req);
        assert_eq!(expected.ids.first().map(String::as_str), Some("doc0"));
        let stored =
            memlens::search::plan::answer(memlens::search::plan::Index::Stored(&reader), &req)
                .unwrap();
        for (source, got) in [("loaded", searcher.search(&req)), ("persisted", stored)] {
            assert_agrees(&expected, &actual(&got), &format!("{source} {req:?}"));
        }
    }
}

/// Above 16k memories the scans run on several threads: still the oracle's answer.
#[test]
fn large_collections_scanned_in_parallel_agree_with_the_oracle() {
    let memories: Vec<Memory> = (0..20_000usize)
        .map(|i| {
            let word = |k: usize| WORDS[(i * 7 + k * 13 + i / 5) % WORDS.len()];
            let mut m = Memory::new(
                format!("doc{i}"),
                format!("{} {} {}", word(0), word(1), word(2)),
                Timestamp(1_700_000_000_000_000_000 + (i as i64 % 97) * 1_000_000_000),
            );
            if i % 3 == 0 {
                m.title = Some(format!("{} {}", word(3), word(4)));
            }
            m.rating_count = (i % 9) as u32;
            m.rating_sum = m.rating_count * 3;
            m
        })
        .collect();
    let (_dir, searcher, docs) = loaded(&memories);
    let mut filtered = Filters::default();
    filtered.apply_arg("rating_min=3").unwrap();
    for (engine, query) in [
        (Engine::Literal, "ach"),
        (Engine::Literal, "gamma nothing"),
        (Engine::Fuzzy, "cae"),
        (Engine::Fuzzy, "Gac"),
        (Engine::Bm25, "alpha cache"),
        (Engine::Bm25, "x"),
    ] {
        for filters in [Filters::default(), filtered.clone()] {
            for mode in [BrowseMode::Relevance, BrowseMode::Discovery] {
                let req = SearchRequest {
                    query: query.into(),
                    engine,
                    filters: filters.clone(),
                    mode,
                    offset: 10,
                    limit: 40,
                    ..SearchRequest::default()
                };
                let expected = oracle(&docs, &req);
                assert!(expected.total > 100, "{req:?} matches too little");
                assert_agrees(
                    &expected,
                    &actual(&searcher.search(&req)),
                    &format!("{req:?}"),
                );
            }
        }
    }
    let check = |req: SearchRequest| {
        let expected = oracle(&docs, &req);
        assert_agrees(
            &expected,
            &actual(&searcher.search(&req)),
            &format!("{req:?}"),
        );
    };
    // browsing without a query walks whole-store orders sorted on both cores
    for mode in [
        BrowseMode::Time,
        BrowseMode::Density,
        BrowseMode::Rating,
        BrowseMode::Discovery,
        BrowseMode::Property(NumericField::Weight),
        BrowseMode::Property(NumericField::RatingCount),
    ] {
        for order in [None, Some(Order::Asc)] {
            for filters in [Filters::default(), filtered.clone()] {
                let req = SearchRequest {
                    filters,
                    mode,
                    order,
                    offset: 5000,
                    limit: 60,
                    ..SearchRequest::default()
                };
                check(req);
            }
        }
    }
    // typed letter by letter (each query narrows the last one's matches), and words
    // found only where one memory's text runs into the next one's
    let typed = [
        "c", "ca", "cac", "cach", "cache", "cached", "cached x", "ok",
    ];
    let crossing = ["okdoc", "42doc", "cachedoc", "gamma okdoc"];
    for filters in [Filters::default(), filtered.clone()] {
        for query in typed.iter().chain(&crossing) {
            let req = SearchRequest {
                query: (*query).into(),
                engine: Engine::Literal,
                filters: filters.clone(),
                ..SearchRequest::default()
            };
            check(req);
        }
    }
    // fuzzy typed letter by letter: by relevance only the memories whose score bound
    // can reach the page are scored, in other orders only the page
    let fuzzy_typed = [
        "d", "do", "doc", "doc1", "doc12", "doc123", "a", "al", "alp", "alpha", "alpha_", "c",
        "ca", "cae", "Ca", "Cam", "g", "gm",
    ];
    for filters in [Filters::default(), filtered] {
        for (mode, order, offset, limit) in [
            (BrowseMode::Relevance, None, 0, 5),
            (BrowseMode::Relevance, None, 10, 40),
            (BrowseMode::Relevance, Some(Order::Asc), 0, 5),
            (BrowseMode::Time, None, 0, 20),
            (BrowseMode::Discovery, None, 3, 10),
        ] {
            for query in fuzzy_typed {
                check(SearchRequest {
                    query: query.into(),
                    engine: Engine::Fuzzy,
                    filters: filters.clone(),
                    mode,
                    order,
                    offset,
                    limit,
                });
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// The index follows every write: after replacing some memories (new text, type,
    /// ratings, links) and purging others, in later transactions, a fresh searcher
    /// still gives the oracle's answers on what the store now holds.
    #[test]
    fn the_index_follows_updates_and_purges(
        memories in collection(),
        replacements in collection(),
        purges in prop::collection::vec(0..24usize, 0..6),
        requests in prop::collection::vec(request(), 1..6),
    ) {
        let (_dir, store) = store_with(&memories);
        {
            let mut w = store.write().unwrap();
            // same ids m0…, so these replace the first memories
            for m in replacements.iter().take(memories.len() / 2 + 1) {
                w.put(m).unwrap();
            }
            w.commit().unwrap();
        }
        {
            let mut w = store.write().unwrap();
            for p in purges {
                let id = format!("m{p}{}", if p.is_multiple_of(3) { "-Beta" } else { "" });
                if w.get(&id).unwrap().is_some() {
                    w.purge(&id).unwrap();
                }
            }
            w.commit().unwrap();
        }
        let reader = store.read().unwrap();
        let docs = docs_of(reader.memories().unwrap());
        for searcher in [Searcher::load(&reader).unwrap(), Searcher::open(store.read().unwrap()).unwrap()] {
            prop_assert_eq!(searcher.len(), docs.len());
            for req in &requests {
                let expected = oracle(&docs, req);
                assert_agrees(&expected, &actual(&searcher.search(req)), &format!("{req:?}"));
            }
        }
    }
}
