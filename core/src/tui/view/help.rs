//! The help overlay, generated from the keymap in force: each part of the screen with
//! its keys and what they do.

use super::Look;
use crate::tui::action::Action;
use crate::tui::keymap::{Keymap, Section};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// One line of the help text, before it is styled.
enum Row {
    /// A blank line between parts.
    Blank,
    /// A part of the screen.
    Title(&'static str),
    /// Keys and what they do.
    Entry(String, &'static str),
    /// Where the keys come from.
    Note,
    /// A line of the config file's problem, when it was not used.
    Problem(String),
}

/// The width of the help text: the overlay's, less its borders.
const TEXT_WIDTH: usize = 62;

/// Every line of the help text: the config file's problem first when there is one (the
/// status line has room for its start only), then each part of the screen with its keys.
fn rows(keymap: &Keymap, problem: Option<&str>) -> Vec<Row> {
    let mut out = Vec::new();
    if let Some(problem) = problem {
        let problem = super::text::inert(problem);
        out.extend(
            super::text::wrap(&problem, TEXT_WIDTH)
                .into_iter()
                .map(Row::Problem),
        );
        out.push(Row::Blank);
    }
    for section in Section::ALL {
        let entries = keymap.help_entries(section);
        if entries.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(Row::Blank);
        }
        out.push(Row::Title(section.title()));
        for (keys, action) in entries {
            let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
            out.push(Row::Entry(keys.join(" "), action.describe()));
        }
    }
    out.push(Row::Blank);
    out.push(Row::Note);
    out
}

/// How many lines the help text of `keymap` has, with the config file's `problem`.
pub fn line_count(keymap: &Keymap, problem: Option<&str>) -> usize {
    rows(keymap, problem).len()
}

/// Every line of the help text, styled, with the config file's `problem` first.
pub fn lines<'a>(keymap: &Keymap, problem: Option<&str>, look: &Look<'_>) -> Vec<Line<'a>> {
    (rows(keymap, problem).into_iter())
        .map(|row| match row {
            Row::Blank => Line::default(),
            Row::Title(title) => Line::styled(title.to_string(), look.theme.accent()),
            Row::Entry(keys, what) => Line::from(vec![
                Span::styled(format!("  {keys:<16}"), look.theme.highlight()),
                Span::raw(what),
            ]),
            Row::Problem(text) => Line::styled(text, look.theme.error()),
            Row::Note => Line::styled(
                "Keys in force: the defaults and the config's [keys.*] tables.",
                look.theme.muted(),
            ),
        })
        .collect()
}

/// Where the overlay goes on a screen of `area`.
fn frame_in(area: Rect) -> Rect {
    super::centered(area, 64, area.height.saturating_sub(2))
}

/// How many lines of help a screen of `size` shows at once.
pub fn page(size: (u16, u16)) -> u16 {
    frame_in(Rect::new(0, 0, size.0, size.1))
        .height
        .saturating_sub(2)
}

/// How far help of `lines` lines scrolls on a screen of `size`: until its last line
/// reaches the bottom.
pub fn max_scroll(size: (u16, u16), lines: usize) -> u16 {
    u16::try_from(lines.saturating_sub(usize::from(page(size)))).unwrap_or(u16::MAX)
}

/// The overlay's title, naming the keys in force that scroll and close it.
fn title(look: &Look<'_>) -> String {
    let key = |action: Action| super::key_hint(look, Section::Help, &action);
    format!(
        " Help · {}/{} scroll · {} close ",
        key(Action::ScrollDown),
        key(Action::ScrollUp),
        key(Action::CloseOverlay)
    )
}

/// Draws the overlay, scrolled by `scroll` lines, with the config file's `problem`.
pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    scroll: u16,
    problem: Option<&str>,
    look: &Look<'_>,
) {
    let inner = super::overlay_block(frame, frame_in(area), &title(look), look);
    let all = lines(look.keymap, problem, look);
    // clamped here too: a resize since the last scroll may have made the page taller
    let top = usize::from(scroll.min(max_scroll((area.width, area.height), all.len())));
    let visible: Vec<Line<'_>> = all
        .into_iter()
        .skip(top)
        .take(usize::from(inner.height))
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}
