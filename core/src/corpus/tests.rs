//! The generator is deterministic, valid, and has the intended shapes.

use super::*;
use std::collections::HashMap;

fn spec(seed: u64, size: usize) -> CorpusSpec {
    CorpusSpec {
        seed,
        size,
        body_bytes_target: 200,
    }
}

#[test]
fn the_same_seed_gives_the_same_memories_and_another_seed_does_not() {
    let a: Vec<Memory> = generate(spec(7, 500)).collect();
    let b: Vec<Memory> = generate(spec(7, 500)).collect();
    let c: Vec<Memory> = generate(spec(8, 500)).collect();
    assert_eq!(a.len(), 500);
    assert_eq!(a, b);
    assert_ne!(a, c);
    // A prefix of a larger corpus is not required, but the count is exact.
    assert_eq!(generate(spec(7, 3)).len(), 3);
}

#[test]
fn every_generated_memory_is_valid_and_ids_are_unique() {
    let mut ids = std::collections::HashSet::new();
    for m in generate(spec(1, 5000)) {
        assert!(m.validate().is_empty(), "{}: {:?}", m.id, m.validate());
        assert!(ids.insert(m.id.clone()), "duplicate id {}", m.id);
        assert!(m.updated_at >= m.created_at);
        for r in &m.relationships {
            assert!(r.target < m.id, "{} links forward to {}", m.id, r.target);
        }
        assert!(!plain_line(&m).contains('\n'));
    }
}

#[test]
fn distributions_are_roughly_as_intended() {
    let n = 20_000;
    let all: Vec<Memory> = generate(spec(3, n)).collect();
    let share = |f: &dyn Fn(&Memory) -> bool| all.iter().filter(|m| f(m)).count() as f64 / n as f64;

    let recap = share(&|m| m.memory_type == "session_recap");
    assert!((0.01..0.06).contains(&recap), "session_recap {recap}");
    let types: std::collections::HashSet<&str> =
        all.iter().map(|m| m.memory_type.as_str()).collect();
    assert_eq!(types.len(), TYPES.len());
    for s in Scope::ALL {
        assert!(share(&|m| m.scope == *s) > 0.05, "scope {s}");
    }
    for s in Status::ALL {
        assert!(share(&|m| m.status == *s) > 0.02, "status {s}");
    }
    let linked = share(&|m| !m.relationships.is_empty());
    assert!((0.25..0.35).contains(&linked), "linked {linked}");
    assert!(all.iter().all(|m| m.relationships.len() <= 3));
    let scored = share(&|m| m.is_scored());
    assert!((0.65..0.75).contains(&scored), "scored {scored}");
    let unrated = share(&|m| m.rating_count == 0);
    assert!(unrated > 0.6, "unrated {unrated}");
    assert!(share(&|m| m.rating_count >= 5) > 0.02);
    let deleted = share(&|m| m.is_deleted());
    assert!((0.005..0.05).contains(&deleted), "deleted {deleted}");

    let v = FEEL_DIMS
        .iter()
        .position(|d| d.field == "feel_valence")
        .expect("valence");
    let valences: Vec<f64> = all.iter().filter_map(|m| m.feel[v]).collect();
    assert!(valences.iter().any(|x| *x < -0.3) && valences.iter().any(|x| *x > 0.3));

    let mean_body = all.iter().map(|m| m.body.len()).sum::<usize>() as f64 / n as f64;
    assert!((150.0..260.0).contains(&mean_body), "mean body {mean_body}");

    // Zipf: the commonest tag is far more frequent than the 50th commonest.
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for t in all.iter().flat_map(|m| &m.tags) {
        *counts.entry(t.as_str()).or_default() += 1;
    }
    let mut freq: Vec<usize> = counts.into_values().collect();
    freq.sort_unstable_by(|a, b| b.cmp(a));
    if freq.len() > 50 {
        assert!(
            freq[0] > 5 * freq[49],
            "head {} vs 50th {}",
            freq[0],
            freq[49]
        );
    }
}

#[test]
fn the_sources_say_what_was_used() {
    let used = sources();
    assert!(!used.is_empty());
    println!("corpus sources: {used:?}");
}
