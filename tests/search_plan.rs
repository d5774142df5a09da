//! The planner's answer from the persisted index alone equals the in-memory searcher's
//! for random requests (engines, filters of every kind, modes, orders, offsets and
//! limits) on random collections, also after random curation changes, undos and new
//! memories; and both agree with the brute-force oracle. The filter panel's histograms
//! and choices agree too, and so do answers over a corpus kept from earlier requests
//! (what a collection answers from while its in-memory index loads).

mod search_support;

use memlens::curate::{Change, Edit, FieldValue, UndoStack};
use memlens::model::{Composite, Memory, Relationship, Scope, Status, Timestamp};
use memlens::search::plan::{self, Index};
use memlens::search::{
    BrowseMode, DeletedFilter, Engine, Filters, KeptCorpus, NumericField, Order, Range,
    SearchRequest, Searcher,
};
use memlens::store::Store;
use proptest::prelude::*;
use search_support::{actual, assert_agrees, docs_of, histogram_oracle, oracle, store_with};

const WORDS: &[&str] = &[
    "alpha",
    "beta",
    "Gamma",
    "cache",
    "cached",
    "École",
    "redb",
    "42",
    "go",
    "naïve",
    // a Kelvin sign lowercases to an ASCII k; a dotted capital I to i and a combining dot
    "\u{212A}elvin",
    "İstanbul",
    "snake_case",
    "re-do",
    "ΟΔΟΣ",
];
const TYPES: &[&str] = &["note", "decision", "gotcha", "session_recap"];
const TAGS: &[&str] = &["rust", "db", "ui"];
const MODULES: &[&str] = &["core", "tui"];
const SCORES: &[f64] = &[0.0, 0.25, 0.5, 1.0, 1.0 / 3.0];
const POOL: usize = 16;

fn id(i: usize) -> String {
    format!("m{i}")
}

fn text(words: &[usize]) -> String {
    words
        .iter()
        .map(|&w| WORDS[w % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// A memory built from small random choices (created_at often tied, so ids decide).
#[derive(Debug, Clone)]
struct Seed {
    body: Vec<usize>,
    ty: usize,
    tags: Vec<usize>,
    module: Option<usize>,
    scope: usize,
    status: usize,
    created: i64,
    feel: [Option<f64>; 3],
    weight: f64,
    ratings: (u32, u32),
    links: Vec<usize>,
}

fn score() -> impl Strategy<Value = Option<f64>> {
    prop::option::of(prop::sample::select(SCORES))
}

fn seed() -> impl Strategy<Value = Seed> {
    (
        (
            prop::collection::vec(0..WORDS.len(), 1..6),
            0..TYPES.len(),
            prop::collection::vec(0..TAGS.len(), 0..3),
            prop::option::of(0..MODULES.len()),
            0..Scope::ALL.len(),
            0..Status::ALL.len(),
        ),
        (
            0..5i64,
            [score(), score(), score()],
            prop::sample::select(SCORES),
            (0..30u32, 0..8u32),
            prop::collection::vec(0..POOL + 2, 0..3),
        ),
    )
        .prop_map(
            |((body, ty, tags, module, scope, status), (created, feel, weight, ratings, links))| {
                Seed {
                    body,
                    ty,
                    tags,
                    module,
                    scope,
                    status,
                    created,
                    feel,
                    weight,
                    ratings,
                    links,
                }
            },
        )
}

fn memory(i: usize, s: &Seed) -> Memory {
    let mut m = Memory::new(
        id(i),
        text(&s.body),
        Timestamp(1_700_000_000_000_000_000 + s.created * 1_000_000_000),
    );
    m.memory_type = TYPES[s.ty].to_string();
    m.tags = s.tags.iter().map(|&t| TAGS[t].to_string()).collect();
    m.module = s.module.map(|x| MODULES[x].to_string());
    m.scope = Scope::ALL[s.scope];
    if m.scope == Scope::Module && m.module.is_none() {
        m.module = Some(MODULES[0].to_string());
    }
    m.status = Status::ALL[s.status];
    m.feel[0] = s.feel[0];
    m.feel[3] = s.feel[1];
    m.feel[memlens::model::FEEL_DIMS.len() - 1] = s.feel[2];
    m.weight = s.weight;
    let (sum, count) = s.ratings;
    m.rating_count = count;
    m.rating_sum = sum.min(count * 5).max(count);
    m.relationships = s
        .links
        .iter()
        .map(|&t| Relationship {
            target: id(t),
            kind: "related".into(),
            strength: None,
        })
        .filter(|r| r.target != m.id)
        .collect();
    m.normalise();
    m
}

/// One write to the store: a curation change, or a new memory.
#[derive(Debug, Clone)]
enum Step {
    Curate(Change),
    Add(usize, Seed),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        Just(Edit::Approve),
        Just(Edit::Reject {
            reason: "wrong".into()
        }),
        (1..=5u8).prop_map(Edit::Rate),
        Just(Edit::Delete { reason: None }),
        Just(Edit::Restore),
        prop::sample::select(TAGS).prop_map(|t| Edit::Tag(vec![t.to_string()])),
        prop::sample::select(TAGS).prop_map(|t| Edit::Untag(vec![t.to_string()])),
        prop::collection::vec(0..WORDS.len(), 1..5)
            .prop_map(|w| Edit::Set(vec![FieldValue::Body(text(&w))])),
        prop::sample::select(TYPES).prop_map(|t| Edit::Set(vec![FieldValue::Type(t.into())])),
        score().prop_map(|v| Edit::Set(vec![FieldValue::Feel(0, v)])),
        prop::sample::select(SCORES).prop_map(|v| Edit::Set(vec![FieldValue::Weight(v)])),
        prop::option::of(prop::sample::select(MODULES))
            .prop_map(|v| Edit::Set(vec![FieldValue::Module(v.map(str::to_string))])),
        Just(Edit::Set(vec![FieldValue::Scope(Scope::ALL[0])])),
        Just(Edit::Set(vec![FieldValue::Status(Status::Stale)])),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    let ids = || prop::collection::vec(0..POOL, 1..3);
    prop_oneof![
        4 => (ids(), edit()).prop_map(|(ids, e)| Step::Curate(Change::edit(ids.into_iter().map(id), e))),
        3 => (0..POOL, 0..POOL).prop_map(|(a, b)| Step::Curate(Change::link(id(a), id(b)))),
        2 => (0..POOL, 0..POOL).prop_map(|(a, b)| Step::Curate(Change::Unlink { a: id(a), b: id(b) })),
        1 => ids().prop_map(|ids| Step::Curate(Change::Purge { ids: ids.into_iter().map(id).collect() })),
        2 => (0..POOL + 2, seed()).prop_map(|(i, s)| Step::Add(i, s)),
    ]
}

/// Runs one step (a refused change changes nothing).
fn run(store: &Store, history: &mut UndoStack, step: &Step) {
    match step {
        Step::Curate(change) => {
            let _ = history.apply(store, change);
        }
        Step::Add(i, s) => {
            let mut w = store.write().expect("write");
            w.put(&memory(*i, s)).expect("put");
            w.commit().expect("commit");
        }
    }
}

fn range() -> impl Strategy<Value = Range> {
    (
        prop::option::of(prop::sample::select(SCORES)),
        prop::option::of(prop::sample::select(SCORES)),
    )
        .prop_map(|(min, max)| Range { min, max })
}

fn mode() -> impl Strategy<Value = BrowseMode> {
    prop::sample::select(vec![
        BrowseMode::Relevance,
        BrowseMode::Time,
        BrowseMode::Rating,
        BrowseMode::Discovery,
        BrowseMode::Density,
        BrowseMode::Significance,
        BrowseMode::Property(NumericField::RelationshipCount),
        BrowseMode::Property(NumericField::Feel(0)),
        BrowseMode::Property(NumericField::Weight),
        BrowseMode::Property(NumericField::RatingCount),
        BrowseMode::Property(NumericField::RatingSum),
        BrowseMode::Property(NumericField::ReadCount),
        BrowseMode::Property(NumericField::UpdatedAt),
        BrowseMode::Property(NumericField::CreatedAt),
        BrowseMode::Property(NumericField::Confidence),
        BrowseMode::Property(NumericField::Composite(Composite::FeelSignificance)),
    ])
}

fn filters() -> impl Strategy<Value = Filters> {
    (
        (
            prop::collection::vec(prop::sample::select(TYPES), 0..2),
            prop::collection::vec(prop::sample::select(TYPES), 0..2),
            prop::collection::vec(prop::sample::select(TAGS), 0..2),
            prop::collection::vec(prop::sample::select(MODULES), 0..2),
            prop::collection::vec(prop::sample::select(Scope::ALL), 0..2),
            prop::collection::vec(prop::sample::select(Status::ALL), 0..2),
        ),
        (
            range(),
            range(),
            range(),
            prop::option::of(prop::sample::select(&[1.0, 3.0, 4.5][..])),
            prop::option::of(0..4i64),
            0..3usize,
            prop::option::of(any::<bool>()),
            any::<bool>(),
        ),
    )
        .prop_map(
            |((types, excluded, tags, modules, scopes, statuses), rest)| {
                let (weight, feel0, total, rating_min, from, deleted, has_links, no_rejected) =
                    rest;
                let names = |v: Vec<&str>| v.into_iter().map(str::to_string).collect::<Vec<_>>();
                let mut f = Filters {
                    types: names(types),
                    exclude_types: names(excluded),
                    tags: names(tags),
                    modules: names(modules),
                    scopes,
                    statuses,
                    weight,
                    rating_min,
                    created_from: from
                        .map(|s| Timestamp(1_700_000_000_000_000_000 + s * 1_000_000_000)),
                    has_relationships: has_links,
                    exclude_rejected: no_rejected,
                    deleted: [
                        DeletedFilter::Exclude,
                        DeletedFilter::Include,
                        DeletedFilter::Only,
                    ][deleted],
                    ..Filters::default()
                };
                f.feel[0] = feel0;
                f.composites[2] = total;
                f
            },
        )
}

/// Mostly a single filter or none, so that requests keep some memories.
fn request() -> impl Strategy<Value = SearchRequest> {
    let queries: &'static [&'static str] = &[
        "",
        "",
        "",
        "alpha",
        "cache",
        "ach",
        "gamma beta",
        "42 go",
        "a",
        "g",
        "m1",
        "zzz",
        // words the vocabulary and postings answer, and some they leave to the haystacks
        "cole",
        "kelvin",
        "stanbul",
        "ake_c",
        "re-do",
        "edb alpha",
        "ive",
        "οδοσ",
    ];
    (
        prop::sample::select(queries),
        prop::sample::select(&[Engine::Literal, Engine::Bm25, Engine::Fuzzy][..]),
        mode(),
        prop::option::of(prop::sample::select(&[Order::Asc, Order::Desc][..])),
        (0..20usize, 0..25usize),
        prop_oneof![2 => Just(Filters::default()), 3 => filters()],
    )
        .prop_map(
            |(query, engine, mode, order, (offset, limit), filters)| SearchRequest {
                query: query.to_string(),
                engine,
                filters,
                mode,
                order,
                offset,
                limit,
            },
        )
}

/// Every request answered alike from the persisted index and by a loaded searcher, and
/// as the oracle says; the filter panel's histograms and choices too. Each is also
/// answered over the corpus `kept` holds from the requests before it (of this check,
/// and of earlier ones, read at earlier changes of the store).
fn check(store: &Store, requests: &[SearchRequest], context: &str, kept: &KeptCorpus) {
    let reader = store.read().expect("read");
    let loaded = Searcher::load(&reader).expect("load");
    let docs = docs_of(reader.memories().expect("memories"));
    let ids: Vec<String> = reader
        .memories()
        .expect("memories")
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(
        plan::facet_names(Index::Stored(&reader)).expect("facets"),
        loaded.facet_names(),
        "filter choices differ {context}"
    );
    assert_eq!(
        plan::facet_names(Index::Kept(&reader, kept)).expect("facets"),
        loaded.facet_names(),
        "filter choices over the kept corpus differ {context}"
    );
    for (i, req) in requests.iter().enumerate() {
        let stored = plan::from_stored(&reader, req)
            .expect("stored")
            .expect("the persisted index answers");
        let want = loaded.search(req);
        assert_eq!(stored, want, "{context}: {req:?}");
        let over_kept = plan::answer(Index::Kept(&reader, kept), req).expect("kept");
        assert_eq!(over_kept, want, "{context}: over the kept corpus: {req:?}");
        assert_eq!(
            plan::matching(Index::Kept(&reader, kept), req).expect("matching"),
            plan::matching(Index::Loaded(&loaded), req).expect("matching"),
            "{context}: the memories found over the kept corpus: {req:?}"
        );
        assert_agrees(
            &oracle(&docs, req),
            &actual(&stored),
            &format!("{context}: {req:?}"),
        );
        // where each memory is in the whole list (a selection kept on it after the
        // list changed), against the brute-force order of every match
        let everything = SearchRequest {
            offset: 0,
            limit: usize::MAX,
            ..req.clone()
        };
        let whole = oracle(&docs, &everything).ids;
        // one match and one memory of the store, a different pair for each request
        let pair = [
            whole.get(i % whole.len().max(1)),
            ids.get(i % ids.len().max(1)),
        ];
        for id in pair.into_iter().flatten() {
            let doc = reader.doc_of(id).expect("doc").expect("stored");
            let want = whole.iter().position(|x| x == id);
            for (name, index) in [
                ("persisted", Index::Stored(&reader)),
                ("kept", Index::Kept(&reader, kept)),
                ("loaded", Index::Loaded(&loaded)),
            ] {
                let got = plan::locate(index, req, doc).expect("locate");
                assert_eq!(got, want, "{context}: {id} in the {name} order of {req:?}");
            }
        }
        for (j, field) in [
            NumericField::RelationshipCount,
            NumericField::Feel(0),
            NumericField::Weight,
            NumericField::RatingBayesian,
            NumericField::RatingSum,
            NumericField::CreatedAt,
            NumericField::Composite(Composite::TotalSignificance),
        ]
        .into_iter()
        .enumerate()
        {
            let a =
                plan::histogram(Index::Stored(&reader), &req.filters, field, 4).expect("histogram");
            let b = loaded.histogram(&req.filters, field, 4);
            assert_eq!(a, b, "{context}: histogram of {field:?} for {req:?}");
            assert_eq!(
                b,
                histogram_oracle(&docs, &req.filters, field, 4),
                "{context}: histogram of {field:?} against brute force for {req:?}"
            );
            // a histogram stopped at its first, second, ... look at its stop (before
            // it reads, while it reads the column into the kept corpus, while it
            // counts) answers nothing, or the whole answer when it ended first, and
            // leaves the kept corpus answering exactly
            let looks = (i + j) % 6;
            let asked = std::sync::atomic::AtomicUsize::new(0);
            let stop = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= looks;
            let stopped =
                plan::histogram_unless(Index::Kept(&reader, kept), &req.filters, field, 4, &stop)
                    .expect("histogram");
            assert!(
                stopped.is_none() || stopped.as_ref() == Some(&b),
                "{context}: histogram of {field:?} stopped after {looks} looks: {stopped:?}"
            );
            let a = plan::histogram(Index::Kept(&reader, kept), &req.filters, field, 4)
                .expect("histogram");
            assert_eq!(
                a, b,
                "{context}: histogram of {field:?} over the kept corpus"
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn the_persisted_answer_equals_the_loaded_one(
        seeds in prop::collection::vec(seed(), 0..POOL),
        steps in prop::collection::vec(prop::collection::vec(step(), 1..4), 0..4),
        requests in prop::collection::vec(request(), 1..10),
    ) {
        let memories: Vec<Memory> = seeds.iter().enumerate().map(|(i, s)| memory(i, s)).collect();
        let (_dir, store) = store_with(&memories);
        let kept = KeptCorpus::default();
        check(&store, &requests, "as imported", &kept);
        let mut history = UndoStack::default();
        for (n, batch) in steps.iter().enumerate() {
            for step in batch {
                run(&store, &mut history, step);
            }
            if n % 2 == 1 {
                let _ = history.undo(&store);
            }
            check(&store, &requests, &format!("after batch {n} {batch:?}"), &kept);
        }
    }
}

/// Memories spread over many column chunks (with gaps left by purges), so the walk
/// over stored and absent chunks is exercised.
#[test]
fn columns_over_many_chunks_agree() {
    let memories: Vec<Memory> = (0..2600)
        .map(|i| {
            let mut m = memory(
                i,
                &Seed {
                    body: vec![i % 7, i % 3],
                    ty: i % 3,
                    tags: if i % 5 == 0 { vec![i % 3] } else { vec![] },
                    module: (i > 2100).then_some(0),
                    scope: 0,
                    status: i % 4,
                    created: (i % 50) as i64,
                    feel: [
                        (i > 1500).then_some(0.5),
                        None,
                        (i % 9 == 0).then_some(1.0 / 3.0),
                    ],
                    weight: SCORES[i % 5],
                    ratings: ((i % 30) as u32, (i % 8) as u32),
                    links: vec![(i + 1) % POOL],
                },
            );
            m.id = format!("x{i:05}");
            m
        })
        .collect();
    let (_dir, store) = store_with(&memories);
    let purge: Vec<String> = (1024..2048).map(|i| format!("x{i:05}")).collect();
    memlens::curate::apply(&store, &Change::Purge { ids: purge }).expect("purge");
    let mut requests = Vec::new();
    for mode in [
        BrowseMode::Time,
        BrowseMode::Property(NumericField::Feel(0)),
        BrowseMode::Discovery,
        BrowseMode::Property(NumericField::Feel(memlens::model::FEEL_DIMS.len() - 1)),
    ] {
        for order in [None, Some(Order::Asc)] {
            let f = Filters {
                modules: vec![MODULES[0].to_string()],
                ..Filters::default()
            };
            for filters in [Filters::default(), f] {
                requests.push(SearchRequest {
                    mode,
                    order,
                    filters,
                    offset: 700,
                    limit: 40,
                    ..SearchRequest::default()
                });
            }
        }
    }
    // the text engines walk the haystack chunks too (fuzzy the newest first), around
    // the purged gap; ties in score (the same few words) are settled by time
    for (engine, query) in [
        (Engine::Fuzzy, "ca"),
        (Engine::Fuzzy, "alpa"),
        (Engine::Literal, "cache"),
    ] {
        for (mode, order) in [
            (BrowseMode::Relevance, None),
            (BrowseMode::Relevance, Some(Order::Asc)),
            (BrowseMode::Time, None),
        ] {
            requests.push(SearchRequest {
                query: query.to_string(),
                engine,
                mode,
                order,
                offset: 30,
                limit: 40,
                ..SearchRequest::default()
            });
        }
    }
    check(&store, &requests, "2,600 memories", &KeptCorpus::default());
}

/// created_at years apart and nanoseconds apart at once: the persisted time order sorts
/// by the top bits of the span first, so memories that share those bits (created within
/// the same few milliseconds) must still come in nanosecond order, and exact ties by id
/// (reversed in an ascending relevance order), also where one request reads no time
/// ranks and orders the ties it keeps by their ids.
#[test]
fn memories_created_nanoseconds_apart_keep_their_time_order_across_years() {
    let base = 1_600_000_000_000_000_000i64;
    let year = 31_536_000_000_000_000i64;
    let memories: Vec<Memory> = (0..600)
        .map(|i: i64| {
            // clusters of 12 within a microsecond, some exactly tied, over five years
            let cluster = (i / 12) * 7919 % 50;
            let created = base + cluster * year / 10 + (i % 12) * 37 % 11 * 100 - (i % 3);
            // and every seventh at one of three instants exactly
            let created = if i % 7 == 0 {
                base + (i % 3) * year
            } else {
                created
            };
            let mut m = Memory::new(format!("t{:03}", (i * 389) % 600), "w", Timestamp(created));
            m.weight = SCORES[(i % 5) as usize];
            m
        })
        .collect();
    let (_dir, store) = store_with(&memories);
    // every memory matches the query "w" equally well: the time order decides
    // relevance too (reversed when ascending), and the weight order's ties
    let query = |engine| SearchRequest {
        query: "w".into(),
        engine,
        mode: BrowseMode::Relevance,
        ..SearchRequest::default()
    };
    let shapes = [
        SearchRequest {
            mode: BrowseMode::Time,
            ..SearchRequest::default()
        },
        SearchRequest {
            mode: BrowseMode::Property(NumericField::Weight),
            ..SearchRequest::default()
        },
        query(Engine::Literal),
        query(Engine::Bm25),
        query(Engine::Fuzzy),
    ];
    let requests: Vec<SearchRequest> = [None, Some(Order::Asc)]
        .into_iter()
        .flat_map(|order| {
            shapes.iter().flat_map(move |shape| {
                [(0, 300), (290, 300), (5, 7)].map(|(offset, limit)| SearchRequest {
                    order,
                    offset,
                    limit,
                    ..shape.clone()
                })
            })
        })
        .collect();
    check(
        &store,
        &requests,
        "clusters of close times",
        &KeptCorpus::default(),
    );
}
