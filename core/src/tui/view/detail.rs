//! The detail pane: every field of one memory, its relationships (followable), the body
//! wrapped and scrollable, `feel_*` scores and composites as labelled bars.

use super::text::{inert, width, wrap};
use super::{Look, field};
use crate::model::{Composite, FEEL_DIMS, Layer, Memory};
use crate::tui::state::{DetailView, Focus, State};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

/// Width of the label column of the score bars.
const BAR_LABEL: usize = 23;

/// The inner size of the detail pane for the current layout.
fn inner_size(state: &State) -> Option<(u16, u16)> {
    let area = super::layout(state.size, state.filters_open)?.detail?;
    Some((area.width.saturating_sub(2), area.height.saturating_sub(2)))
}

/// How many lines the detail pane shows at once.
pub fn page(state: &State) -> u16 {
    inner_size(state).map_or(0, |(_, h)| h)
}

/// How far the detail pane can scroll.
pub fn max_scroll(state: &State) -> u16 {
    let (Some((w, h)), Some(detail)) = (inner_size(state), &state.detail) else {
        return 0;
    };
    let lines = build(detail, state, None, usize::from(w)).len();
    u16::try_from(lines.saturating_sub(usize::from(h))).unwrap_or(u16::MAX)
}

/// Draws the detail pane.
pub fn draw(frame: &mut Frame<'_>, area: Rect, state: &State, look: &Look<'_>) {
    let focused = state.focus == Focus::Detail && state.overlay.is_none();
    let mut title = vec![Span::styled(" Detail ", look.theme.accent())];
    if !state.back_stack.is_empty() {
        title.push(Span::styled(
            format!("followed {} · Backspace back ", state.back_stack.len()),
            look.theme.muted(),
        ));
    }
    let block = super::pane(Line::from(title), focused, look);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(detail) = &state.detail else {
        let text = if state.detail_target.is_some() || state.loading {
            "loading…"
        } else {
            "nothing selected"
        };
        frame.render_widget(
            Paragraph::new(Line::styled(text, look.theme.muted())),
            inner,
        );
        return;
    };
    let lines = build(detail, state, Some(look), usize::from(inner.width));
    let max = lines.len().saturating_sub(usize::from(inner.height));
    let top = usize::from(state.detail_scroll).min(max);
    let visible: Vec<Line<'_>> = lines
        .into_iter()
        .skip(top)
        .take(usize::from(inner.height))
        .collect();
    frame.render_widget(Paragraph::new(visible), inner);
}

/// Every line of the pane; `look` is `None` when only the count matters.
fn build<'a>(d: &'a DetailView, state: &State, look: Option<&Look<'_>>, w: usize) -> Vec<Line<'a>> {
    let default_look;
    let look = match look {
        Some(l) => l,
        None => {
            default_look = LookOwned::new();
            &default_look.look()
        }
    };
    let mut out = Vec::new();
    let m = &d.memory;
    let headline = if state.reveal_private {
        std::borrow::Cow::Borrowed(m.shown_headline())
    } else {
        crate::project::private::mask(m.shown_headline())
    };
    // the title is one line: a line break in it shows as `^J`, never as a line that
    // reads like a field of its own
    for line in wrap(&inert(&headline), w) {
        out.push(Line::styled(line, look.theme.accent()));
    }
    push_field(&mut out, "id", inert(&m.id).into_owned(), look, w);
    let mut kind = format!("{} · {}", inert(&m.memory_type), m.scope);
    if let Some(module) = &m.module {
        kind.push_str(&format!(" ({})", inert(module)));
    }
    push_field(&mut out, "type · scope", kind, look, w);
    push_field(
        &mut out,
        "status · tier",
        format!("{} · {}", m.status, m.confidence_tier(look.now)),
        look,
        w,
    );
    let mut rating = format!(
        "{:.2} bayesian · {}",
        m.rating_bayesian(),
        crate::words::plural(m.rating_count as usize, "rating")
    );
    if let Some(avg) = m.rating_avg() {
        rating.push_str(&format!(" · avg {avg:.2}"));
    }
    for r in &m.ratings {
        rating.push_str(&format!(" · {} {}", inert(&r.rater), r.value));
    }
    push_field(&mut out, "rating", rating, look, w);
    if let Some(level) = m.trust_level {
        push_field(
            &mut out,
            "confidential",
            format!("{} ({} of 5)", level.label(), level.number()),
            look,
            w,
        );
    }
    if !m.tags.is_empty() {
        let tags: Vec<String> = m.tags.iter().map(|t| inert(t).into_owned()).collect();
        push_field(&mut out, "tags", tags.join(", "), look, w);
    }
    push_field(&mut out, "created", m.created_at.to_string(), look, w);
    push_field(&mut out, "updated", m.updated_at.to_string(), look, w);
    let last = m
        .last_read_at
        .map_or("never".to_string(), |t| t.to_string());
    push_field(
        &mut out,
        "read",
        format!("{} × · last {last}", m.read_count),
        look,
        w,
    );
    let confidence = m.confidence.map_or("—".into(), |c| format!("{c:.2}"));
    push_field(
        &mut out,
        "weight/trust",
        format!("{:.2} / {:.2} · confidence {confidence}", m.weight, m.trust),
        look,
        w,
    );
    if let Some(at) = m.deleted_at {
        let reason = m.deleted_reason.as_deref().map(inert).unwrap_or_default();
        out.push(Line::styled(
            format!("deleted {at} {reason}"),
            look.theme.error(),
        ));
    }
    relationships(&mut out, d, state, look, w);
    heading(&mut out, "Body", look);
    let body = if state.reveal_private {
        std::borrow::Cow::Borrowed(m.body.as_str())
    } else {
        crate::project::private::mask(&m.body)
    };
    out.extend(wrap(&body, w).into_iter().map(Line::raw));
    scores(&mut out, m, look, w);
    more(&mut out, m, look, w);
    out
}

/// A field's label and value, the value wrapped under itself where the pane is
/// narrower than the line, so that a timestamp, the tags or the raters are never cut.
fn push_field<'a>(
    out: &mut Vec<Line<'a>>,
    label: &'a str,
    value: String,
    look: &Look<'_>,
    w: usize,
) {
    let room = w.saturating_sub(14).max(8);
    let mut parts = wrap(&value, room).into_iter();
    out.push(field(label, parts.next().unwrap_or_default(), look));
    for rest in parts {
        out.push(field("", rest, look));
    }
}

/// A default look for counting lines, where colours do not matter.
struct LookOwned {
    theme: crate::tui::theme::Theme,
    keymap: crate::tui::keymap::Keymap,
}

impl LookOwned {
    fn new() -> LookOwned {
        LookOwned {
            theme: crate::tui::theme::Theme::new(crate::tui::theme::ColorMode::NoColor),
            keymap: crate::tui::keymap::Keymap::default(),
        }
    }
    fn look(&self) -> Look<'_> {
        Look {
            theme: &self.theme,
            keymap: &self.keymap,
            now: crate::model::Timestamp(0),
        }
    }
}

fn heading(out: &mut Vec<Line<'_>>, title: &str, look: &Look<'_>) {
    out.push(Line::default());
    out.push(Line::styled(format!("── {title} ──"), look.theme.accent()));
}

fn relationships(
    out: &mut Vec<Line<'_>>,
    d: &DetailView,
    state: &State,
    look: &Look<'_>,
    w: usize,
) {
    let Some(links) = &d.links else {
        if !d.memory.relationships.is_empty() {
            heading(out, "Relationships", look);
            out.push(Line::styled("reading…", look.theme.muted()));
        }
        return;
    };
    if links.is_empty() {
        return;
    }
    heading(
        out,
        &format!("Relationships ({} in store)", d.relationship_count),
        look,
    );
    let focused = state.focus == Focus::Detail;
    for (i, link) in links.iter().enumerate() {
        let arrow = if link.outgoing { "→" } else { "←" };
        let strength = link
            .strength
            .map(|s| format!(" {s:.2}"))
            .unwrap_or_default();
        let prefix = format!("{arrow} {}{strength} ", inert(&link.kind));
        let room = w.saturating_sub(width(&prefix));
        let (text, style) = match &link.headline {
            Some(h) => (inert(h).into_owned(), Style::default()),
            None => (format!("{} (missing)", inert(&link.id)), look.theme.error()),
        };
        let text = super::text::truncate(&text, room).into_owned();
        let mut line = Line::from(vec![
            Span::styled(prefix, look.theme.muted()),
            Span::styled(text, style),
        ]);
        if i == state.detail_link {
            line = line.style(if focused {
                look.theme.selected()
            } else {
                Style::default().add_modifier(Modifier::UNDERLINED)
            });
        }
        out.push(line);
    }
}

fn scores(out: &mut Vec<Line<'_>>, m: &Memory, look: &Look<'_>, w: usize) {
    if !m.is_scored() {
        return;
    }
    heading(out, "Significance", look);
    for c in Composite::ALL {
        if let Some(v) = m.composite(c) {
            let (lo, hi) = c.range();
            out.push(bar_line(c.field(), v, lo, hi, look, w));
        }
    }
    for (title, layer) in [
        ("feel_*", Layer::Emotional),
        ("functional_*", Layer::Functional),
    ] {
        heading(out, title, look);
        let mut unscored = Vec::new();
        for (dim, value) in FEEL_DIMS.iter().zip(&m.feel) {
            match value {
                _ if dim.layer != layer => {}
                Some(v) => out.push(bar_line(dim.name, *v, dim.min, dim.max, look, w)),
                None => unscored.push(dim.name),
            }
        }
        if !unscored.is_empty() {
            let text = format!("not scored: {}", unscored.join(", "));
            for line in wrap(&text, w) {
                out.push(Line::styled(line, look.theme.muted()));
            }
        }
    }
}

/// `label  ████▌░░░░  0.62`; a range below zero is drawn from its centre.
fn bar_line<'a>(label: &str, v: f64, lo: f64, hi: f64, look: &Look<'_>, w: usize) -> Line<'a> {
    let bar_w = w.saturating_sub(BAR_LABEL + 8).max(4);
    let value = format!(" {v:>5.2}");
    let bar = if lo < 0.0 {
        centred_bar(v, lo, hi, bar_w)
    } else {
        fill_bar((v - lo) / (hi - lo), bar_w)
    };
    Line::from(vec![
        Span::styled(format!("{label:<BAR_LABEL$} "), look.theme.muted()),
        Span::styled(bar, look.theme.bar()),
        Span::raw(value),
    ])
}

const EIGHTHS: [char; 8] = [' ', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

/// A bar filled to `fraction` of `w` cells, in eighths, padded with a faint track.
pub fn fill_bar(fraction: f64, w: usize) -> String {
    let eighths = (fraction.clamp(0.0, 1.0) * (w * 8) as f64).round() as usize;
    let mut s = "█".repeat(eighths / 8);
    if !eighths.is_multiple_of(8) {
        s.push(EIGHTHS[eighths % 8]);
    }
    let used = s.chars().count();
    s.push_str(&"·".repeat(w.saturating_sub(used)));
    s
}

fn centred_bar(v: f64, lo: f64, hi: f64, w: usize) -> String {
    let half = w / 2;
    let mid = (lo + hi) / 2.0;
    let mut cells = vec!['·'; w];
    cells[half.min(w - 1)] = '│';
    let reach = ((v - mid).abs() / ((hi - mid).max(1e-9)) * half as f64).round() as usize;
    for i in 1..=reach.min(half) {
        let at = if v >= mid { half + i } else { half - i };
        if at < w {
            cells[at] = '█';
        }
    }
    cells.into_iter().collect()
}

fn more(out: &mut Vec<Line<'_>>, m: &Memory, look: &Look<'_>, w: usize) {
    let mut lines = Vec::new();
    if let Some(v) = m.rem_visits {
        push_field(&mut lines, "rem_visits", v.to_string(), look, w);
    }
    if let Some(src) = &m.source {
        let mut text = inert(&src.system).into_owned();
        if let Some(p) = &src.path {
            text.push_str(&format!(" {}", inert(p)));
        }
        if let Some(id) = &src.id {
            text.push_str(&format!(" #{}", inert(id)));
        }
        push_field(&mut lines, "source", text, look, w);
    }
    for (key, value) in &m.extra {
        let text = match value {
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let text = super::text::truncate(&inert(&text), w.saturating_sub(13)).into_owned();
        lines.push(field("extra", format!("{}: {text}", inert(key)), look));
    }
    if !lines.is_empty() {
        heading(out, "More", look);
        out.extend(lines);
    }
}
