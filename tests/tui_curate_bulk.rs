//! `update()` for marks and changes to many memories at once, undo several levels deep
//! (bulk changes included), tracked reads, and curation errors shown in the status line;
//! through the headless browser on a real store, the store read back after each step.

mod tui_common;

use memlens::curate::{Change, Edit, apply};
use memlens::model::{Memory, Status, Timestamp};
use memlens::tui::action::Action;
use memlens::tui::config::Config;
use memlens::tui::effect::{Effect, WriteJob};
use memlens::tui::headless::Headless;
use memlens::tui::modal::ConfirmFor;
use memlens::tui::state::Overlay;
use memlens::tui::theme::ColorMode;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};
use std::collections::BTreeMap;
use tui_common::curate::screen;
use tui_common::{
    fixture, fixture_with, list_ids, literal_oracle, memories, session, session_with,
};

fn stored(b: &Headless, id: &str) -> Memory {
    b.memories().get(id).expect("get").expect("stored")
}

fn all_stored(f: &tui_common::Fixture) -> BTreeMap<String, Memory> {
    let all = f.store.read().expect("read").memories().expect("all");
    all.into_iter().map(|m| (m.id.clone(), m)).collect()
}

fn cursor(b: &Headless) -> String {
    b.state
        .selected_hit()
        .expect("a selection")
        .memory
        .id
        .clone()
}

fn press(b: &mut Headless, code: KeyCode) {
    b.press(code, KeyModifiers::NONE);
}

fn changes(b: &Headless) -> Vec<Change> {
    b.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Write(WriteJob::Change { change, .. }) => Some(change.clone()),
            _ => None,
        })
        .collect()
}

/// Marks the first `n` memories of the list with Space.
fn mark_first(b: &mut Headless, n: usize) -> Vec<String> {
    b.dispatch(Action::SelectFirst);
    let ids: Vec<String> = list_ids(b).into_iter().take(n).collect();
    for _ in 0..n {
        press(b, KeyCode::Char(' '));
    }
    ids
}

#[test]
fn space_marks_and_moves_on_and_a_bulk_approve_is_one_change_undone_as_one() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let before = all_stored(&f);
    let ids = mark_first(&mut b, 3);
    assert_eq!(b.state.marked.iter().cloned().collect::<Vec<_>>(), {
        let mut sorted = ids.clone();
        sorted.sort();
        sorted
    });
    assert_eq!(b.state.selected, 3, "each mark moves the cursor on");
    // Space on a marked memory unmarks it
    b.dispatch(Action::SelectFirst);
    press(&mut b, KeyCode::Char(' '));
    assert!(!b.state.marked.contains(&ids[0]));
    b.dispatch(Action::SelectFirst);
    press(&mut b, KeyCode::Char(' '));
    assert_eq!(b.state.marked.len(), 3);

    b.effects.clear();
    b.type_keys("a");
    match &changes(&b)[..] {
        [Change::Edit { ids: changed, edit }] => {
            assert_eq!(*edit, Edit::Approve);
            assert_eq!(changed.len(), 3);
        }
        other => panic!("one change for the selection, got {other:?}"),
    }
    for id in &ids {
        assert_eq!(stored(&b, id).status, Status::Validated, "{id}");
    }
    let untouched = before
        .keys()
        .filter(|id| !ids.contains(id))
        .all(|id| stored(&b, id) == before[id]);
    assert!(untouched, "only the marked memories changed");
    let report = b.state.report.clone().expect("report");
    assert!(report.contains("3 memories"), "{report}");
    assert_eq!(b.state.marked.len(), 3, "marks stay for the next verb");

    b.type_keys("u");
    assert_eq!(all_stored(&f), before, "every record back exactly");
}

#[test]
fn every_bulk_verb_applies_to_the_selection_and_undo_takes_them_back_one_by_one() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let before = all_stored(&f);
    let ids = mark_first(&mut b, 4);
    let each = |b: &Headless, check: &dyn Fn(&Memory) -> bool| {
        for id in &ids {
            let m = stored(b, id);
            assert!(check(&m), "{id}: {m:?}");
        }
    };

    b.type_keys("x");
    b.type_keys("duplicates of the runbook");
    press(&mut b, KeyCode::Enter);
    each(&b, &|m| {
        m.status == Status::Rejected && m.extra["stale_reason"] == "duplicates of the runbook"
    });

    b.type_keys("+");
    b.type_keys("bulk, reviewed");
    press(&mut b, KeyCode::Enter);
    each(&b, &|m| {
        m.tags.contains(&"bulk".into()) && m.tags.contains(&"reviewed".into())
    });

    b.type_keys("-");
    b.type_keys("reviewed");
    press(&mut b, KeyCode::Enter);
    each(&b, &|m| {
        m.tags.contains(&"bulk".into()) && !m.tags.contains(&"reviewed".into())
    });

    b.type_keys("t");
    let Some(memlens::tui::state::Overlay::Choice { options, .. }) = b.state.overlay.clone() else {
        panic!("{:?}", b.state.overlay);
    };
    let skill = options
        .iter()
        .position(|o| o.value == "skill")
        .expect("listed");
    for _ in 0..options.len() {
        b.type_keys("k");
    }
    for _ in 0..skill {
        b.type_keys("j");
    }
    press(&mut b, KeyCode::Enter);
    each(&b, &|m| m.memory_type == "skill");

    b.type_keys("r5");
    // deleting the whole selection asks first; n leaves it alone
    b.type_keys("d");
    assert!(
        matches!(
            &b.state.overlay,
            Some(Overlay::Confirm(ConfirmFor::Delete { ids: asked }))
                if asked.iter().collect::<std::collections::BTreeSet<_>>()
                    == ids.iter().collect()
        ),
        "{:?}",
        b.state.overlay
    );
    b.type_keys("n");
    each(&b, &|m| m.deleted_at.is_none());
    assert_eq!(b.state.report.as_deref(), Some("nothing deleted"));
    b.type_keys("dy");
    each(&b, &|m| m.deleted_at.is_some());
    assert!(
        list_ids(&b).iter().all(|id| !ids.contains(id)),
        "deleted memories leave the list"
    );
    let report = b.state.report.clone().expect("report");
    assert!(report.contains("4 memories"), "{report}");
    assert!(b.state.marked.is_empty(), "a delete ends the marking");
    b.type_keys("u");
    each(&b, &|m| m.deleted_at.is_none());

    // the five changes before, taken back newest first, to the exact records
    for step in 0..5 {
        b.type_keys("u");
        assert!(
            b.state.message.is_none(),
            "undo {step}: {:?}",
            b.state.message
        );
    }
    assert_eq!(all_stored(&f), before);
    b.type_keys("u");
    assert_eq!(b.state.message.as_deref(), Some("nothing to undo"));
}

#[test]
fn mark_all_marks_exactly_the_list_and_again_unmarks_it() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.type_keys("/ledger");
    b.dispatch(Action::LeaveSearch);
    b.type_keys("V");
    let marked: Vec<String> = b.state.marked.iter().cloned().collect();
    assert_eq!(marked, literal_oracle(&f.memories, "ledger"));
    b.type_keys("V");
    assert!(b.state.marked.is_empty());
    b.type_keys("V");
    press(&mut b, KeyCode::Esc);
    assert!(b.state.marked.is_empty(), "Esc in the list unmarks all");
}

#[test]
fn mark_all_reaches_beyond_the_loaded_page() {
    let base = memories();
    let mut many = Vec::new();
    for i in 0..450 {
        let mut m = base[i % 28].clone();
        m.id = format!("many-{i:03}");
        m.relationships.clear();
        m.created_at = Timestamp(m.created_at.0 + i as i64);
        many.push(m);
    }
    let f = fixture_with(many.clone());
    let mut b = session(&f, (120, 40));
    assert!(b.state.results.hits.len() < b.state.results.total);
    b.effects.clear();
    b.type_keys("V");
    assert!(
        b.effects
            .iter()
            .any(|e| matches!(e, Effect::MarkAll { .. }))
    );
    let expected: Vec<String> = {
        let mut ids: Vec<String> = many
            .iter()
            .filter(|m| !m.is_deleted())
            .map(|m| m.id.clone())
            .collect();
        ids.sort();
        ids
    };
    assert_eq!(b.state.marked.iter().cloned().collect::<Vec<_>>(), expected);
}

/// A delete of the marked memories ends the marking, so the next key acts on the memory
/// under the cursor and not on memories out of sight; marks the query hides stay, and
/// the title says how many the list no longer holds.
#[test]
fn a_delete_ends_the_marking_and_marks_a_query_hides_are_counted_on_screen() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let ids = mark_first(&mut b, 2);
    b.type_keys("dy");
    assert!(list_ids(&b).iter().all(|id| !ids.contains(id)));
    assert!(b.state.marked.is_empty(), "{:?}", b.state.marked);
    assert!(!screen(&b).contains("marked"), "{}", screen(&b));
    let under = list_ids(&b)[b.state.selected].clone();
    b.type_keys("a");
    assert_eq!(stored(&b, &under).status, Status::Validated);
    for id in &ids {
        assert_ne!(
            stored(&b, id).status,
            Status::Validated,
            "{id} is out of sight"
        );
    }
    // undo the approval and the delete: the memories are back, unmarked
    b.type_keys("uu");
    for id in &ids {
        assert!(stored(&b, id).deleted_at.is_none());
        assert!(list_ids(&b).contains(id), "{id} is back in the list");
    }
    // marks a query hides are kept for the next verb, and counted as out of the list
    b.dispatch(Action::SelectFirst);
    let ids = mark_first(&mut b, 2);
    b.type_keys("/");
    b.type_keys("zzz-no-such-memory");
    b.dispatch(Action::LeaveSearch);
    assert_eq!(b.state.marked.len(), 2, "{:?}", ids);
    assert!(
        screen(&b).contains("2 marked, 2 not in this list"),
        "{}",
        screen(&b)
    );
}

#[test]
fn opening_a_memory_counts_a_read_that_is_no_edit_and_never_blocks_undo() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    b.type_keys("/mem-08");
    b.dispatch(Action::LeaveSearch);
    let before = stored(&b, "mem-08");
    let target_before = stored(&b, "mem-07");
    b.type_keys("a");
    let approved = stored(&b, "mem-08");
    press(&mut b, KeyCode::Enter); // focus the detail pane: a read
    let read = stored(&b, "mem-08");
    assert_eq!(read.read_count, approved.read_count + 1);
    assert!(
        read.last_read_at
            .is_some_and(|t| (Timestamp::now().0 - t.0).abs() < 60_000_000_000)
    );
    assert_eq!(
        read.updated_at, approved.updated_at,
        "a read is not an edit"
    );
    assert_eq!(
        b.state.detail.as_ref().map(|d| d.memory.read_count),
        Some(read.read_count),
        "the detail pane shows it"
    );
    assert_eq!(b.state.next_undo.as_deref(), Some("approve `mem-08`"));
    press(&mut b, KeyCode::Enter); // follow the first relationship: a read of mem-07
    assert_eq!(
        stored(&b, "mem-07").read_count,
        target_before.read_count + 1
    );
    press(&mut b, KeyCode::Backspace); // going back is not a read
    assert_eq!(stored(&b, "mem-08").read_count, read.read_count);
    b.type_keys("u");
    assert!(b.state.message.is_none(), "{:?}", b.state.message);
    let undone = stored(&b, "mem-08");
    assert_eq!(undone.status, before.status);
    assert_eq!(undone.updated_at, before.updated_at);
    assert_eq!(undone.read_count, read.read_count, "the read is kept");
}

#[test]
fn reads_are_not_tracked_when_the_config_says_so() {
    let f = fixture();
    let config = Config::parse("track_reads = false\n", ColorMode::NoColor).expect("valid");
    assert!(!config.track_reads);
    let mut b = session_with(&f, (120, 40), config);
    let id = cursor(&b);
    let before = stored(&b, &id);
    b.effects.clear();
    press(&mut b, KeyCode::Enter);
    assert_eq!(stored(&b, &id), before);
    assert!(!b.effects.iter().any(|e| matches!(e, Effect::Write(_))));
}

#[test]
fn a_change_made_elsewhere_blocks_undo_with_a_message_and_nothing_crashes() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let id = cursor(&b);
    b.type_keys("a");
    // another program changes the memory meanwhile
    apply(&f.store, &Change::edit([id.clone()], Edit::Rate(2))).expect("apply");
    let changed = stored(&b, &id);
    b.type_keys("u");
    let message = b.state.message.clone().expect("why not");
    assert!(
        message.contains("cannot undo") && message.contains(&id),
        "{message}"
    );
    assert_eq!(stored(&b, &id), changed, "nothing written");
    // a bad value from a prompt is a message too
    b.type_keys("t");
    for _ in 0..40 {
        b.type_keys("j");
    }
    press(&mut b, KeyCode::Enter);
    b.type_keys("no spaces allowed");
    press(&mut b, KeyCode::Enter);
    assert!(
        b.state
            .message
            .as_deref()
            .is_some_and(|m| m.contains("type"))
    );
    assert!(!b.state.quitting);
}

#[test]
fn m_merges_the_marked_memories_into_the_one_under_the_cursor_after_a_yes() {
    let f = fixture();
    let mut b = session(&f, (120, 40));
    let before = all_stored(&f);
    // nothing marked: M says how, and asks nothing
    b.dispatch(Action::SelectFirst);
    b.type_keys("M");
    assert!(b.state.overlay.is_none());
    let hint = b.state.message.clone().expect("a hint");
    assert!(hint.contains("nothing to merge"), "{hint}");

    let marked = mark_first(&mut b, 3);
    // the cursor sits on the fourth memory: keep it, merge the three marked
    let kept = cursor(&b);
    assert!(!marked.contains(&kept));
    b.type_keys("M");
    let question = match &b.state.overlay {
        Some(memlens::tui::state::Overlay::Confirm(q)) => q.question(),
        other => panic!("{other:?}"),
    };
    assert!(
        question.contains("3 memories") && question.contains(&kept),
        "{question}"
    );
    b.type_keys("n");
    assert_eq!(all_stored(&f), before, "no merges on a no");
    assert_eq!(b.state.marked.len(), 3);

    b.type_keys("M");
    b.type_keys("y");
    assert_eq!(
        changes(&b).last(),
        Some(&Change::Merge {
            into: kept.clone(),
            from: marked.clone(),
        })
    );
    let k = stored(&b, &kept);
    for id in &marked {
        let m = stored(&b, id);
        assert_eq!(
            m.deleted_reason.as_deref(),
            Some(&*format!("merged into {kept}"))
        );
        assert!(
            k.relationships
                .iter()
                .any(|r| r.target == *id && r.kind == "merged")
        );
        assert!(!list_ids(&b).contains(id), "{id} left the list");
    }
    assert!(
        b.state.marked.is_empty(),
        "the merged memories' marks went with them"
    );
    assert_ne!(k, before[&kept]);
    // one change, one undo
    b.type_keys("u");
    assert_eq!(b.state.message, None);
    let after = all_stored(&f);
    for (id, m) in &before {
        assert_eq!(&after[id], m, "{id}");
    }
}
