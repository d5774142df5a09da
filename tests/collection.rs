//! The front door: a `LocalCollection` answers (pages and random draws) like a loaded
//! searcher before and after its load, brings the loaded searcher up to date after its
//! own changes and another writer's, undoes and redoes them, tells its subscribers,
//! lists a memory's links both ways, stops a superseded search between its chunks, and
//! refuses changes on a read-only snapshot.

mod search_support;

use memlens::collection::{Collection, CollectionError, History, LocalCollection};
use memlens::curate::{Change, Edit};
use memlens::model::{Memory, Timestamp};
use memlens::search::{BrowseMode, Engine, SearchRequest, Searcher, random};
use search_support::store_with;
use std::sync::Arc;

fn memories() -> Vec<Memory> {
    memories_n(40)
}

/// `n` memories in three kinds of title, two types and seven instants.
fn memories_n(n: usize) -> Vec<Memory> {
    (0..n)
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

#[test]
fn a_loaded_scan_stops_between_its_chunks_once_a_newer_request_arrives() {
    // more memories than one step of the scan holds (16 in a debug build, 16,384 in a
    // release one), so that it asks again between its steps
    let n = if cfg!(debug_assertions) { 40 } else { 40_000 };
    let (_dir, store) = store_with(&memories_n(n));
    let c = LocalCollection::over(Arc::new(store));
    c.load().expect("load");
    let req = SearchRequest {
        query: "gamma".into(),
        ..SearchRequest::default()
    };
    // not superseded when it starts, superseded when it next asks
    let asked = std::sync::atomic::AtomicUsize::new(0);
    let newer_arrives = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0;
    assert_eq!(c.search_unless(&req, &newer_arrives).expect("search"), None);
    assert!(
        asked.load(std::sync::atomic::Ordering::Relaxed) > 1,
        "it asked again"
    );
    assert_eq!(
        c.search_unless(&req, &|| false).expect("search"),
        Some(c.search(&req).expect("search"))
    );
}

#[test]
fn another_writers_change_moves_the_version_and_a_refresh_takes_it_in() {
    let (_dir, store) = store_with(&memories());
    let store = Arc::new(store);
    let c = LocalCollection::over(store.clone());
    c.load().expect("load");
    let before = c.refresh().expect("refresh");
    assert_eq!(c.version().expect("version"), before);
    // another process (here: another handle on the store) writes
    let mut m = c.get("m07").expect("get").expect("there");
    m.title = Some("zeta written elsewhere".into());
    let mut w = store.write().expect("write");
    w.put(&m).expect("put");
    w.commit().expect("commit");
    let now = c.version().expect("version");
    assert_ne!(now, before, "the version moved");
    assert_eq!(c.refresh().expect("refresh"), now);
    let found = c
        .search(&SearchRequest {
            query: "zeta".into(),
            ..SearchRequest::default()
        })
        .expect("search");
    let ids: Vec<_> = found.hits.iter().map(|h| h.memory.id.as_str()).collect();
    assert_eq!(ids, ["m07"]);
    assert_eq!(answers(&c), loaded_answers(&store), "after the other write");
}

#[test]
fn detail_lists_links_both_ways_and_history_and_reads_are_told() {
    let mut all = memories();
    all[1].relationships.push(memlens::model::Relationship {
        target: "m02".into(),
        kind: "supersedes".into(),
        strength: Some(0.5),
    });
    all[3].relationships.push(memlens::model::Relationship {
        target: "m01".into(),
        kind: "related".into(),
        strength: None,
    });
    let (_dir, store) = store_with(&all);
    let c = LocalCollection::over(Arc::new(store));
    let detail = c.detail("m01").expect("detail").expect("there");
    let links: Vec<_> = detail
        .links
        .iter()
        .map(|l| (l.id.as_str(), l.kind.as_str(), l.outgoing, l.strength))
        .collect();
    assert_eq!(
        links,
        [
            ("m02", "supersedes", true, Some(0.5)),
            ("m03", "related", false, None)
        ]
    );
    assert_eq!(detail.relationship_count, 2);
    assert_eq!(detail.links[0].headline.as_deref(), Some(all[2].headline()));
    assert_eq!(c.detail("nope").expect("detail"), None);

    let told = c.subscribe();
    assert_eq!(c.history(), History::default());
    c.apply(&Change::edit(["m04"], Edit::Approve))
        .expect("approve");
    let h = c.history();
    assert_eq!((h.changes, h.next_redo.as_deref()), (1, None));
    assert!(h.next_undo.is_some_and(|d| d.contains("approve")));
    c.undo().expect("undo");
    let h = c.history();
    assert_eq!((h.changes, h.next_undo.as_deref()), (0, None));
    assert!(h.next_redo.is_some());
    let _ = told.try_iter().count();
    let read = c.track_read("m05").expect("read");
    assert_eq!(read.read_count, all[5].read_count + 1);
    assert_eq!(told.recv().expect("told").ids, ["m05"]);
    assert_eq!(c.history().changes, 0, "a read is not a change");
}

#[test]
fn a_scan_of_the_persisted_haystacks_stops_once_a_newer_request_arrives() {
    let (_dir, store) = store_with(&memories());
    // not loaded: the persisted index answers, scanning the haystack chunks
    let c = LocalCollection::over(Arc::new(store));
    for (query, engine) in [("gama", Engine::Fuzzy), ("a c", Engine::Literal)] {
        let req = SearchRequest {
            query: query.into(),
            engine,
            ..SearchRequest::default()
        };
        // not superseded when it starts, superseded when the scan next asks
        let asked = std::sync::atomic::AtomicUsize::new(0);
        let newer_arrives = || asked.fetch_add(1, std::sync::atomic::Ordering::Relaxed) > 0;
        assert_eq!(
            c.search_unless(&req, &newer_arrives).expect("search"),
            None,
            "{query:?} by {engine:?}"
        );
        assert!(
            asked.load(std::sync::atomic::Ordering::Relaxed) > 1,
            "the scan asked too ({query:?})"
        );
        assert!(!c.is_loaded(), "a stopped scan loads nothing");
        let whole = c.search_unless(&req, &|| false).expect("search");
        assert!(
            whole.as_ref().is_some_and(|r| r.total > 0),
            "{query:?} finds"
        );
        assert_eq!(whole, Some(c.search(&req).expect("search")));
        assert_eq!(
            c.search(&req).expect("search"),
            Searcher::open(c.reader().expect("reader"))
                .expect("open")
                .search(&req),
            "the persisted answer is the loaded one ({query:?})"
        );
    }
}

#[test]
fn an_offset_pages_through_a_random_draw_in_its_order() {
    let (_dir, store) = store_with(&memories());
    let c = LocalCollection::over(Arc::new(store));
    for (query, engine) in [("", Engine::Literal), ("alp", Engine::Fuzzy)] {
        let request = |offset: usize, limit: usize| SearchRequest {
            query: query.into(),
            engine,
            offset,
            limit,
            ..SearchRequest::default()
        };
        let ids = |offset, limit| -> Vec<String> {
            let answer = c.sample(&request(offset, limit), SEED).expect("sample");
            answer.hits.iter().map(|h| h.memory.id.clone()).collect()
        };
        let first = ids(0, 9);
        assert!(first.len() >= 6, "{query:?}: {first:?}");
        assert_eq!(ids(2, 3), first[2..5], "{query:?}");
        assert_eq!(ids(0, 3), first[..3], "{query:?}");
        assert!(ids(1000, 3).is_empty(), "{query:?}: past the pool");
        let whole = c.sample(&request(0, 9), SEED).expect("sample").total;
        assert_eq!(c.sample(&request(2, 3), SEED).expect("sample").total, whole);
    }
}
