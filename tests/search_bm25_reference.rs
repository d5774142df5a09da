//! memlens's BM25 scores against an independent reference (rank_bm25 with SPEC's idf,
//! `scripts/bm25_reference.py`) on the Cranfield collection, fed the same tokens: every
//! score of 45 of the 225 queries (with and without the inverted index) equal to 1e-9
//! relative, and the same memories scored.

#[path = "search_support/cranfield.rs"]
mod cranfield;
mod search_support;

use memlens::search::{Engine, SearchRequest, Searcher};
use std::path::Path;

#[test]
fn bm25_scores_equal_the_reference_on_cranfield() {
    let Some(c) = cranfield::load(Path::new(cranfield::DIR)) else {
        eprintln!("skipped: {} is absent", cranfield::DIR);
        return;
    };
    if std::process::Command::new("python3")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: python3 is not available");
        return;
    }
    let memories = cranfield::memories(&c);
    // two of the 1400 documents are empty and cannot be memories
    assert_eq!(c.docs.len(), 1400);
    assert_eq!(memories.len(), 1398);
    assert_eq!(c.queries.len(), 225);
    let (dir, store) = search_support::store_with(&memories);
    let searcher = Searcher::load(&store.read().unwrap()).unwrap();
    let (docs, queries) = cranfield::write_tokens(dir.path(), &memories, &c.queries);
    let reference = match cranfield::run_reference(dir.path(), &docs, &queries, None) {
        Ok(r) => r,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    eprintln!("{}", reference.printed.trim());
    let mut compared = 0;
    for warmed in [false, true] {
        if warmed {
            searcher.warm();
        }
        compared += compare_all(&searcher, &c.queries, &reference);
    }
    assert!(compared > 40_000, "only {compared} scores compared");
}

/// Compares every score of every query; returns how many were compared.
fn compare_all(searcher: &Searcher, queries: &[String], reference: &cranfield::Reference) -> usize {
    let mut compared = 0;
    // every fifth query (45 of 225) keeps the debug-build run short
    for (i, q) in queries.iter().enumerate().step_by(5) {
        let resp = searcher.search(&SearchRequest {
            query: q.clone(),
            engine: Engine::Bm25,
            limit: usize::MAX,
            ..SearchRequest::default()
        });
        assert!(resp.notice.is_none(), "query {} fell back: {q}", i + 1);
        let expected = &reference.scores[&(i + 1)];
        assert_eq!(
            resp.total,
            expected.len(),
            "query {}: number of scored docs",
            i + 1
        );
        for hit in &resp.hits {
            let got = hit.score.unwrap();
            let want = expected[&hit.memory.id];
            assert!(
                (got - want).abs() <= 1e-9 * want.abs(),
                "query {} doc {}: {got} vs reference {want}",
                i + 1,
                hit.memory.id
            );
            compared += 1;
        }
    }
    compared
}
