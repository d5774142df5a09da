//! The answers of writes: what the last change, undo or redo did goes to the status
//! line, and the records it left are patched into the loaded list and the detail pane
//! at once, while the search index is rebuilt in the background.

use super::with_editor;
use crate::tui::effect::Effect;
use crate::tui::modal::targets_label;
use crate::tui::navigate::settle_selection;
use crate::tui::state::{Overlay, State};
use crate::tui::write::{WriteKind, WriteOutcome, Written};

/// Takes the answer of a change, undo or redo: the status line says what it did (or
/// why not), an editor waiting for its save closes only on success.
pub(super) fn written(state: &mut State, outcome: WriteOutcome, fx: &mut Vec<Effect>) {
    state.writing = state.writing.saturating_sub(1);
    state.next_undo = outcome.next_undo;
    let saved_editor = outcome.kind == WriteKind::Change
        && state
            .editor
            .as_ref()
            .is_some_and(|e| e.saving == Some(outcome.token));
    let report = match outcome.result {
        Err(reason) => {
            // A refused save leaves the editor open with every change in it.
            with_editor(state, |e| {
                e.saving = e.saving.filter(|t| *t != outcome.token)
            });
            state.report = None;
            state.message = Some(reason);
            return;
        }
        Ok(report) => report,
    };
    if outcome.kind == WriteKind::Disk && report.changed.is_empty() {
        // the watcher saw memlens's own writes, or bytes that mean the same
        return;
    }
    if saved_editor {
        state.editor = None;
        if matches!(state.overlay, Some(Overlay::Editor | Overlay::Confirm(_))) {
            state.overlay = None;
        }
    }
    let ms = format!("{:.1} ms", outcome.elapsed.as_secs_f64() * 1000.0);
    state.message = None;
    state.report = Some(match outcome.kind {
        WriteKind::Change if report.changed.is_empty() => format!(
            "nothing changed: {} {}",
            targets_label(&report.unchanged),
            report.no_op_reason.unwrap_or("unchanged")
        ),
        WriteKind::Change if !report.unchanged.is_empty() => format!(
            "{} ({} unchanged: {}) · {ms}",
            report.description,
            report.unchanged.len(),
            report.no_op_reason.unwrap_or("unchanged")
        ),
        WriteKind::Change => format!("{} · {ms}", report.description),
        WriteKind::Undo => format!("undone: {} · {ms}", report.description),
        WriteKind::Redo => format!("redone: {} · {ms}", report.description),
        WriteKind::Disk => format!("{} · {ms}", report.description),
    });
    if outcome.kind == WriteKind::Disk {
        crate::project::live::warn_editor(state, &report.changed);
    }
    if matches!(outcome.kind, WriteKind::Undo | WriteKind::Redo) {
        // what an undo brings back (or a redo changes again) is where the cursor goes
        state.select_after_reload = (report.changed.iter())
            .find(|w| w.after.is_some())
            .map(|w| w.id.clone());
    }
    if !report.changed.is_empty() {
        patch(state, &report.changed, fx);
        fx.push(Effect::ReloadIndex);
        if let Some(id) = state.detail_target.clone() {
            fx.push(Effect::LoadDetail { id });
        }
    }
}

/// Puts the records a write left into the loaded list and the detail pane, so both
/// show the change before the search index catches up.
pub(super) fn patch(state: &mut State, written: &[Written], fx: &mut Vec<Effect>) {
    for w in written {
        match &w.after {
            Some(memory) => {
                for hit in state.results.hits.iter_mut() {
                    if hit.memory.id == w.id {
                        hit.memory = memory.clone();
                    }
                }
                if let Some(d) = state.detail.as_mut()
                    && d.memory.id == w.id
                {
                    d.memory = memory.clone();
                }
            }
            None => {
                let before = state.results.hits.len();
                state.results.hits.retain(|h| h.memory.id != w.id);
                let gone = before - state.results.hits.len();
                state.results.total = state.results.total.saturating_sub(gone);
                state.marked.remove(&w.id);
                state.back_stack.retain(|id| *id != w.id);
                if state.detail_target.as_deref() == Some(w.id.as_str()) {
                    state.detail = None;
                    state.detail_target = None;
                    state.following = false;
                }
            }
        }
    }
    settle_selection(state, fx);
}
