//! Moving through the list and the detail pane: the selection and the page loaded
//! around it, the detail pane following the selection or a relationship (and back),
//! scrolling, and the mouse. Part of `update`: no I/O, effects out.

use super::curate;
use super::effect::Effect;
use super::state::{DetailView, Focus, Overlay, PAGE_SIZE, State};
use super::update::{move_filter_row, show_tab};
use super::view::{self, Areas};

/// Rows of the list pane (at least one).
pub fn list_rows(state: &State) -> usize {
    view::layout(state.size, state.filters_open)
        .map_or(1, |a| usize::from(a.list.height.saturating_sub(2)).max(1))
}

/// Moves the selection by `delta` rows, within the list.
pub(super) fn move_selection(state: &mut State, delta: i64, effects: &mut Vec<Effect>) {
    let last = state.results.total.saturating_sub(1) as i64;
    let target = (state.selected as i64 + delta).clamp(0, last.max(0));
    select(state, target as usize, effects);
}

/// Selects a position in the whole list: scrolls to it, loads its page when needed and
/// shows it in the detail pane.
pub(super) fn select(state: &mut State, index: usize, effects: &mut Vec<Effect>) {
    let index = index.min(state.results.total.saturating_sub(1));
    if index == state.selected && state.detail_target.is_some() {
        return;
    }
    state.selected = index;
    state.keep_selected = None;
    keep_selection_visible(state);
    ensure_page(state, effects);
    state.following = false;
    state.back_stack.clear();
    show_selected(state, effects);
}

/// Asks for the page around the selection when the list shows rows outside the page.
fn ensure_page(state: &mut State, effects: &mut Vec<Effect>) {
    let rows = list_rows(state);
    let first = state.list_top;
    let last = (state.list_top + rows).min(state.results.total);
    let loaded = state.results.offset..state.results.offset + state.results.hits.len();
    if first >= last || (loaded.contains(&first) && loaded.contains(&(last - 1))) {
        return;
    }
    let offset = page_around(state.selected);
    state.requested_offset = offset;
    state.generation += 1;
    state.searching = true;
    effects.push(super::update::page_effect(state, offset));
}

/// Where the page loaded around position `at` of the list starts.
pub(crate) fn page_around(at: usize) -> usize {
    at.saturating_sub(PAGE_SIZE / 2)
}

/// Scrolls the list so the selection is on screen.
pub(super) fn keep_selection_visible(state: &mut State) {
    let rows = list_rows(state);
    if state.selected < state.list_top {
        state.list_top = state.selected;
    } else if state.selected >= state.list_top + rows {
        state.list_top = state.selected + 1 - rows;
    }
    let max_top = state.results.total.saturating_sub(rows);
    state.list_top = state.list_top.min(max_top);
}

/// Puts the selected hit in the detail pane and asks for its links.
fn show_selected(state: &mut State, effects: &mut Vec<Effect>) {
    let Some(hit) = state.selected_hit() else {
        if state.results.total == 0 {
            state.detail = None;
            state.detail_target = None;
        }
        return;
    };
    let id = hit.memory.id.clone();
    if state.detail_target.as_deref() == Some(id.as_str()) && state.detail.is_some() {
        return;
    }
    state.detail = Some(DetailView {
        memory: hit.memory.clone(),
        relationship_count: hit.relationship_count,
        links: None,
    });
    state.detail_target = Some(id.clone());
    state.detail_scroll = 0;
    state.detail_link = 0;
    effects.push(Effect::LoadDetail { id });
}

/// After the store changed, the detail pane shows the selected memory as the answer
/// has it when that differs from what the pane shows (another process wrote it), and
/// its links are read again.
fn follow_a_change(state: &mut State, effects: &mut Vec<Effect>) {
    let Some(hit) = state.selected_hit() else {
        return;
    };
    let changed = state
        .detail
        .as_ref()
        .is_some_and(|d| d.memory.id == hit.memory.id && d.memory != hit.memory);
    if changed {
        let id = hit.memory.id.clone();
        state.detail = Some(DetailView {
            memory: hit.memory.clone(),
            relationship_count: hit.relationship_count,
            links: None,
        });
        effects.push(Effect::LoadDetail { id });
    }
}

/// Takes a search answer: the page, the selection kept (or on the same memory after
/// a refresh), the detail pane following.
pub(super) fn search_done(
    state: &mut State,
    (offset, response): (usize, crate::search::SearchResponse),
    elapsed: std::time::Duration,
    effects: &mut Vec<Effect>,
) {
    state.requested_offset = offset;
    state.searching = false;
    if let Some(damage) = &response.damage {
        // the list lacks the memories that could not be read: say so, never hide it
        state.message = Some(format!("error: {damage}"));
    }
    state.take_response(offset, response, elapsed);
    let refreshed = state.keep_selected.is_some();
    if let Some(id) = state.keep_selected.take()
        && let Some(i) = state.results.hits.iter().position(|h| h.memory.id == id)
    {
        state.selected = offset + i;
    }
    if state.selected >= state.results.total {
        state.selected = state.results.total.saturating_sub(1);
    }
    keep_selection_visible(state);
    if !state.following {
        if refreshed {
            follow_a_change(state, effects);
        }
        show_selected(state, effects);
    }
    // the pane may show less than before (another memory, or none)
    state.detail_scroll = state.detail_scroll.min(view::detail::max_scroll(state));
}

/// Keeps the selection inside a list that changed under it, and the detail pane on a
/// memory that is still there.
pub(super) fn settle_selection(state: &mut State, effects: &mut Vec<Effect>) {
    if state.selected >= state.results.total {
        state.selected = state.results.total.saturating_sub(1);
    }
    keep_selection_visible(state);
    if state.detail.is_none() && !state.following {
        show_selected(state, effects);
    }
    state.detail_scroll = state.detail_scroll.min(view::detail::max_scroll(state));
}

/// Scrolls the help overlay (when it is open) or the detail pane by `delta` lines.
pub(super) fn scroll(state: &mut State, delta: i32) {
    scroll_with(state, |at, _, _| i64::from(at) + i64::from(delta));
}

/// Scrolls the help overlay or the detail pane by `pages` of its height.
pub(super) fn scroll_pages(state: &mut State, pages: i32) {
    scroll_with(state, |at, _, page| {
        i64::from(at) + i64::from(pages) * i64::from(page.max(1))
    });
}

/// Scrolls the help overlay or the detail pane to its end, or else its top.
pub(super) fn scroll_to_end(state: &mut State, end: bool) {
    scroll_with(state, |_, max, _| if end { i64::from(max) } else { 0 });
}

/// Moves the help overlay's or else the detail pane's first shown line to
/// `to(current, last, page)`, kept between the top and the last (where the end of the
/// text reaches the bottom): scrolled past the end and back, it moves at once.
fn scroll_with(state: &mut State, to: impl Fn(u16, u16, u16) -> i64) {
    let (last, page) = match state.overlay {
        Some(Overlay::Help { .. }) => (
            view::help::max_scroll(state.size, state.help_lines),
            view::help::page(state.size),
        ),
        _ => (view::detail::max_scroll(state), view::detail::page(state)),
    };
    let at = match &mut state.overlay {
        Some(Overlay::Help { scroll }) => scroll,
        _ => &mut state.detail_scroll,
    };
    *at = u16::try_from(to(*at, last, page).clamp(0, i64::from(last))).unwrap_or(last);
}

/// Chooses another relationship in the detail pane.
pub(super) fn move_link(state: &mut State, delta: i64) {
    let count = state
        .detail
        .as_ref()
        .and_then(|d| d.links.as_ref())
        .map_or(0, Vec::len);
    if count == 0 {
        return;
    }
    state.detail_link = (state.detail_link as i64 + delta).clamp(0, count as i64 - 1) as usize;
}

/// Opens the chosen relationship's memory (a tracked read) and remembers the way back.
pub(super) fn follow(state: &mut State, effects: &mut Vec<Effect>) {
    let Some(detail) = &state.detail else { return };
    let Some(link) = detail.links.as_ref().and_then(|l| l.get(state.detail_link)) else {
        return;
    };
    if link.headline.is_none() {
        state.message = Some(format!("`{}` is not in the store", link.id));
        return;
    }
    let target = link.id.clone();
    state.back_stack.push(detail.memory.id.clone());
    curate::track_read(state, &target, effects);
    open_detail(state, target, effects);
    state.following = true;
}

/// Goes back to the memory shown before following a relationship.
pub(super) fn go_back(state: &mut State, effects: &mut Vec<Effect>) {
    let Some(previous) = state.back_stack.pop() else {
        return;
    };
    state.following = !state.back_stack.is_empty();
    open_detail(state, previous, effects);
}

/// Shows a memory in the detail pane and asks for its links.
fn open_detail(state: &mut State, id: String, effects: &mut Vec<Effect>) {
    state.detail = None;
    state.detail_target = Some(id.clone());
    state.detail_scroll = 0;
    state.detail_link = 0;
    effects.push(Effect::LoadDetail { id });
}

/// The mouse wheel over a pane.
pub(super) fn wheel(
    state: &mut State,
    column: u16,
    row: u16,
    lines: i8,
    effects: &mut Vec<Effect>,
) {
    let Some(areas) = view::layout(state.size, state.filters_open) else {
        return;
    };
    let at = (column, row);
    if state.overlay.is_some() {
        scroll(state, i32::from(lines));
    } else if contains(areas.list, at) {
        move_selection(state, i64::from(lines), effects);
    } else if areas.filters.is_some_and(|a| contains(a, at)) {
        move_filter_row(state, i64::from(lines));
    } else if areas.detail.is_some_and(|a| contains(a, at)) {
        scroll(state, i32::from(lines));
    }
}

/// A click on a pane, a tab or a list row.
pub(super) fn click(state: &mut State, column: u16, row: u16, effects: &mut Vec<Effect>) {
    let Some(areas) = view::layout(state.size, state.filters_open) else {
        return;
    };
    if state.overlay.is_some() {
        return;
    }
    let at = (column, row);
    let Areas {
        tabs,
        search,
        list,
        detail,
        filters,
        ..
    } = areas;
    if contains(tabs, at) {
        if let Some(tab) = view::tabs::tab_at(state, tabs, column) {
            show_tab(state, tab, effects);
        }
    } else if contains(search, at) {
        state.focus = Focus::Search;
    } else if contains(list, at) {
        state.focus = Focus::List;
        if row > list.y && row < list.bottom().saturating_sub(1) {
            let index = state.list_top + usize::from(row - list.y - 1);
            if index < state.results.total {
                select(state, index, effects);
            }
        }
    } else if let Some(area) = filters.filter(|a| contains(*a, at)) {
        state.focus = Focus::Filters;
        if let Some(r) = view::filters::row_at(state, area, row) {
            state.filter_row = r;
        }
    } else if detail.is_some_and(|a| contains(a, at)) {
        state.focus = Focus::Detail;
    }
}

/// True when the cell is inside the area.
fn contains(area: ratatui::layout::Rect, (x, y): (u16, u16)) -> bool {
    area.contains(ratatui::layout::Position { x, y })
}
