//! The status line: matches, search time, marks, pending writes, the engine's notice or
//! a message (what the last change did, or why it failed), the config problem if any,
//! and the store path.

use super::Look;
use super::text::{inert, truncate, width};
use crate::tui::action::Action;
use crate::tui::keymap::Section;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Draws the status line.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let mut left: Vec<Span<'_>> = Vec::new();
    // While the index loads, the first answers come from the store's persisted index;
    // "loading…" stands in only for an answer still missing.
    if let Some(text) = super::review::status_text(state) {
        left.push(Span::styled(text, look.theme.accent()));
    } else if state.loading && state.searching {
        left.push(Span::styled(" loading… ", look.theme.highlight()));
    } else if let Some(pool) = state.results.drawn_from {
        let again = super::key_hint(look, Section::List, &Action::ShowRandom);
        left.push(Span::styled(
            format!(" {} drawn of {pool} ", state.results.total),
            look.theme.accent(),
        ));
        left.push(Span::styled(
            format!("· {again} draws again "),
            look.theme.muted(),
        ));
    } else {
        let r = &state.results;
        let ms = r.elapsed.as_secs_f64() * 1000.0;
        left.push(Span::styled(
            format!(
                " {} · {ms:.1} ms ",
                crate::words::counted(r.total, "match", "matches")
            ),
            look.theme.accent(),
        ));
        if state.loading {
            left.push(Span::styled("· loading the index… ", look.theme.muted()));
        } else if state.searching {
            left.push(Span::styled("· searching… ", look.theme.muted()));
        }
    }
    let active = state.active_filters();
    if active > 0 {
        left.push(Span::styled(
            format!("· {} ", crate::words::plural(active, "filter")),
            look.theme.highlight(),
        ));
    }
    if !state.marked.is_empty() {
        left.push(Span::styled(
            format!("· {} marked ", state.marked.len()),
            look.theme.highlight(),
        ));
    }
    if state.writing > 0 {
        left.push(Span::styled("· writing… ", look.theme.muted()));
    }
    if let Some(seconds) = state.store_waiting {
        let quit = super::key_hint(look, Section::Global, &Action::CloseOrQuit);
        left.push(Span::styled(
            format!("· still waiting for the store ({seconds} s; {quit} quits) "),
            look.theme.error(),
        ));
    }
    // What the user just did comes first; a config problem stays in sight after it.
    let mut said = true;
    if let Some(message) = &state.message {
        left.push(Span::styled(
            format!("· {} ", inert(message)),
            look.theme.error(),
        ));
    } else if let Some(report) = &state.report {
        left.push(Span::styled(
            format!("· {} ", inert(report)),
            look.theme.accent(),
        ));
        if state.next_undo.is_some() {
            let key = super::key_hint(look, Section::Curation, &Action::Undo);
            left.push(Span::styled(format!("· {key} undo "), look.theme.muted()));
        }
    } else {
        said = false;
    }
    if let Some(error) = &state.config_error {
        left.push(Span::styled(
            format!("· {} ", inert(error)),
            look.theme.error(),
        ));
    } else if let Some(notice) = state.results.notice.as_ref().filter(|_| !said) {
        left.push(Span::styled(
            format!("· {} ", inert(notice)),
            look.theme.highlight(),
        ));
    }
    let path = format!(" {} · ? help ", inert(&state.store_path));
    let used: usize = left.iter().map(|s| width(&s.content)).sum();
    let total = usize::from(area.width);
    let mut spans = Vec::new();
    if used + width(&path) <= total {
        let pad = total - used - width(&path);
        spans.extend(left);
        spans.push(Span::raw(" ".repeat(pad)));
        spans.push(Span::styled(path, look.theme.muted()));
    } else {
        // The message matters more than the path: cut from the right.
        let mut room = total;
        for span in left {
            if room == 0 {
                break;
            }
            let text = truncate(&span.content, room).into_owned();
            room = room.saturating_sub(width(&text));
            spans.push(Span::styled(text, span.style));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
