//! The review queues in the browser, through `update()` without a terminal: the
//! Review tab, counts in the tab bar and on the status line, triage with one key
//! (approve, reject, skip, merge, not a duplicate, supersede) and undo, and hints
//! taken from the keymap.

mod tui_common;

use memlens::model::{Memory, Status, Timestamp};
use memlens::review::Queue;
use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::headless::Headless;
use memlens::tui::keymap::Keymap;
use memlens::tui::theme::ColorMode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::collections::BTreeMap;
use tui_common::{fixture_with, now, session, session_with};

const BODY: &str = "Retries on the payout webhook must carry the idempotency key. \
Without it the ledger posts every transfer twice. The nightly reconciliation job then \
flags the whole batch for review.";

/// Six pending memories (read 6 … 1 times), a validated one, a near-duplicate pair
/// and a conflicting pair of decisions.
fn memories() -> Vec<Memory> {
    let at = Timestamp::parse("2026-05-01T00:00:00Z").expect("time");
    let mut out = Vec::new();
    for i in 0..6u32 {
        let mut m = Memory::new(
            format!("pending-{i}"),
            format!("Pending note number {i} on topic {}", i * 17),
            at,
        );
        m.status = if i % 2 == 0 {
            Status::Draft
        } else {
            Status::Proposed
        };
        m.read_count = 6 - i;
        m.last_read_at = Some(at);
        out.push(m);
    }
    let mut keep = Memory::new("dup-keep", BODY, at);
    keep.status = Status::Validated;
    keep.last_read_at = Some(at);
    let mut copy = Memory::new(
        "dup-copy",
        BODY.replace("Without it the", "Without the key the"),
        at,
    );
    copy.status = Status::Validated;
    copy.last_read_at = Some(at);
    copy.created_at = Timestamp(at.0 - 1);
    out.extend([keep, copy]);
    out
}

fn browser(size: (u16, u16)) -> (tui_common::Fixture, Headless) {
    let f = fixture_with(memories());
    let b = session(&f, size);
    (f, b)
}

fn screen(b: &Headless, size: (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
    b.draw(&mut t, now()).expect("draw");
    t.backend().to_string()
}

fn left(b: &Headless) -> usize {
    b.state.review.left().expect("counted")
}

/// The status line's message, or nothing.
fn message(b: &Headless) -> &str {
    b.state.message.as_deref().unwrap_or("")
}

fn cursor(b: &Headless) -> String {
    b.state.selected_hit().expect("selected").memory.id.clone()
}

#[test]
fn the_review_tab_lists_pending_most_read_first_with_counts_in_the_tab_bar() {
    let (_f, mut b) = browser((120, 40));
    b.type_keys("8");
    assert_eq!(b.state.review.queue, Some(Queue::Pending));
    let ids: Vec<String> = b
        .state
        .results
        .hits
        .iter()
        .map(|h| h.memory.id.clone())
        .collect();
    assert_eq!(
        ids,
        (0..6).map(|i| format!("pending-{i}")).collect::<Vec<_>>()
    );
    assert_eq!(b.state.review.counts[Queue::Duplicates.index()], Some(1));
    assert_eq!(b.state.review.counts[Queue::Approval.index()], Some(0));
    let text = screen(&b, (120, 40));
    assert!(text.contains("Pending 6"), "{text}");
    assert!(text.contains("Duplicates 1"), "{text}");
    assert!(text.contains("6 left in Pending"), "{text}");
    // a mode tab ends the review
    b.type_keys("2");
    assert_eq!(b.state.review.queue, None);
    assert_eq!(b.state.results.total, 8);
}

#[test]
fn approve_three_the_count_drops_by_three_and_undo_brings_one_back() {
    let (_f, mut b) = browser((120, 40));
    b.type_keys("8");
    assert_eq!(left(&b), 6);
    let mut approved = Vec::new();
    for n in 1..=3 {
        let id = cursor(&b);
        b.type_keys("a");
        approved.push(id.clone());
        assert_eq!(left(&b), 6 - n);
        assert_ne!(cursor(&b), id, "the cursor moves on to the next");
        let stored = b.memories().get(&id).unwrap().unwrap();
        assert_eq!(stored.status, Status::Validated);
    }
    assert_eq!(approved, ["pending-0", "pending-1", "pending-2"]);
    b.type_keys("u");
    assert_eq!(left(&b), 4);
    assert!(tui_common::list_ids(&b).iter().any(|id| id == "pending-2"));
    assert!(screen(&b, (120, 40)).contains("4 left in Pending"));
}

#[test]
fn reject_asks_a_reason_skip_changes_nothing() {
    let (_f, mut b) = browser((80, 24));
    b.type_keys("8");
    let first = cursor(&b);
    b.type_keys("n");
    assert_eq!(left(&b), 6);
    assert_eq!(cursor(&b), "pending-1");
    let writes = b.memories().history().changes;
    b.type_keys("x");
    b.type_keys("outdated");
    b.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(left(&b), 5);
    assert_eq!(b.memories().history().changes, writes + 1);
    let stored = b.memories().get("pending-1").unwrap().unwrap();
    assert_eq!(stored.status, Status::Rejected);
    assert_eq!(stored.extra["stale_reason"], "outdated");
    assert_ne!(first, "pending-1");
}

fn open_duplicates(b: &mut Headless) {
    b.type_keys("8");
    while b.state.review.queue != Some(Queue::Duplicates) {
        b.type_keys("}");
    }
}

#[test]
fn the_duplicate_pair_shows_side_by_side_and_merges_into_the_one_kept() {
    let (_f, mut b) = browser((120, 40));
    open_duplicates(&mut b);
    assert_eq!(left(&b), 1);
    let text = screen(&b, (120, 40));
    assert!(text.contains("keep dup-keep"), "{text}");
    assert!(text.contains("other dup-copy"), "{text}");
    // the sentence only one side has is marked, the shared ones are not
    assert!(text.contains("▌ Without the key"), "{text}");
    assert!(text.contains("▌ Without it the"), "{text}");
    assert!(!text.contains("▌ Retries"), "{text}");
    // swap keeps the other one
    b.type_keys("w");
    assert_eq!(cursor(&b), "dup-copy");
    b.type_keys("w");
    b.type_keys("M");
    b.type_keys("y");
    assert_eq!(left(&b), 0);
    let gone = b.memories().get("dup-copy").unwrap().unwrap();
    assert!(gone.is_deleted());
    b.type_keys("u");
    assert_eq!(left(&b), 1);
}

#[test]
fn not_a_duplicate_removes_the_pair_for_good_and_supersede_deprecates_the_other() {
    let (_f, mut b) = browser((120, 40));
    open_duplicates(&mut b);
    b.type_keys("N");
    assert_eq!(left(&b), 0);
    b.type_keys("u");
    assert_eq!(left(&b), 1);
    b.type_keys("S");
    let old = b.memories().get("dup-copy").unwrap().unwrap();
    assert_eq!(old.status, Status::Deprecated);
    assert_eq!(old.extra["stale_reason"], "superseded by dup-keep");
    // on a single-memory queue the pair keys say why they do nothing
    b.type_keys("{");
    b.type_keys("N");
    assert!(message(&b).contains("not a pair"), "{}", message(&b));
}

#[test]
fn the_hints_follow_the_keymap() {
    let f = fixture_with(memories());
    let mut overrides = BTreeMap::new();
    overrides.insert(
        "review".to_string(),
        BTreeMap::from([
            ("N".to_string(), "none".to_string()),
            ("z".to_string(), "not_duplicate".to_string()),
        ]),
    );
    let mut config = Config::defaults(ColorMode::NoColor);
    config.keymap = Keymap::with_overrides(&overrides).expect("keymap");
    let mut b = session_with(&f, (120, 40), config);
    b.dispatch(Action::ShowReview);
    while b.state.review.queue != Some(Queue::Duplicates) {
        b.dispatch(Action::NextQueue);
    }
    let text = screen(&b, (120, 40));
    assert!(text.contains("z not a duplicate"), "{text}");
    b.type_keys("z");
    assert_eq!(left(&b), 0);
}

#[test]
fn moving_between_queues_lists_what_another_process_wrote_since() {
    let (f, mut b) = browser((120, 40));
    b.type_keys("8");
    assert_eq!(left(&b), 6);
    b.type_keys("}{");
    assert_eq!(b.state.review.queue, Some(Queue::Pending));
    assert_eq!(left(&b), 6, "the same store: the same queue");
    // another process adds a draft: the next page is listed from the store as it is now
    let at = Timestamp::parse("2026-06-01T00:00:00Z").expect("time");
    let mut w = f.store.write().expect("write");
    w.put(&Memory::new(
        "pending-new",
        "A draft another agent just wrote",
        at,
    ))
    .expect("put");
    w.commit().expect("commit");
    b.type_keys("}{");
    assert_eq!(left(&b), 7);
    assert!(
        tui_common::list_ids(&b)
            .iter()
            .any(|id| id == "pending-new")
    );
}

#[test]
fn a_query_narrows_the_queue_and_its_counts_and_clearing_it_brings_the_whole_queue_back() {
    let (_f, mut b) = browser((120, 40));
    b.type_keys("8");
    assert_eq!(left(&b), 6);
    // "topic 51" is in one pending memory; "idempotency" in both of the pair
    b.type_keys("/topic 51");
    b.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(b.state.review.queue, Some(Queue::Pending));
    assert_eq!(tui_common::list_ids(&b), ["pending-3"]);
    assert_eq!(left(&b), 1);
    assert_eq!(b.state.review.counts[Queue::Duplicates.index()], Some(0));
    let text = screen(&b, (120, 40));
    assert!(text.contains("1 left in Pending"), "{text}");
    // the search box cleared: the whole queue again
    b.type_keys("/");
    for _ in 0.."topic 51".len() {
        b.press(KeyCode::Backspace, KeyModifiers::NONE);
    }
    b.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(left(&b), 6);
    b.type_keys("/idempotency");
    b.press(KeyCode::Enter, KeyModifiers::NONE);
    assert_eq!(left(&b), 0);
    assert_eq!(b.state.review.counts[Queue::Duplicates.index()], Some(1));
}

#[test]
fn not_a_duplicate_is_not_offered_on_a_conflict_and_writes_nothing_there() {
    let at = Timestamp::parse("2026-05-01T00:00:00Z").expect("time");
    let mut all = memories();
    for (id, status, body) in [
        (
            "shard-merchant",
            Status::Validated,
            "Shard the ledger by merchant id.",
        ),
        (
            "shard-date",
            Status::Rejected,
            "Shard the ledger by posting date.",
        ),
    ] {
        let mut m = Memory::new(id, body, at);
        m.memory_type = "decision".into();
        m.status = status;
        m.last_read_at = Some(at);
        m.extra.insert("topic".into(), "ledger-sharding".into());
        all.push(m);
    }
    let f = fixture_with(all);
    let mut b = session(&f, (120, 40));
    b.type_keys("8");
    while b.state.review.queue != Some(Queue::Conflicts) {
        b.type_keys("}");
    }
    assert_eq!(left(&b), 1);
    let text = screen(&b, (120, 40));
    assert!(text.contains("S supersede"), "{text}");
    assert!(!text.contains("not a duplicate"), "{text}");
    let before: Vec<Memory> = ["shard-merchant", "shard-date"]
        .map(|id| b.memories().get(id).unwrap().unwrap())
        .into();
    b.type_keys("N");
    assert!(message(&b).contains("supersede"), "{}", message(&b));
    assert_eq!(left(&b), 1);
    let after: Vec<Memory> = ["shard-merchant", "shard-date"]
        .map(|id| b.memories().get(id).unwrap().unwrap())
        .into();
    assert_eq!(before, after, "nothing written");
}

#[test]
fn memories_marked_in_a_queue_are_unmarked_once_a_verb_moves_them_out_of_it() {
    let (f, mut b) = browser((120, 40));
    b.type_keys("8");
    assert_eq!(left(&b), 6);
    b.dispatch(Action::SelectFirst);
    let marked: Vec<String> = tui_common::list_ids(&b).into_iter().take(3).collect();
    for _ in 0..3 {
        b.press(KeyCode::Char(' '), KeyModifiers::NONE);
    }
    assert_eq!(b.state.marked.len(), 3);
    b.type_keys("a");
    assert_eq!(left(&b), 3, "the three approved left Pending");
    assert!(
        b.state.marked.is_empty(),
        "no mark left on a memory not listed"
    );
    // the next delete takes the memory under the cursor alone, without asking
    let under = tui_common::list_ids(&b)[b.state.selected].clone();
    b.type_keys("d");
    assert_eq!(b.state.overlay, None, "one memory: nothing to confirm");
    let store = f.store.read().expect("read");
    for id in &marked {
        let m = store.get(id).expect("get").expect("kept");
        assert!(m.deleted_at.is_none(), "{id} approved, not deleted");
        assert_eq!(m.status, Status::Validated, "{id}");
    }
    let gone = store.get(&under).expect("get").expect("kept");
    assert!(gone.deleted_at.is_some(), "{under} deleted");
}
