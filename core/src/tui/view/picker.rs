//! The pickers: one list to choose an entry from — the Property tab's field, a type, a
//! scope, the relationship to remove — drawn the same way.

use super::Look;
use super::text::{inert, truncate};
use crate::search::NumericField;
use crate::tui::action::Action;
use crate::tui::keymap::Section;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

/// Draws the Property tab's field picker with `selected` highlighted.
pub fn draw(frame: &mut Frame<'_>, area: Rect, selected: usize, look: &Look<'_>) {
    let labels: Vec<String> = NumericField::all()
        .iter()
        .map(|f| f.name().to_string())
        .collect();
    let title = format!(" Sort by · {} ", choose_hint(look));
    draw_list(frame, area, &title, &labels, selected, 40, look);
}

/// `Enter choose`, with the key in force.
pub fn choose_hint(look: &Look<'_>) -> String {
    let key = super::key_hint(look, Section::Picker, &Action::PickerAccept);
    format!("{key} choose")
}

/// Draws a list of `labels` (untrusted text is made inert) in a centred box of at most
/// `width` columns, scrolled so `selected` shows.
pub fn draw_list(
    frame: &mut Frame<'_>,
    area: Rect,
    title: &str,
    labels: &[String],
    selected: usize,
    width: u16,
    look: &Look<'_>,
) {
    let height = (labels.len() as u16).saturating_add(2);
    let rect = super::centered(area, width, height.min(area.height.saturating_sub(4)));
    let inner = super::overlay_block(frame, rect, title, look);
    let rows = usize::from(inner.height).max(1);
    let room = usize::from(inner.width).saturating_sub(2);
    let top = selected.saturating_sub(rows - 1);
    let lines: Vec<Line<'_>> = labels
        .iter()
        .enumerate()
        .skip(top)
        .take(rows)
        .map(|(i, label)| {
            let text = truncate(&inert(label), room).into_owned();
            if i == selected {
                Line::styled(format!("▸ {text}"), look.theme.selected())
            } else {
                Line::raw(format!("  {text}"))
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), inner);
}
