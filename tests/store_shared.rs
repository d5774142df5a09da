//! One store file used by several processes at once: this test holds the store open
//! (as the browser does, with a snapshot kept for reading) while the real binary runs
//! commands on it in other processes, and the change log tells this process exactly
//! which memories they wrote.

use memlens::model::{Memory, Timestamp};
use memlens::store::{Since, Store};

fn put(store: &Store, ids: &[&str], body: &str) {
    let mut w = store.write().unwrap();
    for id in ids {
        w.put(&Memory::new(*id, body, Timestamp(0))).unwrap();
    }
    w.commit().unwrap();
}

#[test]
fn every_commit_advances_the_change_number_and_logs_what_it_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let start = store.read().unwrap().change_number().unwrap();
    put(&store, &["a", "b"], "one");
    put(&store, &["b", "c"], "two");
    let reader = store.read().unwrap();
    assert_eq!(reader.change_number().unwrap(), start + 2);
    assert_eq!(
        reader.changes_since(start).unwrap(),
        Since::Ids(vec!["a".into(), "b".into(), "c".into()]),
        "each id once, in the order first written"
    );
    assert_eq!(
        reader.changes_since(start + 1).unwrap(),
        Since::Ids(vec!["b".into(), "c".into()])
    );
    assert_eq!(reader.changes_since(start + 2).unwrap(), Since::Nothing);
    // a number the store never reached (the file was replaced): everything
    assert_eq!(reader.changes_since(start + 9).unwrap(), Since::Everything);
    drop(reader);

    // a purge is logged like a put
    let mut w = store.write().unwrap();
    w.purge("a").unwrap();
    w.commit().unwrap();
    assert_eq!(
        store.read().unwrap().changes_since(start + 2).unwrap(),
        Since::Ids(vec!["a".into()])
    );

    // a bulk write (an import's) cannot be named id by id
    let mut w = store.write().unwrap();
    {
        let mut bulk = w.bulk().unwrap();
        bulk.put(&Memory::new("d", "bulk", Timestamp(0))).unwrap();
    }
    w.commit().unwrap();
    let reader = store.read().unwrap();
    assert_eq!(reader.changes_since(start + 3).unwrap(), Since::Everything);
    assert_eq!(reader.changes_since(start).unwrap(), Since::Everything);
}

#[test]
fn the_log_keeps_the_last_entries_and_is_everything_beyond_them() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.redb")).unwrap();
    let start = store.read().unwrap().change_number().unwrap();
    let total = 1030u64;
    for i in 0..total {
        put(&store, &[&format!("m{i}")], "x");
    }
    let reader = store.read().unwrap();
    let now = reader.change_number().unwrap();
    assert_eq!(now, start + total);
    assert_eq!(reader.changes_since(start).unwrap(), Since::Everything);
    // the newest 1,023 steps back are still named
    let since = now - 1023;
    let Since::Ids(ids) = reader.changes_since(since).unwrap() else {
        panic!("within the log")
    };
    let expected: Vec<String> = (total - 1023..total).map(|i| format!("m{i}")).collect();
    assert_eq!(ids, expected);
}

#[test]
fn commands_in_other_processes_run_while_this_one_holds_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.redb");
    let db = path.to_str().unwrap();
    let input = dir.path().join("in.jsonl");
    std::fs::write(
        &input,
        "{\"id\":\"one\",\"body\":\"first memory\"}\n{\"id\":\"two\",\"body\":\"second memory\"}\n",
    )
    .unwrap();
    let wait = [("MEMLENS_LOCK_WAIT_MS", "0")];
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_memlens"))
            .args(args)
            .envs(wait)
            .env_remove("MEMLENS_DB")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "memlens {args:?} beside an open store: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    run(&["import", "--db", db, input.to_str().unwrap()]);

    // held open, with a snapshot kept, as the open browser holds it
    let store = Store::open(&path).unwrap();
    let kept = store.read().unwrap();
    let held = kept.change_number().unwrap();

    assert!(run(&["get", "one", "--db", db]).contains("first memory"));
    run(&["approve", "one", "--db", db]);
    run(&["rate", "two", "4", "--db", db]);
    assert!(run(&["search", "memory", "--db", db]).contains("two"));
    assert_eq!(
        store.read().unwrap().changes_since(held).unwrap(),
        Since::Ids(vec!["one".into(), "two".into()]),
        "the other processes' commits, named"
    );
    // an import beside an open store is one shared transaction
    let more = dir.path().join("more.jsonl");
    std::fs::write(&more, "{\"id\":\"three\",\"body\":\"third memory\"}\n").unwrap();
    run(&["import", "--db", db, more.to_str().unwrap()]);

    // the snapshot kept is as it was; a new one sees every process's commits
    assert_eq!(kept.get("one").unwrap().unwrap().status.as_str(), "draft");
    let now = store.read().unwrap();
    assert_eq!(
        now.get("one").unwrap().unwrap().status.as_str(),
        "validated"
    );
    assert_eq!(now.get("two").unwrap().unwrap().rating_count, 1);
    assert!(now.get("three").unwrap().is_some());
    assert_eq!(now.change_number().unwrap(), held + 3);
    // the import wrote in bulk: not named, so everything
    assert_eq!(now.changes_since(held).unwrap(), Since::Everything);
}
