//! The help overlay, generated from the keymap in force: each part of the screen with
//! its keys and what they do.

use super::Look;
use crate::tui::keymap::{Keymap, Section};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Every line of the help text.
pub fn lines<'a>(keymap: &Keymap, look: &Look<'_>) -> Vec<Line<'a>> {
    let mut out = Vec::new();
    for section in Section::ALL {
        let entries = keymap.help_entries(section);
        if entries.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(Line::default());
        }
        out.push(Line::styled(
            section.title().to_string(),
            look.theme.accent(),
        ));
        for (keys, action) in entries {
            let keys: Vec<String> = keys.iter().map(ToString::to_string).collect();
            out.push(Line::from(vec![
                Span::styled(format!("  {:<16}", keys.join(" ")), look.theme.highlight()),
                Span::raw(action.describe()),
            ]));
        }
    }
    out.push(Line::default());
    out.push(Line::styled(
        "Keys come from the defaults and the [keys.*] tables of the config file.",
        look.theme.muted(),
    ));
    out
}

/// Draws the overlay, scrolled by `scroll` lines.
pub fn draw(frame: &mut Frame<'_>, area: Rect, scroll: u16, look: &Look<'_>) {
    let rect = super::centered(area, 64, area.height.saturating_sub(2));
    let inner = super::overlay_block(frame, rect, " Help · j/k scroll · Esc close ", look);
    let all = lines(look.keymap, look);
    let max = all.len().saturating_sub(usize::from(inner.height));
    let top = usize::from(scroll).min(max);
    let visible: Vec<Line<'_>> = all
        .into_iter()
        .skip(top)
        .take(usize::from(inner.height))
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}
