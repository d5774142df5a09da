//! The filter panel: choice rows, and a range slider for every `feel_*` dimension, the
//! composites and the other numeric filters, each drawn over a histogram of that field
//! across the memories the other filters keep, with how many its range keeps.

use super::Look;
use super::text::{truncate, width};
use crate::tui::action::Action;
use crate::tui::filter_rows::FilterKind;
use crate::tui::keymap::Section;
use crate::tui::state::{Focus, SliderHistogram, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

const LEVELS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];

fn height_of(kind: FilterKind) -> u16 {
    if kind.is_slider() { 3 } else { 1 }
}

/// The first row shown, so that the chosen row is on screen.
fn first_row(state: &State, rows: &[FilterKind], height: u16) -> usize {
    let chosen = state.filter_row.min(rows.len().saturating_sub(1));
    let mut first = 0;
    loop {
        let used: u16 = rows[first..=chosen].iter().map(|k| height_of(*k)).sum();
        if used <= height || first == chosen {
            return first;
        }
        first += 1;
    }
}

/// The filter row drawn at screen row `y` of the panel `area`.
pub fn row_at(state: &State, area: Rect, y: u16) -> Option<usize> {
    let inner_top = area.y + 1;
    let height = area.height.saturating_sub(2);
    if y < inner_top || y >= inner_top + height {
        return None;
    }
    let rows = state.filter_rows();
    let mut at = inner_top;
    for (i, kind) in rows
        .iter()
        .enumerate()
        .skip(first_row(state, &rows, height))
    {
        let h = height_of(*kind);
        if y < at + h {
            return Some(i);
        }
        at += h;
    }
    None
}

/// The panel's key hint, with the keys in force: `h/l low · H/L high · 0 reset · Esc close`.
fn hint(look: &Look<'_>) -> String {
    let key = |action: Action| super::key_hint(look, Section::Filters, &action);
    format!(
        " {}/{} low · {}/{} high · {} reset · {} close ",
        key(Action::LowerBoundDown),
        key(Action::LowerBoundUp),
        key(Action::UpperBoundDown),
        key(Action::UpperBoundUp),
        key(Action::ResetFilter),
        key(Action::CloseFilters)
    )
}

/// Draws the panel.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let focused = state.focus == Focus::Filters && state.overlay.is_none();
    let active = state.active_filters();
    let title = Line::from(vec![
        Span::styled(" Filters ", look.theme.accent()),
        Span::styled(format!("{active} active "), look.theme.muted()),
    ]);
    let hint = Line::from(Span::styled(hint(look), look.theme.muted())).right_aligned();
    let block = super::pane(title, focused, look).title_bottom(hint);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let rows = state.filter_rows();
    let w = usize::from(inner.width);
    let mut lines: Vec<Line<'_>> = Vec::new();
    for (i, kind) in rows
        .iter()
        .enumerate()
        .skip(first_row(state, &rows, inner.height))
    {
        if lines.len() >= usize::from(inner.height) {
            break;
        }
        let chosen = i == state.filter_row;
        let hist = state.histograms.get(i).and_then(Option::as_ref);
        lines.extend(row_lines(*kind, state, hist, chosen, look, w));
    }
    lines.truncate(usize::from(inner.height));
    frame.render_widget(Paragraph::new(lines), inner);
}

fn row_lines<'a>(
    kind: FilterKind,
    state: &State,
    hist: Option<&SliderHistogram>,
    chosen: bool,
    look: &Look<'_>,
    w: usize,
) -> Vec<Line<'a>> {
    let marker = if chosen { "▸" } else { " " };
    let off = kind.is_off(&state.filters);
    let label_style = if chosen {
        look.theme.selected()
    } else if off {
        Style::default()
    } else {
        look.theme.accent()
    };
    let value = kind.value_text(&state.filters, &state.facets);
    if !kind.is_slider() {
        let value = if chosen {
            format!("‹ {value} ›")
        } else {
            value
        };
        let label = format!("{marker}{:<20}", kind.label());
        let value = truncate(&value, w.saturating_sub(width(&label) + 1)).into_owned();
        return vec![Line::from(vec![
            Span::styled(label, label_style),
            Span::raw(" "),
            Span::styled(
                value,
                if off {
                    look.theme.muted()
                } else {
                    look.theme.accent()
                },
            ),
        ])];
    }
    let keeps = match hist {
        Some(h) if off => format!("{} have it", h.present),
        Some(h) => format!("keeps {} of {}", h.kept, h.present),
        None => "…".to_string(),
    };
    // the count and the range matter more than the whole name: a long name gives way
    let label = format!("{marker}{}", kind.label());
    let label_room = w.saturating_sub(width(&keeps) + width(&value) + 2).max(8);
    let label = truncate(&label, label_room).into_owned();
    let room = w.saturating_sub(width(&label) + width(&keeps) + 2);
    let value = truncate(&value, room).into_owned();
    let pad = room.saturating_sub(width(&value));
    let head = Line::from(vec![
        Span::styled(label, label_style),
        Span::raw(" "),
        Span::styled(
            value,
            if off {
                look.theme.muted()
            } else {
                look.theme.accent()
            },
        ),
        Span::raw(" ".repeat(pad + 1)),
        Span::styled(keeps, look.theme.muted()),
    ]);
    let track_w = w.saturating_sub(2).max(4);
    let (lo, hi, _) = kind.span(&state.facets);
    let range = kind.range(&state.filters);
    let (a, b) = (range.min.unwrap_or(lo), range.max.unwrap_or(hi));
    let span = (hi - lo).max(1e-12);
    let inside = |col: usize| {
        let centre = lo + (col as f64 + 0.5) / track_w as f64 * span;
        centre >= a - span / (2.0 * track_w as f64) && centre <= b + span / (2.0 * track_w as f64)
    };
    let mut bars: Vec<Span<'a>> = vec![Span::raw(" ")];
    let columns = hist.map(|h| resample(h, lo, hi, track_w));
    for col in 0..track_w {
        let level = columns.as_ref().map_or(0, |c| c[col]);
        let style = if inside(col) {
            look.theme.histogram_in()
        } else {
            look.theme.histogram_out()
        };
        bars.push(Span::styled(LEVELS[level].to_string(), style));
    }
    let to_col = |v: f64| (((v - lo) / span) * (track_w - 1) as f64).round() as usize;
    let (ca, cb) = (to_col(a).min(track_w - 1), to_col(b).min(track_w - 1));
    let mut track = String::from(" ");
    for col in 0..track_w {
        let c = if (col == ca && range.min.is_some()) || (col == cb && range.max.is_some()) {
            '●'
        } else if col >= ca && col <= cb {
            '━'
        } else {
            '─'
        };
        track.push(c);
    }
    vec![
        head,
        Line::from(bars),
        Line::styled(track, look.theme.bar()),
    ]
}

/// The histogram's counts spread over `cols` columns spanning `lo..hi`, as levels 0–8
/// (0 only where no memory falls).
fn resample(h: &SliderHistogram, lo: f64, hi: f64, cols: usize) -> Vec<usize> {
    let mut sums = vec![0u64; cols];
    let bins = h.counts.len();
    if bins == 0 || cols == 0 {
        return vec![0; cols];
    }
    let bin_w = (h.max - h.min) / bins as f64;
    if bins >= cols || bin_w <= 0.0 {
        // several bins per column: add up the bins whose centres fall in it
        for (i, count) in h.counts.iter().enumerate() {
            let centre = h.min + (i as f64 + 0.5) * bin_w.max(0.0);
            let frac = ((centre - lo) / (hi - lo).max(1e-12)).clamp(0.0, 1.0);
            let col = ((frac * cols as f64) as usize).min(cols - 1);
            sums[col] += u64::from(*count);
        }
    } else {
        // fewer bins than columns: each column shows the bin under its centre
        for (col, sum) in sums.iter_mut().enumerate() {
            let centre = lo + (col as f64 + 0.5) / cols as f64 * (hi - lo);
            if centre < h.min || centre > h.max {
                continue;
            }
            let bin = (((centre - h.min) / bin_w) as usize).min(bins - 1);
            *sum = u64::from(h.counts[bin]);
        }
    }
    let peak = sums.iter().copied().max().unwrap_or(0).max(1);
    sums.iter()
        .map(|&s| {
            if s == 0 {
                0
            } else {
                ((s * 8).div_ceil(peak) as usize).clamp(1, 8)
            }
        })
        .collect()
}
