//! Runs the memory browser on the demo collection without the `memlens` command:
//! `cargo run --example tui -- [--db PATH] [--no-mouse] [--config PATH]`.
//! The store is built fresh from `assets/demo.jsonl` (as `memlens demo` does).

use memlens::model::Timestamp;
use memlens::store::Store;
use memlens::tui::{TuiOptions, run};
use std::path::PathBuf;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let mut db = std::env::temp_dir().join("memlens-example-demo.redb");
    let mut options = TuiOptions::default();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--db" => db = PathBuf::from(args.next().unwrap_or_default()),
            "demo" => {}
            "--no-mouse" => options.no_mouse = true,
            "--config" => options.config_path = args.next().map(PathBuf::from),
            other => anyhow::bail!("unknown argument `{other}`"),
        }
    }
    let path = memlens::demo::build_at(&db, Timestamp::now())?.path;
    let store = Store::open(&path)?;
    let ended = run(store, options)?;
    if ended != memlens::tui::signals::Ended::Quit {
        std::process::exit(ended.exit_code());
    }
    Ok(())
}
