//! The engine against the brute-force oracle on real hivelore memories
//! (`../shared/fixtures/hivelore/memories`), every engine and mode, a few filters.

mod search_support;

use memlens::model::{Memory, Relationship, Timestamp};
use memlens::search::{BrowseMode, Engine, Filters, NumericField, Order, SearchRequest};
use search_support::{actual, assert_agrees, loaded, oracle};
use serde_yaml_ng::Value;
use std::path::Path;

const DIR: &str = "../shared/fixtures/hivelore/memories";

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).map(str::to_string)
}

fn list(v: &Value, key: &str) -> Vec<String> {
    v.get(key)
        .and_then(Value::as_sequence)
        .map(|s| {
            s.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A minimal reading of one hivelore file: frontmatter keys by name, the first `# `
/// heading as title, the rest as body.
fn parse(path: &Path) -> Option<Memory> {
    let raw = std::fs::read_to_string(path).ok()?;
    let rest = raw.strip_prefix("---\n")?;
    let (front, body) = rest.split_once("\n---\n")?;
    let meta: Value = serde_yaml_ng::from_str(front).ok()?;
    let created = text(&meta, "created_at").and_then(|t| Timestamp::parse(&t))?;
    let mut m = Memory::new(text(&meta, "id")?, body.trim().to_string(), created);
    m.title = body
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string());
    m.memory_type = text(&meta, "type").unwrap_or_else(|| "note".into());
    m.scope = text(&meta, "scope")?.parse().ok()?;
    m.status = text(&meta, "status")?.parse().ok()?;
    m.tags = list(&meta, "tags");
    m.last_read_at = text(&meta, "last_read_at").and_then(|t| Timestamp::parse(&t));
    m.relationships = list(&meta, "related_ids")
        .into_iter()
        .map(|target| Relationship {
            target,
            kind: "related".into(),
            strength: None,
        })
        .collect();
    m.normalise();
    Some(m)
}

#[test]
fn engine_agrees_with_the_oracle_on_real_hivelore_memories() {
    let dir = Path::new(DIR);
    if !dir.is_dir() {
        eprintln!("skipped: {DIR} is absent");
        return;
    }
    let mut memories: Vec<Memory> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .filter_map(|p| parse(&p))
        .collect();
    memories.sort_by(|a, b| a.id.cmp(&b.id));
    assert!(
        memories.len() >= 100,
        "only {} memories parsed",
        memories.len()
    );
    // a few ratings and deletions so rating, discovery and deleted filters have work
    for (i, m) in memories.iter_mut().enumerate() {
        if i % 4 == 0 {
            m.rating_count = 5 + (i % 3) as u32;
            m.rating_sum = m.rating_count * (1 + (i % 5) as u32);
        }
        if i % 11 == 0 {
            m.deleted_at = Some(m.created_at);
        }
    }
    let (_dir, searcher, docs) = loaded(&memories);
    let queries = [
        "",
        "test",
        "commit tests",
        "embedder",
        "mcp tool handler",
        "zzzz qqqq",
        "the",
        "Interface",
        "sqlite index",
        "hook",
        "a",
        "run before",
        "ts",
        "memory store",
    ];
    let mut filter_sets = vec![Filters::default()];
    for args in [
        &["type=convention,gotcha"][..],
        &["status=validated", "deleted=include"],
        &["tag=testing,mcp"],
        &["has_relationships=true"],
        &["exclude_type=architecture", "rating_min=3.2"],
    ] {
        let mut f = Filters::default();
        for a in args {
            f.apply_arg(a).unwrap();
        }
        filter_sets.push(f);
    }
    let modes = [
        BrowseMode::Relevance,
        BrowseMode::Time,
        BrowseMode::Density,
        BrowseMode::Rating,
        BrowseMode::Discovery,
        BrowseMode::Property(NumericField::RatingCount),
    ];
    let mut checked = 0;
    for q in queries {
        for engine in Engine::ALL {
            for filters in &filter_sets {
                for mode in modes {
                    for order in [None, Some(Order::Asc)] {
                        let req = SearchRequest {
                            query: q.into(),
                            engine,
                            filters: filters.clone(),
                            mode,
                            order,
                            offset: 2,
                            limit: 25,
                        };
                        let expected = oracle(&docs, &req);
                        assert_agrees(
                            &expected,
                            &actual(&searcher.search(&req)),
                            &format!("{req:?}"),
                        );
                        checked += usize::from(expected.total > 0);
                    }
                }
            }
        }
    }
    assert!(checked > 500, "too few requests had results: {checked}");
}
