//! Drawing: the layout of the screen and one module per pane or overlay. Views read the
//! state and never change it; memory text passes through `text::inert` on its way in.
//! (Text boxes draw their text themselves; ratatui and tui-textarea drop control
//! characters and zero-width ones, bidi overrides included, cell by cell.)

pub mod detail;
pub mod editor;
pub mod filters;
pub mod help;
pub mod link_picker;
pub mod list;
pub mod picker;
pub mod prompt;
pub mod review;
pub mod search_bar;
pub mod status;
pub mod tabs;
pub mod text;

use super::action::Action;
use super::keymap::{Keymap, Section};
use super::state::{Overlay, State};
use super::theme::Theme;
use crate::model::Timestamp;
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph};

/// The smallest terminal the program draws its screen in.
pub const MIN_SIZE: (u16, u16) = (80, 24);

/// What the views need besides the state: colours, the keys in force, the time.
#[derive(Debug, Clone, Copy)]
pub struct Look<'a> {
    /// Colours.
    pub theme: &'a Theme,
    /// The keys in force (for help and hints).
    pub keymap: &'a Keymap,
    /// The time relative ages and confidence tiers are computed at.
    pub now: Timestamp,
}

/// Where each pane goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The mode tabs (one row).
    pub tabs: Rect,
    /// The search bar (three rows with its border).
    pub search: Rect,
    /// The result list.
    pub list: Rect,
    /// The detail pane, when shown.
    pub detail: Option<Rect>,
    /// The filter panel, when open.
    pub filters: Option<Rect>,
    /// The status line.
    pub status: Rect,
}

/// The layout for a terminal of `size`; `None` below the minimum size.
pub fn layout(size: (u16, u16), filters_open: bool) -> Option<Areas> {
    let (w, h) = size;
    if w < MIN_SIZE.0 || h < MIN_SIZE.1 {
        return None;
    }
    let area = Rect::new(0, 0, w, h);
    let [tabs, search, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(3),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(area);
    let list_width = if filters_open {
        (u32::from(w) * 42 / 100) as u16
    } else {
        (u32::from(w) * 45 / 100) as u16
    };
    let [list, right] =
        Layout::horizontal([Constraint::Length(list_width), Constraint::Min(1)]).areas(body);
    let (detail, filters) = if filters_open {
        (None, Some(right))
    } else {
        (Some(right), None)
    };
    Some(Areas {
        tabs,
        search,
        list,
        detail,
        filters,
        status,
    })
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame<'_>, state: &State, look: &Look<'_>) {
    let area = frame.area();
    let Some(areas) = layout((area.width, area.height), state.filters_open) else {
        too_small(frame, area, look);
        return;
    };
    if state.review.queue.is_some() {
        review::draw_tabs(frame, areas.tabs, state, look);
    } else {
        tabs::draw(frame, areas.tabs, state, look);
    }
    search_bar::draw(frame, areas.search, state, look);
    list::draw(frame, areas.list, state, look);
    if let Some(a) = areas.detail {
        if review::shows_pair(state) {
            review::draw_pair(frame, a, state, look);
        } else {
            detail::draw(frame, a, state, look);
        }
    }
    if let Some(a) = areas.filters {
        filters::draw(frame, a, state, look);
    }
    status::draw(frame, areas.status, state, look);
    match &state.overlay {
        Some(Overlay::Help { scroll }) => {
            help::draw(frame, area, *scroll, state.config_error.as_deref(), look);
        }
        Some(Overlay::FieldPicker { selected }) => picker::draw(frame, area, *selected, look),
        Some(Overlay::Editor) => {
            if let Some(e) = &state.editor {
                editor::draw(frame, area, e, look);
            }
        }
        Some(Overlay::Prompt(purpose)) => {
            prompt::draw_prompt(frame, area, purpose, &state.prompt_input, look);
        }
        Some(Overlay::Confirm(question)) => {
            // The editor stays in sight behind its question.
            if let Some(e) = &state.editor {
                editor::draw(frame, area, e, look);
            }
            prompt::draw_confirm(frame, area, question, look);
        }
        Some(Overlay::Choice {
            purpose,
            options,
            selected,
        }) => {
            let labels: Vec<String> = options.iter().map(|o| o.label.clone()).collect();
            let title = format!(" {} · {} ", purpose.title(), picker::choose_hint(look));
            let width = area.width.saturating_sub(8).min(72);
            picker::draw_list(frame, area, &title, &labels, *selected, width, look);
        }
        Some(Overlay::Rate { ids }) => prompt::draw_rate(frame, area, ids, look),
        Some(Overlay::LinkPicker { from, selected }) => {
            link_picker::draw(frame, area, state, from, *selected, look);
        }
        None => {}
    }
}

/// The first key bound to `action` in `section`, for hints (`—` when unbound).
pub fn key_hint(look: &Look<'_>, section: Section, action: &Action) -> String {
    look.keymap
        .keys_for(section, action)
        .first()
        .map_or_else(|| "—".to_string(), ToString::to_string)
}

fn too_small(frame: &mut Frame<'_>, area: Rect, look: &Look<'_>) {
    let size = format!(
        "needs {}×{}, has {}×{}",
        MIN_SIZE.0, MIN_SIZE.1, area.width, area.height
    );
    let said = [
        ("memlens: terminal too small", look.theme.error()),
        (size.as_str(), Style::default()),
        (
            "enlarge the window, or press Ctrl-c to quit",
            look.theme.muted(),
        ),
    ];
    // each sentence wrapped to the width, so a very narrow terminal still reads it all
    let lines: Vec<Line<'_>> = said
        .iter()
        .flat_map(|(sentence, style)| {
            text::wrap(sentence, usize::from(area.width.max(1)))
                .into_iter()
                .map(|l| Line::styled(l, *style))
        })
        .collect();
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .min(area.height);
    let top = area.height.saturating_sub(height) / 2;
    let rect = Rect::new(area.x, area.y + top, area.width, height);
    frame.render_widget(Paragraph::new(lines).centered(), rect);
}

/// A pane's block: rounded border, title, accent when focused.
pub fn pane<'a>(title: Line<'a>, focused: bool, look: &Look<'_>) -> Block<'a> {
    let style = if focused {
        look.theme.border_focused()
    } else {
        look.theme.border()
    };
    Block::default()
        .borders(Borders::ALL)
        .border_type(if focused {
            BorderType::Thick
        } else {
            BorderType::Rounded
        })
        .border_style(style)
        .title(title)
}

/// A centred rectangle of at most `w`×`h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    )
}

/// Clears an overlay's rectangle and draws its block.
pub fn overlay_block(frame: &mut Frame<'_>, rect: Rect, title: &str, look: &Look<'_>) -> Rect {
    frame.render_widget(Clear, rect);
    let block = pane(
        Line::from(Span::styled(title.to_string(), look.theme.accent())),
        true,
        look,
    );
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    inner
}

/// A label–value pair for the detail pane.
pub fn field<'a>(label: &'a str, value: String, look: &Look<'_>) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("{label:<13} "), look.theme.muted()),
        Span::styled(value, Style::default()),
    ])
}
