//! What the real clients write, read as they mean it: files and records made by the MCP
//! reference memory server and by remember-core through their own code
//! (`scripts/client_reference.sh` regenerates `tests/reference/`), compared field by
//! field with what memlens imports; and a store written by the 29-field memlens, opened
//! and migrated by this one.

mod exchange_support;

use exchange_support::*;
use memlens::exchange::{ExchangeError, OnConflict};
use memlens::model::{Composite, FEEL_DIMS, Memory, TrustLevel, feel_field_index};
use memlens::store::Store;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/reference")
        .join(name)
}

fn json_file(name: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(reference(name)).unwrap()).unwrap()
}

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

fn opt_f64(v: &Value) -> Option<f64> {
    v.as_f64()
}

#[test]
fn remember_core_records_keep_every_score_and_its_composites_to_the_last_bit() {
    let (_dir, store) = temp_store();
    let summary = import_paths(
        &store,
        &[&reference("remember_core.jsonl")],
        OnConflict::Fail,
    )
    .unwrap();
    let expected = json_file("remember_core.expected.json");
    let expected = expected.as_object().unwrap();
    assert_eq!(summary.added, expected.len());
    let got = memories_by_id(&store);
    for (id, want) in expected {
        let m = &got[id];
        assert_eq!(m.body, want["content"].as_str().unwrap(), "{id}");
        assert_eq!(m.title.as_deref(), want["title"].as_str(), "{id}");
        assert_eq!(
            m.memory_type,
            want["content_type"].as_str().unwrap(),
            "{id}"
        );
        let level = m
            .trust_level
            .unwrap_or_else(|| panic!("{id}: no trust level"));
        assert_eq!(
            u64::from(level.number()),
            want["trust_level"].as_u64().unwrap(),
            "{id}"
        );
        assert_eq!(level.label(), want["trust_label"].as_str().unwrap(), "{id}");
        let scores = want["scores"].as_object().unwrap();
        for (i, dim) in FEEL_DIMS.iter().enumerate() {
            assert_eq!(
                m.feel[i],
                scores.get(dim.field).and_then(Value::as_f64),
                "{id} {}",
                dim.field
            );
        }
        for c in Composite::ALL {
            let want_c = opt_f64(&want["composites"][c.field()]);
            assert_eq!(m.composite(c), want_c, "{id} {}", c.field());
            // remember-core's create stored the same composites
            assert_eq!(want_c, opt_f64(&want["stored_composites"][c.field()]));
        }
    }
    // the file writes its composites; memlens computes them and says so
    assert!(
        summary
            .warnings
            .lines()
            .iter()
            .any(|w| w.contains("total_significance")),
        "{:?}",
        summary.warnings
    );
}

#[test]
fn trust_level_names_are_remember_cores() {
    let labels = json_file("remember_core.trust_labels.json");
    for level in TrustLevel::ALL {
        assert_eq!(
            labels[level.number().to_string()].as_str(),
            Some(level.label())
        );
    }
}

#[test]
fn the_two_valences_are_kept_apart_and_the_functional_layer_alone_has_no_feel_score() {
    let (_dir, store) = temp_store();
    import_paths(
        &store,
        &[&reference("remember_core.jsonl")],
        OnConflict::Fail,
    )
    .unwrap();
    let by_title = |t: &str| {
        memories_by_id(&store)
            .into_values()
            .find(|m| m.title.as_deref() == Some(t))
            .unwrap()
    };
    let two = by_title("Two valences");
    let at = |f| feel_field_index(f).unwrap();
    assert_eq!(two.feel[at("feel_valence")], Some(-0.8));
    assert_eq!(two.feel[at("functional_valence")], Some(0.9));
    assert_eq!(two.feel[at("feel_coherence_tension")], Some(0.2));
    assert_eq!(two.feel[at("functional_coherence_tension")], Some(0.7));
    let functional = by_title("Functional only");
    assert_eq!(functional.composite(Composite::FeelSignificance), None);
    assert_eq!(functional.feel[at("feel_valence")], None);
}

#[test]
fn remember_mcp_names_mean_the_functional_fields_and_out_of_range_is_an_error() {
    let (_dir, store) = temp_store();
    let line = r#"{"id":"a","content":"x","feel_salience":0.25,"feel_aesthetic_quality":1,"functional_valence":0.5}"#;
    import_jsonl(&store, "a.jsonl", line).unwrap();
    let m = &memories_by_id(&store)["a"];
    assert_eq!(
        m.feel[feel_field_index("functional_salience").unwrap()],
        Some(0.25)
    );
    assert_eq!(
        m.feel[feel_field_index("functional_aesthetic_quality").unwrap()],
        Some(1.0)
    );
    assert_eq!(
        m.composite(Composite::FunctionalSignificance),
        Some(1.75 / 3.0)
    );
    let export = export_all(&store);
    assert!(export.contains(r#""functional_salience":0.25"#), "{export}");
    assert!(!export.contains("feel_salience"), "{export}");

    let (_dir, store) = temp_store();
    let bad = [
        r#"{"id":"b","body":"x","functional_valence":-0.5}"#,
        r#"{"id":"c","body":"x","feel_valence":-1.5}"#,
        r#"{"id":"d","body":"x","feel_salience":0.1,"functional_salience":0.2}"#,
        r#"{"id":"e","body":"x","trust_score":7}"#,
        r#"{"id":"f","body":"x","trust_score":2.5}"#,
    ]
    .join("\n");
    let err = match import_jsonl(&store, "bad.jsonl", &bad) {
        Err(ExchangeError::Invalid { problems, .. }) => problems.lines().join("\n"),
        other => panic!("{other:?}"),
    };
    for want in [
        "bad.jsonl:1: functional_valence",
        "bad.jsonl:2: feel_valence",
        "bad.jsonl:3: functional_salience",
        "bad.jsonl:4: trust_score",
        "bad.jsonl:5: trust_score",
    ] {
        assert!(err.contains(want), "{want} in {err}");
    }
    assert!(memories_by_id(&store).is_empty());
}

#[test]
fn a_store_of_the_29_field_memlens_is_migrated_once_losing_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.redb");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema5_index8.redb"),
        &path,
    )
    .unwrap();
    let store = Store::open(&path).unwrap();
    let before = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/schema5_index8.export.jsonl"),
    )
    .unwrap();
    // the 29-field form's layer-2 names are the functional fields now; nothing else moves
    let renamed = ["salience", "urgency", "agency", "novelty"]
        .iter()
        .fold(before, |text, name| {
            text.replace(
                &format!("\"feel_{name}\""),
                &format!("\"functional_{name}\""),
            )
        });
    assert_eq!(export_all(&store), renamed);
    let m = &memories_by_id(&store)["functional-only"];
    assert_eq!(m.composite(Composite::FeelSignificance), None);
    assert!((m.composite(Composite::FunctionalSignificance).unwrap() - 0.4).abs() < 1e-12);
    // the persisted index, rebuilt before the backlinks were upgraded, counts the links
    // as the loaded one does
    let reader = store.read().unwrap();
    let searcher = memlens::search::Searcher::load(&reader).unwrap();
    let req = memlens::search::SearchRequest {
        mode: memlens::search::BrowseMode::Density,
        ..memlens::search::SearchRequest::default()
    };
    let ranked = |index| {
        memlens::search::plan::answer(index, &req)
            .unwrap()
            .hits
            .iter()
            .map(|h| (h.memory.id.clone(), h.relationship_count))
            .collect::<Vec<_>>()
    };
    let loaded = ranked(memlens::search::plan::Index::Loaded(&searcher));
    assert!(loaded.iter().any(|(_, n)| *n > 0), "{loaded:?}");
    assert_eq!(
        ranked(memlens::search::plan::Index::Stored(&reader)),
        loaded
    );
    drop((reader, store));
    // a second open finds it current and changes nothing
    let again = Store::open(&path).unwrap();
    assert_eq!(export_all(&again), renamed);
}

#[test]
fn the_mcp_memory_servers_own_file_imports_whole_as_its_graph_says() {
    let (dir, store) = temp_store();
    let summary =
        import_paths(&store, &[&reference("mcp_memory.jsonl")], OnConflict::Fail).unwrap();
    let graph = json_file("mcp_memory.graph.json");
    let entities = graph["entities"].as_array().unwrap();
    assert_eq!(summary.added, entities.len());
    let got = memories_by_id(&store);
    // every memory maps back to its entity's name: its id, or `source.id` when the
    // name cannot be an id
    let by_name: BTreeMap<String, &Memory> = got
        .values()
        .map(|m| {
            let name = m
                .source
                .as_ref()
                .and_then(|s| s.id.clone())
                .unwrap_or_else(|| m.id.clone());
            (name, m)
        })
        .collect();
    let id_of = |name: &str| match by_name.get(name) {
        Some(m) => m.id.clone(),
        None => memlens::exchange::mcp_memory::entity_id(name).into_owned(),
    };
    for e in entities {
        let name = e["name"].as_str().unwrap();
        let m = by_name[name];
        assert_eq!(m.title.as_deref(), Some(name), "the full name is the title");
        let observations: Vec<&str> = e["observations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o.as_str().unwrap())
            .collect();
        assert_eq!(m.body, observations.join("\n"), "{name}");
        assert_eq!(m.memory_type, e["entityType"].as_str().unwrap());
    }
    assert!(by_name["Empty"].has_empty_body());
    let reader = store.read().unwrap();
    let memories = memlens::collection::LocalCollection::snapshot(store.read().unwrap());
    for r in graph["relations"].as_array().unwrap() {
        let (from, to) = (r["from"].as_str().unwrap(), r["to"].as_str().unwrap());
        let kind = r["relationType"].as_str().unwrap();
        let (from_id, to_id) = (id_of(from), id_of(to));
        let held = [(&from_id, &to_id), (&to_id, &from_id)]
            .iter()
            .any(|(holder, target)| {
                got.get(holder.as_str()).is_some_and(|m| {
                    m.relationships
                        .iter()
                        .any(|l| &l.target == *target && l.kind == kind)
                })
            });
        assert!(held, "relation {from:?} -> {to:?} is kept");
        // the detail view reads it in the direction it was written, whichever end holds it
        for (end, other, outwards) in [(&from_id, &to_id, true), (&to_id, &from_id, false)] {
            if got.contains_key(end.as_str()) {
                let detail = memlens::collection::Collection::detail(&memories, end)
                    .unwrap()
                    .expect("the memory");
                let link = detail
                    .links
                    .iter()
                    .find(|l| &l.id == other && l.kind == kind)
                    .unwrap_or_else(|| panic!("{from:?} -> {to:?} in the detail of {end}"));
                assert_eq!(
                    link.outgoing, outwards,
                    "{from:?} -{kind}-> {to:?} seen from {end}"
                );
            }
        }
        // a missing end is not counted
        for (end, other) in [(&from_id, &to_id), (&to_id, &from_id)] {
            if let Some(m) = got.get(end.as_str())
                && !got.contains_key(other.as_str())
            {
                // distinct memories of the store linked either way; missing ones not
                let linked = got
                    .values()
                    .filter(|o| o.id != m.id)
                    .filter(|o| {
                        m.relationships.iter().any(|l| l.target == o.id)
                            || o.relationships.iter().any(|l| l.target == m.id)
                    })
                    .count();
                assert_eq!(
                    reader.relationship_count(m).unwrap() as usize,
                    linked,
                    "{end}"
                );
            }
        }
    }
    // the command line shows the empty memory as such
    let db = dir.path().join("store.redb");
    drop((reader, memories));
    drop(store);
    let out = memlens(
        dir.path(),
        &["--db", db.to_str().unwrap(), "get", "Empty"],
        &[],
    );
    assert!(stdout(&out).contains("(empty memory"), "{}", stdout(&out));
    let blank = dir.path().join("blank.jsonl");
    std::fs::write(
        &blank,
        "{\"id\":\"blank\",\"body\":\"  \\n\",\"type\":\"todo\"}\n",
    )
    .unwrap();
    let db = db.to_str().unwrap();
    let out = memlens(
        dir.path(),
        &["--db", db, "import", blank.to_str().unwrap()],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let out = memlens(
        dir.path(),
        &["--db", db, "search", "--filter", "type=todo"],
        &[],
    );
    assert!(stdout(&out).contains("(empty memory)"), "{}", stdout(&out));
}

#[test]
fn a_file_that_is_not_openmemorys_zip_is_refused_saying_why() {
    use memlens::exchange::{Format, ImportSource, import};
    let (dir, store) = temp_store();
    let not_zip = dir.path().join("export.zip");
    std::fs::write(&not_zip, b"PK\x03\x04 truncated").unwrap();
    let source = ImportSource::Path(not_zip, Some(Format::Openmemory));
    let err = import(&store, &[source], &options(OnConflict::Fail)).unwrap_err();
    assert!(err.to_string().contains("zip"), "{err}");
    assert!(memories_by_id(&store).is_empty());
}

/// `memlens --db DB ARGS` in `home`, which must succeed: its output.
fn run_ok(home: &Path, db: &Path, args: &[&str]) -> String {
    let db = db.to_str().unwrap();
    let out = memlens(home, &[&["--db", db], args].concat(), &[]);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn a_re_import_with_update_takes_the_sources_changes_and_keeps_the_persons_work() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.redb");
    let run = |args: &[&str]| run_ok(dir.path(), &db, args);
    let source = dir.path().join("remember.jsonl");
    let original = std::fs::read_to_string(reference("remember_core.jsonl")).unwrap();
    std::fs::write(&source, &original).unwrap();
    run(&["import", source.to_str().unwrap()]);
    let expected = json_file("remember_core.expected.json");
    let ids: Vec<&String> = expected.as_object().unwrap().keys().collect();
    let (a, b) = (ids[0].as_str(), ids[1].as_str());
    let get = |id: &str| -> Value { serde_json::from_str(&run(&["get", id, "--json"])).unwrap() };
    let created = get(a)["created_at"].clone();
    run(&["approve", a]);
    run(&["rate", a, "5", "--rater", "ann"]);
    run(&["link", a, b]);
    run(&["set", a, "tags=mine"]);
    // a merge writes the text of the memory it keeps
    let (c, d) = (ids[2].as_str(), ids[3].as_str());
    run(&["merge", c, d]);
    let merged = get(c);
    assert_ne!(merged["body"], get(d)["body"]);
    // the source changes the text and a score of `a`
    let changed: String = original
        .lines()
        .map(|l| {
            let mut v: serde_json::Map<String, Value> = serde_json::from_str(l).unwrap();
            if v["id"] == a {
                v.insert("content".into(), "rewritten by the source".into());
                v.insert("feel_humor".into(), 0.5.into());
                v.insert("updated_at".into(), "2027-01-01T00:00:00.000Z".into());
            }
            if v["id"] == b {
                // the source's own decision on a memory whose status nobody set here
                v.insert("status".into(), "deprecated".into());
            }
            serde_json::to_string(&v).unwrap() + "\n"
        })
        .collect();
    std::fs::write(&source, changed).unwrap();
    let report = run(&[
        "import",
        "--on-conflict",
        "update",
        source.to_str().unwrap(),
    ]);
    // a line for each memory that kept a change made here, the others only counted
    let named = report.lines().filter(|l| l.starts_with("updated ")).count();
    let total = original.lines().count();
    assert!(named >= 2 && named < total, "{report}");
    assert!(
        report.contains(&format!(
            "0 new, {total} updated ({named} keeping changes made in memlens), 0 skipped"
        )),
        "{report}"
    );
    let line = report
        .lines()
        .find(|l| l.starts_with(&format!("updated {a}:")))
        .unwrap_or_else(|| panic!("{report}"));
    for kept in ["status validated", "1 rating", "1 link", "tags mine"] {
        assert!(line.contains(kept), "{kept} in {line}");
    }
    let m = get(a);
    assert_eq!(m["body"], "rewritten by the source");
    assert_eq!(m["feel_humor"], 0.5);
    assert_eq!(m["status"], "validated");
    assert_eq!(m["rating_count"], 1);
    assert_eq!(m["tags"], serde_json::json!(["mine"]));
    assert_eq!(m["created_at"], created);
    assert_eq!(m["relationship_count"], 1);
    assert_eq!(m["updated_at"], "2027-01-01T00:00:00.000Z");
    assert_eq!(
        get(b)["status"],
        "deprecated",
        "the source's status change is taken"
    );
    // the merged text stays, and the report says so
    let line = report
        .lines()
        .find(|l| l.starts_with(&format!("updated {c}:")))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(line.contains("its text"), "{line}");
    assert_eq!(get(c)["body"], merged["body"]);
    assert_eq!(get(c)["title"], merged["title"]);
    // an overwrite, by contrast, is the source's word alone
    run(&[
        "import",
        "--on-conflict",
        "overwrite",
        source.to_str().unwrap(),
    ]);
    assert_eq!(get(a)["status"], "draft");
}

#[test]
fn trust_levels_and_the_31_dimensions_filter_and_sort_on_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.redb");
    let db = db.to_str().unwrap();
    let run = |args: &[&str]| -> Value {
        let out = memlens(dir.path(), &[&["--db", db], args].concat(), &[]);
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        serde_json::from_str(&stdout(&out)).unwrap_or(Value::Null)
    };
    run(&["import", reference("remember_core.jsonl").to_str().unwrap()]);
    let expected = json_file("remember_core.expected.json");
    let expected = expected.as_object().unwrap();
    let count = |pred: &dyn Fn(&Value) -> bool| expected.values().filter(|v| pred(v)).count();
    let total = |filter: &str| {
        run(&["search", "--json", "--limit", "100", "--filter", filter])["total"]
            .as_u64()
            .unwrap() as usize
    };
    let level = |v: &Value| v["trust_level"].as_u64().unwrap();
    assert_eq!(total("trust_level=secret"), count(&|v| level(v) == 5));
    assert_eq!(
        total("trust_level=public..confidential"),
        count(&|v| level(v) <= 3)
    );
    assert_eq!(
        total("trust_level=2,3"),
        count(&|v| (2..=3).contains(&level(v)))
    );
    let scored = |v: &Value, f: &str| v["scores"].get(f).and_then(Value::as_f64);
    assert_eq!(
        total("functional_valence=0.5..1"),
        count(&|v| scored(v, "functional_valence").is_some_and(|x| x >= 0.5))
    );
    // the remember-mcp name of a functional field filters that field
    assert_eq!(
        total("feel_salience=0..0.5"),
        count(&|v| scored(v, "functional_salience").is_some_and(|x| x <= 0.5))
    );
    // sorted by functional significance as remember-core computes it
    let page = run(&[
        "search",
        "--json",
        "--limit",
        "100",
        "--mode",
        "property",
        "--sort-field",
        "functional_significance",
    ]);
    let got: Vec<&str> = page["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    let mut want: Vec<(&String, f64)> = expected
        .iter()
        .filter_map(|(id, v)| Some((id, v["composites"]["functional_significance"].as_f64()?)))
        .collect();
    want.sort_by(|a, b| b.1.total_cmp(&a.1));
    let want_ids: Vec<&str> = want.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(&got[..want_ids.len()], want_ids.as_slice());
    let m = run(&["get", got[0], "--json"]);
    assert!(m["trust_score"].as_u64().is_some(), "{m}");
    let out = memlens(dir.path(), &["--db", db, "get", got[0]], &[]);
    let label = expected[got[0]]["trust_label"].as_str().unwrap();
    assert!(stdout(&out).contains(label), "{}", stdout(&out));
    let bad = memlens(
        dir.path(),
        &["--db", db, "search", "--filter", "trust_level=topsecret"],
        &[],
    );
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}

#[test]
fn hivelore_files_with_an_empty_or_blank_body_are_memories() {
    use memlens::exchange::{Format, ImportSource, import};
    let (_dir, store) = temp_store();
    let sources: Vec<ImportSource> = [
        (
            "a.md",
            "---\nid: a\ntype: decision\ncreated_at: '2026-01-01T00:00:00Z'\n---\n",
        ),
        (
            "b.md",
            "---\nid: b\ntype: gotcha\ncreated_at: '2026-01-01T00:00:00Z'\n---\n  \n",
        ),
    ]
    .into_iter()
    .map(|(name, text)| ImportSource::Text {
        name: name.into(),
        text: text.into(),
        format: Format::Hivelore,
    })
    .collect();
    let summary = import(&store, &sources, &options(OnConflict::Fail)).unwrap();
    assert_eq!(summary.added, 2);
    let got = memories_by_id(&store);
    assert!(got["a"].has_empty_body() && got["b"].has_empty_body());
    assert_eq!(got["a"].shown_headline(), memlens::model::EMPTY_HEADLINE);
}

/// `--on-conflict update` takes the source's word on its links: a link the source
/// dropped goes, while a link made in memlens stays and one unlinked in memlens stays
/// unlinked.
#[test]
fn a_re_import_with_update_drops_the_links_the_source_dropped_and_keeps_the_persons() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.redb");
    let run = |args: &[&str]| run_ok(dir.path(), &db, args);
    let source = dir.path().join("graph.jsonl");
    let write = |r1_links: &str| {
        let mut text = format!(
            r#"{{"id":"r1","body":"one","created_at":"2026-01-01T00:00:00.000Z","relationships":{r1_links}}}"#
        );
        for id in ["r2", "r3", "r4"] {
            text.push_str(&format!(
                "\n{{\"id\":\"{id}\",\"body\":\"{id}\",\"created_at\":\"2026-01-01T00:00:00.000Z\"}}"
            ));
        }
        std::fs::write(&source, text).unwrap();
    };
    write(r#"[{"target":"r2","kind":"supports"},{"target":"r3","kind":"related"}]"#);
    run(&["import", source.to_str().unwrap()]);
    run(&["link", "r1", "r4"]);
    run(&["unlink", "r1", "r3"]);
    // the source drops r2 and still has r3
    write(r#"[{"target":"r3","kind":"related"}]"#);
    let report = run(&[
        "import",
        "--on-conflict",
        "update",
        source.to_str().unwrap(),
    ]);
    let line = report
        .lines()
        .find(|l| l.starts_with("updated r1:"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(
        line.contains("1 link") && line.contains("1 link removed"),
        "{line}"
    );
    let get = |id: &str| -> Value { serde_json::from_str(&run(&["get", id, "--json"])).unwrap() };
    let targets: Vec<Value> = get("r1")["relationships"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["target"].clone())
        .collect();
    assert_eq!(targets, [serde_json::json!("r4")]);
    assert_eq!(get("r2")["relationship_count"], 0, "the source dropped it");
    assert_eq!(get("r3")["relationship_count"], 0, "unlinked in memlens");
    assert_eq!(get("r4")["relationship_count"], 1, "linked in memlens");
}
