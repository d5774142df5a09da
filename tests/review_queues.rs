//! Review queues on crafted stores: each queue's members and order, the hivelore
//! fields read from a hivelore import and from JSONL, supersede and "not a duplicate"
//! through curation (with undo), and `memlens review` on the command line.

mod curate_support;

use curate_support::{at, memory, seed, temp_store};
use memlens::curate::{Change, Edit, UndoStack, apply_at};
use memlens::model::{Memory, Status, Timestamp};
use memlens::review::{Queue, Review, ReviewOptions};
use memlens::store::Store;
use serde_json::json;
use std::process::Command;

fn now() -> Timestamp {
    at("2026-06-01T00:00:00Z")
}

/// A memory written and read recently, so that it is stale for no reason of time.
fn fresh(id: &str) -> Memory {
    let mut m = memory(id);
    m.created_at = at("2026-05-01T00:00:00Z");
    m.updated_at = m.created_at;
    m.status = Status::Validated;
    m
}

fn ids(store: &Store, options: &ReviewOptions, queue: Queue) -> Vec<String> {
    let reader = store.read().expect("read");
    let review = Review::of(&reader, options, &[queue]).expect("review");
    review.entries(queue).iter().map(|e| e.id.clone()).collect()
}

fn pairs(store: &Store, queue: Queue) -> Vec<(String, String)> {
    let reader = store.read().expect("read");
    let review = Review::of(&reader, &ReviewOptions::at(now()), &[queue]).expect("review");
    review
        .entries(queue)
        .iter()
        .map(|e| (e.id.clone(), e.other.clone().expect("a pair").1))
        .collect()
}

#[test]
fn approval_lists_what_asks_for_a_person_until_a_person_decides() {
    let (_dir, store) = temp_store();
    let mut asks = fresh("asks");
    asks.status = Status::Proposed;
    asks.extra
        .insert("requires_human_approval".into(), json!(true));
    let mut quoted = fresh("quoted");
    quoted
        .extra
        .insert("requires_human_approval".into(), json!("true"));
    quoted.extra.insert("validated_by".into(), json!("agent"));
    let mut decided = fresh("decided");
    decided
        .extra
        .insert("requires_human_approval".into(), json!(true));
    decided.extra.insert("validated_by".into(), json!("human"));
    let mut no = fresh("no");
    no.extra
        .insert("requires_human_approval".into(), json!(false));
    let mut deleted = fresh("deleted");
    deleted
        .extra
        .insert("requires_human_approval".into(), json!(true));
    deleted.deleted_at = Some(now());
    seed(&store, &[asks, quoted, decided, no, deleted]);
    let options = ReviewOptions::at(now());
    let mut got = ids(&store, &options, Queue::Approval);
    got.sort();
    assert_eq!(got, ["asks", "quoted"]);
    // approving takes it out of the queue, and undo puts it back
    let mut history = UndoStack::default();
    let applied = apply_at(&store, &Change::edit(["asks"], Edit::Approve), now()).expect("ok");
    history.push(applied.undo);
    assert_eq!(ids(&store, &options, Queue::Approval), ["quoted"]);
    history.undo(&store).expect("undo");
    assert_eq!(ids(&store, &options, Queue::Approval).len(), 2);
}

#[test]
fn pending_is_draft_and_proposed_most_read_first() {
    let (_dir, store) = temp_store();
    let mut memories = Vec::new();
    for (id, status, reads) in [
        ("a-draft", Status::Draft, 1),
        ("b-proposed", Status::Proposed, 9),
        ("c-validated", Status::Validated, 50),
        ("d-proposed", Status::Proposed, 3),
        ("e-draft-newer", Status::Draft, 3),
        ("f-rejected", Status::Rejected, 70),
    ] {
        let mut m = fresh(id);
        m.status = status;
        m.read_count = reads;
        if id == "e-draft-newer" {
            m.created_at = at("2026-05-20T00:00:00Z");
            m.updated_at = m.created_at;
        }
        memories.push(m);
    }
    seed(&store, &memories);
    let got = ids(&store, &ReviewOptions::at(now()), Queue::Pending);
    assert_eq!(
        got,
        ["b-proposed", "e-draft-newer", "d-proposed", "a-draft"]
    );
}

#[test]
fn agent_is_validated_by_an_agent_or_automatically() {
    let (_dir, store) = temp_store();
    let mut memories = Vec::new();
    for (id, by, status) in [
        ("agent", Some("agent"), Status::Validated),
        ("auto", Some("auto"), Status::Validated),
        ("human", Some("human"), Status::Validated),
        ("legacy", None, Status::Validated),
        ("agent-but-stale", Some("agent"), Status::Stale),
    ] {
        let mut m = fresh(id);
        m.status = status;
        if let Some(by) = by {
            m.extra.insert("validated_by".into(), json!(by));
        }
        memories.push(m);
    }
    seed(&store, &memories);
    let options = ReviewOptions::at(now());
    let mut got = ids(&store, &options, Queue::Agent);
    got.sort();
    assert_eq!(got, ["agent", "auto"]);
    // a person's approval is review: the memory leaves the queue
    apply_at(&store, &Change::edit(["auto"], Edit::Approve), now()).expect("approve");
    assert_eq!(ids(&store, &options, Queue::Agent), ["agent"]);
}

#[test]
fn stale_by_status_time_expiry_and_missing_anchors() {
    let project = tempfile::tempdir().expect("project");
    std::fs::create_dir_all(project.path().join("src")).expect("dir");
    std::fs::write(project.path().join("src/here.rs"), "").expect("file");
    let (_dir, store) = temp_store();
    let mut status = fresh("status");
    status.status = Status::Stale;
    let mut unread = fresh("unread");
    unread.created_at = at("2025-01-01T00:00:00Z");
    unread.updated_at = unread.created_at;
    unread.last_read_at = Some(at("2025-11-01T00:00:00Z")); // 212 days before now
    let mut read_lately = fresh("read-lately");
    read_lately.created_at = at("2024-01-01T00:00:00Z");
    read_lately.last_read_at = Some(at("2026-03-01T00:00:00Z"));
    let mut expired = fresh("expired");
    expired
        .extra
        .insert("expires_when".into(), json!("2026-05-31"));
    let mut not_yet = fresh("not-yet");
    not_yet
        .extra
        .insert("expires_when".into(), json!("2026-07-01"));
    let mut not_a_date = fresh("not-a-date");
    not_a_date
        .extra
        .insert("expires_when".into(), json!("when v2 ships"));
    let mut gone = fresh("gone");
    gone.extra.insert(
        "anchor".into(),
        json!({"paths": ["src/here.rs", "src/gone.rs"], "symbols": []}),
    );
    let mut here = fresh("here");
    here.extra.insert(
        "anchor".into(),
        json!({"paths": ["src/here.rs", "src/*.rs"]}),
    );
    let mut retired = fresh("retired");
    retired.status = Status::Deprecated;
    retired.created_at = at("2020-01-01T00:00:00Z");
    seed(
        &store,
        &[
            status,
            unread,
            read_lately,
            expired,
            not_yet,
            not_a_date,
            gone,
            here,
            retired,
        ],
    );
    let without_project = ReviewOptions::at(now());
    let mut got = ids(&store, &without_project, Queue::Stale);
    got.sort();
    assert_eq!(got, ["expired", "status", "unread"]);
    {
        let reader = store.read().expect("read");
        let review = Review::of(&reader, &without_project, &[Queue::Stale]).expect("review");
        let entry = (review.entries(Queue::Stale).iter())
            .find(|e| e.id == "unread")
            .expect("listed");
        // its last read is the last look at it
        assert_eq!(entry.reason, "neither read nor changed since 2025-11-01");
    }
    let with_project = ReviewOptions {
        now: now(),
        root: Some(project.path().to_path_buf()),
    };
    let mut got = ids(&store, &with_project, Queue::Stale);
    got.sort();
    assert_eq!(got, ["expired", "gone", "status", "unread"]);
    // a day later than the clock says nothing is expired yet: the clock is the one given
    let earlier = ReviewOptions::at(at("2026-05-30T00:00:00Z"));
    assert!(!ids(&store, &earlier, Queue::Stale).contains(&"expired".to_string()));
    // a person's approval is a look at it: the unread one and the one of status stale
    // leave the queue; an expired one stays until its expiry changes
    let approve = Change::edit(["unread", "status", "expired"], Edit::Approve);
    apply_at(&store, &approve, now()).expect("approve");
    assert_eq!(ids(&store, &without_project, Queue::Stale), ["expired"]);
}

const BASE: &str = "Retries on the payout webhook must carry the idempotency key or the ledger \
posts every transfer twice and the nightly reconciliation job flags the whole batch for review";

#[test]
fn duplicates_are_exact_normalized_and_similar_pairs_and_a_mark_removes_one_for_good() {
    let (_dir, store) = temp_store();
    let mut exact = fresh("exact");
    exact.body = BASE.into();
    let mut copy = fresh("copy");
    copy.body = BASE.into();
    let mut shouted = fresh("shouted");
    shouted.body = format!("{}!!", BASE.to_uppercase());
    let mut swapped = fresh("swapped");
    swapped.body = BASE.replace("payout webhook", "webhook payout");
    let mut other = fresh("other");
    other.body = "Alerts page only when a customer can see the problem; everything else is a \
ticket for the morning"
        .into();
    let mut gone = fresh("gone");
    gone.body = BASE.into();
    gone.deleted_at = Some(now());
    exact.status = Status::Proposed;
    seed(&store, &[exact, copy, shouted, swapped, other, gone]);
    let got = pairs(&store, Queue::Duplicates);
    let set: std::collections::BTreeSet<(String, String)> = got
        .iter()
        .map(|(a, b)| (a.min(b).clone(), a.max(b).clone()))
        .collect();
    let expected: std::collections::BTreeSet<(String, String)> = [
        ("copy", "exact"),
        ("copy", "shouted"),
        ("copy", "swapped"),
        ("exact", "shouted"),
        ("exact", "swapped"),
        ("shouted", "swapped"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(set, expected);
    // the validated one is kept over the proposed one
    assert!(got.contains(&("copy".into(), "exact".into())));
    let reader = store.read().expect("read");
    let review = Review::of(&reader, &ReviewOptions::at(now()), &[Queue::Duplicates]).unwrap();
    let first = &review.entries(Queue::Duplicates)[0];
    assert_eq!(first.reason, "same text");
    drop(reader);
    let mark = Change::edit(
        ["copy", "swapped"],
        Edit::NotDuplicate {
            pair: ["copy".into(), "swapped".into()],
        },
    );
    let applied = apply_at(&store, &mark, now()).expect("mark");
    assert_eq!(applied.changed().len(), 2);
    let after = pairs(&store, Queue::Duplicates);
    assert_eq!(after.len(), 5);
    assert!(
        !after
            .iter()
            .any(|(a, b)| (a == "copy" && b == "swapped") || (a == "swapped" && b == "copy"))
    );
    // marking again changes nothing
    assert!(apply_at(&store, &mark, now()).expect("again").is_no_op());
    // superseding one of a pair by the other decides that pair (and only it), also when
    // a link between them was there before (the supersede then adds none); undone, the
    // pair is back
    let linked = Change::Link {
        a: "exact".into(),
        b: "copy".into(),
        kind: "duplicates".into(),
    };
    apply_at(&store, &linked, now()).expect("link");
    let after = pairs(&store, Queue::Duplicates);
    assert_eq!(after.len(), 5);
    let supersede = Change::Supersede {
        keep: "copy".into(),
        old: "exact".into(),
    };
    let mut history = UndoStack::default();
    history.push(apply_at(&store, &supersede, now()).expect("supersede").undo);
    let decided = pairs(&store, Queue::Duplicates);
    assert_eq!(decided.len(), 4, "{decided:?}");
    assert!(
        !decided
            .iter()
            .any(|(a, b)| (a == "copy" && b == "exact") || (a == "exact" && b == "copy"))
    );
    history.undo(&store).expect("undo");
    assert_eq!(pairs(&store, Queue::Duplicates), after);
}

#[test]
fn conflicts_by_topic_status_and_by_disagreeing_decisions_and_supersede_resolves_them() {
    let (_dir, store) = temp_store();
    let mut yes = fresh("topic-yes");
    yes.extra.insert("topic".into(), json!("cache-policy"));
    yes.body = "Cache merchant settings for five minutes".into();
    let mut no = fresh("topic-no");
    no.status = Status::Rejected;
    no.extra.insert("topic".into(), json!("cache-policy"));
    no.body = "Never cache merchant settings".into();
    let mut d1 = fresh("decision-shards");
    d1.memory_type = "decision".into();
    d1.body = "Decision: shard the ledger tables by merchant id so that each merchant's \
postings stay together on one shard"
        .into();
    let mut d2 = fresh("decision-shards-2");
    d2.memory_type = "architecture".into();
    d2.body = "Decision: shard the ledger tables by posting date, never by merchant id, so \
that each shard stays together the same size"
        .into();
    let mut note = fresh("note-shards");
    note.body = d2.body.replace("posting date", "account");
    seed(&store, &[yes, no, d1, d2, note]);
    let got = pairs(&store, Queue::Conflicts);
    assert_eq!(
        got,
        [
            (
                "decision-shards".to_string(),
                "decision-shards-2".to_string()
            ),
            ("topic-yes".to_string(), "topic-no".to_string()),
        ]
    );
    let supersede = Change::Supersede {
        keep: "decision-shards".into(),
        old: "decision-shards-2".into(),
    };
    let mut history = UndoStack::default();
    let applied = apply_at(&store, &supersede, now()).expect("supersede");
    let old = applied.changed()[0].after.clone().expect("kept");
    assert_eq!(old.status, Status::Deprecated);
    assert_eq!(old.extra["stale_reason"], "superseded by decision-shards");
    assert!(
        old.relationships
            .iter()
            .any(|r| r.target == "decision-shards")
    );
    history.push(applied.undo);
    assert_eq!(pairs(&store, Queue::Conflicts).len(), 1);
    history.undo(&store).expect("undo");
    assert_eq!(pairs(&store, Queue::Conflicts).len(), 2);
    let itself = Change::Supersede {
        keep: "topic-no".into(),
        old: "topic-no".into(),
    };
    assert!(apply_at(&store, &itself, now()).is_err());
}

fn memlens(db: &std::path::Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run memlens");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_fields_arrive_from_hivelore_files_and_jsonl_and_review_prints_the_queue() {
    let dir = tempfile::tempdir().expect("dir");
    let tree = dir.path().join(".ai/memories/team");
    std::fs::create_dir_all(&tree).expect("tree");
    std::fs::write(
        tree.join("2026-05-01-decision-needs-a-person.md"),
        "---\nid: 2026-05-01-decision-needs-a-person\nscope: team\ntype: decision\n\
status: proposed\ncreated_at: '2026-05-01T00:00:00.000Z'\nrequires_human_approval: true\n\
validated_by: null\nexpires_when: null\n---\n# Needs a person\n\nBump the shared contract.\n",
    )
    .expect("write");
    let jsonl = dir.path().join("m.jsonl");
    std::fs::write(
        &jsonl,
        r#"{"id":"from-jsonl","body":"agent approved","status":"validated","validated_by":"auto","created_at":"2026-05-01T00:00:00Z","updated_at":"2026-05-01T00:00:00Z"}
"#,
    )
    .expect("jsonl");
    let db = dir.path().join("s.redb");
    let (code, _, err) = memlens(&db, &["import", dir.path().to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = memlens(&db, &["import", jsonl.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = memlens(&db, &["review", "approval", "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["total"], 1);
    assert_eq!(v["entries"][0]["id"], "2026-05-01-decision-needs-a-person");
    assert_eq!(v["entries"][0]["reason"], "requires human approval");
    let (_, out, _) = memlens(&db, &["review", "agent"]);
    assert!(out.contains("from-jsonl  validated by auto"), "{out}");
    assert!(out.ends_with("1 in agent\n"), "{out}");
    let (code, _, err) = memlens(&db, &["review", "later"]);
    assert_eq!(code, 2);
    assert!(err.contains("not a queue"), "{err}");
    let gone = dir.path().join("no-such-project");
    let (code, out, err) = memlens(&db, &["review", "stale", "--root", gone.to_str().unwrap()]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(err.contains("no such directory"), "{err}");
    // supersede and not-duplicate on the command line
    let (code, out, err) = memlens(
        &db,
        &[
            "supersede",
            "from-jsonl",
            "2026-05-01-decision-needs-a-person",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("superseded 2026-05-01-decision-needs-a-person by from-jsonl"),
        "{out}"
    );
    let (_, out, _) = memlens(&db, &["review", "approval"]);
    assert_eq!(out, "0 in approval\n");
}

#[test]
fn a_query_or_a_filter_narrows_a_queue_without_dropping_its_session_recaps() {
    let dir = tempfile::tempdir().expect("dir");
    let jsonl = dir.path().join("m.jsonl");
    std::fs::write(
        &jsonl,
        r#"{"id":"recap-1","type":"session_recap","title":"Recap of the ledger session","body":"what we did","status":"draft","created_at":"2026-05-01T00:00:00Z","updated_at":"2026-05-01T00:00:00Z"}
{"id":"note-1","type":"decision","title":"Shard the ledger","body":"by merchant","status":"draft","created_at":"2026-05-02T00:00:00Z","updated_at":"2026-05-02T00:00:00Z"}
{"id":"note-2","type":"gotcha","title":"Retries need the key","body":"idempotency","status":"proposed","created_at":"2026-05-03T00:00:00Z","updated_at":"2026-05-03T00:00:00Z"}
"#,
    )
    .expect("jsonl");
    let db = dir.path().join("s.redb");
    let (code, _, err) = memlens(&db, &["import", jsonl.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let listed = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["review", "pending", "--json"];
        all.extend(args);
        let (code, out, err) = memlens(&db, &all);
        assert_eq!(code, 0, "{args:?}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        let mut ids: Vec<String> = v["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .map(|e| e["id"].as_str().expect("id").to_string())
            .collect();
        ids.sort();
        ids
    };
    let whole = listed(&[]);
    assert_eq!(whole, ["note-1", "note-2", "recap-1"]);
    // a filter that widens nothing keeps the whole queue; a query finds the recap
    assert_eq!(listed(&["--filter", "deleted=include"]), whole);
    assert_eq!(listed(&["Recap"]), ["recap-1"]);
    assert_eq!(listed(&["ledger"]), ["note-1", "recap-1"]);
    // naming the types to keep still decides
    assert_eq!(listed(&["--filter", "type=decision"]), ["note-1"]);
}
