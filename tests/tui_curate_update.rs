//! `update()` for every curation verb on one memory, through the headless browser on a
//! real store: each key ends in one durable write, the store is read back after it, the
//! list and the detail pane show the change at once, and undo puts back the exact record.
//! (The editor has its own file, `tui_curate_editor.rs`.)

mod tui_common;

use memlens::curate::{Change, Edit};
use memlens::model::{Scope, Status};
use memlens::tui::effect::Effect;
use memlens::tui::modal::{ChoiceFor, ConfirmFor, PromptFor};
use memlens::tui::state::Overlay;
use ratatui::crossterm::event::KeyCode;
use tui_common::curate::{
    changes, cursor, press, recent, screen, select_id, shown_everywhere, start, stored, writes,
};

#[test]
fn approve_writes_once_shows_at_once_and_undo_brings_back_the_exact_record() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    assert_ne!(before.status, Status::Validated);
    b.effects.clear();
    b.type_keys("a");
    assert_eq!(
        changes(&b),
        [Change::edit([id.clone()], Edit::Approve)],
        "one change"
    );
    assert!(
        b.effects.contains(&Effect::ReloadIndex),
        "the index follows"
    );
    shown_everywhere(&b, &id, |m| m.status == Status::Validated);
    let after = stored(&b, &id).expect("stored");
    assert_eq!(after.extra["validated_by"], "human");
    assert!(after.updated_at != before.updated_at && recent(after.updated_at));
    assert_eq!(cursor(&b), id, "the cursor stays on the memory");
    let report = b.state.report.clone().expect("a report");
    assert!(
        report.contains("approve") && report.contains(&id),
        "{report}"
    );
    assert_eq!(
        b.state.next_undo.as_deref(),
        Some(&*format!("approve `{id}`"))
    );

    // approving again changes nothing and says why
    b.type_keys("a");
    let report = b.state.report.clone().expect("a report");
    assert!(report.contains("already approved"), "{report}");

    b.type_keys("u");
    assert_eq!(stored(&b, &id), Some(before.clone()), "exactly as before");
    shown_everywhere(&b, &id, |m| *m == before);
    let report = b.state.report.clone().expect("a report");
    assert!(report.starts_with("undone: approve"), "{report}");
    b.type_keys("u");
    assert_eq!(b.state.message.as_deref(), Some("nothing to undo"));
    b.type_keys("U");
    assert_eq!(stored(&b, &id).map(|m| m.status), Some(Status::Validated));
}

#[test]
fn reject_asks_for_a_reason_and_refuses_a_blank_one() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    b.type_keys("x");
    assert_eq!(
        b.state.overlay,
        Some(Overlay::Prompt(PromptFor::RejectReason {
            ids: vec![id.clone()]
        }))
    );
    press(&mut b, KeyCode::Enter);
    assert!(matches!(b.state.overlay, Some(Overlay::Prompt(_))), "stays");
    assert_eq!(
        b.state.message.as_deref(),
        Some("a rejection needs a reason")
    );
    b.type_keys("superseded by ADR-7");
    press(&mut b, KeyCode::Enter);
    assert_eq!(b.state.overlay, None);
    shown_everywhere(&b, &id, |m| m.status == Status::Rejected);
    assert_eq!(
        stored(&b, &id).expect("stored").extra["stale_reason"],
        "superseded by ADR-7"
    );

    // Esc cancels without writing
    b.effects.clear();
    b.type_keys("x");
    b.type_keys("zzz");
    press(&mut b, KeyCode::Esc);
    assert_eq!(b.state.overlay, None);
    assert!(writes(&b).is_empty());
}

#[test]
fn rate_takes_the_next_digit_and_ignores_other_keys() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    b.type_keys("r");
    assert_eq!(
        b.state.overlay,
        Some(Overlay::Rate {
            ids: vec![id.clone()]
        })
    );
    b.type_keys("9q");
    assert!(matches!(b.state.overlay, Some(Overlay::Rate { .. })));
    b.type_keys("4");
    assert_eq!(b.state.overlay, None);
    shown_everywhere(&b, &id, |m| {
        m.rating_count == before.rating_count + 1 && m.rating_sum == before.rating_sum + 4
    });
    b.effects.clear();
    b.type_keys("r");
    press(&mut b, KeyCode::Esc);
    assert!(writes(&b).is_empty() && b.state.overlay.is_none());
    b.type_keys("u");
    assert_eq!(stored(&b, &id), Some(before));
}

#[test]
fn a_second_rating_replaces_yours_and_zero_takes_it_back() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    b.type_keys("r4");
    b.type_keys("r2");
    shown_everywhere(&b, &id, |m| {
        m.rating_count == before.rating_count + 1 && m.rating_sum == before.rating_sum + 2
    });
    b.type_keys("r0");
    assert_eq!(b.state.overlay, None);
    shown_everywhere(&b, &id, |m| {
        m.rating_count == before.rating_count && m.rating_sum == before.rating_sum
    });
    assert_eq!(stored(&b, &id).map(|m| m.ratings), Some(before.ratings));
}

#[test]
fn type_and_scope_come_from_pickers_with_a_prompt_for_new_types_and_modules() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    b.type_keys("t");
    let Some(Overlay::Choice {
        options, selected, ..
    }) = b.state.overlay.clone()
    else {
        panic!("{:?}", b.state.overlay);
    };
    let current = stored(&b, &id).expect("stored").memory_type;
    assert_eq!(
        options[selected].value, current,
        "starts at the current type"
    );
    let gotcha = options
        .iter()
        .position(|o| o.value == "gotcha")
        .expect("listed");
    for _ in 0..options.len() {
        b.type_keys("k");
    }
    for _ in 0..gotcha {
        b.type_keys("j");
    }
    press(&mut b, KeyCode::Enter);
    shown_everywhere(&b, &id, |m| m.memory_type == "gotcha");

    b.type_keys("t");
    for _ in 0..options.len() {
        b.type_keys("j"); // the last entry: other…
    }
    press(&mut b, KeyCode::Enter);
    assert!(matches!(
        b.state.overlay,
        Some(Overlay::Prompt(PromptFor::NewType { .. }))
    ));
    b.type_keys("Bad Type");
    press(&mut b, KeyCode::Enter);
    assert!(
        b.state
            .message
            .as_deref()
            .is_some_and(|m| m.contains("Bad Type"))
    );
    assert!(
        matches!(b.state.overlay, Some(Overlay::Prompt(_))),
        "stays open"
    );
    for _ in 0..8 {
        press(&mut b, KeyCode::Backspace);
    }
    b.type_keys("runbook");
    press(&mut b, KeyCode::Enter);
    assert_eq!(stored(&b, &id).expect("stored").memory_type, "runbook");

    b.type_keys("s");
    assert!(matches!(
        b.state.overlay,
        Some(Overlay::Choice {
            purpose: ChoiceFor::Scope { .. },
            ..
        })
    ));
    for _ in 0..4 {
        b.type_keys("k");
    }
    b.type_keys("jj"); // personal, team, module
    press(&mut b, KeyCode::Enter);
    press(&mut b, KeyCode::Enter);
    assert_eq!(
        b.state.message.as_deref(),
        Some("scope module needs the module's name")
    );
    b.type_keys("ledger-core");
    press(&mut b, KeyCode::Enter);
    shown_everywhere(&b, &id, |m| {
        m.scope == Scope::Module && m.module.as_deref() == Some("ledger-core")
    });
    b.type_keys("s");
    b.type_keys("kkkkj"); // team
    press(&mut b, KeyCode::Enter);
    assert_eq!(stored(&b, &id).expect("stored").scope, Scope::Team);
}

#[test]
fn purge_asks_first_and_undo_brings_the_memory_back() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    let total = b.state.results.total;
    b.effects.clear();
    b.type_keys("P");
    assert_eq!(
        b.state.overlay,
        Some(Overlay::Confirm(ConfirmFor::Purge {
            ids: vec![id.clone()]
        }))
    );
    b.type_keys("n");
    assert!(writes(&b).is_empty() && stored(&b, &id).is_some());
    b.type_keys("Py");
    assert_eq!(stored(&b, &id), None);
    assert_eq!(b.state.results.total, total - 1, "the count follows");
    assert!(b.state.results.hits.iter().all(|h| h.memory.id != id));
    let shown = b.state.detail.as_ref().map(|d| d.memory.id.clone());
    assert!(shown.is_some() && shown != Some(id.clone()), "{shown:?}");
    b.type_keys("u");
    assert_eq!(stored(&b, &id), Some(before));
    assert_eq!(b.state.results.total, total);
}

#[test]
fn link_picks_the_other_memory_by_search_then_asks_the_kind() {
    let (_f, mut b) = start();
    select_id(&mut b, "mem-10");
    b.effects.clear();
    b.type_keys("l");
    assert!(matches!(b.state.overlay, Some(Overlay::LinkPicker { .. })));
    assert!(
        b.effects
            .iter()
            .any(|e| matches!(e, Effect::LinkSearch { .. })),
        "the picker searches"
    );
    assert!(!b.state.link_results.is_empty());
    assert!(
        b.state.link_results.iter().all(|h| h.memory.id != "mem-10"),
        "not itself"
    );
    b.type_keys("mem-17");
    let ids: Vec<&str> = b
        .state
        .link_results
        .iter()
        .map(|h| h.memory.id.as_str())
        .collect();
    assert_eq!(ids, ["mem-17"], "what a plain loop finds for the query");
    press(&mut b, KeyCode::Enter);
    assert_eq!(
        b.state.overlay,
        Some(Overlay::Prompt(PromptFor::LinkKind {
            from: "mem-10".into(),
            to: "mem-17".into()
        }))
    );
    assert_eq!(
        b.state.prompt_input.lines(),
        ["related"],
        "the default kind"
    );
    for _ in 0.."related".len() {
        press(&mut b, KeyCode::Backspace);
    }
    b.type_keys("depends_on");
    press(&mut b, KeyCode::Enter);
    let m = stored(&b, "mem-10").expect("stored");
    assert!(
        m.relationships
            .iter()
            .any(|r| r.target == "mem-17" && r.kind == "depends_on"),
        "{:?}",
        m.relationships
    );
    let links = b
        .state
        .detail
        .as_ref()
        .and_then(|d| d.links.clone())
        .expect("links read");
    assert!(
        links
            .iter()
            .any(|l| l.id == "mem-17" && l.kind == "depends_on")
    );

    // unlink: choose the relationship to remove
    b.type_keys("L");
    let Some(Overlay::Choice { options, .. }) = b.state.overlay.clone() else {
        panic!("{:?}", b.state.overlay);
    };
    let at = options
        .iter()
        .position(|o| o.value == "mem-17")
        .expect("listed");
    for _ in 0..at {
        b.type_keys("j");
    }
    press(&mut b, KeyCode::Enter);
    let m = stored(&b, "mem-10").expect("stored");
    assert!(m.relationships.iter().all(|r| r.target != "mem-17"));
    b.type_keys("u");
    let m = stored(&b, "mem-10").expect("stored");
    assert!(
        m.relationships.iter().any(|r| r.target == "mem-17"),
        "undone"
    );

    // Esc leaves the picker without writing
    b.effects.clear();
    b.type_keys("l");
    press(&mut b, KeyCode::Esc);
    assert!(b.state.overlay.is_none() && writes(&b).is_empty());
}

#[test]
fn unlink_removes_a_link_held_by_the_other_side_and_says_when_there_is_none() {
    let (_f, mut b) = start();
    // mem-08 → mem-07 is stored on mem-08; unlink it from mem-07's side
    select_id(&mut b, "mem-07");
    b.type_keys("L");
    let Some(Overlay::Choice { options, .. }) = b.state.overlay.clone() else {
        panic!("{:?}", b.state.overlay);
    };
    assert_eq!(options.len(), 1, "{options:?}");
    assert_eq!(options[0].value, "mem-08");
    press(&mut b, KeyCode::Enter);
    let m = stored(&b, "mem-08").expect("stored");
    assert!(m.relationships.iter().all(|r| r.target != "mem-07"));
    b.type_keys("L");
    assert_eq!(b.state.overlay, None);
    assert_eq!(
        b.state.message.as_deref(),
        Some("`mem-07` has no relationships")
    );
}

#[test]
fn delete_hides_the_memory_the_deleted_view_shows_it_and_restore_brings_it_back() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    b.type_keys("d");
    let m = stored(&b, &id).expect("stored");
    assert!(m.deleted_at.is_some_and(recent));
    assert!(
        b.state.results.hits.iter().all(|h| h.memory.id != id),
        "deleted memories leave the default list"
    );
    b.type_keys("D");
    let all = _f.store.read().expect("read").memories().expect("all");
    let mut expected: Vec<String> = all
        .iter()
        .filter(|m| m.is_deleted())
        .map(|m| m.id.clone())
        .collect();
    expected.sort();
    let mut shown: Vec<String> = b
        .state
        .results
        .hits
        .iter()
        .map(|h| h.memory.id.clone())
        .collect();
    shown.sort();
    assert_eq!(shown, expected, "the deleted-only view");
    select_id(&mut b, &id);
    b.type_keys("R");
    assert_eq!(stored(&b, &id).expect("stored").deleted_at, None);
    b.type_keys("D");
    assert!(b.state.results.hits.iter().any(|h| h.memory.id == id));
}

#[test]
fn the_list_shows_a_change_before_the_index_is_rebuilt_and_a_failed_rebuild_is_reported() {
    let f = tui_common::fixture();
    let busy = f.hooked(tui_common::hooked::Hooks {
        refresh_fails: Some("index busy"),
        ..Default::default()
    });
    let config = memlens::tui::config::Config::defaults(memlens::tui::theme::ColorMode::NoColor);
    let mut b = memlens::tui::headless::Headless::new(busy, config, (120, 40));
    let id = cursor(&b);
    let total = b.state.results.total;
    b.type_keys("d");
    let row = b.state.results.hits.iter().find(|h| h.memory.id == id);
    assert!(
        row.is_some_and(|h| h.memory.deleted_at.is_some()),
        "the old list, with the change patched in"
    );
    assert_eq!(b.state.results.total, total);
    assert_eq!(
        b.state.message.as_deref(),
        Some("search index not refreshed: index busy")
    );
    b.type_keys("Py");
    assert!(b.state.results.hits.iter().all(|h| h.memory.id != id));
    assert_eq!(
        b.state.results.total,
        total - 1,
        "purged rows leave at once"
    );
}

#[test]
fn a_write_by_another_process_shows_in_the_detail_pane_of_the_selected_memory() {
    use memlens::tui::action::Action;
    let (f, mut b) = start();
    let id = cursor(&b);
    let shown = |b: &memlens::tui::headless::Headless| {
        let d = b.state.detail.as_ref().expect("a detail pane");
        assert_eq!(d.memory.id, id);
        d.memory.title.clone()
    };
    assert_ne!(shown(&b).as_deref(), Some("Retitled elsewhere"));
    // another process retitles it; the browser is told the store changed
    let mut w = f.store.write().expect("write");
    let mut m = w.get(&id).expect("get").expect("the memory");
    m.title = Some("Retitled elsewhere".into());
    w.put(&m).expect("put");
    w.commit().expect("commit");
    b.memories().refresh().expect("refresh");
    b.dispatch(Action::IndexReloaded);
    assert_eq!(cursor(&b), id, "the selection stays");
    assert_eq!(shown(&b).as_deref(), Some("Retitled elsewhere"));
}

#[test]
fn a_change_that_moves_the_selected_memory_off_its_page_keeps_the_selection_on_it() {
    use memlens::model::{Memory, Timestamp};
    use memlens::tui::action::Action;
    let (f, mut b) = start();
    // the fifth memory of the list (newest first)
    b.type_keys("jjjj");
    assert_eq!(b.state.selected, 4);
    let id = cursor(&b);
    let total = b.state.results.total;
    // another process adds 300 memories newer than any: the selected one is now the
    // 305th, past the page the list holds
    let added = 300;
    let later = tui_common::now();
    let mut w = f.store.write().expect("write");
    for i in 0..added {
        let at = Timestamp(later.0 + i64::from(i));
        w.put(&Memory::new(format!("new-{i:03}"), "added elsewhere", at))
            .expect("put");
    }
    w.commit().expect("commit");
    b.memories().refresh().expect("refresh");
    b.dispatch(Action::IndexReloaded);
    assert_eq!(b.state.results.total, total + added as usize);
    assert_eq!(cursor(&b), id, "the selection stays on the memory");
    assert_eq!(b.state.selected, 4 + added as usize, "where it is now");
    let detail = b.state.detail.as_ref().expect("a detail pane");
    assert_eq!(detail.memory.id, id, "the detail pane too");
    // the list scrolled to it: its row is on screen
    let text = screen(&b);
    assert!(text.contains(&id), "{text}");
    // and moving on goes to its neighbour in the new order, not the old one
    b.type_keys("k");
    assert_eq!(b.state.selected, 3 + added as usize);
}

#[test]
fn an_undo_puts_the_cursor_on_what_it_brought_back() {
    let (_f, mut b) = start();
    b.type_keys("jj");
    let id = cursor(&b);
    b.type_keys("d");
    assert_ne!(cursor(&b), id, "the deleted memory left the list");
    b.type_keys("jj");
    b.type_keys("u");
    assert_eq!(cursor(&b), id, "back, and under the cursor");
    let detail = b.state.detail.as_ref().expect("a detail pane");
    assert_eq!(detail.memory.id, id);
    // a redo deletes it again: the cursor stays where the list now is
    b.type_keys("U");
    assert!(b.state.results.hits.iter().all(|h| h.memory.id != id));
}
