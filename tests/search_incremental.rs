//! `Searcher::apply` against a fresh load: after random curation changes (edits, links,
//! unlinks, purges) and new memories, the updated searcher answers every request
//! exactly as a searcher loaded from scratch on the same snapshot, and both agree with
//! the brute-force oracle.

mod search_support;

use memlens::curate::{Change, Edit, FieldValue, UndoStack};
use memlens::model::{Memory, Relationship, Scope, Status, Timestamp};
use memlens::search::{
    BrowseMode, DeletedFilter, Engine, Filters, NumericField, Order, Range, SearchRequest, Searcher,
};
use memlens::store::Store;
use proptest::prelude::*;
use search_support::{actual, assert_agrees, docs_of, oracle, store_with};

const WORDS: &[&str] = &[
    "alpha", "beta", "Gamma", "cache", "cached", "École", "redb", "42", "go", "naïve",
];
const TYPES: &[&str] = &["note", "decision", "gotcha", "session_recap"];
const TAGS: &[&str] = &["rust", "db", "ui"];
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

/// A memory built from small random choices.
#[derive(Debug, Clone)]
struct Seed {
    body: Vec<usize>,
    ty: usize,
    tag: Option<usize>,
    created: i64,
    feel: Option<f64>,
    links: Vec<usize>,
}

fn seed() -> impl Strategy<Value = Seed> {
    (
        prop::collection::vec(0..WORDS.len(), 1..6),
        0..TYPES.len(),
        prop::option::of(0..TAGS.len()),
        0..5i64,
        prop::option::of(prop::sample::select(&[0.0, 0.5, 1.0][..])),
        prop::collection::vec(0..POOL + 2, 0..3),
    )
        .prop_map(|(body, ty, tag, created, feel, links)| Seed {
            body,
            ty,
            tag,
            created,
            feel,
            links,
        })
}

fn memory(i: usize, s: &Seed) -> Memory {
    let mut m = Memory::new(
        id(i),
        text(&s.body),
        Timestamp(1_700_000_000_000_000_000 + s.created * 1_000_000_000),
    );
    m.memory_type = TYPES[s.ty].to_string();
    m.tags = s.tag.map(|t| TAGS[t].to_string()).into_iter().collect();
    m.feel[0] = s.feel;
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
        prop::option::of(prop::sample::select(&[0.0, 0.25, 1.0][..]))
            .prop_map(|v| Edit::Set(vec![FieldValue::Feel(0, v)])),
        prop::sample::select(&[0.0, 0.5, 1.0][..])
            .prop_map(|v| Edit::Set(vec![FieldValue::Weight(v)])),
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

/// Runs one step; returns the ids it changed (empty when the change was refused).
fn run(store: &Store, history: &mut UndoStack, step: &Step) -> Vec<String> {
    match step {
        Step::Curate(change) => match history.apply(store, change) {
            Ok(applied) => applied.changed().iter().map(|e| e.id.clone()).collect(),
            Err(_) => Vec::new(),
        },
        Step::Add(i, s) => {
            let m = memory(*i, s);
            let mut w = store.write().expect("write");
            w.put(&m).expect("put");
            w.commit().expect("commit");
            vec![m.id]
        }
    }
}

fn request() -> impl Strategy<Value = SearchRequest> {
    let queries: &'static [&'static str] = &[
        "",
        "",
        "alpha",
        "cache",
        "ach",
        "gamma beta",
        "42 go",
        "a",
        "g",
        "m",
    ];
    (
        prop::sample::select(queries),
        prop::sample::select(&[Engine::Literal, Engine::Bm25, Engine::Fuzzy][..]),
        prop::sample::select(
            &[
                BrowseMode::Relevance,
                BrowseMode::Time,
                BrowseMode::Rating,
                BrowseMode::Discovery,
                BrowseMode::Density,
                BrowseMode::Significance,
                BrowseMode::Property(NumericField::RelationshipCount),
                BrowseMode::Property(NumericField::Feel(0)),
            ][..],
        ),
        prop::option::of(prop::sample::select(&[Order::Asc, Order::Desc][..])),
        (0..3usize, 1..30usize),
        (
            prop::option::of(prop::sample::select(TYPES)),
            prop::option::of(prop::sample::select(TAGS)),
            prop::option::of(prop::sample::select(&[0.0, 1.0, 2.0][..])),
            0..3usize,
            any::<bool>(),
        ),
    )
        .prop_map(|(query, engine, mode, order, (offset, limit), f)| {
            let mut filters = Filters {
                types: f.0.map(str::to_string).into_iter().collect(),
                tags: f.1.map(str::to_string).into_iter().collect(),
                deleted: [
                    DeletedFilter::Exclude,
                    DeletedFilter::Include,
                    DeletedFilter::Only,
                ][f.3],
                ..Filters::default()
            };
            filters.relationship_count = Range {
                min: f.2,
                max: None,
            };
            filters.has_relationships = f.4.then_some(true);
            SearchRequest {
                query: query.to_string(),
                engine,
                filters,
                mode,
                order,
                offset,
                limit,
            }
        })
}

/// Every request answered alike by the updated and the fresh searcher, and as the
/// oracle says; the relationship counts of the hits agree too.
fn check(store: &Store, updated: &Searcher, requests: &[SearchRequest], context: &str) {
    let reader = store.read().expect("read");
    let fresh = Searcher::load(&reader).expect("load");
    let memories = reader.memories().expect("memories");
    let mut names: [std::collections::BTreeSet<String>; 3] = Default::default();
    for m in &memories {
        names[0].insert(m.memory_type.clone());
        names[1].extend(m.tags.iter().cloned());
        names[2].extend(m.module.iter().cloned());
    }
    let names = names.map(|s| s.into_iter().collect::<Vec<_>>());
    assert_eq!(
        updated.facet_names(),
        names,
        "filter choices differ {context}"
    );
    let docs = docs_of(memories);
    assert_eq!(updated.len(), fresh.len(), "sizes differ {context}");
    for req in requests {
        let got = updated.search(req);
        let want = fresh.search(req);
        assert_eq!(got, want, "{context}: {req:?}");
        assert_agrees(
            &oracle(&docs, req),
            &actual(&got),
            &format!("{context}: {req:?}"),
        );
        for field in [NumericField::RelationshipCount, NumericField::Feel(0)] {
            let (a, b) = (
                updated.histogram(&req.filters, field, 4),
                fresh.histogram(&req.filters, field, 4),
            );
            assert_eq!(
                (a.counts, a.kept, a.present),
                (b.counts, b.kept, b.present),
                "{context}: histogram of {field:?} for {req:?}"
            );
        }
    }
}

/// A browse of the whole collection in each order the browser warms, both ways.
fn browse_orders() -> Vec<SearchRequest> {
    let modes = [
        BrowseMode::Time,
        BrowseMode::Density,
        BrowseMode::Rating,
        BrowseMode::Significance,
    ];
    modes
        .into_iter()
        .flat_map(|mode| {
            [Order::Desc, Order::Asc].map(|order| SearchRequest {
                mode,
                order: Some(order),
                limit: 100,
                ..SearchRequest::default()
            })
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 160, ..ProptestConfig::default() })]

    #[test]
    fn apply_equals_fresh_load(
        seeds in prop::collection::vec(seed(), 0..POOL),
        steps in prop::collection::vec(prop::collection::vec(step(), 1..4), 1..5),
        requests in prop::collection::vec(request(), 1..8),
        opened in any::<bool>(),
    ) {
        let memories: Vec<Memory> = seeds.iter().enumerate().map(|(i, s)| memory(i, s)).collect();
        let (_dir, store) = store_with(&memories);
        let reader = store.read().expect("read");
        let mut searcher = if opened {
            Searcher::open(reader).expect("open")
        } else {
            Searcher::load(&reader).expect("load")
        };
        // warm caches and memos of the old searcher must not leak into the new one
        searcher.warm();
        for req in &requests {
            searcher.search(req);
        }
        let mut history = UndoStack::default();
        for (n, batch) in steps.iter().enumerate() {
            let mut changed = Vec::new();
            for step in batch {
                changed.extend(run(&store, &mut history, step));
            }
            // an undo the store no longer allows (say, a purged id added again) changes nothing
            if n % 2 == 1
                && let Ok(undone) = history.undo(&store)
            {
                changed.extend(undone.changed().iter().map(|e| e.id.clone()));
            }
            searcher = searcher.apply(store.read().expect("read"), &changed).expect("apply");
            prop_assert_eq!(searcher.reads_snapshot(), opened);
            check(&store, &searcher, &requests, &format!("after batch {n} {batch:?}"));
            // every other batch leaves the browse orders the old searcher had unused,
            // so the next update takes them over from two updates back
            if n % 2 == 1 {
                check(&store, &searcher, &browse_orders(), &format!("orders after batch {n}"));
            }
        }
    }
}

#[test]
fn purging_a_linked_memory_lowers_the_count_of_the_other() {
    let a = memory(
        0,
        &Seed {
            body: vec![0],
            ty: 0,
            tag: None,
            created: 0,
            feel: None,
            links: vec![1],
        },
    );
    let b = memory(
        1,
        &Seed {
            body: vec![1],
            ty: 0,
            tag: None,
            created: 1,
            feel: None,
            links: vec![],
        },
    );
    let (_dir, store) = store_with(&[a, b]);
    let before = Searcher::load(&store.read().expect("read")).expect("load");
    let count_of = |s: &Searcher, who: &str| {
        let all = SearchRequest {
            limit: 10,
            ..SearchRequest::default()
        };
        s.search(&all)
            .hits
            .iter()
            .find(|h| h.memory.id == who)
            .map(|h| h.relationship_count)
    };
    assert_eq!(count_of(&before, "m1"), Some(1));
    let mut history = UndoStack::default();
    history
        .apply(&store, &Change::Purge { ids: vec![id(0)] })
        .expect("purge");
    // only m0 is named as changed: m1's count must follow anyway
    let after = before
        .apply(store.read().expect("read"), &[id(0)])
        .expect("apply");
    assert_eq!(after.len(), 1);
    assert_eq!(count_of(&after, "m1"), Some(0));
    assert_eq!(count_of(&after, "m0"), None);
}
