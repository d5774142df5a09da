//! The review views: the queue tabs with their counts, and the side-by-side pane of a
//! pair (the memory kept on the left), each text unit only one side has marked.

use super::text::{inert, truncate, wrap};
use super::{Look, key_hint};
use crate::model::Memory;
use crate::review::Queue;
use crate::review::shingles::normalized;
use crate::tui::action::Action;
use crate::tui::keymap::Section;
use crate::tui::review::selected_pair;
use crate::tui::state::{Focus, State};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use std::collections::HashSet;

/// Each queue's tab label: `Pending 12` (`Pending …` until counted); short titles when
/// the full ones do not fit in `width`.
pub fn queue_labels(state: &State, width: usize) -> Vec<(Queue, String)> {
    let make = |short: bool| -> Vec<(Queue, String)> {
        Queue::ALL
            .iter()
            .map(|q| {
                let title = match (q, short) {
                    (Queue::Approval, true) => "Appr",
                    (Queue::Pending, true) => "Pend",
                    (Queue::Agent, true) => "AI",
                    (Queue::Duplicates, true) => "Dups",
                    (Queue::Conflicts, true) => "Confl",
                    _ => q.title(),
                };
                let count = state.review.counts[q.index()]
                    .map_or_else(|| "…".to_string(), |n| n.to_string());
                (*q, format!("{title} {count}"))
            })
            .collect()
    };
    let full = make(false);
    let need: usize = full
        .iter()
        .map(|(_, l)| super::text::width(l) + 3)
        .sum::<usize>()
        + 14;
    if need <= width { full } else { make(true) }
}

/// Draws the tab row of the Review tab: the queues with their counts, and the keys that
/// move between them.
pub fn draw_tabs(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let mut spans = vec![Span::styled(" Review ", look.theme.accent())];
    for (q, label) in queue_labels(state, usize::from(area.width)) {
        let style = if Some(q) == state.review.queue {
            look.theme.selected().patch(look.theme.accent())
        } else {
            look.theme.muted()
        };
        spans.push(Span::styled(format!(" {label} "), style));
    }
    let keys = format!(
        " {}{} ",
        key_hint(look, Section::Review, &Action::PreviousQueue),
        key_hint(look, Section::Review, &Action::NextQueue)
    );
    let used: usize = spans.iter().map(|s| super::text::width(&s.content)).sum();
    let room = usize::from(area.width).saturating_sub(used + super::text::width(&keys));
    spans.push(Span::raw(" ".repeat(room)));
    spans.push(Span::styled(keys, look.theme.muted()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// True when the right pane shows a pair instead of the detail.
pub fn shows_pair(state: &State) -> bool {
    state.review.queue.is_some_and(Queue::holds_pairs) && selected_pair(state).is_some()
}

/// The text units compared: lines, and sentences within a line (a `.`, `!` or `?`
/// ends one only before a space, so `enforce.ts` stays whole).
fn units(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut start = 0;
        let mut chars = line.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            let ends = matches!(c, '.' | '!' | '?')
                && chars.peek().is_none_or(|(_, next)| next.is_whitespace());
            if ends {
                out.push(line[start..i + c.len_utf8()].to_string());
                start = i + c.len_utf8();
            }
        }
        out.push(line[start..].to_string());
    }
    out.into_iter()
        .map(|u| u.trim().to_string())
        .filter(|u| !u.is_empty())
        .collect()
}

/// True for a line [`side`] marked as differing.
pub(super) fn is_marked(line: &Line<'_>) -> bool {
    line.spans.first().is_some_and(|s| s.content == MARK)
}

/// What a differing unit's lines start with.
const MARK: &str = "▌ ";

/// One side's lines at `width`: units of `body` that `other` lacks get a bar and the
/// highlight.
pub(super) fn side<'a>(body: &str, other: &str, width: usize, look: &Look<'_>) -> Vec<Line<'a>> {
    let theirs: HashSet<String> = units(other).iter().map(|u| normalized(u)).collect();
    let mut lines = Vec::new();
    let text_width = width.saturating_sub(2).max(1);
    for unit in units(body) {
        let differs = !theirs.contains(&normalized(&unit));
        for piece in wrap(&inert(&unit), text_width) {
            lines.push(if differs {
                Line::from(vec![
                    Span::styled(MARK, look.theme.highlight()),
                    Span::styled(piece, look.theme.highlight().add_modifier(Modifier::BOLD)),
                ])
            } else {
                Line::from(vec![Span::raw("  "), Span::raw(piece)])
            });
        }
    }
    lines
}

fn header<'a>(label: &str, memory: &Memory, width: usize, look: &Look<'_>) -> Vec<Line<'a>> {
    let id = truncate(&inert(&memory.id), width.saturating_sub(label.len() + 1)).into_owned();
    vec![
        Line::from(vec![
            Span::styled(format!("{label} "), look.theme.accent()),
            Span::styled(id, look.theme.accent().add_modifier(Modifier::BOLD)),
        ]),
        Line::styled(
            truncate(
                &format!(
                    "{} · {} · {}",
                    memory.memory_type,
                    memory.status,
                    crate::words::plural(memory.read_count as usize, "read")
                ),
                width,
            )
            .into_owned(),
            look.theme.muted(),
        ),
        Line::raw(""),
    ]
}

/// Draws the pair pane: both memories side by side, what differs marked, the pair's
/// keys at the bottom.
pub fn draw_pair(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let Some((keep, other)) = selected_pair(state) else {
        return;
    };
    let row = state.review.row(state.results.offset, state.selected);
    let title = format!(
        " {} · {} ",
        state.review.queue.map_or("", Queue::title),
        row.map_or("", |r| r.reason.as_str())
    );
    let focused = state.focus == Focus::Detail && state.overlay.is_none();
    let block = super::pane(Line::styled(title, look.theme.accent()), focused, look);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [body, keys] = Layout::vertical([Constraint::Min(1), Constraint::Length(2)]).areas(inner);
    let [left, gap, right] = Layout::horizontal([
        Constraint::Percentage(50),
        Constraint::Length(1),
        Constraint::Min(1),
    ])
    .areas(body);
    let scroll = state.detail_scroll;
    for (rect, label, memory, against) in
        [(left, "keep", keep, other), (right, "other", other, keep)]
    {
        let w = usize::from(rect.width);
        let mut lines = header(label, memory, w, look);
        lines.extend(side(&memory.body, &against.body, w, look));
        frame.render_widget(Paragraph::new(lines).scroll((scroll, 0)), rect);
    }
    let bar: Vec<Line<'_>> = (0..gap.height)
        .map(|_| Line::styled("│", look.theme.border()))
        .collect();
    frame.render_widget(Paragraph::new(bar), gap);
    let hint = |section: Section, action: Action, what: &str| {
        format!("{} {what}", key_hint(look, section, &action))
    };
    // "not a duplicate" is a duplicate pair's verb: a conflict is settled by superseding
    let duplicates = state.review.queue == Some(Queue::Duplicates);
    let text = [
        Some(hint(
            Section::Curation,
            Action::Merge,
            "merge right into left",
        )),
        duplicates.then(|| hint(Section::Review, Action::NotDuplicate, "not a duplicate")),
        Some(hint(Section::Review, Action::Supersede, "supersede")),
        Some(hint(Section::Review, Action::SwapPair, "swap")),
        Some(hint(Section::Review, Action::SkipEntry, "skip")),
        Some(hint(Section::Curation, Action::Undo, "undo")),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ");
    let lines: Vec<Line<'_>> = wrap(&text, usize::from(keys.width).max(1))
        .into_iter()
        .take(2)
        .map(|l| Line::styled(l, look.theme.muted()))
        .collect();
    frame.render_widget(Paragraph::new(lines), keys);
}

/// The status line's part on a queue: how many are left, and why the selected entry is
/// in it.
pub fn status_text(state: &State) -> Option<String> {
    let queue = state.review.queue?;
    let left = state
        .review
        .left()
        .map_or_else(|| "…".to_string(), |n| n.to_string());
    let mut text = format!(" {left} left in {} ", queue.title());
    if let Some(row) = state.review.row(state.results.offset, state.selected)
        && !queue.holds_pairs()
    {
        text.push_str(&format!("· {} ", row.reason));
    }
    Some(text)
}
