//! The browser without a terminal or a runtime: actions go through `update` and every
//! effect runs at once, inline. Tests and benchmarks drive the real program logic with
//! it and draw into any ratatui backend.

use super::action::Action;
use super::app;
use super::config::Config;
use super::effect::Effect;
use super::state::State;
use super::update::{start, update};
use super::worker::{
    Loader, SearchSource, read_detail, read_facets, run_histogram, run_link_search, run_mark_all,
    run_search, searcher_loader,
};
use super::write::run_write;
use crate::curate::UndoStack;
use crate::store::Store;
use ratatui::Terminal;
use ratatui::backend::Backend;
use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyModifiers};
use std::collections::VecDeque;
use std::sync::Arc;

/// A browser session run synchronously.
pub struct Headless {
    /// The screen's state.
    pub state: State,
    /// Keys, theme and mouse setting.
    pub config: Config,
    store: Arc<Store>,
    source: Arc<dyn SearchSource>,
    loader: Loader,
    /// The session's undo history.
    pub history: UndoStack,
    /// Every effect run so far, in order (tests look at them).
    pub effects: Vec<Effect>,
    /// The queues listed, kept while the store has not changed.
    reviews: super::review_job::Reviews,
}

impl Headless {
    /// A session on `store` searched by `source`, on a terminal of `size`, with the
    /// first search answered, facets loaded and histograms not yet asked for. After a
    /// write the search index is rebuilt with `Searcher::load` (see [`Headless::set_loader`]).
    pub fn new(
        store: Arc<Store>,
        source: Arc<dyn SearchSource>,
        config: Config,
        size: (u16, u16),
    ) -> Headless {
        let mut state = State::new(store.path().to_path_buf(), size);
        state.config_error = config.error.clone();
        state.track_reads = config.track_reads;
        let mut session = Headless {
            state,
            config,
            store,
            source,
            loader: searcher_loader(),
            history: UndoStack::default(),
            effects: Vec::new(),
            reviews: Default::default(),
        };
        let first = start(&mut session.state);
        session.run_effects(first);
        let memories = session.source.len();
        session.dispatch(Action::SearcherReady { memories });
        if let Ok(facets) = read_facets(&session.store, session.source.as_ref()) {
            session.dispatch(Action::FacetsLoaded(facets));
        }
        session
    }

    /// Replaces how the search index is rebuilt after a write.
    pub fn set_loader(&mut self, loader: Loader) {
        self.loader = loader;
    }

    /// The store the session writes to.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Applies an action and runs every effect it causes, until all is settled.
    pub fn dispatch(&mut self, action: Action) {
        let effects = update(&mut self.state, action);
        self.run_effects(effects);
    }

    /// Presses a key as the terminal would report it.
    pub fn press(&mut self, code: KeyCode, modifiers: KeyModifiers) {
        let event = Event::Key(KeyEvent::new(code, modifiers));
        if let Some(action) = app::translate(event, &self.state, &self.config.keymap, true) {
            self.dispatch(action);
        }
    }

    /// Presses each character of `keys` in turn (no modifiers).
    pub fn type_keys(&mut self, keys: &str) {
        for c in keys.chars() {
            self.press(KeyCode::Char(c), KeyModifiers::NONE);
        }
    }

    /// Draws the current state, judging confidence tiers at `now`.
    pub fn draw<B: Backend>(
        &self,
        terminal: &mut Terminal<B>,
        now: crate::model::Timestamp,
    ) -> Result<(), B::Error> {
        app::draw(terminal, &self.state, &self.config, now)
    }

    fn run_effects(&mut self, effects: Vec<Effect>) {
        let mut queue: VecDeque<Effect> = effects.into();
        while let Some(effect) = queue.pop_front() {
            self.effects.push(effect.clone());
            let answers = match effect {
                Effect::Search {
                    generation,
                    request,
                    draw,
                } => vec![run_search(self.source.as_ref(), generation, &request, draw)],
                Effect::Histograms { generation, jobs } => jobs
                    .iter()
                    .map(|job| run_histogram(self.source.as_ref(), generation, job))
                    .collect(),
                Effect::LoadDetail { id } => vec![read_detail(&self.store, &id)],
                Effect::Write(job) => vec![run_write(&self.store, &mut self.history, &job)],
                Effect::ReloadIndex => match (self.loader)(&self.store) {
                    Ok(source) => {
                        self.source = source;
                        vec![Action::IndexReloaded {
                            memories: self.source.len(),
                        }]
                    }
                    Err(reason) => vec![Action::IndexReloadFailed(reason)],
                },
                Effect::LinkSearch {
                    generation,
                    request,
                } => vec![run_link_search(self.source.as_ref(), generation, &request)],
                Effect::MarkAll {
                    generation,
                    request,
                } => vec![run_mark_all(self.source.as_ref(), generation, &request)],
                Effect::Review {
                    generation,
                    request,
                } => vec![super::review_job::run_review(
                    &self.store,
                    &self.reviews,
                    generation,
                    &request,
                )],
                Effect::Quit => Vec::new(),
            };
            for answer in answers {
                queue.extend(update(&mut self.state, answer));
            }
        }
    }
}
