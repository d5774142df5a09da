//! The link picker: a search box of its own over the memories it finds, to choose the
//! memory a new relationship points to.

use super::Look;
use super::text::inert;
use crate::tui::action::Action;
use crate::tui::keymap::Section;
use crate::tui::state::State;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// Draws the picker for a link from `from`, with result `selected` highlighted.
pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    state: &State,
    from: &str,
    selected: usize,
    look: &Look<'_>,
) {
    let width = area.width.saturating_sub(4).min(110);
    let rect = super::centered(area, width, area.height.saturating_sub(2));
    let title = format!(
        " Link `{}` to… · {} choose · {} cancel ",
        inert(from),
        super::key_hint(look, Section::LinkPicker, &Action::PickerAccept),
        super::key_hint(look, Section::LinkPicker, &Action::CloseOverlay),
    );
    let inner = super::overlay_block(frame, rect, &title, look);
    let [query_box, list] =
        Layout::vertical([Constraint::Length(3), Constraint::Min(1)]).areas(inner);
    let block = super::pane(
        Line::styled(
            format!(" Search · engine: {} ", state.engine.as_str()),
            look.theme.accent(),
        ),
        true,
        look,
    );
    let query_rect = block.inner(query_box);
    frame.render_widget(block, query_box);
    let mut query = state.link_query.clone();
    query.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
    query.set_placeholder_style(look.theme.muted());
    frame.render_widget(&query, query_rect);

    let rows = usize::from(list.height);
    let w = usize::from(list.width);
    let top = selected.saturating_sub(rows.saturating_sub(1));
    let mut lines: Vec<Line<'_>> = state
        .link_results
        .iter()
        .enumerate()
        .skip(top)
        .take(rows)
        .map(|(i, hit)| {
            let line = super::list::row(hit, w, i == selected, false, None, look);
            if i == selected {
                line.style(look.theme.selected())
            } else {
                line
            }
        })
        .collect();
    if lines.is_empty() {
        lines.push(Line::styled(" no memory matches", look.theme.muted()));
    }
    frame.render_widget(Paragraph::new(lines), list);
}
