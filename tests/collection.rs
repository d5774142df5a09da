//! The front door: a `LocalCollection` answers (pages and random draws) like a loaded
//! searcher before and after its load, brings the loaded searcher up to date after its own changes, undoes and
//! redoes them, tells its subscribers, stops a superseded search, and refuses changes
//! on a read-only snapshot.

mod search_support;

use memlens::collection::{Collection, CollectionError, LocalCollection};
use memlens::curate::{Change, Edit};
use memlens::model::{Memory, Timestamp};
use memlens::search::{BrowseMode, Engine, SearchRequest, Searcher, random};
use search_support::store_with;
use std::sync::Arc;

fn memories() -> Vec<Memory> {
    (0..40)
        .map(|i| {
            let mut m = Memory::new(
                format!("m{i:02}"),
                format!("alpha {} cache", ["beta", "gamma", "delta"][i % 3]),
                Timestamp(1_700_000_000_000_000_000 + (i as i64 % 7) * 1_000_000_000),
            );
            m.memory_type = ["note", "decision"][i % 2].into();
            m.normalise();
            m
        })
        .collect()
}

fn requests() -> Vec<SearchRequest> {
    let mut out = Vec::new();
    for mode in [
        BrowseMode::Relevance,
        BrowseMode::Rating,
        BrowseMode::Discovery,
    ] {
        for (query, engine) in [
            ("", Engine::Literal),
            ("gamma", Engine::Bm25),
            ("alp", Engine::Fuzzy),
        ] {
            out.push(SearchRequest {
                query: query.into(),
                engine,
                mode,
                limit: 7,
                offset: 2,
                ..SearchRequest::default()
            });
        }
    }
    out
}

fn loaded_answers(store: &memlens::store::Store) -> Vec<memlens::search::SearchResponse> {
    let searcher = Searcher::load(&store.read().expect("read")).expect("load");
    let pages = requests().into_iter().map(|r| searcher.search(&r));
    let draws = requests()
        .into_iter()
        .map(|r| random::sample(&searcher, &r, SEED));
    pages.chain(draws).collect()
}

/// The seed of every random draw compared.
const SEED: u64 = 42;

fn answers(c: &LocalCollection) -> Vec<memlens::search::SearchResponse> {
    let pages = requests()
        .into_iter()
        .map(|r| c.search(&r).expect("search"));
    let draws = requests()
        .into_iter()
        .map(|r| c.sample(&r, SEED).expect("sample"));
    pages.chain(draws).collect()
}

#[test]
fn answers_stay_exact_across_the_load_and_changes() {
    let (_dir, store) = store_with(&memories());
    let store = Arc::new(store);
    let c = Arc::new(LocalCollection::over(store.clone()));
    let changes = c.subscribe();
    assert!(!c.is_loaded());
    assert_eq!(answers(&c), loaded_answers(&store), "before the load");
    let rate = Change::edit(["m03", "m04"], Edit::Rate(5));
    for _ in 0..5 {
        c.apply(&rate).expect("rate");
    }
    assert_eq!(changes.recv().expect("told").ids, vec!["m03", "m04"]);
    assert_eq!(
        answers(&c),
        loaded_answers(&store),
        "after a change, unloaded"
    );
    c.load_in_background()
        .join()
        .expect("thread")
        .expect("load");
    assert!(c.is_loaded());
    assert_eq!(answers(&c), loaded_answers(&store), "loaded");
    c.apply(&Change::edit(["m05"], Edit::Delete { reason: None }))
        .expect("delete");
    assert_eq!(
        answers(&c),
        loaded_answers(&store),
        "after a change, loaded"
    );
    c.undo().expect("undo");
    assert!(
        c.get("m05")
            .expect("get")
            .expect("there")
            .deleted_at
            .is_none()
    );
    assert_eq!(answers(&c), loaded_answers(&store), "after an undo");
    c.redo().expect("redo");
    assert!(
        c.get("m05")
            .expect("get")
            .expect("there")
            .deleted_at
            .is_some()
    );
    assert_eq!(answers(&c), loaded_answers(&store), "after a redo");
}

#[test]
fn a_superseded_search_stops_and_a_snapshot_refuses_changes() {
    let (_dir, store) = store_with(&memories());
    let c = LocalCollection::snapshot(store.read().expect("read"));
    let req = SearchRequest {
        query: "alpha".into(),
        ..SearchRequest::default()
    };
    assert_eq!(c.search_unless(&req, &|| true).expect("search"), None);
    assert_eq!(
        c.search_unless(&req, &|| false).expect("search"),
        Some(c.search(&req).expect("search"))
    );
    assert!(matches!(
        c.apply(&Change::edit(["m01"], Edit::Approve)),
        Err(CollectionError::ReadOnly)
    ));
}
