//! Import and export of JSONL and the graph formats: byte-identical round trips on the
//! demo collection and on generated data, every kind of bad input reported as
//! `FILE:LINE: field: reason` with the store unchanged, conflicts and dry runs, and the
//! MCP memory and OpenMemory formats.

mod exchange_support;

use exchange_support::generate;
use exchange_support::*;
use memlens::exchange::{
    ExchangeError, Format, ImportOptions, ImportSource, OnConflict, PROBLEM_CAP, import,
};
use memlens::model::{Memory, Status, Timestamp};
use memlens::store::Store;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::Path;

fn memories_by_id(store: &Store) -> BTreeMap<String, Memory> {
    store
        .read()
        .unwrap()
        .memories()
        .unwrap()
        .into_iter()
        .map(|m| (m.id.clone(), m))
        .collect()
}

fn round_trip_is_byte_identical(name: &str, text: &str, expected: usize) {
    let (_a, first) = temp_store();
    let summary = import_jsonl(&first, name, text).unwrap();
    assert_eq!(summary.added, expected);
    let export1 = export_all(&first);
    assert_eq!(export1.lines().count(), expected);
    let (_b, second) = temp_store();
    import_jsonl(&second, "export1.jsonl", &export1).unwrap();
    let export2 = export_all(&second);
    assert!(export1 == export2, "second export differs");
    let ids: Vec<String> = export1
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["id"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids, sorted, "export is sorted by id");
}

#[test]
fn demo_collection_round_trips_byte_identical() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    round_trip_is_byte_identical(
        "demo.jsonl",
        &text,
        text.lines().filter(|l| !l.trim().is_empty()).count(),
    );
}

#[test]
fn generated_collection_round_trips_byte_identical_and_unchanged() {
    let memories = generate::memories(42, 3000);
    let text = generate::jsonl(&memories);
    round_trip_is_byte_identical("gen.jsonl", &text, 3000);
    let (_t, store) = temp_store();
    import_jsonl(&store, "gen.jsonl", &text).unwrap();
    let stored = memories_by_id(&store);
    for m in &memories {
        assert_eq!(&stored[&m.id], m);
    }
}

/// Imports `files` (name, content) from a temp dir and returns the problem lines; checks
/// the store is exactly as before.
fn problems_for(files: &[(&str, &str)]) -> Vec<String> {
    let (tmp, store) = temp_store();
    import_jsonl(
        &store,
        "seed.jsonl",
        "{\"id\":\"seeded\",\"body\":\"already here\"}\n",
    )
    .unwrap();
    let before = export_all(&store);
    let mut paths = Vec::new();
    for (name, content) in files {
        let p = tmp.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(&p, content).unwrap();
        paths.push(p);
    }
    let sources: Vec<ImportSource> = paths
        .iter()
        .map(|p| ImportSource::Path(p.clone(), None))
        .collect();
    let err = import(&store, &sources, &options(OnConflict::Fail)).expect_err("must fail");
    let ExchangeError::Invalid { problems, .. } = err else {
        panic!("not a problem list: {err}")
    };
    assert_eq!(export_all(&store), before, "the store changed");
    assert_eq!(store.read().unwrap().len().unwrap(), 1);
    let prefix = format!("{}/", tmp.path().display());
    problems
        .lines()
        .into_iter()
        .map(|l| l.replace(&prefix, ""))
        .collect()
}

#[test]
fn each_kind_of_bad_input_is_reported_precisely_and_nothing_is_written() {
    let good = r#"{"id":"ok","body":"fine"}"#;
    assert_eq!(
        problems_for(&[(
            "feel.jsonl",
            &format!("{good}\n{{\"id\":\"f\",\"body\":\"x\",\"feel_humor\":1.5}}\n")
        )]),
        ["feel.jsonl:2: feel_humor: 1.5 is outside 0–1"]
    );
    assert_eq!(
        problems_for(&[(
            "valence.jsonl",
            "{\"id\":\"v\",\"body\":\"x\",\"feel_valence\":-1.2}\n"
        )]),
        ["valence.jsonl:1: feel_valence: -1.2 is outside -1–1"]
    );
    assert_eq!(
        problems_for(&[("nobody.jsonl", "{\"id\":\"n\",\"title\":\"t\"}\n")]),
        ["nobody.jsonl:1: body: required field is missing"]
    );
    assert_eq!(
        problems_for(&[(
            "dup.jsonl",
            &format!("{good}\n{{\"id\":\"x\",\"body\":\"1\"}}\n{good}\n")
        )]),
        ["dup.jsonl:3: id: duplicate of dup.jsonl:1"]
    );
    assert_eq!(
        problems_for(&[("a.jsonl", good), ("b.jsonl", &format!("\n\n{good}"))]),
        ["b.jsonl:3: id: duplicate of a.jsonl:1"]
    );
    let broken = problems_for(&[(
        "broken.jsonl",
        &format!("{good}\n{{\"id\":\"b\",\"body\":\n"),
    )]);
    assert_eq!(broken.len(), 1);
    assert!(
        broken[0].starts_with("broken.jsonl:2: json: invalid JSON: EOF while parsing"),
        "{broken:?}"
    );
    assert_eq!(
        problems_for(&[(
            "types.jsonl",
            "{\"id\":\"t\",\"body\":\"x\",\"weight\":\"heavy\",\"tags\":5}\n"
        )]),
        [
            "types.jsonl:1: weight: expected a number, found a string",
            "types.jsonl:1: tags: expected an array of strings, found a number"
        ]
    );
    assert_eq!(
        problems_for(&[("conflict.jsonl", "{\"id\":\"seeded\",\"body\":\"again\"}\n")]),
        [
            "conflict.jsonl:1: id: `seeded` is already in the store (use --on-conflict skip, update or overwrite)"
        ]
    );
    let yaml = problems_for(&[(
        "mem/a.md",
        "---\nid: a\ntype: decision\ntags: [unclosed\ncreated_at: '2026-01-01T00:00:00Z'\n---\nbody\n",
    )]);
    assert_eq!(yaml.len(), 1);
    assert!(
        yaml[0].starts_with("mem/a.md:5: frontmatter: invalid YAML: "),
        "{yaml:?}"
    );
    assert_eq!(
        problems_for(&[(
            "mem/b.md",
            "---\nid: b\ntype: decision\nstatus: approved\ncreated_at: '2026-01-01T00:00:00Z'\n---\nbody\n"
        )]),
        [
            "mem/b.md:4: status: `approved` is not one of draft, proposed, validated, deprecated, stale, rejected"
        ]
    );
}

#[test]
fn problem_lists_are_capped_and_count_the_rest() {
    let text: String = (0..60).map(|i| format!("{{\"id\":\"m{i}\"}}\n")).collect();
    let lines = problems_for(&[("many.jsonl", &text)]);
    assert_eq!(lines.len(), PROBLEM_CAP + 1);
    assert_eq!(lines[0], "many.jsonl:1: body: required field is missing");
    assert_eq!(lines[PROBLEM_CAP], "… and 10 more");
}

#[test]
fn conflicts_follow_the_chosen_policy_and_dry_runs_write_nothing() {
    let (_t, store) = temp_store();
    import_jsonl(&store, "a.jsonl", "{\"id\":\"a\",\"body\":\"old\"}\n").unwrap();
    let text = "{\"id\":\"a\",\"body\":\"new\"}\n{\"id\":\"b\",\"body\":\"b\"}\n";
    let src = || {
        vec![ImportSource::Text {
            name: "n.jsonl".into(),
            text: text.into(),
            format: Format::Jsonl,
        }]
    };
    let dry = ImportOptions {
        dry_run: true,
        ..options(OnConflict::Overwrite)
    };
    let summary = import(&store, &src(), &dry).unwrap();
    assert_eq!(
        (summary.added, summary.replaced, summary.dry_run),
        (1, 1, true)
    );
    assert_eq!(store.read().unwrap().len().unwrap(), 1, "dry run wrote");
    let summary = import(&store, &src(), &options(OnConflict::Skip)).unwrap();
    assert_eq!((summary.added, summary.skipped), (1, 1));
    assert_eq!(memories_by_id(&store)["a"].body, "old");
    let summary = import(&store, &src(), &options(OnConflict::Overwrite)).unwrap();
    assert_eq!((summary.added, summary.replaced), (0, 2));
    assert_eq!(memories_by_id(&store)["a"].body, "new");
}

#[test]
fn mcp_memory_and_gzipped_openmemory_files_are_detected_and_mapped() {
    use std::io::Write;
    let (tmp, store) = temp_store();
    let mcp = tmp.path().join("memory.jsonl");
    std::fs::write(
        &mcp,
        concat!(
            "{\"type\":\"entity\",\"name\":\"Ada\",\"entityType\":\"person\",\"observations\":[\"writes notes\"]}\n",
            "{\"type\":\"entity\",\"name\":\"Engine\",\"entityType\":\"machine\",\"observations\":[\"computes\",\"is big\"]}\n",
            "{\"type\":\"relation\",\"from\":\"Ada\",\"to\":\"Engine\",\"relationType\":\"programs\"}\n",
        ),
    )
    .unwrap();
    let om = tmp.path().join("memories.jsonl.gz");
    let mut gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&om).unwrap(),
        flate2::Compression::default(),
    );
    gz.write_all(b"{\"id\":\"9f1c\",\"content\":\"prefers tabs\",\"metadata\":{},\"created_at\":\"2025-03-01T10:00:00\",\"updated_at\":\"2025-03-02T10:00:00\",\"state\":\"paused\",\"app\":\"cursor\",\"categories\":[\"style\"]}\n").unwrap();
    gz.finish().unwrap();
    let summary = import_paths(&store, &[&mcp, &om], OnConflict::Fail).unwrap();
    let formats: Vec<Format> = summary.sources.iter().map(|s| s.1).collect();
    assert_eq!(formats, [Format::McpMemory, Format::Openmemory]);
    let all = memories_by_id(&store);
    let engine = &all["Engine"];
    assert_eq!(
        (engine.body.as_str(), engine.memory_type.as_str()),
        ("computes\nis big", "machine")
    );
    let reader = store.read().unwrap();
    assert_eq!(
        reader.relationship_count(engine).unwrap(),
        1,
        "the link shows on both ends"
    );
    assert_eq!(all["Ada"].relationships[0].kind, "programs");
    let om = &all["9f1c"];
    assert_eq!(om.status, Status::Stale);
    assert_eq!(om.tags, ["style"]);
    assert_eq!(om.extra["app"], json!("cursor"));
    assert_eq!(
        om.created_at,
        Timestamp::parse("2025-03-01T10:00:00Z").unwrap()
    );
}
