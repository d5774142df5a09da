//! End to end in a real pseudo-terminal, on a fresh demo store: the Review tab on
//! pending, three approvals one key each (the count on the status line drops by three),
//! one undo (it goes back up by one); after quitting, the store holds two approvals.

mod tui_common;

use memlens::model::Status;
use memlens::store::Store;
use tui_common::pty::Run;

/// The number before "left in Pending" on the status line.
fn left(text: &str) -> Option<usize> {
    let status = text.lines().last()?;
    let at = status.find(" left in Pending")?;
    status[..at].split_whitespace().last()?.parse().ok()
}

fn settled(text: &str) -> bool {
    let status = text.lines().last().unwrap_or_default();
    !status.contains("writing…") && !status.contains("searching…")
}

#[test]
fn approve_three_from_pending_then_undo_one() {
    let mut run = Run::start(120, 40, &[]);
    run.wait_for("the demo list", |t| t.contains("matches"));
    run.send("8");
    let text = run.wait_for("the pending queue", |t| left(t).is_some() && settled(t));
    let start = left(&text).expect("a count");
    assert!(start >= 4, "the demo has pending memories: {start}");
    for n in 1..=3 {
        run.send("a");
        run.wait_for(&format!("{} left", start - n), |t| {
            left(t) == Some(start - n) && settled(t)
        });
    }
    run.send("u");
    run.wait_for(&format!("{} left after undo", start - 2), |t| {
        left(t) == Some(start - 2) && settled(t)
    });
    run.send("q");
    run.wait_exit();
    let store = Store::open(&run.db).expect("open");
    let approved = store
        .read()
        .expect("read")
        .memories()
        .expect("memories")
        .into_iter()
        .filter(|m| {
            m.status == Status::Validated
                && m.extra.get("validated_by").and_then(|v| v.as_str()) == Some("human")
                && m.updated_at.0 > m.created_at.0
                && (memlens::model::Timestamp::now().0 - m.updated_at.0) < 600_000_000_000
        })
        .count();
    assert_eq!(approved, 2);
}
