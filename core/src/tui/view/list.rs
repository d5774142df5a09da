//! The result list, virtualised: only the rows on screen are built, from the loaded page.
//! Marked memories carry a mark; the title counts them, and those the list no longer
//! holds.

use super::Look;
use super::text::{inert, truncate, width};
use crate::search::{DeletedFilter, Hit, MatchQuality};
use crate::tui::state::{Focus, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// The title's count of the marked memories, saying how many of them the list does not
/// hold when it is all loaded (a verb moved them out, or the filters or query changed):
/// the next verb still applies to them.
fn marks(state: &State) -> String {
    let marked = state.marked.len();
    let hits = &state.results.hits;
    // a list not all loaded cannot tell (drawn every frame: no count over its hits)
    if hits.len() < state.results.total {
        return format!("{marked} marked ");
    }
    let listed = hits
        .iter()
        .filter(|h| state.marked.contains(&h.memory.id))
        .count();
    match marked - listed {
        0 => format!("{marked} marked "),
        unseen => format!("{marked} marked, {unseen} not in this list "),
    }
}

/// Draws the list pane.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let focused = state.focus == Focus::List && state.overlay.is_none();
    let total = state.results.total;
    let position = if total == 0 {
        String::new()
    } else {
        format!(" {}/{} ", state.selected + 1, total)
    };
    let mut title = vec![
        Span::styled(
            match (state.review.queue, state.results.drawn_from) {
                (Some(q), _) => format!(" {} ", q.title()),
                (None, Some(_)) => " Random draw ".to_string(),
                (None, None) => " Memories ".to_string(),
            },
            look.theme.accent(),
        ),
        Span::styled(position, look.theme.muted()),
    ];
    if state.filters.deleted == DeletedFilter::Only {
        title.push(Span::styled("deleted only ", look.theme.error()));
    }
    if !state.marked.is_empty() {
        title.push(Span::styled(marks(state), look.theme.highlight()));
    }
    let title = Line::from(title);
    let block = super::pane(title, focused, look);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = usize::from(inner.height);
    let w = usize::from(inner.width);
    let mut lines = Vec::with_capacity(rows);
    if total == 0 {
        let text = if state.loading {
            "loading…"
        } else if state.searching {
            "searching…"
        } else if state.review.queue.is_some() {
            "nothing left in this queue"
        } else {
            "no memory matches"
        };
        lines.push(Line::styled(format!(" {text}"), look.theme.muted()));
    }
    // a tab that sorts by a field shows each memory's value of it, as the command
    // line's table does
    let by = match state.review.queue {
        Some(_) => None,
        None => crate::search::sort_field(state.mode()),
    };
    for index in state.list_top..(state.list_top + rows).min(total) {
        let selected = index == state.selected;
        let line = match state.results.get(index) {
            Some(hit) => {
                let value = by
                    .map(|f| f.value(&hit.memory, hit.relationship_count))
                    .map(|v| {
                        v.map_or_else(|| "–".to_string(), crate::search::output::shown_number)
                    });
                let marked = state.marked.contains(&hit.memory.id);
                row(hit, w, selected, marked, value.as_deref(), look)
            }
            None => Line::styled(" …", look.theme.muted()),
        };
        lines.push(if selected {
            line.style(look.theme.selected())
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

/// One row: cursor, mark, date, type, headline; the `value` of the field the list is
/// sorted by, then the discovery, partial match and deleted flags at the right.
pub fn row<'a>(
    hit: &'a Hit,
    w: usize,
    selected: bool,
    marked: bool,
    value: Option<&str>,
    look: &Look<'_>,
) -> Line<'a> {
    let m = &hit.memory;
    let marker = if selected { "▸" } else { " " };
    let mark = if marked { "●" } else { " " };
    let stamp = m.created_at.to_string();
    let date = if w >= 60 {
        format!("{} ", stamp.get(..10).unwrap_or(&stamp))
    } else {
        format!("{} ", stamp.get(5..10).unwrap_or(&stamp))
    };
    let kind = if w >= 45 {
        format!("{:<9} ", truncate(&inert(&m.memory_type), 9))
    } else {
        String::new()
    };
    let mut right = String::new();
    if hit.is_discovery == Some(true) {
        right.push('◆');
    }
    if hit.match_quality == Some(MatchQuality::Partial) {
        right.push('~');
    }
    if m.is_deleted() {
        right.push('✗');
    }
    let value = value.map(|v| format!("{v} ")).unwrap_or_default();
    let head_room =
        w.saturating_sub(2 + width(&date) + width(&kind) + width(&value) + width(&right) + 1);
    // the list never shows private text; the detail pane reveals it on request
    let headline = crate::project::private::mask(m.shown_headline());
    let headline = truncate(&inert(&headline), head_room).into_owned();
    let pad = head_room.saturating_sub(width(&headline));
    let mut head_style = ratatui::style::Style::default();
    if m.is_deleted() {
        head_style = head_style.add_modifier(Modifier::CROSSED_OUT);
    }
    Line::from(vec![
        Span::styled(marker, look.theme.accent()),
        Span::styled(mark, look.theme.highlight()),
        Span::styled(date, look.theme.muted()),
        Span::styled(kind, look.theme.highlight()),
        Span::styled(headline, head_style),
        Span::raw(" ".repeat(pad + 1)),
        Span::styled(value, look.theme.muted()),
        Span::styled(right, look.theme.highlight()),
    ])
}
