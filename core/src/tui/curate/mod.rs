//! The curation half of `update`: the verbs of SPEC §5 — each ending in one write
//! effect, on the marked memories or else the one under the cursor — marks, undo and
//! redo. The overlays the verbs open live in `overlays`, the answers of the writes in
//! `answers`.
//!
//! How it behaves, where SPEC §5 leaves room:
//! - A verb applies to the marked memories when there are any, else to the memory under
//!   the cursor (the detail pane's when it has focus, so a followed memory can be
//!   curated). Edit, link and unlink always take the memory under the cursor.
//! - Space marks and moves on; `V` marks every memory of the list (all matches, not
//!   only the loaded page) and again unmarks them; Esc in the list unmarks all. Marks
//!   stay after a change, so several verbs can go to one selection; the list title and
//!   the status line always count them, and purged memories leave the marks.
//! - `M` merges the marked memories into the one under the cursor, after a yes; the
//!   marks of the merged ones go with them.
//! - `D` switches the list to deleted memories only and back; `+`/`-` add and remove
//!   tags; `U` redoes what `u` undid.
//! - The editor saves only the fields that changed. A refused save (an empty body, …)
//!   leaves it open with every change; Esc with unsaved changes asks first, and so does
//!   Ctrl-c (a second Ctrl-c quits): unsaved text is never dropped silently.
//! - After a write the records it left are patched into the list and the detail pane
//!   at once; the search index is rebuilt in the background and the same search then
//!   runs again, keeping the selected memory selected when it is still listed.
//! - Opening a memory (Enter from the list, following a relationship) is a tracked read
//!   unless `track_reads = false`; going back is not. Reads do not rebuild the index.
//! - Quitting waits until every write already sent is durable.

mod answers;
mod overlays;

use super::action::Action;
use super::editor::Editor;
use super::effect::{Effect, WriteJob};
use super::modal::{ChoiceFor, ChoiceOption, ConfirmFor, PromptFor, scope_options, type_options};
use super::state::{Focus, Overlay, State, new_query_box};
use super::update as core;
use super::write::Written;
use crate::curate::{Change, Edit, FieldValue};
use crate::model::{Memory, Scope};
use crate::search::DeletedFilter;
use answers::{patch, written};
use overlays::{
    accept_prompt, cancel_editor, close, confirm, open_editor, open_link_picker, open_unlink,
    paste, pick, save_editor, type_text, with_editor,
};

/// Handles the curation actions; hands every other action back for `update`.
pub(super) fn update(state: &mut State, action: Action, fx: &mut Vec<Effect>) -> Option<Action> {
    match action {
        Action::Quit if state.editor.as_ref().is_some_and(Editor::is_dirty) => {
            if state.overlay == Some(Overlay::Confirm(ConfirmFor::QuitDroppingEdits)) {
                return Some(Action::Quit);
            }
            state.overlay = Some(Overlay::Confirm(ConfirmFor::QuitDroppingEdits));
        }
        Action::CloseOverlay | Action::CloseOrQuit if state.overlay.is_some() => {
            return close(state, action);
        }
        Action::Edit => open_editor(state),
        Action::SetType => {
            if let Some(ids) = targets(state) {
                let options = type_options(&state.facets.types);
                let current = cursor_memory(state).map(|m| m.memory_type);
                let selected = current
                    .and_then(|t| options.iter().position(|o| o.value == t))
                    .unwrap_or(0);
                choose(state, ChoiceFor::Type { ids }, options, selected);
            }
        }
        Action::SetScope => {
            if let Some(ids) = targets(state) {
                let current = cursor_memory(state).map_or(Scope::Personal, |m| m.scope);
                let selected = Scope::ALL.iter().position(|s| *s == current);
                choose(
                    state,
                    ChoiceFor::Scope { ids },
                    scope_options(),
                    selected.unwrap_or(0),
                );
            }
        }
        Action::Approve => edit_targets(state, Edit::Approve, fx),
        Action::Delete => match targets(state) {
            // one key for a whole marked selection asks first (undo brings it back)
            Some(ids) if ids.len() > 1 => {
                state.overlay = Some(Overlay::Confirm(ConfirmFor::Delete { ids }));
            }
            Some(ids) => {
                send(state, Change::edit(ids, Edit::Delete { reason: None }), fx);
            }
            None => {}
        },
        Action::Restore => edit_targets(state, Edit::Restore, fx),
        Action::Reject => ask_for_targets(state, |ids| PromptFor::RejectReason { ids }),
        Action::Tag => ask_for_targets(state, |ids| PromptFor::Tag { ids }),
        Action::Untag => ask_for_targets(state, |ids| PromptFor::Untag { ids }),
        Action::Rate => {
            if let Some(ids) = targets(state) {
                state.overlay = Some(Overlay::Rate { ids });
            }
        }
        Action::Rate1 => rate(state, 1, fx),
        Action::Rate2 => rate(state, 2, fx),
        Action::Rate3 => rate(state, 3, fx),
        Action::Rate4 => rate(state, 4, fx),
        Action::Rate5 => rate(state, 5, fx),
        Action::RetractRating => {
            if let Some(Overlay::Rate { ids }) = state.overlay.take() {
                send(state, Change::edit(ids, Edit::Retract { rater: None }), fx);
            }
        }
        Action::Purge => {
            if let Some(ids) = targets(state) {
                state.overlay = Some(Overlay::Confirm(ConfirmFor::Purge { ids }));
            }
        }
        Action::Merge => ask_to_merge(state),
        Action::Link => open_link_picker(state, fx),
        Action::Unlink => open_unlink(state),
        Action::ToggleMark => toggle_mark(state, fx),
        Action::MarkAll => mark_all(state, fx),
        Action::ClearMarks => {
            if !state.marked.is_empty() {
                state.report = Some(format!("{} unmarked", state.marked.len()));
                state.marked.clear();
            }
        }
        Action::Undo | Action::Redo => {
            begin(state);
            state.writing += 1;
            fx.push(Effect::Write(if action == Action::Undo {
                WriteJob::Undo
            } else {
                WriteJob::Redo
            }));
        }
        Action::ToggleDeletedView => {
            state.filters.deleted = match state.filters.deleted {
                DeletedFilter::Only => DeletedFilter::Exclude,
                _ => DeletedFilter::Only,
            };
            core::filters_changed(state, fx);
        }
        Action::EditorNextField => with_editor(state, |e| e.move_field(1)),
        Action::EditorPreviousField => with_editor(state, |e| e.move_field(-1)),
        Action::EditorSave => save_editor(state, fx),
        Action::EditorCancel => cancel_editor(state),
        Action::PromptAccept => accept_prompt(state, fx),
        Action::ConfirmYes => confirm(state, true, fx),
        Action::ConfirmNo => confirm(state, false, fx),
        Action::PickerNext | Action::PickerPrevious | Action::PickerAccept
            if matches!(
                state.overlay,
                Some(Overlay::Choice { .. } | Overlay::LinkPicker { .. })
            ) =>
        {
            pick(state, action, fx);
        }
        Action::TextInput(input) => type_text(state, input, fx),
        Action::Paste(text) if state.overlay.as_ref().is_some_and(Overlay::takes_text) => {
            paste(state, &text, fx);
        }
        Action::Written(outcome) => written(state, *outcome, fx),
        Action::ReadTracked { id, result } => match result {
            Ok(memory) => {
                patch(
                    state,
                    &[Written {
                        id,
                        after: Some(*memory),
                    }],
                    fx,
                );
            }
            Err(reason) => state.message = Some(format!("read not recorded: {reason}")),
        },
        Action::IndexReloaded => {
            state.loading = false;
            core::refresh_search(state, fx);
        }
        Action::IndexReloadFailed(reason) => {
            state.message = Some(format!("search index not refreshed: {reason}"));
        }
        Action::LinkSearchDone {
            generation,
            response,
        } => {
            if generation == state.link_generation
                && let Some(Overlay::LinkPicker { from, selected }) = &mut state.overlay
            {
                state.link_results = response.hits;
                state.link_results.retain(|h| h.memory.id != *from);
                *selected = (*selected).min(state.link_results.len().saturating_sub(1));
            }
        }
        Action::MarkAllDone { generation, ids } => {
            if generation == state.mark_all_generation {
                toggle_all(state, ids);
            }
        }
        other => return Some(other),
    }
    None
}

/// Counts one read of `id` when reads are tracked.
pub(super) fn track_read(state: &State, id: &str, fx: &mut Vec<Effect>) {
    if state.track_reads {
        fx.push(Effect::Write(WriteJob::Read { id: id.to_string() }));
    }
}

/// Clears the last message before a new change.
pub(super) fn begin(state: &mut State) {
    state.message = None;
    state.report = None;
}

/// The memory under the cursor: the detail pane's when it has focus, else the list's.
fn cursor_memory(state: &State) -> Option<Memory> {
    if state.focus == Focus::Detail
        && let Some(d) = &state.detail
    {
        return Some(d.memory.clone());
    }
    let hit = state.selected_hit()?;
    match &state.detail {
        Some(d) if d.memory.id == hit.memory.id => Some(d.memory.clone()),
        _ => Some(hit.memory.clone()),
    }
}

/// The id under the cursor, or a message saying nothing is selected.
fn cursor_id(state: &mut State) -> Option<String> {
    let id = cursor_memory(state).map(|m| m.id);
    if id.is_none() {
        state.message = Some("no memory selected".into());
    }
    id
}

/// The memories a verb applies to: the marked ones, or else the one under the cursor.
fn targets(state: &mut State) -> Option<Vec<String>> {
    begin(state);
    if state.marked.is_empty() {
        cursor_id(state).map(|id| vec![id])
    } else {
        Some(state.marked.iter().cloned().collect())
    }
}

/// Asks to merge the marked memories (in the list's order) into the one under the
/// cursor (which may be marked too); with nothing else marked, says how.
fn ask_to_merge(state: &mut State) {
    begin(state);
    let Some(into) = cursor_id(state) else {
        return;
    };
    let mut from: Vec<String> = state
        .marked
        .iter()
        .filter(|id| **id != into)
        .cloned()
        .collect();
    // their bodies follow in the order the list shows them (marks beyond the loaded
    // page after, in id order)
    let shown: std::collections::HashMap<&str, usize> = state
        .results
        .hits
        .iter()
        .enumerate()
        .map(|(at, h)| (h.memory.id.as_str(), at))
        .collect();
    from.sort_by_key(|id| shown.get(id.as_str()).copied().unwrap_or(usize::MAX));
    if from.is_empty() {
        // no key named: the keymap may bind others
        state.message = Some("nothing to merge: mark the memories to merge into this one".into());
        return;
    }
    state.overlay = Some(Overlay::Confirm(ConfirmFor::Merge { into, from }));
}

/// Sends one change to the store and returns its tag. A change made to the marked
/// memories that takes them out of what is listed ends the marking, since marks left on
/// memories no longer listed would make the next key act on them unseen: in a review
/// queue any triage (an approval moves them out of Pending), in the list a delete, a
/// purge, or a restore in the deleted-only view. (Other verbs leave them listed and
/// marked for the next one.)
pub(super) fn send(state: &mut State, change: Change, fx: &mut Vec<Effect>) -> u64 {
    let in_queue = state.review.queue.is_some();
    let deleted = state.filters.deleted;
    let on_marks = match &change {
        Change::Edit { ids, .. } | Change::Purge { ids } if in_queue => Some(&ids[..]),
        Change::Merge { from, .. } if in_queue => Some(&from[..]),
        Change::Purge { ids } => Some(&ids[..]),
        Change::Edit { ids, edit } => match (edit, deleted) {
            (Edit::Delete { .. }, DeletedFilter::Exclude)
            | (Edit::Restore, DeletedFilter::Only) => Some(&ids[..]),
            _ => None,
        },
        _ => None,
    };
    if on_marks.is_some_and(|ids| !ids.is_empty() && ids.iter().all(|id| state.marked.contains(id)))
    {
        state.marked.clear();
    }
    state.last_token += 1;
    state.writing += 1;
    let token = state.last_token;
    fx.push(Effect::Write(WriteJob::Change { token, change }));
    token
}

/// Applies an edit to the memories a verb applies to.
fn edit_targets(state: &mut State, edit: Edit, fx: &mut Vec<Effect>) {
    if let Some(ids) = targets(state) {
        send(state, Change::edit(ids, edit), fx);
    }
}

/// Sets fields of the given memories.
fn set(state: &mut State, ids: Vec<String>, values: Vec<FieldValue>, fx: &mut Vec<Effect>) {
    send(state, Change::edit(ids, Edit::Set(values)), fx);
}

/// Opens a prompt about the memories a verb applies to.
fn ask_for_targets(state: &mut State, purpose: impl FnOnce(Vec<String>) -> PromptFor) {
    if let Some(ids) = targets(state) {
        prompt(state, purpose(ids), "");
    }
}

/// Opens a prompt, its box holding `text`.
fn prompt(state: &mut State, purpose: PromptFor, text: &str) {
    let mut input = new_query_box();
    input.set_placeholder_text(purpose.placeholder());
    input.insert_str(text);
    state.prompt_input = input;
    state.overlay = Some(Overlay::Prompt(purpose));
}

/// Opens a choice list with `selected` chosen.
fn choose(state: &mut State, purpose: ChoiceFor, options: Vec<ChoiceOption>, selected: usize) {
    state.overlay = Some(Overlay::Choice {
        purpose,
        options,
        selected,
    });
}

/// Rates the memories the rating overlay was opened for.
fn rate(state: &mut State, stars: u8, fx: &mut Vec<Effect>) {
    if let Some(Overlay::Rate { ids }) = state.overlay.take() {
        send(state, Change::edit(ids, Edit::Rate(stars)), fx);
    }
}

/// Marks or unmarks the memory under the cursor; in the list the cursor moves on.
fn toggle_mark(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(id) = cursor_id(state) else { return };
    if !state.marked.remove(&id) {
        state.marked.insert(id);
    }
    if state.focus == Focus::List {
        super::navigate::move_selection(state, 1, fx);
    }
}

/// Marks every memory of the list (asking the worker when not all of it is loaded).
fn mark_all(state: &mut State, fx: &mut Vec<Effect>) {
    let r = &state.results;
    if r.total == 0 {
        return;
    }
    if r.offset == 0 && r.hits.len() >= r.total {
        let ids = r.hits.iter().map(|h| h.memory.id.clone()).collect();
        return toggle_all(state, ids);
    }
    state.mark_all_generation += 1;
    let mut request = state.request(0);
    request.limit = state.results.total;
    fx.push(Effect::MarkAll {
        generation: state.mark_all_generation,
        request: Box::new(request),
    });
}

/// Marks every id, or unmarks them all when every one is marked already.
fn toggle_all(state: &mut State, ids: Vec<String>) {
    if ids.iter().all(|id| state.marked.contains(id)) {
        for id in &ids {
            state.marked.remove(id);
        }
        state.report = Some(format!("{} unmarked", ids.len()));
    } else {
        state.report = Some(format!("{} in the list marked", ids.len()));
        state.marked.extend(ids);
    }
}
