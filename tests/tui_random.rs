//! The Random tab, through `update()` without a terminal: a draw of up to 100 of what
//! the filters and the query keep, checked against a plain loop (every kept memory
//! sorted by its place in the draw); a fresh draw on the tab's key; a deleted memory
//! leaving the draw without reshuffling the rest; the tab row in 80 and 120 columns.

mod tui_common;

use memlens::model::{Memory, Timestamp};
use memlens::search::random::place;
use memlens::tui::action::Action;
use memlens::tui::headless::Headless;
use memlens::tui::state::{DRAW_SIZE, Tab};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tui_common::{fixture_with, now, session};

/// 300 memories: every third one tagged `blue`, every fifth one holds "harbor".
fn memories() -> Vec<Memory> {
    let at = Timestamp::parse("2026-05-01T00:00:00Z").expect("time");
    (0..300u32)
        .map(|i| {
            let word = if i % 5 == 0 { "harbor" } else { "meadow" };
            let mut m = Memory::new(format!("m{i:03}"), format!("Note {i} about the {word}"), at);
            m.created_at = Timestamp(at.0 + i64::from(i) * 1_000);
            if i % 3 == 0 {
                m.tags = vec!["blue".into()];
            }
            m
        })
        .collect()
}

fn drawn(b: &Headless) -> Vec<String> {
    tui_common::list_ids(b)
}

/// The draw a plain loop makes: every kept memory sorted by its place, the first 100.
fn oracle(kept: impl Iterator<Item = String>, seed: u64) -> Vec<String> {
    let mut ids: Vec<String> = kept.collect();
    ids.sort_by_key(|id| (place(seed, id), id.clone()));
    ids.truncate(DRAW_SIZE);
    ids
}

fn screen(b: &Headless, size: (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(size.0, size.1)).expect("terminal");
    b.draw(&mut t, now()).expect("draw");
    t.backend().to_string()
}

#[test]
fn the_random_tab_draws_a_hundred_of_everything_as_a_plain_loop_would() {
    let f = fixture_with(memories());
    let mut b = session(&f, (120, 40));
    b.type_keys("7");
    assert_eq!(b.state.tab, Tab::Random);
    let seed = b.state.draw_seed;
    let all = f.memories.iter().map(|m| m.id.clone());
    assert_eq!(drawn(&b), oracle(all, seed));
    assert_eq!(b.state.results.total, DRAW_SIZE);
    assert_eq!(b.state.results.drawn_from, Some(300));
    let text = screen(&b, (120, 40));
    assert!(text.contains("100 drawn of 300"), "{text}");
    assert!(text.contains("Random draw"), "{text}");
    // the whole draw is one page: moving to its end asks for nothing more
    b.type_keys("G");
    assert_eq!(b.state.selected, DRAW_SIZE - 1);
    assert_eq!(drawn(&b).len(), DRAW_SIZE);
}

#[test]
fn the_tab_key_again_draws_afresh_and_other_tabs_keep_their_order() {
    let f = fixture_with(memories());
    let mut b = session(&f, (120, 40));
    b.type_keys("7");
    let (first, seed) = (drawn(&b), b.state.draw_seed);
    b.type_keys("7");
    assert_ne!(b.state.draw_seed, seed);
    let second = drawn(&b);
    let all = f.memories.iter().map(|m| m.id.clone());
    assert_eq!(second, oracle(all, b.state.draw_seed));
    assert_ne!(first, second, "a fresh draw");
    // leaving and coming back keeps the draw; the Time tab lists as before
    b.type_keys("2");
    assert_eq!(b.state.results.drawn_from, None);
    assert_eq!(b.state.results.total, 300);
    assert_eq!(drawn(&b)[0], "m299");
    b.type_keys("7");
    assert_eq!(drawn(&b), second);
}

#[test]
fn a_draw_takes_only_what_the_filters_and_the_query_keep() {
    let f = fixture_with(memories());
    let mut b = session(&f, (120, 40));
    b.type_keys("/harbor");
    b.dispatch(Action::LeaveSearch);
    b.type_keys("7");
    let seed = b.state.draw_seed;
    let kept = f
        .memories
        .iter()
        .filter(|m| m.body.contains("harbor"))
        .map(|m| m.id.clone());
    assert_eq!(drawn(&b), oracle(kept, seed));
    assert_eq!(b.state.results.drawn_from, Some(60));
    assert_eq!(b.state.results.total, 60);
}

#[test]
fn deleting_a_drawn_memory_keeps_the_rest_of_the_draw_in_place() {
    let f = fixture_with(memories());
    let mut b = session(&f, (120, 40));
    b.type_keys("7");
    let before = drawn(&b);
    b.type_keys("jjj");
    let gone = before[3].clone();
    b.type_keys("d");
    let after = drawn(&b);
    assert!(!after.contains(&gone), "{gone} left the draw");
    let rest: Vec<&String> = before.iter().filter(|id| **id != gone).collect();
    assert_eq!(after[..DRAW_SIZE - 1].iter().collect::<Vec<_>>(), rest);
    assert_eq!(b.state.results.drawn_from, Some(299));
    // the cursor stays on the row it was on, now the memory after the deleted one
    assert_eq!(b.state.selected, 3);
    assert_eq!(
        b.state.selected_hit().map(|h| h.memory.id.clone()),
        Some(before[4].clone())
    );
    // undo brings it back to its place
    b.type_keys("u");
    assert_eq!(drawn(&b), before);
}

#[test]
fn every_tab_and_the_review_key_fit_in_80_columns() {
    let f = fixture_with(memories());
    // the start of every label, whichever of its lengths fits
    let starts = [
        "1 Rel", "2 Time", "3 Dens", "4 Rat", "5 Disc", "6 Prop", "7 Rand", "8 Rev",
    ];
    for size in [(80, 24), (100, 30), (120, 40)] {
        let mut b = session(&f, size);
        for tab in ["1", "6", "7"] {
            b.type_keys(tab);
            let text = screen(&b, size);
            let row = text.lines().find(|l| l.contains("2 Time")).unwrap_or("");
            for w in starts {
                // the Property tab may name only its field
                let w = if tab == "6" && w == "6 Prop" { "6 " } else { w };
                assert!(row.contains(w), "{size:?} on tab {tab}: no {w:?} in {row}");
            }
            assert!(row.contains("desc"), "{size:?}: the order in {row}");
            if tab == "6" {
                assert!(row.contains("total_sig"), "{size:?}: the field in {row}");
            }
        }
    }
    // in 120 columns the whole titles
    let mut b = session(&f, (120, 40));
    b.type_keys("1");
    let text = screen(&b, (120, 40));
    for w in ["1 Relevance", "5 Discovery", "7 Random", "8 Review"] {
        assert!(text.contains(w), "no {w:?} in {text}");
    }
}
