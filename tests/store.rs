//! The store file: refusing what is not a memlens store, a newer schema and a file
//! another process holds (each a one-line error naming the file, exit 1, no panic), and
//! the write paths imports use (bulk puts, metadata, id-ordered reads).

mod exchange_support;

use exchange_support::{memlens, stderr, temp_store};
use memlens::model::{Memory, Timestamp};
use memlens::store::tables::{
    BACKLINKS, KEY_SCHEMA, MEMORIES, META, OLD_BACKLINKS, SCHEMA_VERSION, decode,
};
use memlens::store::{Store, StoreError};
use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableHandle};
use std::path::Path;

/// Runs `memlens stats --db path` and checks it fails with one `error:` line naming
/// the file and containing `expected`.
fn refused_by_the_binary(home: &Path, path: &Path, expected: &str) {
    // A held store is waited for; 200 ms keeps the test short.
    let out = memlens(
        home,
        &["stats", "--db", path.to_str().unwrap()],
        &[("MEMLENS_LOCK_WAIT_MS", "200")],
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line expected: {err}");
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains(&path.display().to_string()), "{err}");
    assert!(err.contains(expected), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn a_text_file_is_refused_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("notes.txt");
    std::fs::write(&path, "just some notes\n").unwrap();
    let err = Store::open(&path).err().expect("must refuse");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
    refused_by_the_binary(dir.path(), &path, "not a memlens store");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "just some notes\n");
}

#[test]
fn a_redb_file_of_another_program_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("other.redb");
    {
        let db = redb::Database::create(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let table: redb::TableDefinition<&str, u64> = redb::TableDefinition::new("counters");
            txn.open_table(table).unwrap().insert("x", 1).unwrap();
        }
        txn.commit().unwrap();
    }
    let before = std::fs::read(&path).unwrap();
    let err = Store::open(&path).err().expect("must refuse");
    assert!(matches!(err, StoreError::NotAStore { .. }), "{err}");
    refused_by_the_binary(dir.path(), &path, "another program");
    assert!(
        std::fs::read(&path).unwrap() == before,
        "the foreign file changed"
    );
}

#[test]
fn a_store_from_a_newer_memlens_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("new.redb");
    drop(Store::open(&path).unwrap());
    {
        let db = redb::Database::open(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut meta = txn.open_table(META).unwrap();
            meta.insert(KEY_SCHEMA, (SCHEMA_VERSION + 1).to_le_bytes().as_slice())
                .unwrap();
        }
        txn.commit().unwrap();
    }
    match Store::open(&path) {
        Err(StoreError::NewerSchema {
            found, supported, ..
        }) => {
            assert_eq!((found, supported), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        }
        Err(other) => panic!("wrong error: {other}"),
        Ok(_) => panic!("a newer schema was opened"),
    }
    refused_by_the_binary(dir.path(), &path, "newer memlens");
}

/// The first byte of each stored memory row, by document number.
fn row_heads(path: &Path) -> Vec<u8> {
    let db = redb::Database::open(path).unwrap();
    let txn = db.begin_read().unwrap();
    let memories = txn.open_table(MEMORIES).unwrap();
    memories
        .iter()
        .unwrap()
        .map(|row| row.unwrap().1.value()[0])
        .collect()
}

#[test]
fn a_store_of_schema_1_gains_checksums_once_and_is_stamped_with_the_current_schema() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.redb");
    let mut kept = Memory::new("kept", "stored as a JSON line", Timestamp(5));
    kept.tags = vec!["old".into()];
    kept.feel[3] = Some(0.25);
    let rewritten = Memory::new("rewritten", "also a JSON line", Timestamp(6));
    {
        let store = Store::open(&path).unwrap();
        let mut w = store.write().unwrap();
        w.put(&kept).unwrap();
        w.put(&rewritten).unwrap();
        w.commit().unwrap();
    }
    // What memlens wrote before the compact form: canonical JSON lines, schema 1.
    {
        let db = redb::Database::open(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut memories = txn.open_table(MEMORIES).unwrap();
            let rows: Vec<(u32, Memory)> = memories
                .iter()
                .unwrap()
                .map(|row| {
                    let (doc, bytes) = row.unwrap();
                    (doc.value(), decode(bytes.value()).unwrap())
                })
                .collect();
            for (doc, m) in rows {
                memories.insert(doc, m.to_json_line().as_bytes()).unwrap();
            }
            let mut meta = txn.open_table(META).unwrap();
            meta.insert(KEY_SCHEMA, 1u32.to_le_bytes().as_slice())
                .unwrap();
        }
        txn.commit().unwrap();
    }
    assert_eq!(row_heads(&path), vec![b'{', b'{']);

    let steps = std::cell::RefCell::new(Vec::new());
    let store = Store::open_announcing(&path, &|step| steps.borrow_mut().push(step)).unwrap();
    assert_eq!(steps.take(), vec![memlens::store::LongStep::AddChecksums]);
    drop(store);
    // every memory is rewritten with its checksum, once
    assert_eq!(row_heads(&path), vec![3, 3]);
    let store = Store::open_announcing(&path, &|step| steps.borrow_mut().push(step)).unwrap();
    assert_eq!(steps.take(), vec![]);
    assert_eq!(
        store.read().unwrap().get("kept").unwrap(),
        Some(kept.clone())
    );
    let mut changed = rewritten.clone();
    changed.body = "now in the compact form".into();
    let mut w = store.write().unwrap();
    w.put(&changed).unwrap();
    w.commit().unwrap();
    let reader = store.read().unwrap();
    assert_eq!(reader.get("kept").unwrap(), Some(kept));
    assert_eq!(reader.get("rewritten").unwrap(), Some(changed));
    drop(reader);
    drop(store);

    assert_eq!(row_heads(&path), vec![3, 3]);
    let db = redb::Database::open(&path).unwrap();
    let txn = db.begin_read().unwrap();
    let meta = txn.open_table(META).unwrap();
    let stamped = meta.get(KEY_SCHEMA).unwrap().unwrap().value().to_vec();
    assert_eq!(stamped, SCHEMA_VERSION.to_le_bytes());
    const { assert!(SCHEMA_VERSION > 1) };
}

#[test]
fn a_store_an_import_holds_alone_is_waited_for_then_refused() {
    let (dir, store) = temp_store();
    let path = store.path().to_path_buf();
    let mut w = store.write().unwrap();
    w.put(&Memory::new("a", "held", Timestamp(0))).unwrap();
    w.commit().unwrap();
    // A store open as other commands open it is shared: the binary reads it.
    let got = memlens(
        dir.path(),
        &["get", "a", "--db", path.to_str().unwrap()],
        &[],
    );
    assert_eq!(got.status.code(), Some(0), "{}", stderr(&got));
    drop(store);
    // An import's open holds the file alone when nobody else has it; the binary, a
    // second process, waits for it and then says so.
    let import = Store::open_for_import(&path, &|_| {}).unwrap();
    refused_by_the_binary(dir.path(), &path, "open in another memlens process");
    let out = memlens(
        dir.path(),
        &["get", "a", "--db", path.to_str().unwrap()],
        &[("MEMLENS_LOCK_WAIT_MS", "200")],
    );
    assert_eq!(out.status.code(), Some(1));
    drop(import);
    let out = memlens(
        dir.path(),
        &["get", "a", "--db", path.to_str().unwrap()],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_dropped_write_transaction_changes_nothing() {
    let (_dir, store) = temp_store();
    {
        let mut w = store.write().unwrap();
        w.put(&Memory::new("a", "x", Timestamp(0))).unwrap();
    }
    assert_eq!(store.read().unwrap().len().unwrap(), 0);
}

/// Puts memories `ids` through a bulk writer of `w`, then takes a step.
fn put_then_step(w: &mut memlens::store::StoreWriter, ids: &[&str], body: &str) {
    {
        let mut bulk = w.bulk().unwrap();
        for id in ids {
            bulk.put(&Memory::new(*id, body, Timestamp(0))).unwrap();
        }
    }
    w.checkpoint().unwrap();
}

/// The ids and bodies a store holds.
fn held(store: &Store) -> Vec<(String, String)> {
    let mut all = Vec::new();
    store
        .read()
        .unwrap()
        .try_for_each_by_id(|m| {
            all.push((m.id, m.body));
            Ok::<(), StoreError>(())
        })
        .unwrap();
    all
}

#[test]
fn steps_are_seen_as_they_are_taken_and_undone_together() {
    let (dir, store) = temp_store();
    let path = dir.path().join("store.redb");
    // steps are taken only by a store this process holds alone, as an import's
    drop(store);
    let store = Store::open_for_import(&path, &|_| {}).unwrap();
    let mut w = store.write().unwrap();
    w.put(&Memory::new("kept", "before", Timestamp(0))).unwrap();
    w.commit().unwrap();
    let before = held(&store);

    // each step is committed: a reader of this process sees it
    let mut w = store.write_in_steps(1).unwrap();
    put_then_step(&mut w, &["a", "b"], "first");
    assert_eq!(w.steps_taken(), 1);
    assert_eq!(held(&store).len(), 3);
    put_then_step(&mut w, &["kept", "c"], "second");
    assert_eq!(w.steps_taken(), 2);
    assert_eq!(
        store.read().unwrap().get("kept").unwrap().unwrap().body,
        "second"
    );
    w.abandon().unwrap();
    assert_eq!(held(&store), before);
    // dropped without a word, it undoes its steps too
    let mut w = store.write_in_steps(1).unwrap();
    put_then_step(&mut w, &["e"], "dropped");
    assert_eq!(held(&store).len(), 2);
    drop(w);
    assert_eq!(held(&store), before);

    // undone for good: the file reopens as it was, with nothing to recover
    drop(store);
    let snapshot = Store::snapshot(&path)
        .unwrap()
        .expect("a store closed cleanly");
    assert_eq!(snapshot.len().unwrap(), 1);
    drop(snapshot);

    // a write in steps that commits keeps every step, across a reopen
    let store = Store::open_for_import(&path, &|_| {}).unwrap();
    let mut w = store.write_in_steps(1).unwrap();
    put_then_step(&mut w, &["a", "b"], "first");
    put_then_step(&mut w, &["kept"], "second");
    w.put(&Memory::new("d", "last", Timestamp(0))).unwrap();
    w.commit().unwrap();
    drop(store);
    let store = Store::open(&path).unwrap();
    let bodies: Vec<(&str, &str)> = vec![
        ("a", "first"),
        ("b", "first"),
        ("d", "last"),
        ("kept", "second"),
    ];
    let got = held(&store);
    let got: Vec<(&str, &str)> = got.iter().map(|(i, b)| (i.as_str(), b.as_str())).collect();
    assert_eq!(got, bodies);
}

#[test]
fn bulk_puts_number_documents_densely_and_across_transactions() {
    let (_dir, store) = temp_store();
    let mut w = store.write().unwrap();
    {
        let mut bulk = w.bulk().unwrap();
        assert_eq!(bulk.next_doc(), 0);
        for id in ["c", "a", "b"] {
            bulk.put(&Memory::new(id, "x", Timestamp(0))).unwrap();
        }
        let again = bulk
            .put(&Memory::new("a", "replaced", Timestamp(0)))
            .unwrap();
        assert_eq!(again.doc, 1);
        assert_eq!(again.old.unwrap().body, "x");
        assert_eq!(bulk.next_doc(), 3);
    }
    w.commit().unwrap();
    let mut w = store.write().unwrap();
    w.put(&Memory::new("d", "x", Timestamp(0))).unwrap();
    w.commit().unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.doc_of("d").unwrap(), Some(3));
    assert_eq!(r.get("a").unwrap().unwrap().body, "replaced");
    let mut ids = Vec::new();
    r.try_for_each_by_id(|m| {
        ids.push(m.id);
        Ok::<(), StoreError>(())
    })
    .unwrap();
    assert_eq!(ids, ["a", "b", "c", "d"]);
}

#[test]
fn links_put_in_bulk_count_from_both_ends() {
    let (_dir, store) = temp_store();
    let mut a = Memory::new("a", "x", Timestamp(0));
    a.relationships.push(memlens::model::Relationship {
        target: "b".into(),
        kind: "related".into(),
        strength: None,
    });
    let mut w = store.write().unwrap();
    {
        let mut bulk = w.bulk().unwrap();
        bulk.put(&a).unwrap();
        bulk.put(&Memory::new("b", "y", Timestamp(0))).unwrap();
    }
    w.commit().unwrap();
    let r = store.read().unwrap();
    let b = r.get("b").unwrap().unwrap();
    assert_eq!(r.relationship_count(&b).unwrap(), 1);
    assert_eq!(r.linked_from("b").unwrap(), ["a"]);
}

/// A memory `id` whose relationships name each of `targets`.
fn linking(id: &str, targets: &[&str]) -> Memory {
    let mut m = Memory::new(id, "links", Timestamp(0));
    for target in targets {
        m.relationships.push(memlens::model::Relationship {
            target: (*target).into(),
            kind: "related".into(),
            strength: None,
        });
    }
    m
}

/// The schema version stamped in the store at `path`.
fn stamped_schema(path: &Path) -> u32 {
    let db = redb::Database::open(path).unwrap();
    let txn = db.begin_read().unwrap();
    let meta = txn.open_table(META).unwrap();
    let bytes = meta.get(KEY_SCHEMA).unwrap().unwrap().value().to_vec();
    u32::from_le_bytes(bytes.try_into().unwrap())
}

#[test]
fn backlinks_kept_in_a_multimap_by_schema_3_are_moved_into_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.redb");
    let memories = [
        linking("a", &["b", "c"]),
        linking("c", &["b", "a", "gone"]),
        linking("d", &[]),
        Memory::new("b", "linked to", Timestamp(0)),
    ];
    let ids = ["a", "b", "c", "d", "gone"];
    let before: Vec<Vec<String>> = {
        let store = Store::open(&path).unwrap();
        let mut w = store.write().unwrap();
        for m in &memories {
            w.put(m).unwrap();
        }
        w.commit().unwrap();
        let r = store.read().unwrap();
        ids.iter().map(|id| r.linked_from(id).unwrap()).collect()
    };
    assert_eq!(before[1], ["a", "c"], "b is named by a and c");
    assert_eq!(before[4], ["c"], "a missing target keeps its backlink");
    // What schema 3 kept: the same backlinks in a multimap, target -> sources.
    {
        let db = redb::Database::open(&path).unwrap();
        let txn = db.begin_write().unwrap();
        let rows: Vec<(String, String)> = txn
            .open_table(BACKLINKS)
            .unwrap()
            .iter()
            .unwrap()
            .map(|row| {
                let (k, _) = row.unwrap();
                let (target, source) = k.value();
                (target.to_string(), source.to_string())
            })
            // each target's count row has an empty source
            .filter(|(_, source)| !source.is_empty())
            .collect();
        assert_eq!(rows.len(), 5);
        txn.delete_table(BACKLINKS).unwrap();
        {
            let mut old = txn.open_multimap_table(OLD_BACKLINKS).unwrap();
            for (target, source) in &rows {
                old.insert(target.as_str(), source.as_str()).unwrap();
            }
            let mut meta = txn.open_table(META).unwrap();
            meta.insert(KEY_SCHEMA, 3u32.to_le_bytes().as_slice())
                .unwrap();
        }
        txn.commit().unwrap();
    }
    // a read-only snapshot cannot read the old backlinks: the store is opened for writing
    assert!(Store::snapshot(&path).unwrap().is_none());
    {
        let store = Store::open(&path).unwrap();
        let r = store.read().unwrap();
        let after: Vec<Vec<String>> = ids.iter().map(|id| r.linked_from(id).unwrap()).collect();
        assert_eq!(after, before);
    }
    assert_eq!(stamped_schema(&path), SCHEMA_VERSION);
    let db = redb::Database::open(&path).unwrap();
    let txn = db.begin_read().unwrap();
    assert_eq!(
        txn.list_multimap_tables().unwrap().count(),
        0,
        "the multimap is gone"
    );
    // five rows and the count rows of their four targets (a, b, c, gone)
    assert_eq!(txn.open_table(BACKLINKS).unwrap().len().unwrap(), 5 + 4);
    drop(txn);
    drop(db);
    let snapshot = Store::snapshot(&path)
        .unwrap()
        .expect("an upgraded store reads read-only");
    assert_eq!(snapshot.linked_from("b").unwrap(), ["a", "c"]);
}

#[test]
fn backlinks_appended_after_the_last_row_or_mixed_in_read_back_sorted() {
    let (_dir, store) = temp_store();
    let mut w = store.write().unwrap();
    {
        let mut bulk = w.bulk().unwrap();
        bulk.put(&linking("m", &["t", "u"])).unwrap();
        bulk.put(&linking("n", &["t"])).unwrap();
    }
    w.commit().unwrap();
    // after the last row (all at the end), then before it and among the rows
    let mut w = store.write().unwrap();
    {
        let mut bulk = w.bulk().unwrap();
        bulk.put(&linking("o", &["v", "w"])).unwrap();
    }
    w.commit().unwrap();
    let mut w = store.write().unwrap();
    {
        let mut bulk = w.bulk().unwrap();
        bulk.put(&linking("a", &["t", "z"])).unwrap();
        bulk.put(&linking("m", &["u"])).unwrap();
    }
    w.commit().unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.linked_from("t").unwrap(), ["a", "n"]);
    assert_eq!(r.linked_from("u").unwrap(), ["m"]);
    assert_eq!(r.linked_from("v").unwrap(), ["o"]);
    assert_eq!(r.linked_from("w").unwrap(), ["o"]);
    assert_eq!(r.linked_from("z").unwrap(), ["a"]);
    assert!(r.linked_from("s").unwrap().is_empty());
}

#[test]
fn metadata_is_kept_and_the_format_keys_are_protected() {
    let (_dir, store) = temp_store();
    let w = store.write().unwrap();
    w.set_meta("demo", b"yes").unwrap();
    assert!(w.set_meta(KEY_SCHEMA, b"9").is_err());
    assert_eq!(w.meta("demo").unwrap().as_deref(), Some(&b"yes"[..]));
    w.commit().unwrap();
    let r = store.read().unwrap();
    assert_eq!(r.meta("demo").unwrap().as_deref(), Some(&b"yes"[..]));
    assert_eq!(r.meta("nothing").unwrap(), None);
}

/// A memory the store could not read back as given (a rule broken, or not normalised)
/// is refused by `put` with its id named, and the transaction can still commit what
/// was valid.
#[test]
fn a_memory_that_would_not_read_back_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let good = Memory::new("good", "fine body", Timestamp(1));
    let mut upper = Memory::new("upper", "body", Timestamp(2));
    upper.memory_type = "Decision".into();
    let mut padded = Memory::new("padded", "body", Timestamp(3));
    padded.title = Some("   ".into());
    let mut tags = Memory::new("tags", "body", Timestamp(4));
    tags.tags = vec!["a".into(), " a".into()];
    let mut w = store.write().unwrap();
    w.put(&good).unwrap();
    for bad in [&upper, &padded, &tags] {
        let err = w.put(bad).expect_err("must refuse");
        assert!(
            matches!(&err, StoreError::Invalid { id, .. } if *id == bad.id),
            "{err}"
        );
        assert!(err.to_string().contains(&bad.id), "{err}");
    }
    w.commit().unwrap();
    let stored: Vec<String> = store
        .read()
        .unwrap()
        .memories()
        .unwrap()
        .into_iter()
        .map(|m| m.id)
        .collect();
    assert_eq!(stored, vec!["good".to_string()]);
}

/// Everything a user can read of the store at `path`, through the binary: the export
/// with deleted memories, searches in each engine and a filter on relationship_count,
/// and `get --json` of a linked memory.
fn what_the_binary_reads(home: &Path, path: &Path) -> Vec<String> {
    let db = path.to_str().unwrap();
    let runs: [&[&str]; 6] = [
        &["export", "--db", db, "--include-deleted"],
        &["search", "--db", db, "--json", "alpha", "body"],
        &[
            "search",
            "--db",
            db,
            "--json",
            "--engine",
            "bm25",
            "gamma delta",
        ],
        &["search", "--db", db, "--json", "--engine", "fuzzy", "lmbda"],
        &[
            "search",
            "--db",
            db,
            "--json",
            "--filter",
            "relationship_count=2..",
        ],
        &["get", "--db", db, "--json", "m01"],
    ];
    runs.iter()
        .map(|args| {
            let out = memlens(home, args, &[]);
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            String::from_utf8(out.stdout).unwrap()
        })
        .collect()
}

#[test]
fn a_store_written_before_index_checksums_is_sealed_once_losing_nothing() {
    // `tests/data/schema5.redb` is what memlens of schema 5 (index version 8) wrote
    // importing `tests/data/memories-schema5.jsonl`: its index values and backlink
    // rows carry no checksum.
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let dir = tempfile::tempdir().unwrap();
    let old = dir.path().join("old.redb");
    std::fs::copy(data.join("schema5.redb"), &old).unwrap();
    assert_eq!(stamped_schema(&old), 5);
    assert!(
        Store::snapshot(&old).unwrap().is_none(),
        "an unsealed store is opened for writing first"
    );
    let fresh = dir.path().join("fresh.redb");
    let source = data.join("memories-schema5.jsonl");
    let out = memlens(
        dir.path(),
        &[
            "import",
            "--db",
            fresh.to_str().unwrap(),
            source.to_str().unwrap(),
        ],
        &[],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let upgraded = what_the_binary_reads(dir.path(), &old);
    assert_eq!(stamped_schema(&old), SCHEMA_VERSION);
    assert_eq!(upgraded, what_the_binary_reads(dir.path(), &fresh));
    assert_eq!(upgraded[0].lines().count(), 30, "every memory is kept");
    // the one haystacks table of index version 8 gives way to one table per haystack
    let tables: Vec<String> = {
        let db = redb::Database::open(&old).unwrap();
        let txn = db.begin_read().unwrap();
        txn.list_tables()
            .unwrap()
            .map(|t| t.name().to_string())
            .collect()
    };
    assert!(!tables.iter().any(|t| t == "haystacks"), "{tables:?}");
    for kept in ["literal_text", "fuzzy_text"] {
        assert!(tables.iter().any(|t| t == kept), "{kept} in {tables:?}");
    }
    assert!(
        upgraded[5].contains("\"relationship_count\":1"),
        "{}",
        upgraded[5]
    );
    let report = memlens::store::check::check(&old, &dir.path().join("scratch")).unwrap();
    assert!(report.is_clean(), "{:?}", report.problems);
    // once sealed, a damaged backlink row is damage, not a changed count
    {
        let db = redb::Database::open(&old).unwrap();
        let txn = db.begin_write().unwrap();
        txn.open_table(BACKLINKS)
            .unwrap()
            .insert(
                ("m01", "m00"),
                memlens::index::sealed::SealedBuf::new(&("m01", "m99"), b"").value(),
            )
            .unwrap();
        txn.commit().unwrap();
    }
    let out = memlens(
        dir.path(),
        &["get", "--db", old.to_str().unwrap(), "--json", "m01"],
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stderr(&out).contains("checksum"), "{}", stderr(&out));
}

#[test]
fn an_id_or_a_backlink_row_lost_to_a_damaged_key_is_damage_not_a_missing_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.redb");
    {
        let store = Store::open(&path).unwrap();
        let mut w = store.write().unwrap();
        for m in [
            linking("a", &["b"]),
            linking("c", &["b"]),
            Memory::new("b", "linked to", Timestamp(0)),
            Memory::new("d", "alone", Timestamp(0)),
        ] {
            w.put(&m).unwrap();
        }
        w.commit().unwrap();
        let r = store.read().unwrap();
        assert!(
            r.doc_of("bb").unwrap().is_none(),
            "an id never stored is no damage"
        );
        assert_eq!(r.linked_from("b").unwrap(), ["a", "c"]);
    }
    // damage changes the key `d` to `d~` (the row stays where `d` sorts) and the key of
    // the backlink row (b, c) to (bz, c)
    {
        let db = redb::Database::open(&path).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let mut ids = txn.open_table(memlens::store::tables::IDS).unwrap();
            let doc = ids.remove("d").unwrap().unwrap().value();
            ids.insert("d~", doc).unwrap();
            let mut links = txn.open_table(BACKLINKS).unwrap();
            let row = links
                .remove(("b", "c"))
                .unwrap()
                .unwrap()
                .value()
                .stored()
                .to_vec();
            let moved = memlens::index::sealed::SealedBytes::from_sealed(&row);
            links.insert(("bz", "c"), moved).unwrap();
        }
        txn.commit().unwrap();
    }
    let store = Store::open(&path).unwrap();
    let r = store.read().unwrap();
    match r.doc_of("d") {
        Err(StoreError::Corrupt { detail, .. }) => assert!(detail.contains("id table"), "{detail}"),
        other => panic!("a lost id read as {other:?}"),
    }
    match r.linked_from("b") {
        // the neighbour row (bz, c) fails its checksum, or the count row disagrees:
        // either way damage, not a shorter list
        Err(StoreError::Corrupt { detail, .. }) => assert!(
            detail.contains("count") || detail.contains("checksum"),
            "{detail}"
        ),
        other => panic!("a lost backlink read as {other:?}"),
    }
    assert!(
        r.linked_from("bz").is_err(),
        "the moved row fails its checksum"
    );
    drop(r);
    drop(store);
    let report = memlens::store::check::check(&path, &dir.path().join("scratch")).unwrap();
    assert!(!report.is_clean());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Reading many memories at once hands each place what reading it alone gives: near
    /// and far documents, repeated ones, purged ones and ones past the last.
    #[test]
    fn memories_read_together_are_the_memories_read_one_by_one(
        stored in 1usize..300,
        purged in proptest::collection::vec(0usize..300, 0..40),
        asked in proptest::collection::vec(0u32..340, 0..200),
    ) {
        let (_dir, store) = temp_store();
        let mut w = store.write().unwrap();
        for n in 0..stored {
            w.put(&Memory::new(format!("m{n}"), format!("body {n}"), Timestamp(n as i64)))
                .unwrap();
        }
        for n in purged.iter().filter(|&&n| n < stored) {
            let _ = w.purge(&format!("m{n}"));
        }
        w.commit().unwrap();
        let r = store.read().unwrap();
        let mut together = vec![None; asked.len()];
        r.each_doc(&asked, |at, memory| {
            assert!(together[at].is_none(), "place {at} handed twice");
            together[at] = Some(memory.unwrap());
        });
        let alone: Vec<_> = asked.iter().map(|&doc| Some(r.get_doc(doc).unwrap())).collect();
        proptest::prop_assert_eq!(together, alone);
    }
}
