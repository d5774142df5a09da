//! The search bar: the query box (tui-textarea) with the engine in force in its title.

use super::Look;
use crate::tui::action::Action;
use crate::tui::keymap::Section;
use crate::tui::state::{Focus, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

/// Draws the search bar.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let focused = state.focus == Focus::Search && state.overlay.is_none();
    let engine_key = look
        .keymap
        .keys_for(Section::Search, &Action::CycleEngine)
        .first()
        .map(|k| format!(" ({k})"))
        .unwrap_or_default();
    let title = Line::from(vec![
        Span::styled(" Search ", look.theme.accent()),
        Span::styled(
            format!("engine: {}{engine_key} ", state.engine.as_str()),
            look.theme.muted(),
        ),
    ]);
    let hint = if focused {
        Line::default()
    } else {
        Line::from(Span::styled(" / to type ", look.theme.muted())).right_aligned()
    };
    let block = super::pane(title, focused, look).title_bottom(hint);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    // The query is the user's own typing, but pasted text was stripped of controls
    // before it got here; the box is cloned so focus can restyle its cursor.
    let mut query = state.query.clone();
    if focused {
        query.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
    } else {
        query.set_cursor_style(Style::default());
    }
    query.set_placeholder_style(look.theme.muted());
    frame.render_widget(&query, inner);
}
