//! End to end: curation in the real browser in a real pseudo-terminal, on a fresh demo
//! store. Approve, reject with a reason, rate, edit a body, delete, restore, undo
//! several levels and link, each from the keyboard; after quitting, the store file is
//! opened with `Store::open` and every memory is compared with a pristine demo store,
//! and `memlens get --json` / `memlens search --json` are asked too.

mod tui_common;

use memlens::model::{Memory, Status, Timestamp};
use memlens::store::Store;
use std::process::Command;
use tui_common::pty::Run;

/// The id in the detail pane's `id` row (the memory under the cursor).
fn cursor_id(text: &str) -> Option<String> {
    text.lines().find_map(|line| {
        let at = line
            .find("│id            ")
            .or_else(|| line.find("┃id            "))?;
        let rest = &line[at..];
        let rest = &rest[rest.find("id")? + 2..];
        rest.split_whitespace().next().map(str::to_string)
    })
}

/// The status line (the last row).
fn status(text: &str) -> String {
    text.lines().last().unwrap_or_default().to_string()
}

/// True when no search or write is under way (keys then act on the list shown).
fn settled(text: &str) -> bool {
    let line = status(text);
    !line.contains("searching…") && !line.contains("writing…")
}

/// Waits until the status line contains `what` and returns the screen.
fn wait_status(run: &Run, what: &str) -> String {
    run.wait_for(&format!("`{what}` in the status line"), |t| {
        status(t).contains(what) && settled(t)
    })
}

/// Moves the cursor with `keys` and waits until it is on another memory.
fn move_cursor(run: &mut Run, keys: &str, from: &str) -> String {
    run.send(keys);
    let text = run.wait_for("the cursor to move", |t| {
        settled(t) && cursor_id(t).is_some_and(|id| id != from)
    });
    cursor_id(&text).expect("an id")
}

/// The demo store as `memlens demo` builds it, before anything is changed.
fn pristine() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("dir");
    let path = memlens::demo::build_at(&dir.path().join("ref.redb"), Timestamp::now())
        .expect("demo store")
        .path;
    let store = Store::open(&path).expect("open");
    (dir, store)
}

fn get(store: &Store, id: &str) -> Memory {
    store
        .read()
        .expect("read")
        .get(id)
        .expect("get")
        .unwrap_or_else(|| panic!("{id} is in the store"))
}

fn recent(t: Timestamp) -> bool {
    (Timestamp::now().0 - t.0).abs() < 300_000_000_000
}

/// `memlens ARGS --db DB` (the command-line program), its stdout as JSON.
fn memlens_json(db: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .args(args)
        .arg("--db")
        .arg(db)
        .output()
        .expect("run memlens");
    assert!(
        out.status.success(),
        "memlens {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn curation_from_the_keyboard_reaches_the_store_and_search() {
    let (_ref_dir, reference) = pristine();
    let mut run = Run::start(200, 50, &[]);
    let first = run.wait_for("the demo list and its detail", |t| cursor_id(t).is_some());
    let approved = cursor_id(&first).expect("id");

    // approve
    run.send("a");
    wait_status(&run, &format!("approve `{approved}`"));

    // reject, with a reason typed into the prompt
    let rejected = move_cursor(&mut run, "j", &approved);
    run.send("x");
    run.wait_for("the reason prompt", |t| t.contains("why?"));
    run.send("superseded by ADR-7");
    run.send("\r");
    wait_status(&run, &format!("reject `{rejected}`"));

    // rate 4
    let rated = move_cursor(&mut run, "j", &rejected);
    run.send("r");
    run.wait_for("the rating keys", |t| t.contains("How useful is it?"));
    run.send("4");
    wait_status(&run, &format!("rate 4 `{rated}`"));

    // edit the body: BackTab from the title wraps round to the body
    let edited = move_cursor(&mut run, "j", &rated);
    run.send("e");
    run.wait_for("the editor", |t| t.contains(&format!("Edit `{edited}`")));
    run.send("\u{1b}[Z");
    run.send("EDITED ");
    run.wait_for("the editor marks the change", |t| t.contains("modified"));
    run.send("\u{13}"); // Ctrl-s
    wait_status(&run, &format!("set body `{edited}`"));

    // delete: the memory leaves the list and the cursor lands on the next one
    let deleted = move_cursor(&mut run, "j", &edited);
    run.send("d");
    wait_status(&run, &format!("delete `{deleted}`"));
    run.wait_for("the list without it", |t| {
        cursor_id(t).is_some_and(|id| id != deleted)
    });

    // restore one of the demo's deleted memories from the deleted-only view
    run.send("D");
    let view = run.wait_for("the deleted-only view", |t| {
        t.contains("deleted only") && settled(t)
    });
    let mut restored = cursor_id(&view).expect("a deleted memory");
    if restored == deleted {
        restored = move_cursor(&mut run, "j", &deleted);
    }
    run.send("R");
    wait_status(&run, &format!("restore `{restored}`"));
    run.send("D");
    let back = run.wait_for("back to the usual list", |t| {
        !t.contains("deleted only") && settled(t)
    });

    // undo, two levels deep, on the oldest memory
    let before_last = cursor_id(&back).expect("id");
    let undone = move_cursor(&mut run, "G", &before_last);
    run.send("r5");
    wait_status(&run, &format!("rate 5 `{undone}`"));
    run.send("+");
    run.wait_for("the tag prompt", |t| t.contains("Tag `"));
    run.send("undo-me\r");
    wait_status(&run, &format!("tag undo-me `{undone}`"));
    run.send("u");
    wait_status(&run, &format!("undone: tag undo-me `{undone}`"));
    run.send("u");
    wait_status(&run, &format!("undone: rate 5 `{undone}`"));

    // link the next-oldest memory to the newest, picked by search, with a kind
    let linked = move_cursor(&mut run, "k", &undone);
    run.send("l");
    run.wait_for("the link picker", |t| {
        t.contains(&format!("Link `{linked}` to"))
    });
    run.send(&approved);
    std::thread::sleep(std::time::Duration::from_millis(500));
    run.send("\r");
    run.wait_for("the kind prompt", |t| t.contains("Kind of the link"));
    run.send(&"\u{7f}".repeat("related".len()));
    run.send("see_also\r");
    wait_status(
        &run,
        &format!("link `{linked}` and `{approved}` (see_also)"),
    );

    run.send("q");
    assert!(run.wait_exit().success());

    // the store, read back after quitting
    let store = Store::open(&run.db).expect("open the store the browser wrote");
    let was = |id: &str| get(&reference, id);

    let m = get(&store, &approved);
    assert_eq!(m.status, Status::Validated);
    assert_eq!(m.extra["validated_by"], "human");
    assert!(recent(m.updated_at) && m.updated_at != was(&approved).updated_at);

    let m = get(&store, &rejected);
    assert_eq!(m.status, Status::Rejected);
    assert_eq!(m.extra["stale_reason"], "superseded by ADR-7");

    let m = get(&store, &rated);
    let r = was(&rated);
    assert_eq!(
        (m.rating_count, m.rating_sum),
        (r.rating_count + 1, r.rating_sum + 4)
    );

    let m = get(&store, &edited);
    assert_eq!(m.body, format!("EDITED {}", was(&edited).body));
    assert_eq!(m.title, was(&edited).title, "only the body changed");

    assert!(get(&store, &deleted).deleted_at.is_some_and(recent));
    assert!(was(&restored).deleted_at.is_some());
    let m = get(&store, &restored);
    assert_eq!((m.deleted_at, m.deleted_reason), (None, None));

    assert_eq!(
        get(&store, &undone),
        was(&undone),
        "both changes undone, back to the exact record"
    );
    let m = get(&store, &linked);
    assert!(
        m.relationships
            .iter()
            .any(|l| l.target == approved && l.kind == "see_also"),
        "{:?}",
        m.relationships
    );

    // every memory not named above is exactly as the demo built it
    let touched = [
        &approved, &rejected, &rated, &edited, &deleted, &restored, &linked,
    ];
    let all = store.read().expect("read").memories().expect("all");
    for m in all.iter().filter(|m| !touched.contains(&&m.id)) {
        assert_eq!(*m, was(&m.id), "{} changed", m.id);
    }

    // and the command line sees the same (once this process lets go of the file)
    drop(store);
    let got = memlens_json(&run.db, &["get", &rejected, "--json"]);
    assert_eq!(got["status"], "rejected");
    let found = memlens_json(
        &run.db,
        &[
            "search",
            "--json",
            "--limit",
            "1000",
            "--filter",
            "status=rejected",
        ],
    );
    let ids: Vec<&str> = found["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(ids.contains(&rejected.as_str()), "{ids:?}");
    let found = memlens_json(
        &run.db,
        &[
            "search",
            "--json",
            "--limit",
            "1000",
            "--filter",
            "deleted=only",
        ],
    );
    let ids: Vec<&str> = found["results"]
        .as_array()
        .expect("results")
        .iter()
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(ids.contains(&deleted.as_str()) && !ids.contains(&restored.as_str()));
}

#[test]
fn quitting_right_after_changes_still_writes_every_one() {
    let (_ref_dir, reference) = pristine();
    let mut run = Run::start(200, 50, &[]);
    let first = run.wait_for("the demo list", |t| cursor_id(t).is_some());
    let id = cursor_id(&first).expect("id");
    // twelve writes and the quit in one read: the quit must wait for every write
    run.send("r1r2r3r4r5r1r2r3r4r5dq");
    assert!(run.wait_exit().success());
    let store = Store::open(&run.db).expect("open");
    let m = get(&store, &id);
    let was = get(&reference, &id);
    // one rater: each rating replaced the one before, so the last (5) is what counts
    assert_eq!(m.rating_count, was.rating_count + 1, "no rating was lost");
    assert_eq!(m.rating_sum, was.rating_sum + 5);
    assert_eq!(m.ratings.last().map(|r| r.value), Some(5));
    assert!(m.deleted_at.is_some(), "the delete was not lost");
}

#[test]
fn merging_from_the_keyboard_reaches_the_store() {
    let mut run = Run::start(200, 50, &[]);
    let first = run.wait_for("the demo list", |t| cursor_id(t).is_some());
    let a = cursor_id(&first).expect("id");
    // Space marks and moves on: two marked, the cursor on the third
    run.send(" ");
    let b = run.wait_for("the cursor to move", |t| {
        settled(t) && cursor_id(t).is_some_and(|id| id != a)
    });
    let b = cursor_id(&b).expect("id");
    run.send(" ");
    let kept = run.wait_for("the cursor to move", |t| {
        settled(t) && cursor_id(t).is_some_and(|id| id != b)
    });
    let kept = cursor_id(&kept).expect("id");
    run.send("M");
    run.wait_for("the merge question", |t| {
        t.contains("Merge 2 memories into")
    });
    run.send("y");
    wait_status(&run, &format!("merge 2 memories into `{kept}`"));
    run.send("q");
    assert!(run.wait_exit().success());

    let got = memlens_json(&run.db, &["get", &kept, "--json"]);
    let merged: Vec<&str> = got["relationships"]
        .as_array()
        .expect("relationships")
        .iter()
        .filter(|r| r["kind"] == "merged")
        .filter_map(|r| r["target"].as_str())
        .collect();
    assert_eq!(merged, [a.as_str(), b.as_str()], "{got}");
    for id in [&a, &b] {
        let m = memlens_json(&run.db, &["get", id, "--json"]);
        assert!(m["deleted_at"].is_string(), "{m}");
        assert_eq!(m["deleted_reason"], format!("merged into {kept}"));
    }
}
