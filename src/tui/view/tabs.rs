//! The mode tabs: Relevance, Time, Density, Rating, Discovery, Property (with its field),
//! and the order in force.

use super::Look;
use super::text::width;
use crate::search::Order;
use crate::tui::state::{State, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Each tab's label as drawn (`1 Relevance`, `6 Property: feel_humor`); short titles
/// when the full ones do not fit in `width` columns.
fn labels(state: &State, width: u16) -> Vec<(Tab, String)> {
    let make = |short: bool| -> Vec<(Tab, String)> {
        Tab::ALL
            .iter()
            .enumerate()
            .map(|(i, tab)| {
                let title = match (tab, short) {
                    (Tab::Relevance, true) => "Relev",
                    (Tab::Density, true) => "Dens",
                    (Tab::Discovery, true) => "Disc",
                    (Tab::Property, true) => "Prop",
                    _ => tab.title(),
                };
                let label = match tab {
                    Tab::Property => format!("{} {title}: {}", i + 1, state.property_field.name()),
                    _ => format!("{} {title}", i + 1),
                };
                (*tab, label)
            })
            .collect()
    };
    let full = make(false);
    // + the order label and the Review tab
    let need: usize = full.iter().map(|(_, l)| width_of(l) + 3).sum::<usize>() + 8 + 11;
    if need <= usize::from(width) {
        full
    } else {
        make(true)
    }
}

fn width_of(text: &str) -> usize {
    width(text)
}

/// The order label at the right end.
fn order_label(state: &State) -> String {
    match state.effective_order() {
        Order::Desc => " ↓ desc".into(),
        Order::Asc => " ↑ asc".into(),
    }
}

/// The tab under a column of the tab row.
pub fn tab_at(state: &State, area: Rect, column: u16) -> Option<Tab> {
    let mut x = area.x;
    for (tab, label) in labels(state, area.width) {
        let w = width(&label) as u16 + 2;
        if column >= x && column < x + w {
            return Some(tab);
        }
        x += w + 1;
    }
    None
}

/// Draws the tab row.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let mut spans = Vec::new();
    for (tab, label) in labels(state, area.width) {
        let style = if tab == state.tab {
            look.theme.selected().patch(look.theme.accent())
        } else {
            look.theme.muted()
        };
        spans.push(Span::styled(format!(" {label} "), style));
        spans.push(Span::raw(" "));
    }
    let review = super::key_hint(
        look,
        crate::tui::keymap::Section::List,
        &crate::tui::action::Action::ShowReview,
    );
    let review = Span::styled(format!(" {review} Review "), look.theme.muted());
    let used: usize = spans.iter().map(|s| width(&s.content)).sum();
    // the Review tab only where it fits beside the order
    if used + width(&review.content) + width(&order_label(state)) <= usize::from(area.width) {
        spans.push(review);
    }
    let used: usize = spans.iter().map(|s| width(&s.content)).sum();
    let mut order = order_label(state);
    if used + width(&order) > usize::from(area.width) {
        order = order.chars().take(2).collect();
    }
    let room = usize::from(area.width).saturating_sub(used + width(&order));
    spans.push(Span::raw(" ".repeat(room)));
    spans.push(Span::styled(order, look.theme.accent()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
