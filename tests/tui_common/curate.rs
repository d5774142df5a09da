//! Helpers of the curation tests: the store read back, the cursor, keys, the writes a
//! session asked for, and a check that a change shows everywhere at once.

use memlens::curate::Change;
use memlens::model::{Memory, Timestamp};
use memlens::tui::action::Action;
use memlens::tui::effect::{Effect, WriteJob};
use memlens::tui::headless::Headless;
use ratatui::crossterm::event::{KeyCode, KeyModifiers};

use super::{Fixture, fixture, session};

/// The memory as stored now.
pub fn stored(b: &Headless, id: &str) -> Option<Memory> {
    b.memories().get(id).expect("get")
}

/// The id of the memory under the list's cursor.
pub fn cursor(b: &Headless) -> String {
    b.state
        .selected_hit()
        .expect("a selection")
        .memory
        .id
        .clone()
}

/// Puts `id` under the cursor by searching for it.
pub fn select_id(b: &mut Headless, id: &str) {
    b.type_keys("/");
    ctrl(b, 'u');
    b.type_keys(id);
    b.dispatch(Action::LeaveSearch);
    assert_eq!(cursor(b), id);
}

/// Presses a key without modifiers.
pub fn press(b: &mut Headless, code: KeyCode) {
    b.press(code, KeyModifiers::NONE);
}

/// Presses Ctrl and a letter.
pub fn ctrl(b: &mut Headless, c: char) {
    b.press(KeyCode::Char(c), KeyModifiers::CONTROL);
}

/// The writes run since the effects were last cleared.
pub fn writes(b: &Headless) -> Vec<WriteJob> {
    b.effects
        .iter()
        .filter_map(|e| match e {
            Effect::Write(job) => Some(job.clone()),
            _ => None,
        })
        .collect()
}

/// The curation changes among the writes.
pub fn changes(b: &Headless) -> Vec<Change> {
    writes(b)
        .into_iter()
        .filter_map(|j| match j {
            WriteJob::Change { change, .. } => Some(change),
            _ => None,
        })
        .collect()
}

/// True for a time within a minute of now.
pub fn recent(t: Timestamp) -> bool {
    (Timestamp::now().0 - t.0).abs() < 60_000_000_000
}

/// The store, the selected list row and the detail pane all hold `id` as `expected`.
pub fn shown_everywhere(b: &Headless, id: &str, check: impl Fn(&Memory) -> bool) {
    let m = stored(b, id).expect("stored");
    assert!(check(&m), "store: {m:?}");
    let hit = b.state.results.hits.iter().find(|h| h.memory.id == id);
    assert!(hit.is_some_and(|h| check(&h.memory)), "list row");
    let detail = b.state.detail.as_ref().expect("detail");
    assert_eq!(detail.memory.id, id);
    assert!(check(&detail.memory), "detail pane");
}

/// A session at 120×40 on the standard fixture (keep the fixture alive).
pub fn start() -> (Fixture, Headless) {
    let f = fixture();
    let b = session(&f, (120, 40));
    (f, b)
}

/// The screen as drawn at 120×40 (the size [`start`] opens at).
pub fn screen(b: &Headless) -> String {
    let backend = ratatui::backend::TestBackend::new(120, 40);
    let mut t = ratatui::Terminal::new(backend).expect("terminal");
    b.draw(&mut t, super::now()).expect("draw");
    t.backend().to_string()
}
