//! The small curation overlays: a one-line prompt (a reason, tags, a module, a kind), a
//! yes/no question, and the rating keys.

use super::Look;
use super::text::{inert, truncate, wrap};
use crate::tui::action::Action;
use crate::tui::keymap::Section;
use crate::tui::modal::{ConfirmFor, PromptFor, targets_label};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use tui_textarea::TextArea;

/// Width of the small overlays.
const WIDTH: u16 = 72;

/// A hint line: `Enter accept · Esc cancel`, with the keys in force.
fn hints<'a>(pairs: &[(Section, Action, &str)], look: &Look<'_>) -> Line<'a> {
    let parts: Vec<String> = pairs
        .iter()
        .map(|(section, action, what)| {
            format!("{} {what}", super::key_hint(look, *section, action))
        })
        .collect();
    Line::styled(parts.join(" · "), look.theme.muted())
}

fn title(text: &str, width: u16) -> String {
    let room = usize::from(width).saturating_sub(4);
    format!(" {} ", truncate(&inert(text), room))
}

/// Draws a prompt with its text box.
pub fn draw_prompt(
    frame: &mut Frame<'_>,
    area: Rect,
    purpose: &PromptFor,
    input: &TextArea<'static>,
    look: &Look<'_>,
) {
    let rect = super::centered(area, WIDTH, 5);
    let inner = super::overlay_block(frame, rect, &title(&purpose.title(), rect.width), look);
    let [field, _, hint] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(inner);
    let mut input = input.clone();
    input.set_cursor_style(Style::default().add_modifier(Modifier::REVERSED));
    input.set_placeholder_style(look.theme.muted());
    frame.render_widget(&input, field);
    let line = hints(
        &[
            (Section::Prompt, Action::PromptAccept, "accept"),
            (Section::Prompt, Action::CloseOverlay, "cancel"),
        ],
        look,
    );
    frame.render_widget(Paragraph::new(line), hint);
}

/// Draws a yes/no question.
pub fn draw_confirm(frame: &mut Frame<'_>, area: Rect, question: &ConfirmFor, look: &Look<'_>) {
    let text = wrap(&question.question(), usize::from(WIDTH.saturating_sub(2)));
    let height = u16::try_from(text.len()).unwrap_or(1).saturating_add(4);
    let rect = super::centered(area, WIDTH, height);
    let heading = match question {
        ConfirmFor::Delete { .. } => " Delete ",
        ConfirmFor::Purge { .. } => " Purge ",
        ConfirmFor::Merge { .. } => " Merge ",
        ConfirmFor::DropEdits | ConfirmFor::QuitDroppingEdits => " Unsaved changes ",
    };
    let inner = super::overlay_block(frame, rect, heading, look);
    let mut lines: Vec<Line<'_>> = text
        .into_iter()
        .map(|l| Line::styled(l, look.theme.error()))
        .collect();
    lines.push(Line::default());
    lines.push(hints(
        &[
            (Section::Confirm, Action::ConfirmYes, "yes"),
            (Section::Confirm, Action::ConfirmNo, "no"),
        ],
        look,
    ));
    frame.render_widget(Paragraph::new(lines), inner);
}

/// Draws the rating keys.
pub fn draw_rate(frame: &mut Frame<'_>, area: Rect, ids: &[String], look: &Look<'_>) {
    let rect = super::centered(area, 48, 6);
    let heading = title(&format!("Rate {}", targets_label(ids)), rect.width);
    let inner = super::overlay_block(frame, rect, &heading, look);
    let stars = [
        Action::Rate1,
        Action::Rate2,
        Action::Rate3,
        Action::Rate4,
        Action::Rate5,
    ];
    let mut spans = Vec::new();
    for (n, action) in stars.iter().enumerate() {
        spans.push(Span::styled(
            format!("{} ", super::key_hint(look, Section::Rate, action)),
            look.theme.highlight(),
        ));
        spans.push(Span::raw(format!("{:<6}", "★".repeat(n + 1))));
    }
    let lines = vec![
        Line::raw("How useful is it? 1 poor … 5 excellent"),
        Line::from(spans),
        Line::default(),
        hints(
            &[
                (Section::Rate, Action::RetractRating, "take back yours"),
                (Section::Rate, Action::CloseOverlay, "cancel"),
            ],
            look,
        ),
    ];
    frame.render_widget(Paragraph::new(lines), inner);
}
