//! BM25 quality of memlens on the Cranfield collection: mean nDCG@10 and recall@100 over
//! the 225 queries, beside the reference implementation's figures on the same tokens.
//!
//! Run: `cargo run --release --example cranfield` (needs `../shared/fixtures/cranfield`;
//! the reference needs python3 and installs `rank_bm25` with pip when missing).

#[path = "../tests/search_support/cranfield.rs"]
mod cranfield;

use memlens::search::{Engine, SearchRequest, Searcher};
use memlens::store::Store;
use std::collections::HashMap;
use std::path::Path;
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let Some(c) = cranfield::load(Path::new(cranfield::DIR)) else {
        println!("skipped: {} is absent", cranfield::DIR);
        return Ok(());
    };
    let memories = cranfield::memories(&c);
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("cranfield.redb"))?;
    let mut w = store.write()?;
    for m in &memories {
        w.put(m)?;
    }
    w.commit()?;
    let searcher = Searcher::load(&store.read()?)?;
    searcher.warm();
    let started = Instant::now();
    let mut rankings: HashMap<usize, Vec<String>> = HashMap::new();
    for (i, q) in c.queries.iter().enumerate() {
        let resp = searcher.search(&SearchRequest {
            query: q.clone(),
            engine: Engine::Bm25,
            limit: 100,
            ..SearchRequest::default()
        });
        rankings.insert(i + 1, resp.hits.into_iter().map(|h| h.memory.id).collect());
    }
    let elapsed = started.elapsed();
    let (ndcg, recall, n) = cranfield::measures(&c, &rankings);
    println!(
        "memlens    nDCG@10 {ndcg:.6}  recall@100 {recall:.6}  over {n} queries ({} docs, {:.1} ms for all queries)",
        memories.len(),
        elapsed.as_secs_f64() * 1e3
    );
    let (docs, queries) = cranfield::write_tokens(dir.path(), &memories, &c.queries);
    let qrels = Path::new(cranfield::DIR).join("cranqrel");
    match cranfield::run_reference(dir.path(), &docs, &queries, Some(&qrels)) {
        Ok(r) => print!("{}", r.printed),
        Err(why) => println!("reference not run: {why}"),
    }
    Ok(())
}
