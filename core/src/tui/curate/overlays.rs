//! The curation overlays at work: the editor (save, and cancel that asks before
//! dropping changes), the prompts, the yes/no questions, the choice lists and the link
//! picker with its own search box — each ending in a write, or in nothing at all.

use super::{begin, choose, cursor_id, cursor_memory, prompt, send, set};
use crate::curate::{Change, Edit, FieldValue};
use crate::model::Scope;
use crate::search::{BrowseMode, Filters, SearchRequest};
use crate::tui::action::Action;
use crate::tui::editor::Editor;
use crate::tui::effect::Effect;
use crate::tui::modal::{ChoiceFor, ChoiceOption, ConfirmFor, OTHER_TYPE, PromptFor, split_list};
use crate::tui::state::{Overlay, State, new_query_box};
use tui_textarea::{Input, Key, TextArea};

/// Results the link picker asks for.
pub const LINK_PICKER_LIMIT: usize = 50;

/// Closes the top overlay the way it must be closed (the editor asks first); hands
/// the action back when the plain close will do.
pub(super) fn close(state: &mut State, action: Action) -> Option<Action> {
    match &state.overlay {
        Some(Overlay::Editor) => cancel_editor(state),
        Some(Overlay::Confirm(ConfirmFor::DropEdits | ConfirmFor::QuitDroppingEdits)) => {
            state.overlay = Some(Overlay::Editor);
        }
        Some(Overlay::LinkPicker { .. }) => {
            state.overlay = None;
            state.link_results.clear();
        }
        _ => return Some(action),
    }
    None
}

/// Opens the editor on the memory under the cursor.
pub(super) fn open_editor(state: &mut State) {
    use crate::project::private::has_private;
    begin(state);
    match cursor_memory(state) {
        // the editor shows the text as it is: private parts only once revealed
        Some(memory)
            if !state.reveal_private
                && (memory.title.as_deref().is_some_and(has_private)
                    || has_private(&memory.body)) =>
        {
            // (the keymap is the view's: the help names the key of this action)
            state.message = Some(
                "this memory holds private text: show it first (\"show/hide private text\" in the help), then edit"
                    .into(),
            );
        }
        Some(memory) => {
            state.editor = Some(Editor::open(&memory));
            state.overlay = Some(Overlay::Editor);
        }
        None => state.message = Some("no memory selected".into()),
    }
}

/// Runs `f` on the open editor, if any.
pub(super) fn with_editor(state: &mut State, f: impl FnOnce(&mut Editor)) {
    if let Some(editor) = state.editor.as_mut() {
        f(editor);
    }
}

/// Drops the editor and its overlay.
fn close_editor(state: &mut State) {
    state.editor = None;
    state.overlay = None;
}

/// Writes the fields that changed; the editor stays open until the write succeeds.
pub(super) fn save_editor(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(editor) = &state.editor else { return };
    if editor.saving.is_some() {
        return;
    }
    let (id, changes) = (editor.id.clone(), editor.changes());
    begin(state);
    if changes.is_empty() {
        close_editor(state);
        state.report = Some("nothing to save".into());
        return;
    }
    state.report = Some(format!("saving `{id}`…"));
    let token = send(state, Change::edit([id], Edit::Set(changes)), fx);
    with_editor(state, |e| e.saving = Some(token));
}

/// Closes the editor, asking first when it has unsaved changes.
pub(super) fn cancel_editor(state: &mut State) {
    match &state.editor {
        Some(e) if e.is_dirty() => {
            state.overlay = Some(Overlay::Confirm(ConfirmFor::DropEdits));
        }
        _ => close_editor(state),
    }
}

/// Takes what is typed in a prompt: a write, or a message saying what is missing.
pub(super) fn accept_prompt(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(Overlay::Prompt(purpose)) = state.overlay.clone() else {
        return;
    };
    let text = state.prompt_input.lines().join(" ").trim().to_string();
    let refuse = |state: &mut State, why: &str| state.message = Some(why.to_string());
    match purpose {
        PromptFor::RejectReason { ids } if !text.is_empty() => {
            send(state, Change::edit(ids, Edit::Reject { reason: text }), fx);
        }
        PromptFor::RejectReason { .. } => return refuse(state, "a rejection needs a reason"),
        PromptFor::Tag { .. } | PromptFor::Untag { .. } if split_list(&text).is_empty() => {
            return refuse(state, "type at least one tag");
        }
        PromptFor::Tag { ids } => {
            send(state, Change::edit(ids, Edit::Tag(split_list(&text))), fx);
        }
        PromptFor::Untag { ids } => {
            send(state, Change::edit(ids, Edit::Untag(split_list(&text))), fx);
        }
        PromptFor::Module { .. } if text.is_empty() => {
            return refuse(state, "scope module needs the module's name");
        }
        PromptFor::Module { ids } => {
            let values = vec![
                FieldValue::Scope(Scope::Module),
                FieldValue::Module(Some(text)),
            ];
            set(state, ids, values, fx);
        }
        PromptFor::NewType { ids } => match FieldValue::parse("type", &text) {
            Ok(value) => set(state, ids, vec![value], fx),
            Err(e) => return refuse(state, &e.to_string()),
        },
        PromptFor::LinkKind { from, to } => {
            send(
                state,
                Change::Link {
                    a: from,
                    b: to,
                    kind: text,
                },
                fx,
            );
        }
    }
    state.message = None;
    state.overlay = None;
}

/// Answers the yes/no question.
pub(super) fn confirm(state: &mut State, yes: bool, fx: &mut Vec<Effect>) {
    let Some(Overlay::Confirm(question)) = state.overlay.clone() else {
        return;
    };
    state.overlay = None;
    match (question, yes) {
        (ConfirmFor::Delete { ids }, true) => {
            send(state, Change::edit(ids, Edit::Delete { reason: None }), fx);
        }
        (ConfirmFor::Delete { .. }, false) => state.report = Some("nothing deleted".into()),
        (ConfirmFor::Purge { ids }, true) => {
            send(state, Change::Purge { ids }, fx);
        }
        (ConfirmFor::Purge { .. }, false) => state.report = Some("nothing purged".into()),
        (ConfirmFor::Merge { into, from }, true) => {
            for id in &from {
                state.marked.remove(id);
            }
            send(state, Change::Merge { into, from }, fx);
        }
        (ConfirmFor::Merge { .. }, false) => state.report = Some("nothing merged".into()),
        (ConfirmFor::DropEdits, true) => {
            close_editor(state);
            state.report = Some("changes dropped".into());
        }
        (ConfirmFor::QuitDroppingEdits, true) => {
            close_editor(state);
            state.quitting = true;
            fx.push(Effect::Quit);
        }
        (ConfirmFor::DropEdits | ConfirmFor::QuitDroppingEdits, false) => {
            state.overlay = Some(Overlay::Editor);
        }
    }
}

/// Opens the link picker for the memory under the cursor and searches at once.
pub(super) fn open_link_picker(state: &mut State, fx: &mut Vec<Effect>) {
    begin(state);
    let Some(from) = cursor_id(state) else { return };
    let mut query = new_query_box();
    query.set_placeholder_text("type to find the memory to link to");
    state.link_query = query;
    state.link_results.clear();
    state.overlay = Some(Overlay::LinkPicker { from, selected: 0 });
    link_search(state, fx);
}

/// Searches for the link picker with what its box holds.
fn link_search(state: &mut State, fx: &mut Vec<Effect>) {
    state.link_generation += 1;
    fx.push(Effect::LinkSearch {
        generation: state.link_generation,
        request: Box::new(SearchRequest {
            query: state.link_query.lines().join(" "),
            engine: state.engine,
            filters: Filters::default(),
            mode: BrowseMode::Relevance,
            order: None,
            offset: 0,
            limit: LINK_PICKER_LIMIT,
        }),
    });
}

/// Lists the relationships of the memory under the cursor, to remove one.
pub(super) fn open_unlink(state: &mut State) {
    begin(state);
    let Some(from) = cursor_id(state) else { return };
    let links = state
        .detail
        .as_ref()
        .filter(|d| d.memory.id == from)
        .and_then(|d| d.links.clone());
    let Some(links) = links else {
        state.message = Some(format!("reading the relationships of `{from}`…"));
        return;
    };
    if links.is_empty() {
        state.message = Some(format!("`{from}` has no relationships"));
        return;
    }
    let options = links
        .iter()
        .map(|l| ChoiceOption {
            value: l.id.clone(),
            label: format!(
                "{} {} {}",
                if l.outgoing { "→" } else { "←" },
                l.kind,
                l.headline
                    .clone()
                    .unwrap_or_else(|| format!("{} (missing)", l.id))
            ),
        })
        .collect();
    choose(state, ChoiceFor::Unlink { from }, options, 0);
}

/// Moves in, or accepts from, a choice list or the link picker.
pub(super) fn pick(state: &mut State, action: Action, fx: &mut Vec<Effect>) {
    let step: i64 = match action {
        Action::PickerNext => 1,
        Action::PickerPrevious => -1,
        _ => 0,
    };
    match state.overlay.take() {
        Some(Overlay::Choice {
            purpose,
            options,
            selected,
        }) => {
            if step != 0 {
                let last = options.len().saturating_sub(1) as i64;
                let selected = (selected as i64 + step).clamp(0, last) as usize;
                return choose(state, purpose, options, selected);
            }
            if let Some(option) = options.get(selected) {
                chosen(state, purpose, option.value.clone(), fx);
            }
        }
        Some(Overlay::LinkPicker { from, selected }) => {
            let last = state.link_results.len().saturating_sub(1) as i64;
            let selected = (selected as i64 + step).clamp(0, last.max(0)) as usize;
            if step != 0 {
                state.overlay = Some(Overlay::LinkPicker { from, selected });
                return;
            }
            match state.link_results.get(selected) {
                Some(hit) => {
                    let to = hit.memory.id.clone();
                    state.link_results.clear();
                    prompt(state, PromptFor::LinkKind { from, to }, "related");
                }
                None => {
                    state.message = Some("no memory to link to: type to search".into());
                    state.overlay = Some(Overlay::LinkPicker { from, selected });
                }
            }
        }
        other => state.overlay = other,
    }
}

/// Acts on the entry chosen from a choice list.
fn chosen(state: &mut State, purpose: ChoiceFor, value: String, fx: &mut Vec<Effect>) {
    match purpose {
        ChoiceFor::Type { ids } if value == OTHER_TYPE => {
            prompt(state, PromptFor::NewType { ids }, "");
        }
        ChoiceFor::Type { ids } => set(state, ids, vec![FieldValue::Type(value)], fx),
        ChoiceFor::Scope { ids } => match value.parse::<Scope>() {
            Ok(Scope::Module) => {
                let current = cursor_memory(state).and_then(|m| m.module);
                let text = if ids.len() == 1 { current } else { None };
                prompt(state, PromptFor::Module { ids }, &text.unwrap_or_default());
            }
            Ok(scope) => set(state, ids, vec![FieldValue::Scope(scope)], fx),
            Err(e) => state.message = Some(e),
        },
        ChoiceFor::Unlink { from } => {
            send(state, Change::Unlink { a: from, b: value }, fx);
        }
    }
}

/// A key typed into the text box of the open overlay.
pub(super) fn type_text(state: &mut State, input: Input, fx: &mut Vec<Effect>) {
    match &state.overlay {
        Some(Overlay::Editor) => {
            if let Some(editor) = state.editor.as_mut().filter(|e| e.saving.is_none()) {
                editor.input(input);
            }
        }
        Some(Overlay::Prompt(_)) => one_line_input(&mut state.prompt_input, input),
        Some(Overlay::LinkPicker { .. }) => {
            let before = state.link_query.lines().join(" ");
            one_line_input(&mut state.link_query, input);
            if state.link_query.lines().join(" ") != before {
                if let Some(Overlay::LinkPicker { selected, .. }) = &mut state.overlay {
                    *selected = 0;
                }
                link_search(state, fx);
            }
        }
        _ => {}
    }
}

/// A key into a one-line box: keys that would start a second line are not text.
fn one_line_input(area: &mut TextArea<'static>, input: Input) {
    let newline = input.key == Key::Enter
        || (input.ctrl && matches!(input.key, Key::Char('m') | Key::Char('j')));
    if !newline && input.key != Key::Tab {
        area.input(input);
    }
}

/// Pasted text into the text box of the open overlay.
pub(super) fn paste(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    let one_line: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    match &state.overlay {
        Some(Overlay::Editor) => with_editor(state, |e| {
            if e.saving.is_none() {
                e.paste(text);
            }
        }),
        Some(Overlay::Prompt(_)) => {
            state.prompt_input.insert_str(one_line);
        }
        Some(Overlay::LinkPicker { .. }) => {
            state.link_query.insert_str(one_line);
            link_search(state, fx);
        }
        _ => {}
    }
}
