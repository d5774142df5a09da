//! `memlens check` and `--repair` on stores damaged in known ways: a memory whose bytes
//! changed, and each table memlens derives from the memories (ids, backlinks, search
//! records, haystacks, facts, postings, vocabulary, totals) losing or changing a row. The check
//! must name each damage (exit 1), a clean store must pass (exit 0), and a repair must
//! give back the store as it was, setting aside only the damaged memory, whose bytes it
//! keeps.

mod exchange_support;

use exchange_support::generate;
use exchange_support::{memlens, stderr, stdout};
use memlens::index::SEARCH_DOCS;
use memlens::index::facts::{FACTS, KEY_TOTALS};
use memlens::index::haystacks::{FUZZY_TEXT, LITERAL_TEXT};
use memlens::index::postings::POSTINGS;
use memlens::index::vocabulary::VOCABULARY;
use memlens::store::tables::{BACKLINKS, DAMAGED, IDS, MEMORIES, META};
use redb::{ReadableDatabase, ReadableTable};
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn run(home: &Path, args: &[&str]) -> (Option<i32>, String, String) {
    let out = memlens(home, args, &[]);
    (out.status.code(), stdout(&out), stderr(&out))
}

fn ok(home: &Path, args: &[&str]) -> String {
    let (code, out, err) = run(home, args);
    assert_eq!(code, Some(0), "{args:?}: {err}");
    out
}

/// A store of 300 generated memories (with links, deleted ones, ratings), curated a
/// little by the binary so that the indexes were also written incrementally.
fn store(home: &Path) -> PathBuf {
    let file = home.join("gen.jsonl");
    std::fs::write(&file, generate::jsonl(&generate::memories(9, 300))).unwrap();
    let db = home.join("s.redb");
    ok(home, &["import", "--db", s(&db), s(&file)]);
    ok(home, &["rate", "--db", s(&db), "m0000003", "5"]);
    ok(home, &["link", "--db", s(&db), "m0000003", "m0000200"]);
    ok(home, &["delete", "--db", s(&db), "m0000010"]);
    ok(home, &["merge", "--db", s(&db), "m0000020", "m0000021"]);
    db
}

fn export(home: &Path, db: &Path) -> String {
    ok(home, &["export", "--include-deleted", "--db", s(db)])
}

/// Changes the store at `db` with raw redb writes.
fn damage(db: &Path, f: impl FnOnce(&redb::WriteTransaction)) {
    let raw = redb::Database::open(db).unwrap();
    let txn = raw.begin_write().unwrap();
    f(&txn);
    txn.commit().unwrap();
}

/// The check's exit code and report, which must name every one of `names`.
fn check_finds(home: &Path, db: &Path, names: &[&str]) -> String {
    let (code, out, err) = run(home, &["check", "--db", s(db)]);
    assert_eq!(code, Some(1), "check passed a damaged store: {out}");
    assert!(err.starts_with("error: "), "{err}");
    for name in names {
        assert!(out.contains(name), "the report does not name {name}: {out}");
    }
    assert!(out.contains("fix: "), "{out}");
    out
}

#[test]
fn a_clean_store_passes_and_the_check_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = store(h);
    let bytes = std::fs::read(&db).unwrap();
    let out = ok(h, &["check", "--db", s(&db)]);
    assert!(out.contains("clean"), "{out}");
    let json: serde_json::Value =
        serde_json::from_str(&ok(h, &["check", "--json", "--db", s(&db)])).unwrap();
    assert_eq!(json["clean"], true);
    assert_eq!(json["memories"], 300);
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "the check wrote the store"
    );
    let left: Vec<_> = std::fs::read_dir(h)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 2, "scratch files left behind: {left:?}");
}

#[test]
fn each_derived_table_out_of_step_is_found_and_repaired_to_the_same_store() {
    type Damage = fn(&redb::WriteTransaction);
    let cases: [(&str, &[&str], Damage); 10] = [
        ("an id removed", &["(ids)", "m0000042"], |t| {
            t.open_table(IDS).unwrap().remove("m0000042").unwrap();
        }),
        ("an id pointing elsewhere", &["(ids)", "m0000043"], |t| {
            t.open_table(IDS).unwrap().insert("m0000043", 7).unwrap();
        }),
        ("a backlink removed", &["(backlinks)", "m0000200"], |t| {
            let mut b = t.open_table(BACKLINKS).unwrap();
            assert!(b.remove(("m0000200", "m0000003")).unwrap().is_some());
        }),
        ("a backlink invented", &["(backlinks)", "m0000005"], |t| {
            let mut b = t.open_table(BACKLINKS).unwrap();
            let row = ("m0000006", "m0000005");
            b.insert(
                row,
                memlens::index::sealed::SealedBuf::new(&row, b"").value(),
            )
            .unwrap();
        }),
        (
            "a search record removed",
            &["(index)", "search record"],
            |t| {
                t.open_table(SEARCH_DOCS).unwrap().remove(11).unwrap();
            },
        ),
        (
            "a haystack chunk removed",
            &["(index)", "search text"],
            |t| {
                t.open_table(LITERAL_TEXT).unwrap().remove(0).unwrap();
            },
        ),
        (
            "a fuzzy haystack chunk removed",
            &["(index)", "search text of record"],
            |t| {
                t.open_table(FUZZY_TEXT).unwrap().remove(0).unwrap();
            },
        ),
        ("the facts removed", &["(index)", "facts"], |t| {
            t.open_table(FACTS).unwrap().remove(0).unwrap();
        }),
        (
            "a vocabulary chunk removed",
            &["(index)", "vocabulary lacks"],
            |t| {
                let mut v = t.open_table(VOCABULARY).unwrap();
                let first = v.first().unwrap().unwrap().0.value().to_string();
                v.remove(first.as_str()).unwrap();
            },
        ),
        ("the totals changed", &["(index)", "totals"], |t| {
            t.open_table(META)
                .unwrap()
                .insert(KEY_TOTALS, [1u8; 32].as_slice())
                .unwrap();
        }),
    ];
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let pristine = store(h);
    let before = export(h, &pristine);
    for (what, names, f) in cases {
        let db = h.join("damaged.redb");
        std::fs::copy(&pristine, &db).unwrap();
        damage(&db, f);
        check_finds(h, &db, names);
        if what == "an id pointing elsewhere" {
            // get must not answer with the memory the id wrongly names
            let (code, out, err) = run(h, &["get", "m0000043", "--db", s(&db)]);
            assert_eq!(code, Some(1), "get answered: {out}");
            assert!(err.contains("damaged") && err.contains("m0000043"), "{err}");
        }
        let (code, out, err) = run(h, &["check", "--repair", "--db", s(&db)]);
        assert_eq!(
            code,
            Some(0),
            "{what}: the repair did not end clean: {out}{err}"
        );
        assert!(out.contains("after the repair:\nclean"), "{what}: {out}");
        assert_eq!(
            export(h, &db),
            before,
            "{what}: the repair changed the memories"
        );
        ok(h, &["check", "--db", s(&db)]);
        std::fs::remove_file(&db).unwrap();
        std::fs::remove_file(h.join("damaged.redb.before-repair")).unwrap();
    }
}

#[test]
fn the_postings_out_of_step_are_found() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = store(h);
    damage(&db, |t| {
        let mut p = t.open_table(POSTINGS).unwrap();
        let key = p.first().unwrap().unwrap().0.value().to_vec();
        p.remove(key.as_slice()).unwrap();
    });
    check_finds(h, &db, &["(index)", "inverted index"]);
}

#[test]
fn a_damaged_memory_is_an_error_everywhere_and_a_repair_sets_it_aside_with_its_bytes() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = store(h);
    let before = export(h, &db);
    let doc = {
        let raw = redb::Database::open(&db).unwrap();
        let txn = raw.begin_read().unwrap();
        txn.open_table(IDS)
            .unwrap()
            .get("m0000077")
            .unwrap()
            .unwrap()
            .value()
    };
    let mut original = Vec::new();
    damage(&db, |t| {
        let mut m = t.open_table(MEMORIES).unwrap();
        let mut bytes = m.get(doc).unwrap().unwrap().value().to_vec();
        original = bytes.clone();
        let at = bytes.len() / 2;
        bytes[at] ^= 0x10; // one bit of the body
        m.insert(doc, bytes.as_slice()).unwrap();
    });
    for args in [
        &["get", "m0000077"][..],
        &["export"],
        &[
            "search",
            "--mode",
            "time",
            "--limit",
            "1000",
            "--filter",
            "deleted=include",
        ],
        &["stats"],
        &["rate", "m0000077", "2"],
    ] {
        let mut full = args.to_vec();
        full.extend(["--db", s(&db)]);
        let (code, out, err) = run(h, &full);
        assert_eq!(code, Some(1), "{args:?} answered: {out}");
        assert!(
            err.starts_with("error: ") && err.contains("checksum") && err.contains("memlens check"),
            "{args:?}: {err}"
        );
        assert!(
            err.contains("m0000077"),
            "{args:?} does not name the memory: {err}"
        );
    }
    check_finds(h, &db, &["(memory)", "m0000077", "checksum"]);

    let (code, out, err) = run(h, &["check", "--repair", "--db", s(&db)]);
    assert_eq!(
        code,
        Some(1),
        "a repair that set a memory aside exited 0: {out}"
    );
    assert!(err.contains("1 memory set aside"), "{err}");
    assert!(
        out.contains("not saved: memory record") && out.contains("m0000077"),
        "{out}"
    );
    assert!(out.contains("299 memories stored afresh"), "{out}");
    let old = h.join("s.redb.before-repair");
    assert!(old.is_file(), "{out}");
    // every other memory is as it was; the damaged one's bytes are kept
    let after = export(h, &db);
    let without: Vec<&str> = before
        .lines()
        .filter(|l| !l.contains("\"id\":\"m0000077\""))
        .collect();
    assert_eq!(after.lines().collect::<Vec<_>>(), without);
    {
        let raw = redb::Database::open(&db).unwrap();
        let txn = raw.begin_read().unwrap();
        let kept = txn.open_table(DAMAGED).unwrap();
        let bytes = kept.first().unwrap().unwrap().1.value().to_vec();
        assert_ne!(bytes, original);
        assert_eq!(bytes.len(), original.len());
    }
    let out = ok(h, &["check", "--db", s(&db)]);
    assert!(
        out.contains("1 memory set aside by an earlier repair"),
        "{out}"
    );
    // a second repair keeps what the first set aside
    let (code, _, _) = run(h, &["check", "--repair", "--db", s(&db)]);
    assert_eq!(code, Some(0));
}

#[test]
fn a_file_redb_cannot_read_has_its_memories_uncounted_not_zero() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = store(h);
    let mut bytes = std::fs::read(&db).unwrap();
    // the header and the first pages overwritten: redb cannot open it
    for b in bytes.iter_mut().skip(64).take(8192) {
        *b = 0xA5;
    }
    std::fs::write(&db, &bytes).unwrap();
    let (code, out, _) = run(h, &["check", "--db", s(&db)]);
    assert_eq!(code, Some(1), "{out}");
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.ends_with(": its memories could not be counted"),
        "{out}"
    );
    let (_, json, _) = run(h, &["check", "--json", "--db", s(&db)]);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["memories"], serde_json::Value::Null, "{json}");
    assert_eq!(json["clean"], false);
}

#[test]
fn a_store_cut_short_is_named_damaged_everywhere_and_a_repair_saves_what_it_still_holds() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = store(h);
    let before = export(h, &db);
    let whole = std::fs::read(&db).unwrap();
    let cut = h.join("cut.redb");
    let mut repaired_at = None;
    // cut the file shorter a page at a time until a cut the check finds: the first
    // such cut leaves every memory readable, and the repair must save them all
    for pages in 1..=64usize {
        let len = whole.len().saturating_sub(pages * 4096);
        std::fs::write(&cut, &whole[..len]).unwrap();
        let (code, out, err) = run(h, &["check", "--db", s(&cut)]);
        if code == Some(0) {
            continue;
        }
        assert!(out.contains("fix: "), "{out}{err}");
        // where redb cannot open it, the check counts what a repair would save
        if out.contains("--repair` saves the") {
            assert!(out.contains("saves the 300 memories"), "{out}");
        }
        let (code, out, err) = run(h, &["check", "--repair", "--db", s(&cut)]);
        assert_eq!(code, Some(0), "cut to {len} bytes: {out}{err}");
        assert!(out.contains("after the repair:\nclean"), "{out}");
        assert_eq!(export(h, &cut), before, "cut to {len} bytes");
        repaired_at = Some(len);
        break;
    }
    assert!(
        repaired_at.is_some(),
        "no cut of up to 64 pages was found damaged"
    );
    // cut far shorter (down to less than redb's header), every command names the
    // damage and points to the check, and the check and the repair say that nothing
    // can be saved, rather than each pointing to the other
    for len in [whole.len() / 3, 5000, 100] {
        std::fs::write(&cut, &whole[..len]).unwrap();
        for args in [&["stats"][..], &["search", "ledger"]] {
            let mut all = args.to_vec();
            all.extend(["--db", s(&cut)]);
            let (code, _, err) = run(h, &all);
            assert_eq!(code, Some(1), "{args:?}");
            assert!(
                err.contains("the store is damaged"),
                "{len}: {args:?}: {err}"
            );
            assert!(
                !err.contains("repair-read"),
                "{args:?} names a scratch file: {err}"
            );
        }
        let (code, out, _) = run(h, &["check", "--db", s(&cut)]);
        assert_eq!(code, Some(1), "{out}");
        assert!(
            out.contains("fix: nothing in it can be read, not even by `memlens check --repair`"),
            "{len}: {out}"
        );
        let (code, _, err) = run(h, &["check", "--repair", "--db", s(&cut)]);
        assert_eq!(code, Some(1), "{len}: {err}");
        assert!(
            err.contains("nothing in the store can be read")
                && err.contains("restore it from a backup or an export")
                && !err.contains("memlens check"),
            "{len}: {err}"
        );
        assert!(!err.contains("repair-read"), "names a scratch file: {err}");
        assert_eq!(
            std::fs::read(&cut).unwrap(),
            whole[..len],
            "{len}: the file changed"
        );
    }
}
