//! The interactive browser (SPEC §5): mode tabs, search bar, virtualised result list,
//! detail pane, filter panel with histogram sliders, status line and help, over one
//! store, searching in the background as the user types; and curation from the
//! keyboard, every change one durable write that can be undone.

pub mod action;
pub mod app;
pub mod config;
mod curate;
pub mod editor;
pub mod effect;
pub mod filter_rows;
pub mod headless;
pub mod jobs;
pub mod key;
pub mod keymap;
pub mod modal;
mod navigate;
pub mod offload;
pub mod review;
pub mod review_job;
pub mod shield;
pub mod signals;
pub mod state;
pub mod terminal;
pub mod theme;
pub mod update;
pub mod view;
pub mod watch;
pub mod worker;
pub mod write;

use crate::collection::LocalCollection;
use crate::store::Store;
use std::path::PathBuf;
use std::sync::Arc;

/// How the browser is started.
#[derive(Debug, Clone, Default)]
pub struct TuiOptions {
    /// Leave the mouse alone (`--no-mouse`), whatever the config says.
    pub no_mouse: bool,
    /// The config file; `None` = `$XDG_CONFIG_HOME/memlens/config.toml`.
    pub config_path: Option<PathBuf>,
    /// The hivelore project the store indexes (`--hivelore`): its files are watched
    /// and shown as they change.
    pub project: Option<crate::project::Project>,
}

/// Runs the interactive browser on an open store until the user quits or a signal
/// ends it (the terminal restored either way).
pub fn run(store: Store, options: TuiOptions) -> std::io::Result<signals::Ended> {
    let mode = theme::ColorMode::detect();
    let path = options.config_path.clone().or_else(config::default_path);
    let config = config::Config::load(path.as_deref(), mode);
    let mouse = !options.no_mouse && config.mouse;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let project = options.project.clone();
    let ended = runtime.block_on(app::run(
        Arc::new(LocalCollection::over(Arc::new(store))),
        config,
        mouse,
        project,
    ));
    // Store calls still under way (a damaged store can keep one forever) end with the
    // process instead of being waited for.
    runtime.shutdown_background();
    ended
}
