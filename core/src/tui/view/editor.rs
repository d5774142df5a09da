//! The editor overlay: the memory's title, tags and body in three text boxes, the
//! focused one marked, with what is unsaved and the editor's keys in its frame; when
//! another process changed the memory meanwhile, its version beside them.

use super::Look;
use super::text::inert;
use super::text::truncate;
use crate::tui::action::Action;
use crate::tui::editor::{Editor, EditorField, OnDisk};
use crate::tui::keymap::Section;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

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
    let mut inner = super::overlay_block(frame, rect, &title, look);
    if let Some(disk) = &editor.on_disk {
        let [mine, theirs] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(inner);
        inner = mine;
        draw_on_disk(frame, theirs, editor, disk, look);
    }
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

/// The memory as another process left it, beside the person's text: its status,
/// title and tags, and its body with what differs from the editor's body marked.
fn draw_on_disk(
    frame: &mut Frame<'_>,
    area: Rect,
    editor: &Editor,
    disk: &OnDisk,
    look: &Look<'_>,
) {
    let block = super::pane(
        Line::styled(" On disk now (yours on the left) ", look.theme.error()),
        false,
        look,
    );
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let w = usize::from(inner.width);
    let lines = match disk {
        OnDisk::Deleted => vec![Line::styled(
            " the file was deleted; a save writes it again",
            look.theme.highlight(),
        )],
        OnDisk::Changed(m) => {
            let field = |label: &str, value: String| {
                Line::from(vec![
                    Span::styled(format!("{label:<7}"), look.theme.muted()),
                    Span::raw(truncate(&inert(&value), w.saturating_sub(7)).into_owned()),
                ])
            };
            let mut lines = vec![
                field("status", m.status.as_str().to_string()),
                field("title", m.title.clone().unwrap_or_default()),
                field("tags", m.tags.join(", ")),
                Line::raw(""),
            ];
            let body = super::review::side(&m.body, &editor.text(EditorField::Body), w, look);
            // the first difference in sight: what comes before it folded into a line
            let room = usize::from(inner.height).saturating_sub(lines.len() + 1);
            let first = body.iter().position(super::review::is_marked).unwrap_or(0);
            let skip = if first < room {
                0
            } else {
                first.saturating_sub(3)
            };
            if skip > 0 {
                lines.push(Line::styled(
                    format!("  … {skip} lines the same above"),
                    look.theme.muted(),
                ));
            }
            lines.extend(body.into_iter().skip(skip));
            lines
        }
    };
    frame.render_widget(Paragraph::new(lines), inner);
}
