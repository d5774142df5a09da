//! OpenMemory's own export, imported with `memlens import` and read back with `memlens
//! export`: `tests/reference/openmemory_export.zip` is the zip OpenMemory's API answered
//! (`POST /api/v1/backup/export`, run by `scripts/openmemory_export.sh` on memories put
//! into every state through its own code). Every memory must mean what it meant there
//! (SPEC 2.2): content → body (an empty one kept), categories → tags, state → status or
//! `deleted_at`, and what memlens does not model (app, metadata, archived_at) kept.

mod exchange_support;

use exchange_support::{memlens, stderr, stdout};
use memlens::model::Timestamp;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;
use std::path::{Path, PathBuf};

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name)
}

/// A member of a zip, found by its file name in any folder.
fn member(zip: &Path, name: &str) -> Option<Vec<u8>> {
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip).unwrap()).unwrap();
    let full = archive
        .file_names()
        .filter_map(Result::ok)
        .find(|f| f.rsplit('/').next() == Some(name))?
        .into_owned();
    let mut bytes = Vec::new();
    archive
        .by_name(&full)
        .unwrap()
        .read_to_end(&mut bytes)
        .unwrap();
    Some(bytes)
}

/// What OpenMemory's export says of one memory.
#[derive(Debug)]
struct Expected {
    content: String,
    state: String,
    app: Value,
    categories: BTreeSet<String>,
    metadata: Value,
    created_at: String,
    archived_at: Option<String>,
    deleted_at: Option<String>,
}

/// Every memory of the export by id, from its `memories.json` tables; where the zip has
/// `memories.jsonl.gz`, its records must agree with them.
fn expected(zip: &Path) -> BTreeMap<String, Expected> {
    let tables: Map<String, Value> =
        serde_json::from_slice(&member(zip, "memories.json").unwrap()).unwrap();
    let names = |table: &str| -> HashMap<String, Value> {
        tables[table]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["id"].as_str().unwrap().to_string(), r["name"].clone()))
            .collect()
    };
    let (apps, categories) = (names("apps"), names("categories"));
    let time = |v: &Value| v.as_str().map(str::to_string);
    let mut out: BTreeMap<String, Expected> = tables["memories"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let e = Expected {
                content: m["content"].as_str().unwrap().to_string(),
                state: m["state"].as_str().unwrap().to_string(),
                app: apps[m["app_id"].as_str().unwrap()].clone(),
                categories: m["category_ids"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|id| categories[id.as_str().unwrap()].as_str().unwrap().into())
                    .collect(),
                metadata: m["metadata"].clone(),
                created_at: time(&m["created_at"]).unwrap(),
                archived_at: time(&m["archived_at"]),
                deleted_at: time(&m["deleted_at"]),
            };
            (m["id"].as_str().unwrap().to_string(), e)
        })
        .collect();
    if let Some(gz) = member(zip, "memories.jsonl.gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text.lines().count(), out.len());
        for line in text.lines() {
            let r: Value = serde_json::from_str(line).unwrap();
            let e = out.get_mut(r["id"].as_str().unwrap()).unwrap();
            assert_eq!(r["content"], e.content.as_str());
            assert_eq!(r["state"], e.state.as_str());
            assert_eq!(r["app"], e.app);
            let cats: BTreeSet<String> = r["categories"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap().into())
                .collect();
            assert_eq!(cats, e.categories);
            // the records write a missing metadata as {}, the tables as null
            e.metadata = r["metadata"].clone();
        }
    }
    out
}

fn same_time(ours: &Value, theirs: &str, what: &str) {
    let ours = ours
        .as_str()
        .unwrap_or_else(|| panic!("{what}: none, want {theirs}"));
    assert_eq!(
        Timestamp::parse(ours),
        Timestamp::parse(theirs),
        "{what}: {ours} for {theirs}"
    );
    assert!(Timestamp::parse(ours).is_some(), "{what}: {ours}");
}

/// Imports `zip` with `memlens import` (and `extra` arguments) and reads the store back
/// with `memlens export`: each memory by id.
fn import_and_export(zip: &Path, extra: &[&str]) -> BTreeMap<String, Value> {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.redb");
    let db = db.to_str().unwrap();
    let zip = zip.to_str().unwrap();
    let args = [&["--db", db, "import"], extra, &[zip]].concat();
    let out = memlens(dir.path(), &args, &[]);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    assert!(stdout(&out).contains("(openmemory)"), "{}", stdout(&out));
    let out = memlens(
        dir.path(),
        &["--db", db, "export", "--include-deleted"],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| {
            let m: Value = serde_json::from_str(l).unwrap();
            (m["id"].as_str().unwrap().to_string(), m)
        })
        .collect()
}

#[test]
fn the_reference_export_has_every_case() {
    let want = expected(&reference("openmemory_export.zip"));
    let states: BTreeSet<&str> = want.values().map(|e| e.state.as_str()).collect();
    assert_eq!(
        states,
        BTreeSet::from(["active", "archived", "deleted", "paused"])
    );
    assert!(
        want.values().any(|e| e.content.is_empty()),
        "an empty content"
    );
    assert!(
        want.values().any(|e| e.categories.len() > 1),
        "two categories"
    );
    assert!(
        want.values()
            .any(|e| e.metadata.as_object().is_some_and(|m| !m.is_empty())),
        "metadata"
    );
    let apps: BTreeSet<String> = want.values().map(|e| e.app.to_string()).collect();
    assert!(apps.len() > 1, "memories of two apps");
}

#[test]
fn openmemorys_own_export_imports_meaning_what_it_meant_there() {
    for (file, extra) in [
        ("openmemory_export.zip", &[][..]),
        ("openmemory_export.zip", &["--format", "openmemory"][..]),
        ("openmemory_export_tables_only.zip", &[][..]),
    ] {
        let zip = reference(file);
        let want = expected(&zip);
        let got = import_and_export(&zip, extra);
        assert_eq!(
            got.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{file}"
        );
        for (id, e) in &want {
            let m = &got[id];
            let what = |field: &str| format!("{file} {id} {field}");
            assert_eq!(m["body"], e.content.as_str(), "{}", what("body"));
            let tags: BTreeSet<String> = m["tags"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().into())
                .collect();
            assert_eq!(tags, e.categories, "{}", what("tags"));
            let status = match e.state.as_str() {
                "archived" => "deprecated",
                "paused" => "stale",
                "active" | "deleted" => "draft",
                other => panic!("state {other}"),
            };
            assert_eq!(m["status"], status, "{}", what("status"));
            match (&e.deleted_at, e.state == "deleted") {
                (Some(at), true) => same_time(&m["deleted_at"], at, &what("deleted_at")),
                (None, false) => assert!(m.get("deleted_at").is_none(), "{}", what("deleted_at")),
                other => panic!("{}: OpenMemory wrote {other:?}", what("state")),
            }
            same_time(&m["created_at"], &e.created_at, &what("created_at"));
            match &e.archived_at {
                Some(at) => same_time(&m["archived_at"], at, &what("archived_at")),
                None => assert!(
                    m.get("archived_at").is_none_or(Value::is_null),
                    "{}",
                    what("archived_at")
                ),
            }
            assert_eq!(m["app"], e.app, "{}", what("app"));
            assert_eq!(m["metadata"], e.metadata, "{}", what("metadata"));
            assert_eq!(m["source"]["system"], "openmemory", "{}", what("source"));
        }
    }
}
