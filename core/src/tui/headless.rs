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
    read_detail, read_facets, run_histogram, run_link_search, run_mark_all, run_search,
};
use super::write::run_write;
use crate::collection::Collection;
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
    memories: Arc<dyn Collection>,
    /// Every effect run so far, in order (tests look at them).
    pub effects: Vec<Effect>,
}

impl Headless {
    /// A session on `memories`, on a terminal of `size`, with the first search
    /// answered, the in-memory index loaded, facets read and histograms not yet asked
    /// for — the order the worker's answers arrive in when the load is quick.
    pub fn new(memories: Arc<dyn Collection>, config: Config, size: (u16, u16)) -> Headless {
        let mut state = State::new(memories.name(), size);
        state.take_config(&config);
        let mut session = Headless {
            state,
            config,
            memories,
            effects: Vec::new(),
        };
        let first = start(&mut session.state);
        session.run_effects(first);
        let loaded = match session.memories.load() {
            Ok(()) => Action::SearcherReady,
            Err(e) => Action::LoadFailed(e.to_string()),
        };
        session.dispatch(loaded);
        if let Ok(facets) = read_facets(session.memories.as_ref()) {
            session.dispatch(Action::FacetsLoaded(facets));
        }
        session
    }

    /// The collection the session searches and writes.
    pub fn memories(&self) -> &dyn Collection {
        self.memories.as_ref()
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
            let memories = self.memories.as_ref();
            let answers = match effect {
                Effect::Search {
                    generation,
                    request,
                    draw,
                    keep,
                } => vec![run_search(
                    memories,
                    generation,
                    (&request, draw, keep.as_deref()),
                )],
                Effect::Histograms { generation, jobs } => jobs
                    .iter()
                    .map(|job| run_histogram(memories, generation, job))
                    .collect(),
                Effect::LoadDetail { id } => vec![read_detail(memories, &id)],
                Effect::Write(job) => vec![run_write(memories, &job)],
                Effect::ReloadIndex => vec![match memories.refresh() {
                    Ok(_) => Action::IndexReloaded,
                    Err(e) => Action::IndexReloadFailed(e.to_string()),
                }],
                Effect::LinkSearch {
                    generation,
                    request,
                } => vec![run_link_search(memories, generation, &request)],
                Effect::MarkAll {
                    generation,
                    request,
                } => vec![run_mark_all(memories, generation, &request)],
                Effect::Review {
                    generation,
                    request,
                } => vec![super::review_job::run_review(
                    memories, generation, &request,
                )],
                Effect::Quit => Vec::new(),
            };
            for answer in answers {
                queue.extend(update(&mut self.state, answer));
            }
        }
    }
}
