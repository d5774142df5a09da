//! The loop that wires everything: terminal events, worker answers and redraws, in one
//! `tokio::select!`. Logic lives in `update`; this file only moves things between parts.

use super::action::Action;
use super::config::Config;
use super::effect::Effect;
use super::keymap::Keymap;
use super::signals::{Ended, Signals};
use super::state::State;
use super::terminal::{FrameWriter, TerminalGuard};
use super::update::{start, update};
use super::view::{self, Look};
use super::worker::Worker;
use crate::collection::Collection;
use crate::model::Timestamp;
use futures::StreamExt;
use ratatui::Terminal;
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::crossterm::event::{Event, EventStream, KeyEventKind, MouseButton, MouseEventKind};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::MissedTickBehavior;

/// Turns a terminal event into an action, through the keymap for keys. While the
/// terminal is too small for the screen (it shows only "terminal too small"), nothing
/// acts but Ctrl-c and a resize: a key must not change what the person cannot see.
pub fn translate(event: Event, state: &State, keymap: &Keymap, mouse: bool) -> Option<Action> {
    let action = translate_any(event, state, keymap, mouse)?;
    let drawn = view::layout(state.size, state.filters_open).is_some();
    (drawn || matches!(action, Action::Quit | Action::Resize(..))).then_some(action)
}

/// [`translate`] whatever the size of the terminal.
fn translate_any(event: Event, state: &State, keymap: &Keymap, mouse: bool) -> Option<Action> {
    match event {
        Event::Key(key) if key.kind != KeyEventKind::Release => keymap.action_for(state, &key),
        Event::Paste(text) => Some(Action::Paste(text)),
        Event::Resize(w, h) => Some(Action::Resize(w, h)),
        Event::Mouse(m) if mouse => match m.kind {
            MouseEventKind::ScrollDown => Some(Action::Wheel {
                column: m.column,
                row: m.row,
                lines: 3,
            }),
            MouseEventKind::ScrollUp => Some(Action::Wheel {
                column: m.column,
                row: m.row,
                lines: -3,
            }),
            MouseEventKind::Down(MouseButton::Left) => Some(Action::Click {
                column: m.column,
                row: m.row,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Draws the state into a terminal; `now` is the time confidence tiers are judged at.
pub fn draw<B: Backend>(
    terminal: &mut Terminal<B>,
    state: &State,
    config: &Config,
    now: Timestamp,
) -> Result<(), B::Error> {
    let look = Look {
        theme: &config.theme,
        keymap: &config.keymap,
        now,
    };
    terminal.draw(|frame| view::draw(frame, state, &look))?;
    Ok(())
}

/// Runs the program on the real terminal until the user quits or a signal ends it.
pub async fn run(
    memories: Arc<dyn Collection>,
    config: Config,
    mouse: bool,
    project: Option<crate::project::Project>,
) -> std::io::Result<Ended> {
    // Before the terminal changes, so no signal can leave it changed.
    let mut signals = Signals::listen()?;
    super::signals::exit_after_signal(WRITE_GRACE + Duration::from_secs(2))?;
    let mut ended = Ended::Quit;
    let guard = TerminalGuard::enter(mouse)?;
    let backend = CrosstermBackend::new(FrameWriter::new(std::io::stdout(), true));
    let mut terminal = Terminal::new(backend)?;
    let size = terminal.size()?;
    let mut state = State::new(memories.name(), (size.width, size.height));
    state.take_config(&config);

    let (tx, mut rx) = mpsc::unbounded_channel();
    // the project's files, watched while the browser is open
    let _watcher = project.map(|p| crate::project::live::watch(p, tx.clone()));
    let mut worker = Worker::spawn(memories, tx);
    for effect in start(&mut state) {
        worker.send(effect);
    }
    draw(&mut terminal, &state, &config, Timestamp::now())?;

    let mut events = EventStream::new();
    // Asks the worker once a second whether a store call keeps the browser waiting.
    let mut clock = tokio::time::interval(Duration::from_secs(1));
    clock.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let mut reported_damage = false;
    loop {
        let action = tokio::select! {
            event = events.next() => match event {
                Some(Ok(event)) => translate(event, &state, &config.keymap, mouse),
                Some(Err(e)) => return Err(e),
                None => break,
            },
            Some(action) = rx.recv() => Some(action),
            number = signals.next() => {
                ended = Ended::Signal(number);
                break;
            }
            _ = clock.tick() => {
                if !reported_damage && super::shield::redb_panicked() {
                    // a task met the damage outside a shielded call and was stopped
                    reported_damage = true;
                    Some(Action::StoreFailed(super::shield::damaged("redb stopped a task")))
                } else {
                    let waiting = worker.slow_seconds();
                    (waiting != state.store_waiting).then_some(Action::StoreWaiting(waiting))
                }
            }
        };
        let Some(action) = action else { continue };
        let mut effects = update(&mut state, action);
        // Take whatever else has arrived, so one frame shows all of it.
        while let Ok(more) = rx.try_recv() {
            effects.extend(update(&mut state, more));
        }
        for effect in effects {
            if effect != Effect::Quit {
                worker.send(effect);
            }
        }
        if state.quitting {
            break;
        }
        draw(&mut terminal, &state, &config, Timestamp::now())?;
    }
    // The terminal first: quitting never waits on the store to give it back.
    drop(terminal);
    drop(guard);
    if !worker.finish_writes(WRITE_GRACE).await {
        // the terminal may be gone (a hangup): a failed report must not stop the exit
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "memlens: a write to the store had not finished after {} s and was dropped; the store keeps its last committed state",
            WRITE_GRACE.as_secs()
        );
    }
    Ok(ended)
}

/// How long quitting waits for the writes already sent (each normally takes
/// milliseconds) before leaving them to end with the process.
const WRITE_GRACE: Duration = Duration::from_secs(3);
