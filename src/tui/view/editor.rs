//! The editor overlay: the memory's title, tags and body in three text boxes, the
//! focused one marked, with what is unsaved and the editor's keys in its frame.

use super::Look;
use super::text::inert;
use crate::tui::action::Action;
use crate::tui::editor::{Editor, EditorField};
use crate::tui::keymap::Section;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

/// Draws the editor over everything between the tabs and the status line (which stays
/// in sight: a refused save says why there).
pub fn draw(frame: &mut Frame<'_>, area: Rect, editor: &Editor, look: &Look<'_>) {
    let rect = Rect::new(
        area.x,
        area.y + 1,
        area.width,
        area.height.saturating_sub(2),
    );
    let state = if editor.saving.is_some() {
        " · saving…"
    } else if editor.is_dirty() {
        " · modified"
    } else {
        ""
    };
    let title = format!(" Edit `{}`{state} ", inert(&editor.id));
    let inner = super::overlay_block(frame, rect, &title, look);
    let [title_box, tags_box, body_box, hint] = Layout::vertical([
        Constraint::Length(3),
        Constraint::Length(3),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(inner);
    for (field, rect) in [
        (EditorField::Title, title_box),
        (EditorField::Tags, tags_box),
        (EditorField::Body, body_box),
    ] {
        let focused = field == editor.field;
        let mut label = vec![Span::styled(
            format!(" {} ", field.label()),
            look.theme.accent(),
        )];
        if editor.is_changed(field) {
            label.push(Span::styled("● ", look.theme.highlight()));
        }
        let block = super::pane(Line::from(label), focused, look);
        let text_rect = block.inner(rect);
        frame.render_widget(block, rect);
        frame.render_widget(editor.area(field), text_rect);
    }
    let keys = [
        (Action::EditorNextField, "next field"),
        (Action::EditorPreviousField, "previous"),
        (Action::EditorSave, "save"),
        (Action::EditorCancel, "cancel"),
    ];
    let parts: Vec<String> = keys
        .iter()
        .map(|(action, what)| format!("{} {what}", super::key_hint(look, Section::Editor, action)))
        .collect();
    frame.render_widget(
        Line::styled(format!(" {}", parts.join(" · ")), look.theme.muted()),
        hint,
    );
}
