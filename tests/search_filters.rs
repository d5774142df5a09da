//! Each filter of SPEC §3.1, the discovery interleave and the OR fallback on small
//! hand-made collections whose expected answers are worked out by hand in the comments.

mod search_support;

use memlens::model::{Memory, Relationship, Scope, Status, Timestamp, feel_index};
use memlens::search::{BrowseMode, Engine, Filters, MatchQuality, Order, SearchRequest, Searcher};
use search_support::store_with;

fn at(i: i64) -> Timestamp {
    Timestamp(1_750_000_000_000_000_000 + i * 60_000_000_000)
}

fn link(target: &str) -> Relationship {
    Relationship {
        target: target.into(),
        kind: "related".into(),
        strength: None,
    }
}

/// a..g, created in that order (g newest).
fn collection() -> Vec<Memory> {
    let mut v = Vec::new();
    let mut m = |id: &str, i: i64, f: &dyn Fn(&mut Memory)| {
        let mut mem = Memory::new(id, format!("body of {id}"), at(i));
        f(&mut mem);
        v.push(mem);
    };
    m("a", 0, &|x| {
        x.tags = vec!["rust".into()];
        x.weight = 0.2;
        x.feel[feel_index("humor").unwrap()] = Some(0.9);
    });
    m("b", 1, &|x| {
        x.memory_type = "decision".into();
        x.scope = Scope::Team;
        x.status = Status::Validated;
        x.tags = vec!["db".into(), "rust".into()];
        x.weight = 0.8;
        x.rating_count = 5;
        x.rating_sum = 25;
        x.relationships = vec![link("c")];
    });
    m("c", 2, &|x| {
        x.memory_type = "gotcha".into();
        x.scope = Scope::Module;
        x.module = Some("core".into());
        x.status = Status::Rejected;
        x.weight = 0.5;
        x.feel[feel_index("humor").unwrap()] = Some(0.1);
        x.feel[feel_index("valence").unwrap()] = Some(-1.0);
        // its own field, apart from feel_valence
        x.feel[feel_index("functional_valence").unwrap()] = Some(1.0);
    });
    m("d", 3, &|x| {
        x.memory_type = "session_recap".into();
        x.weight = 0.5;
    });
    m("e", 4, &|x| {
        x.deleted_at = Some(at(5));
        x.status = Status::Stale;
        x.tags = vec!["ui".into()];
        x.weight = 0.5;
    });
    m("f", 5, &|x| {
        x.memory_type = "decision".into();
        x.scope = Scope::Shared;
        x.status = Status::Proposed;
        x.tags = vec!["Rust".into()];
        x.weight = 0.3;
        x.relationships = vec![link("zzz")];
    });
    m("g", 6, &|x| {
        x.scope = Scope::Module;
        x.module = Some("ui".into());
        x.trust = 0.9;
        x.weight = 0.4;
        x.rating_count = 6;
        x.rating_sum = 6;
        x.feel[feel_index("urgency").unwrap()] = Some(0.7);
    });
    v
}

fn ids_with(s: &Searcher, filters: Filters) -> Vec<String> {
    let resp = s.search(&SearchRequest {
        filters,
        limit: 100,
        ..SearchRequest::default()
    });
    let mut ids: Vec<String> = resp.hits.iter().map(|h| h.memory.id.clone()).collect();
    assert_eq!(ids.len(), resp.total);
    ids.sort();
    ids
}

fn with(args: &[&str]) -> Filters {
    let mut f = Filters::default();
    for a in args {
        f.apply_arg(a).unwrap();
    }
    f
}

#[test]
fn every_filter_keeps_exactly_the_memories_it_should() {
    let (_dir, store) = store_with(&collection());
    let s = Searcher::load(&store.read().unwrap()).unwrap();
    let cases: &[(&[&str], &[&str])] = &[
        // recaps hidden, deleted excluded by default
        (&[], &["a", "b", "c", "f", "g"]),
        (&["type=decision"], &["b", "f"]),
        (&["type=session_recap"], &["d"]),
        (&["type=note,session_recap"], &["a", "d", "g"]),
        (&["exclude_type=note"], &["b", "c", "f"]),
        (&["type=decision", "exclude_type=decision"], &[]),
        (&["scope=team,shared"], &["b", "f"]),
        (&["module=core"], &["c"]),
        (&["module=ui,core"], &["c", "g"]),
        (&["status=draft,rejected"], &["a", "c", "g"]),
        (&["exclude_rejected=true"], &["a", "b", "f", "g"]),
        (&["tag=rust"], &["a", "b"]),
        (&["tag=ui,db"], &["b"]),
        (&["weight=0.5.."], &["b", "c"]),
        (&["weight=..0.3"], &["a", "f"]),
        (&["trust=0.6..1"], &["g"]),
        (&["rating_min=3.5"], &["b"]),
        (&["rating_min=2"], &["a", "b", "c", "f"]),
        (&["relationship_count=1..1"], &["b", "c"]),
        (&["relationship_count=..0"], &["a", "f", "g"]),
        (&["has_relationships=true"], &["b", "c"]),
        (&["has_relationships=false"], &["a", "f", "g"]),
        (&["deleted=only"], &["e"]),
        (&["deleted=include"], &["a", "b", "c", "e", "f", "g"]),
        (&["feel_humor=0.5.."], &["a"]),
        (&["feel_humor=..0.5"], &["c"]),
        (&["feel_valence=..-0.5"], &["c"]),
        // c: layer 1 (0.1 + |−1|)/2 = 0.55, layer 2 functional_valence 1.0, total 1.55;
        // a: 0.9 + nothing = 0.9; g: nothing + 0.7 = 0.7
        (&["total_significance=1.0.."], &["c"]),
        (&["total_significance=0.8..1"], &["a"]),
        (&["feel_significance=0.5.."], &["a", "c"]),
        (&["functional_significance=0.8.."], &["c"]),
        (&["functional_significance=0..0.8"], &["g"]),
    ];
    for (args, expected) in cases {
        assert_eq!(ids_with(&s, with(args)), *expected, "filters {args:?}");
    }
    let f = Filters {
        created_from: Some(at(2)),
        created_to: Some(at(5)),
        ..Filters::default()
    };
    assert_eq!(ids_with(&s, f), ["c", "f"]);
    // a reversed range holds nothing: the engine keeps nothing, the command line refuses it
    let reversed = Filters {
        weight: memlens::search::Range {
            min: Some(0.9),
            max: Some(0.1),
        },
        ..Filters::default()
    };
    assert!(ids_with(&s, reversed).is_empty());
    assert!(Filters::default().apply_arg("weight=0.9..0.1").is_err());
}

fn rated(id: &str, i: i64, count: u32, sum: u32) -> Memory {
    let mut m = Memory::new(id, "text", at(i));
    m.rating_count = count;
    m.rating_sum = sum;
    m
}

#[test]
fn discovery_puts_a_fresh_memory_in_every_fifth_slot_until_a_pool_runs_out() {
    // rated pool (≥ 5 ratings), by rating_bayesian desc: r1 (5.0·7 → (35+15)/12 = 4.17),
    // r2 (4.0), r3 (3.67), r4 (3.5), r5 (3.33), r6 (3.0), r7 (2.0); fresh pool by
    // created_at desc: f3 (newest), f2, f1.
    let mut v = vec![
        rated("r1", 0, 7, 35),
        rated("r2", 1, 5, 25),
        rated("r3", 2, 7, 29),
        rated("r4", 3, 5, 20),
        rated("r5", 4, 7, 25),
        rated("r6", 5, 5, 15),
        rated("r7", 6, 5, 5),
    ];
    v.push(rated("f1", 7, 4, 20));
    v.push(rated("f2", 8, 0, 0));
    v.push(rated("f3", 9, 1, 1));
    let (_dir, store) = store_with(&v);
    let s = Searcher::load(&store.read().unwrap()).unwrap();
    let req = SearchRequest {
        mode: BrowseMode::Discovery,
        limit: 100,
        ..SearchRequest::default()
    };
    let resp = s.search(&req);
    let got: Vec<(String, Option<bool>)> = resp
        .hits
        .iter()
        .map(|h| (h.memory.id.clone(), h.is_discovery))
        .collect();
    let expected = [
        ("r1", false),
        ("r2", false),
        ("r3", false),
        ("r4", false),
        ("f3", true),
        ("r5", false),
        ("r6", false),
        ("r7", false),
        ("f2", true),
        ("f1", true), // rated pool ran out: the fresh pool fills
    ];
    let expected: Vec<(String, Option<bool>)> = expected
        .iter()
        .map(|(id, d)| (id.to_string(), Some(*d)))
        .collect();
    assert_eq!(got, expected);
    // paging cuts the same list
    let page = s.search(&SearchRequest {
        offset: 3,
        limit: 3,
        ..req.clone()
    });
    let ids: Vec<&str> = page.hits.iter().map(|h| h.memory.id.as_str()).collect();
    assert_eq!(ids, ["r4", "f3", "r5"]);
    // ascending: rated pool by rating asc, fresh pool oldest first, same slots
    let asc = s.search(&SearchRequest {
        order: Some(Order::Asc),
        ..req.clone()
    });
    let ids: Vec<&str> = asc.hits.iter().map(|h| h.memory.id.as_str()).collect();
    assert_eq!(
        ids,
        ["r7", "r6", "r5", "r4", "f1", "r3", "r2", "r1", "f2", "f3"]
    );
}

fn texts(bodies: &[&str]) -> Vec<Memory> {
    bodies
        .iter()
        .enumerate()
        .map(|(i, b)| Memory::new(format!("n{i}"), *b, at(i as i64)))
        .collect()
}

fn run(
    s: &Searcher,
    engine: Engine,
    q: &str,
) -> (Vec<String>, Vec<Option<MatchQuality>>, Option<String>) {
    let resp = s.search(&SearchRequest {
        query: q.into(),
        engine,
        limit: 100,
        ..SearchRequest::default()
    });
    (
        resp.hits.iter().map(|h| h.memory.id.clone()).collect(),
        resp.hits.iter().map(|h| h.match_quality).collect(),
        resp.notice,
    )
}

#[test]
fn literal_falls_back_to_any_word_with_a_notice_and_partial_quality() {
    let (_dir, store) = store_with(&texts(&[
        "alpha beta",    // n0
        "beta gamma",    // n1
        "gamma",         // n2
        "alpha gamma x", // n3
        "nothing",       // n4
    ]));
    let s = Searcher::load(&store.read().unwrap()).unwrap();
    // every word: n3 only, no notice
    let (ids, q, notice) = run(&s, Engine::Literal, "GAMMA alpha");
    assert_eq!(ids, ["n3"]);
    assert_eq!(q, [Some(MatchQuality::All)]);
    assert_eq!(notice, None);
    // no memory has alpha, gamma and delta: n3 has two words, then one-word matches
    // newest first (n2, n1, n0)
    let (ids, q, notice) = run(&s, Engine::Literal, "alpha gamma delta");
    assert_eq!(ids, ["n3", "n2", "n1", "n0"]);
    assert!(q.iter().all(|q| *q == Some(MatchQuality::Partial)));
    assert_eq!(
        notice.as_deref(),
        Some("no memory matches every word; showing partial matches")
    );
    // nothing matches any word: empty, no notice
    let (ids, _, notice) = run(&s, Engine::Literal, "delta omega");
    assert!(ids.is_empty());
    assert_eq!(notice, None);
    // BM25 without a ranked match ("a" is too short to be a token) shows literal matches
    let (ids, q, notice) = run(&s, Engine::Bm25, "a");
    assert_eq!(ids, ["n3", "n2", "n1", "n0"]); // "a" is a substring of all but "nothing"
    assert!(q.iter().all(|q| *q == Some(MatchQuality::All)));
    assert_eq!(
        notice.as_deref(),
        Some("no ranked match; showing literal matches")
    );
}
