//! Shared by the curation tests: a store in a temporary directory, sample memories,
//! and a canonical snapshot of everything stored to compare before and after.

#![allow(dead_code)]

use memlens::model::{Memory, Relationship, Scope, Status, Timestamp, feel_index};
use memlens::store::Store;
use tempfile::TempDir;

/// A fresh store in its own temporary directory (kept alive by the returned guard).
pub fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = Store::open(&dir.path().join("memlens.redb")).expect("open store");
    (dir, store)
}

/// An instant given as RFC 3339.
pub fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("valid timestamp")
}

/// When the sample memories were written.
pub fn long_ago() -> Timestamp {
    at("2021-03-04T05:06:07.089Z")
}

/// A plain memory written long ago.
pub fn memory(id: &str) -> Memory {
    let mut m = Memory::new(id, format!("body of {id}"), long_ago());
    m.title = Some(format!("Title {id}"));
    m.tags = vec!["alpha".into(), "beta".into()];
    m
}

/// A memory with every optional field filled in, to check nothing is lost.
pub fn full_memory(id: &str, linked_to: &str) -> Memory {
    let mut m = memory(id);
    m.memory_type = "decision".into();
    m.scope = Scope::Module;
    m.module = Some("store".into());
    m.status = Status::Proposed;
    m.weight = 0.25;
    m.trust = 0.75;
    m.confidence = Some(0.6);
    m.deleted_reason = None;
    m.last_read_at = Some(at("2022-01-01T00:00:00Z"));
    m.read_count = 7;
    m.rating_sum = 9;
    m.rating_count = 3;
    m.relationships = vec![Relationship {
        target: linked_to.into(),
        kind: "supersedes".into(),
        strength: Some(0.5),
    }];
    m.feel[feel_index("humor").expect("humor")] = Some(0.4);
    m.feel[feel_index("valence").expect("valence")] = Some(-0.3);
    m.rem_visits = Some(2);
    m.extra
        .insert("anchor".into(), serde_json::json!({"file": "src/a.rs"}));
    m.extra
        .insert("validated_by".into(), serde_json::Value::Null);
    m
}

/// Stores memories in one transaction, normalised first as every writer of the program
/// does (the store refuses memories that would not read back as given).
pub fn seed(store: &Store, memories: &[Memory]) {
    let mut w = store.write().expect("write");
    for m in memories {
        let mut m = m.clone();
        m.normalise();
        w.put(&m).expect("put");
    }
    w.commit().expect("commit");
}

/// The memory as stored.
pub fn get(store: &Store, id: &str) -> Memory {
    store
        .read()
        .expect("read")
        .get(id)
        .expect("get")
        .unwrap_or_else(|| panic!("memory {id} is missing"))
}

/// True when the store holds a memory with this id.
pub fn exists(store: &Store, id: &str) -> bool {
    store.read().expect("read").get(id).expect("get").is_some()
}

/// Ids linked to a memory in either direction, as the store reports them.
pub fn linked(store: &Store, id: &str) -> Vec<String> {
    let r = store.read().expect("read");
    let m = r.get(id).expect("get").expect("present");
    r.linked_ids(&m).expect("linked ids")
}

/// Every stored memory as canonical JSONL sorted by id, each followed by the ids the
/// store shows linked to it (so reverse links are compared too).
pub fn snapshot(store: &Store) -> Vec<String> {
    let r = store.read().expect("read");
    let mut memories = r.memories().expect("memories");
    memories.sort_by(|a, b| a.id.cmp(&b.id));
    memories
        .iter()
        .map(|m| {
            let links = r.linked_ids(m).expect("linked ids").join(",");
            format!("{} <-> [{links}]", m.to_json_line())
        })
        .collect()
}
