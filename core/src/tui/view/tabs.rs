//! The mode tabs: Relevance, Time, Density, Rating, Discovery, Property (with its field),
//! Random, then the Review tab's key and the order in force. Where the full titles do
//! not fit, shorter ones are drawn, down to a few letters each, so that every tab keeps
//! its place even in 80 columns.

use super::Look;
use super::text::{truncate, width};
use crate::search::Order;
use crate::tui::state::{State, Tab};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// How much of each title is drawn, from the most to the least.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fit {
    /// Whole titles, the Property tab with its field.
    Full,
    /// Whole titles, the field only while the Property tab is shown.
    FullField,
    /// Short titles, the Property tab with its field.
    Short,
    /// Short titles, the field only while the Property tab is shown.
    ShortField,
    /// A few letters each; the field only while shown, cut to what fits.
    Tiny,
}

const FITS: [Fit; 5] = [
    Fit::Full,
    Fit::FullField,
    Fit::Short,
    Fit::ShortField,
    Fit::Tiny,
];

/// A tab's title at a fit.
fn title(tab: Tab, fit: Fit) -> &'static str {
    match (fit, tab) {
        (Fit::Full | Fit::FullField, _) => tab.title(),
        (Fit::Tiny, Tab::Relevance) => "Rel",
        (Fit::Tiny, Tab::Rating) => "Rate",
        (Fit::Tiny, Tab::Random) => "Rand",
        (_, Tab::Relevance) => "Relev",
        (_, Tab::Density) => "Dens",
        (_, Tab::Discovery) => "Disc",
        (_, Tab::Property) => "Prop",
        _ => tab.title(),
    }
}

/// The Review tab's title at a fit.
fn review_title(fit: Fit) -> &'static str {
    if fit == Fit::Tiny { "Rev" } else { "Review" }
}

/// Columns a label takes in the row at `fit`: a space either side and one between
/// tabs; the tiniest fit leaves out the space after.
fn room_for(label: &str, fit: Fit) -> usize {
    width(label) + if fit == Fit::Tiny { 2 } else { 3 }
}

/// Each tab's label at `fit`, the Property field cut to `field_room` characters.
fn labels_at(state: &State, fit: Fit, field_room: usize) -> Vec<(Tab, String)> {
    Tab::ALL
        .iter()
        .enumerate()
        .map(|(i, &tab)| {
            let title = title(tab, fit);
            let with_field = tab == Tab::Property
                && (matches!(fit, Fit::Full | Fit::Short) || state.tab == Tab::Property);
            let label = if with_field && field_room > 0 {
                let field = truncate(state.property_field.name(), field_room);
                // the tiniest fit names the field alone
                if fit == Fit::Tiny {
                    format!("{} {field}", i + 1)
                } else {
                    format!("{} {title}: {field}", i + 1)
                }
            } else {
                format!("{} {title}", i + 1)
            };
            (tab, label)
        })
        .collect()
}

/// Each tab's label as drawn (`1 Relevance`, `6 Property: feel_humor`), the first fit
/// whose row, with the Review tab and the order, is at most `width` columns; and that
/// fit.
fn labels(state: &State, width: u16, review_key: &str) -> (Vec<(Tab, String)>, Fit) {
    let width = usize::from(width);
    let rest = |fit: Fit| room_for(&format!("{review_key} {}", review_title(fit)), fit) + 8;
    let need = |labels: &[(Tab, String)], fit: Fit| -> usize {
        labels.iter().map(|(_, l)| room_for(l, fit)).sum::<usize>() + rest(fit)
    };
    for fit in FITS {
        let labels = labels_at(state, fit, usize::MAX);
        if need(&labels, fit) <= width {
            return (labels, fit);
        }
    }
    // the tiniest titles, the field cut to the room left (none at all if there is none)
    let without = labels_at(state, Fit::Tiny, 1);
    let field_room = (width + 1).saturating_sub(need(&without, Fit::Tiny));
    (labels_at(state, Fit::Tiny, field_room), Fit::Tiny)
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
    // the width of the Review tab's key does not move the tabs before it
    let mut x = area.x;
    let (labels, fit) = labels(state, area.width, "8");
    for (tab, label) in labels {
        let w = width(&label) as u16 + 2;
        if column >= x && column < x + w {
            return Some(tab);
        }
        x += room_for(&label, fit) as u16;
    }
    None
}

/// Draws the tab row.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let review_key = super::key_hint(
        look,
        crate::tui::keymap::Section::List,
        &crate::tui::action::Action::ShowReview,
    );
    let (labels, fit) = labels(state, area.width, &review_key);
    let mut spans = Vec::new();
    for (tab, label) in labels {
        let style = if tab == state.tab && state.review.queue.is_none() {
            look.theme.selected().patch(look.theme.accent())
        } else {
            look.theme.muted()
        };
        spans.push(Span::styled(format!(" {label} "), style));
        if fit != Fit::Tiny {
            spans.push(Span::raw(" "));
        }
    }
    let review_style = if state.review.queue.is_some() {
        look.theme.selected().patch(look.theme.accent())
    } else {
        look.theme.muted()
    };
    let review = Span::styled(
        format!(" {review_key} {} ", review_title(fit)),
        review_style,
    );
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
