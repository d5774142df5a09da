//! `update(&mut State, Action) -> Vec<Effect>`: every change of the screen's state, with
//! no I/O. Searches, histograms and store reads leave as effects and come back as actions.

use super::action::Action;
use super::curate;
use super::effect::{Effect, HistogramJob};
use super::filter_rows::FilterKind;
use super::navigate::{
    click, follow, go_back, keep_selection_visible, move_link, move_selection, scroll,
    scroll_pages, scroll_to_end, search_done, select, wheel,
};
use super::state::{Focus, Overlay, State, Tab, new_query_box};
use super::view;
use crate::search::NumericField;
use tui_textarea::{Input, Key};

pub use super::navigate::list_rows;

/// The effects to run when the program starts: the first search.
pub fn start(state: &mut State) -> Vec<Effect> {
    vec![new_search(state)]
}

/// Applies one action to the state and returns what must happen outside it.
pub fn update(state: &mut State, action: Action) -> Vec<Effect> {
    let mut effects = Vec::new();
    let Some(action) = super::review::update(state, action, &mut effects) else {
        return effects;
    };
    let Some(action) = curate::update(state, action, &mut effects) else {
        return effects;
    };
    match action {
        Action::Quit => quit(state, &mut effects),
        Action::CloseOrQuit | Action::CloseOverlay if state.overlay.is_some() => {
            state.overlay = None;
        }
        Action::CloseOrQuit => quit(state, &mut effects),
        Action::CloseOverlay => {}
        Action::SelectNext => move_selection(state, 1, &mut effects),
        Action::SelectPrevious => move_selection(state, -1, &mut effects),
        Action::SelectFirst => select(state, 0, &mut effects),
        Action::SelectLast => select(state, state.results.total.saturating_sub(1), &mut effects),
        Action::PageDown => move_selection(state, list_rows(state) as i64, &mut effects),
        Action::PageUp => move_selection(state, -(list_rows(state) as i64), &mut effects),
        Action::NextTab => show_tab(state, state.tab.step(1), &mut effects),
        Action::PreviousTab => show_tab(state, state.tab.step(-1), &mut effects),
        Action::ShowRelevance => show_tab(state, Tab::Relevance, &mut effects),
        Action::ShowTime => show_tab(state, Tab::Time, &mut effects),
        Action::ShowDensity => show_tab(state, Tab::Density, &mut effects),
        Action::ShowRating => show_tab(state, Tab::Rating, &mut effects),
        Action::ShowDiscovery => show_tab(state, Tab::Discovery, &mut effects),
        Action::ShowProperty => show_tab(state, Tab::Property, &mut effects),
        Action::ShowRandom => {
            // on the draw already: a fresh one
            if state.drawing().is_some() {
                state.draw_seed = next_seed(state.draw_seed);
            }
            show_tab(state, Tab::Random, &mut effects);
        }
        Action::FlipOrder => {
            state.order = Some(state.effective_order().flip());
            effects.push(new_search(state));
        }
        Action::PickPropertyField => {
            let selected = NumericField::all()
                .iter()
                .position(|f| *f == state.property_field)
                .unwrap_or(0);
            state.overlay = Some(Overlay::FieldPicker { selected });
        }
        Action::FocusDetail => {
            if state.focus != Focus::Detail
                && let Some(id) = state.detail_target.clone()
            {
                curate::track_read(state, &id, &mut effects);
            }
            state.focus = Focus::Detail;
        }
        Action::FocusList => state.focus = Focus::List,
        Action::CycleFocus => state.focus = next_focus(state),
        Action::FocusSearch => state.focus = Focus::Search,
        Action::ToggleFilters => {
            if state.filters_open {
                close_filters(state);
            } else {
                state.filters_open = true;
                state.focus = Focus::Filters;
                effects.push(histograms(state));
            }
        }
        Action::CloseFilters => close_filters(state),
        Action::TogglePrivate => state.reveal_private = !state.reveal_private,
        Action::FilesChanged(changed) => {
            // answered like a write, which counts itself done
            state.writing += 1;
            effects.push(Effect::Write(super::write::WriteJob::Reread(changed)))
        }
        Action::ToggleHelp => {
            state.overlay = match state.overlay {
                Some(Overlay::Help { .. }) => None,
                _ => Some(Overlay::Help { scroll: 0 }),
            };
        }
        Action::CycleEngine => {
            state.engine = state.engine.next();
            effects.push(new_search(state));
        }
        Action::ClearQuery => {
            if !state.query_text().is_empty() {
                state.query = new_query_box();
                effects.push(new_search(state));
            }
        }
        Action::LeaveSearch => state.focus = Focus::List,
        Action::NextFilter => move_filter_row(state, 1),
        Action::PreviousFilter => move_filter_row(state, -1),
        Action::LowerBoundDown => nudge(state, false, -1, &mut effects),
        Action::LowerBoundUp => nudge(state, false, 1, &mut effects),
        Action::UpperBoundDown => nudge(state, true, -1, &mut effects),
        Action::UpperBoundUp => nudge(state, true, 1, &mut effects),
        Action::ResetFilter => {
            if let Some(row) = state.filter_rows().get(state.filter_row).copied()
                && !row.is_off(&state.filters)
            {
                row.reset(&mut state.filters);
                filters_changed(state, &mut effects);
            }
        }
        Action::ResetAllFilters => {
            if state.active_filters() > 0 {
                state.filters = Default::default();
                filters_changed(state, &mut effects);
            }
        }
        Action::ScrollDown => scroll(state, 1),
        Action::ScrollUp => scroll(state, -1),
        Action::ScrollPageDown => scroll_pages(state, 1),
        Action::ScrollPageUp => scroll_pages(state, -1),
        Action::ScrollToTop => scroll_to_end(state, false),
        Action::ScrollToEnd => scroll_to_end(state, true),
        Action::NextRelationship => move_link(state, 1),
        Action::PreviousRelationship => move_link(state, -1),
        Action::FollowRelationship => follow(state, &mut effects),
        Action::GoBack => go_back(state, &mut effects),
        Action::PickerNext => move_picker(state, 1),
        Action::PickerPrevious => move_picker(state, -1),
        Action::PickerAccept => {
            if let Some(Overlay::FieldPicker { selected }) = state.overlay {
                if let Some(field) = NumericField::all().get(selected) {
                    state.property_field = *field;
                }
                state.overlay = None;
                show_tab(state, Tab::Property, &mut effects);
            }
        }
        Action::SearchInput(input) => type_key(state, input, &mut effects),
        Action::Paste(text) => paste(state, &text, &mut effects),
        Action::Resize(w, h) => {
            state.size = (w, h);
            keep_selection_visible(state);
            if !state.filters_open {
                state.detail_scroll = state.detail_scroll.min(view::detail::max_scroll(state));
            }
        }
        Action::Wheel { column, row, lines } => wheel(state, column, row, lines, &mut effects),
        Action::Click { column, row } => click(state, column, row, &mut effects),
        Action::SearcherReady => state.loading = false,
        Action::LoadFailed(reason) => {
            state.loading = false;
            state.searching = false;
            state.message = Some(reason);
        }
        Action::StoreFailed(reason) => {
            state.searching = false;
            state.message = Some(reason);
        }
        Action::StoreWaiting(seconds) => state.store_waiting = seconds,
        Action::FacetsLoaded(facets) => state.facets = facets,
        // the newer search it gave way to answers
        Action::SearchSuperseded => {}
        Action::SearchDone {
            generation,
            response,
            offset,
            elapsed,
        } => {
            if generation == state.generation {
                search_done(state, (offset, response), elapsed, &mut effects);
            }
        }
        Action::HistogramDone {
            generation,
            row,
            histogram,
        } => {
            if generation == state.histogram_generation
                && let Some(slot) = state.histograms.get_mut(row)
            {
                *slot = Some(histogram);
            }
        }
        Action::DetailLoaded(view) => {
            if state.detail_target.as_deref() == Some(view.memory.id.as_str()) {
                let same = state
                    .detail
                    .as_ref()
                    .is_some_and(|d| d.memory.id == view.memory.id);
                if !same {
                    state.detail_scroll = 0;
                    state.detail_link = 0;
                }
                state.detail = Some(*view);
                // the same memory may read shorter than before (edited)
                state.detail_scroll = state.detail_scroll.min(view::detail::max_scroll(state));
            }
        }
        Action::DetailFailed { id, reason } => {
            if state.detail_target.as_deref() == Some(id.as_str()) {
                state.message = Some(reason);
            }
        }
        // `curate::update` took these; it hands back only the others.
        Action::Edit
        | Action::SetType
        | Action::SetScope
        | Action::Approve
        | Action::Reject
        | Action::Rate
        | Action::Delete
        | Action::Restore
        | Action::Purge
        | Action::Merge
        | Action::Link
        | Action::Unlink
        | Action::Tag
        | Action::Untag
        | Action::ToggleMark
        | Action::MarkAll
        | Action::ClearMarks
        | Action::Undo
        | Action::Redo
        | Action::ToggleDeletedView
        | Action::Rate1
        | Action::Rate2
        | Action::Rate3
        | Action::Rate4
        | Action::Rate5
        | Action::RetractRating
        | Action::EditorNextField
        | Action::EditorPreviousField
        | Action::EditorSave
        | Action::EditorCancel
        | Action::PromptAccept
        | Action::ConfirmYes
        | Action::ConfirmNo
        | Action::TextInput(_)
        | Action::Written(_)
        | Action::ReadTracked { .. }
        | Action::IndexReloaded
        | Action::IndexReloadFailed(_)
        | Action::LinkSearchDone { .. }
        | Action::MarkAllDone { .. } => {}
        // `review::update` took these.
        Action::ShowReview
        | Action::NextQueue
        | Action::PreviousQueue
        | Action::SkipEntry
        | Action::NotDuplicate
        | Action::Supersede
        | Action::SwapPair
        | Action::ReviewDone { .. } => {}
    }
    effects
}

fn quit(state: &mut State, effects: &mut Vec<Effect>) {
    state.quitting = true;
    effects.push(Effect::Quit);
}

/// A fresh search from the top (query, tab, order or filters changed).
fn new_search(state: &mut State) -> Effect {
    state.keep_selected = None;
    state.generation += 1;
    state.searching = true;
    state.selected = 0;
    state.list_top = 0;
    state.requested_offset = 0;
    page_effect(state, 0)
}

/// The effect that lists the page at `offset` of what the list shows: a queue's page,
/// the Random tab's draw, or a search.
pub(super) fn page_effect(state: &State, offset: usize) -> Effect {
    super::review::page_effect(state, offset).unwrap_or_else(|| Effect::Search {
        generation: state.generation,
        request: Box::new(state.request(offset)),
        draw: state.drawing(),
        keep: state.keep_selected.clone(),
    })
}

/// The seed of the draw after the one of `seed`.
fn next_seed(seed: u64) -> u64 {
    crate::stable_hash::mix(seed.wrapping_add(1))
}

/// The histograms of every slider row, the chosen row's neighbours first.
pub(super) fn histograms(state: &mut State) -> Effect {
    state.histogram_generation += 1;
    let rows = state.filter_rows();
    let mut jobs: Vec<HistogramJob> = rows
        .iter()
        .enumerate()
        .filter_map(|(row, kind)| {
            Some(HistogramJob {
                row,
                field: kind.field()?,
                filters: state.filters.clone(),
            })
        })
        .collect();
    let at = state.filter_row;
    jobs.sort_by_key(|j| j.row.abs_diff(at));
    Effect::Histograms {
        generation: state.histogram_generation,
        jobs,
    }
}

/// The same search again after the store changed: the page and the selected memory
/// stay where they are when they can.
pub(super) fn refresh_search(state: &mut State, effects: &mut Vec<Effect>) {
    state.keep_selected = (state.select_after_reload.take())
        .or_else(|| state.selected_hit().map(|h| h.memory.id.clone()));
    state.generation += 1;
    state.searching = true;
    state.requested_offset = state.results.offset;
    let offset = state.results.offset;
    effects.push(page_effect(state, offset));
    if state.filters_open {
        effects.push(histograms(state));
    }
}

pub(super) fn filters_changed(state: &mut State, effects: &mut Vec<Effect>) {
    effects.push(new_search(state));
    if state.filters_open {
        effects.push(histograms(state));
    }
}

fn close_filters(state: &mut State) {
    state.filters_open = false;
    if state.focus == Focus::Filters {
        state.focus = Focus::List;
    }
}

fn next_focus(state: &State) -> Focus {
    match state.focus {
        Focus::List => Focus::Search,
        Focus::Search if state.filters_open => Focus::Filters,
        Focus::Search | Focus::Filters => Focus::Detail,
        Focus::Detail => Focus::List,
    }
}

/// A fresh search (or queue page) from the top.
pub(super) fn search_again(state: &mut State, effects: &mut Vec<Effect>) {
    effects.push(new_search(state));
}

pub(super) fn show_tab(state: &mut State, tab: Tab, effects: &mut Vec<Effect>) {
    // a mode tab ends the review
    state.review.queue = None;
    state.tab = tab;
    state.order = None;
    effects.push(new_search(state));
}

pub(super) fn move_filter_row(state: &mut State, delta: i64) {
    let last = state.filter_rows().len() as i64 - 1;
    state.filter_row = (state.filter_row as i64 + delta).clamp(0, last) as usize;
}

fn nudge(state: &mut State, upper: bool, steps: i32, effects: &mut Vec<Effect>) {
    let Some(row) = state.filter_rows().get(state.filter_row).copied() else {
        return;
    };
    let before = state.filters.clone();
    row.nudge(&mut state.filters, &state.facets, upper, steps);
    if state.filters != before {
        filters_changed(state, effects);
    }
}

fn move_picker(state: &mut State, delta: i64) {
    if let Some(Overlay::FieldPicker { selected }) = &mut state.overlay {
        let last = NumericField::all().len() as i64 - 1;
        *selected = (*selected as i64 + delta).clamp(0, last) as usize;
    }
}

fn type_key(state: &mut State, input: Input, effects: &mut Vec<Effect>) {
    // One line only: keys that would start a second line are not text here.
    let newline = input.key == Key::Enter
        || (input.ctrl && matches!(input.key, Key::Char('m') | Key::Char('j')));
    if newline || input.key == Key::Tab {
        return;
    }
    let before = state.query_text();
    state.query.input(input);
    single_line(state);
    if state.query_text() != before {
        effects.push(new_search(state));
    }
}

fn paste(state: &mut State, text: &str, effects: &mut Vec<Effect>) {
    if state.overlay.is_some() {
        return;
    }
    state.focus = Focus::Search;
    let clean: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    if clean.is_empty() {
        return;
    }
    state.query.insert_str(clean);
    effects.push(new_search(state));
}

fn single_line(state: &mut State) {
    if state.query.lines().len() > 1 {
        let text = state.query_text();
        state.query = new_query_box();
        state.query.insert_str(text);
    }
}

/// The filter row kinds, re-exported for views and tests.
pub fn filter_kind(state: &State, row: usize) -> Option<FilterKind> {
    state.filter_rows().get(row).copied()
}
