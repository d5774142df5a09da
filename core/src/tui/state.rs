//! Everything the screen shows, and nothing it can derive: focus, query, tab, filters,
//! the loaded page of results, the detail pane and the overlays.

use super::editor::Editor;
use super::filter_rows::{self, FilterKind};
use crate::model::Memory;
use crate::search::{
    BrowseMode, Engine, Filters, Hit, NumericField, Order, SearchRequest, SearchResponse,
};
use std::collections::BTreeSet;
use std::time::Duration;
use tui_textarea::TextArea;

pub use super::filter_rows::Facets;
pub use super::modal::Overlay;

/// Results fetched per page; the list asks for the page around the selection.
pub const PAGE_SIZE: usize = 200;

/// Memories the Random tab draws at a time: a few screens to meet.
pub const DRAW_SIZE: usize = 100;

/// Which pane receives keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Focus {
    /// The result list.
    List,
    /// The search bar (a text box).
    Search,
    /// The filter panel.
    Filters,
    /// The detail pane.
    Detail,
}

/// The browse-mode tabs, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tab {
    /// The engine's order (time without a query).
    Relevance,
    /// created_at.
    Time,
    /// relationship_count.
    Density,
    /// rating_bayesian.
    Rating,
    /// Rated pool with discovery slots.
    Discovery,
    /// The chosen numeric field.
    Property,
    /// A random draw from everything the filters and the query keep.
    Random,
}

impl Tab {
    /// All tabs, in display order.
    pub const ALL: [Tab; 7] = [
        Tab::Relevance,
        Tab::Time,
        Tab::Density,
        Tab::Rating,
        Tab::Discovery,
        Tab::Property,
        Tab::Random,
    ];

    /// The tab's title.
    pub fn title(self) -> &'static str {
        match self {
            Tab::Relevance => "Relevance",
            Tab::Time => "Time",
            Tab::Density => "Density",
            Tab::Rating => "Rating",
            Tab::Discovery => "Discovery",
            Tab::Property => "Property",
            Tab::Random => "Random",
        }
    }

    /// The tab `steps` after this one, going round.
    pub fn step(self, steps: isize) -> Tab {
        let n = Tab::ALL.len() as isize;
        Tab::ALL[(self.index() as isize + steps).rem_euclid(n) as usize]
    }

    /// Position in `ALL`.
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|t| *t == self).unwrap_or(0)
    }
}

/// One relationship as the detail pane lists it.
pub use crate::collection::Link as LinkRow;

/// The memory in the detail pane, with what the store adds to it.
#[derive(Debug, Clone, PartialEq)]
pub struct DetailView {
    /// The memory.
    pub memory: Memory,
    /// Its relationship_count in the store.
    pub relationship_count: u32,
    /// Its relationships in both directions; `None` until the store has been read.
    pub links: Option<Vec<LinkRow>>,
}

/// A slider's histogram: counts of the field across the memories the other filters keep.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SliderHistogram {
    /// Value at the left edge of the first bin.
    pub min: f64,
    /// Value at the right edge of the last bin.
    pub max: f64,
    /// Memories per bin.
    pub counts: Vec<u32>,
    /// Memories whose value the row's range keeps.
    pub kept: usize,
    /// Memories (kept by the other filters) that have the field at all.
    pub present: usize,
}

/// The page of results the list draws from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Results {
    /// Matches in all.
    pub total: usize,
    /// Position of `hits[0]` in the whole list.
    pub offset: usize,
    /// The loaded page.
    pub hits: Vec<Hit>,
    /// The engine's notice, if any.
    pub notice: Option<String>,
    /// How long the search took.
    pub elapsed: Duration,
    /// For a random draw: how many memories it was drawn from (`total` is the draw).
    pub drawn_from: Option<usize>,
}

impl Results {
    /// The hit at a position in the whole list, when it is in the loaded page.
    pub fn get(&self, index: usize) -> Option<&Hit> {
        index
            .checked_sub(self.offset)
            .and_then(|i| self.hits.get(i))
    }
}

/// Everything the screen shows.
#[derive(Debug, Clone)]
pub struct State {
    /// Terminal width and height.
    pub size: (u16, u16),
    /// How many lines the help overlay has (the keymap in force's), so that scrolling
    /// it stops at its end.
    pub help_lines: usize,
    /// The pane that receives keys.
    pub focus: Focus,
    /// The overlay drawn on top, if any.
    pub overlay: Option<Overlay>,
    /// Whether the filter panel is open.
    pub filters_open: bool,
    /// Whether `<private>…</private>` text is shown (else a placeholder).
    pub reveal_private: bool,
    /// The query being typed.
    pub query: TextArea<'static>,
    /// The search engine.
    pub engine: Engine,
    /// The browse-mode tab.
    pub tab: Tab,
    /// The Property tab's field.
    pub property_field: NumericField,
    /// The seed of the Random tab's draw; a new draw takes the next one.
    pub draw_seed: u64,
    /// The order; `None` = the mode's default (descending).
    pub order: Option<Order>,
    /// Every filter.
    pub filters: Filters,
    /// The chosen filter row.
    pub filter_row: usize,
    /// Histograms of the slider rows, by row; `None` until computed.
    pub histograms: Vec<Option<SliderHistogram>>,
    /// Choices for the type / tag / module rows and slider spans.
    pub facets: Facets,
    /// The loaded page of results.
    pub results: Results,
    /// The selected memory's position in the whole list.
    pub selected: usize,
    /// The first list position shown.
    pub list_top: usize,
    /// The generation of the newest request sent; older answers are dropped.
    pub generation: u64,
    /// The offset the newest request asked for.
    pub requested_offset: usize,
    /// True while the newest request has not been answered.
    pub searching: bool,
    /// The generation of the newest histogram batch sent.
    pub histogram_generation: u64,
    /// True until the search index has loaded.
    pub loading: bool,
    /// The memory in the detail pane.
    pub detail: Option<DetailView>,
    /// The id the detail pane shows or waits for.
    pub detail_target: Option<String>,
    /// Lines the detail pane is scrolled by.
    pub detail_scroll: u16,
    /// The chosen relationship in the detail pane.
    pub detail_link: usize,
    /// Memories shown before following relationships (for going back).
    pub back_stack: Vec<String>,
    /// True when the detail pane shows a followed memory instead of the selection.
    pub following: bool,
    /// A one-line message for the status line.
    pub message: Option<String>,
    /// A problem with the config file, shown until the program ends.
    pub config_error: Option<String>,
    /// The store file, for the status line.
    pub store_path: String,
    /// True once a quit was asked for.
    pub quitting: bool,
    /// Memories marked for changing together, by id.
    pub marked: BTreeSet<String>,
    /// The open editor, if any.
    pub editor: Option<Editor>,
    /// The text box of the open prompt.
    pub prompt_input: TextArea<'static>,
    /// The link picker's query box.
    pub link_query: TextArea<'static>,
    /// The link picker's results.
    pub link_results: Vec<Hit>,
    /// The generation of the newest link-picker search.
    pub link_generation: u64,
    /// The generation of the newest mark-all request.
    pub mark_all_generation: u64,
    /// The tag of the newest change sent to the store.
    pub last_token: u64,
    /// Writes sent and not yet answered.
    pub writing: usize,
    /// Whole seconds the oldest store call has kept the browser waiting, once long.
    pub store_waiting: Option<u64>,
    /// What the next undo would take back.
    pub next_undo: Option<String>,
    /// What the last change, undo or redo did, for the status line.
    pub report: Option<String>,
    /// Whether opening a memory counts as a read (`track_reads` in the config).
    pub track_reads: bool,
    /// The memory to keep selected when the list is searched again after a write.
    pub keep_selected: Option<String>,
    /// The memory the last undo or redo changed: the selection moves to it when the
    /// list is searched again, so that what came back is under the cursor.
    pub select_after_reload: Option<String>,
    /// The review queue shown instead of a search, and every queue's count.
    pub review: super::review::ReviewScreen,
}

impl State {
    /// The starting state for a store at `store_path` on a terminal of `size`.
    /// Takes what the screen needs of the config in force: its problem, whether opening
    /// a memory counts as a read, and how long its help is.
    pub fn take_config(&mut self, config: &super::config::Config) {
        self.config_error.clone_from(&config.error);
        self.track_reads = config.track_reads;
        self.help_lines = super::view::help::line_count(&config.keymap, config.error.as_deref());
    }

    /// A fresh state for a terminal of `size` (no config taken yet).
    pub fn new(store_path: String, size: (u16, u16)) -> State {
        let rows = filter_rows::all_rows().len();
        State {
            size,
            help_lines: 0,
            focus: Focus::List,
            overlay: None,
            filters_open: false,
            reveal_private: crate::project::private::is_revealed(),
            query: new_query_box(),
            engine: Engine::default(),
            tab: Tab::Relevance,
            property_field: NumericField::Composite(crate::model::Composite::TotalSignificance),
            draw_seed: crate::search::random::Draw::fresh_seed(),
            order: None,
            filters: Filters::default(),
            filter_row: 0,
            histograms: vec![None; rows],
            facets: Facets::default(),
            results: Results::default(),
            selected: 0,
            list_top: 0,
            generation: 0,
            searching: false,
            requested_offset: 0,
            histogram_generation: 0,
            loading: true,
            detail: None,
            detail_target: None,
            detail_scroll: 0,
            detail_link: 0,
            back_stack: Vec::new(),
            following: false,
            message: None,
            config_error: None,
            store_path,
            quitting: false,
            marked: BTreeSet::new(),
            editor: None,
            prompt_input: new_query_box(),
            link_query: new_query_box(),
            link_results: Vec::new(),
            link_generation: 0,
            mark_all_generation: 0,
            last_token: 0,
            writing: 0,
            store_waiting: None,
            next_undo: None,
            report: None,
            track_reads: true,
            keep_selected: None,
            select_after_reload: None,
            review: Default::default(),
        }
    }

    /// The query text as typed (one line).
    pub fn query_text(&self) -> String {
        self.query.lines().join(" ")
    }

    /// The browse mode of the current tab.
    pub fn mode(&self) -> BrowseMode {
        match self.tab {
            Tab::Relevance => BrowseMode::Relevance,
            Tab::Time => BrowseMode::Time,
            Tab::Density => BrowseMode::Density,
            Tab::Rating => BrowseMode::Rating,
            Tab::Discovery => BrowseMode::Discovery,
            Tab::Property => BrowseMode::Property(self.property_field),
            // a draw has no order; its request is listed newest first
            Tab::Random => BrowseMode::Time,
        }
    }

    /// The seed of the draw the list shows, when it shows the Random tab's draw.
    pub fn drawing(&self) -> Option<u64> {
        (self.tab == Tab::Random && self.review.queue.is_none()).then_some(self.draw_seed)
    }

    /// The order in force (the mode's default is descending).
    pub fn effective_order(&self) -> Order {
        self.order.unwrap_or(Order::Desc)
    }

    /// The request for the page starting at `offset` (a draw is one page).
    pub fn request(&self, offset: usize) -> SearchRequest {
        let (offset, limit) = match self.drawing() {
            Some(_) => (0, DRAW_SIZE),
            None => (offset, PAGE_SIZE),
        };
        SearchRequest {
            query: self.query_text(),
            engine: self.engine,
            filters: self.filters.clone(),
            mode: self.mode(),
            order: self.order,
            offset,
            limit,
        }
    }

    /// The selected hit, when its page is loaded.
    pub fn selected_hit(&self) -> Option<&Hit> {
        self.results.get(self.selected)
    }

    /// The filter rows of the panel.
    pub fn filter_rows(&self) -> Vec<FilterKind> {
        filter_rows::all_rows()
    }

    /// True when a text box has the keys (single-letter bindings do not apply).
    pub fn in_text_box(&self) -> bool {
        match &self.overlay {
            None => self.focus == Focus::Search,
            Some(overlay) => overlay.takes_text(),
        }
    }

    /// Number of filters that currently filter something out.
    pub fn active_filters(&self) -> usize {
        self.filter_rows()
            .into_iter()
            .filter(|r| !r.is_off(&self.filters))
            .count()
    }

    /// Applies a search answer (pagination keeps the selection); a draw lists what it
    /// drew and keeps the size of the set it drew from aside.
    pub fn take_response(&mut self, offset: usize, response: SearchResponse, elapsed: Duration) {
        let drawn_from = self.drawing().map(|_| response.total);
        self.results = Results {
            total: drawn_from.map_or(response.total, |_| response.hits.len()),
            offset,
            hits: response.hits,
            notice: response.notice,
            elapsed,
            drawn_from,
        };
    }
}

/// The search bar's text box, single line, with its placeholder.
pub fn new_query_box() -> TextArea<'static> {
    let mut query = TextArea::default();
    query.set_placeholder_text("type to search");
    query.set_cursor_line_style(ratatui::style::Style::default());
    query
}
