//! The `memlens` command: parses the command line and runs one subcommand.

use clap::Parser;

/// mimalloc in an import, the system's allocator elsewhere (`memlens::allocator`).
#[global_allocator]
static ALLOCATOR: memlens::allocator::Allocator = memlens::allocator::Allocator;

use memlens::cli::{Cli, Command};
use memlens::commands::{self, CommandError, browse, open_existing};
use memlens::model::Timestamp;
use memlens::paths;
use memlens::tui::TuiOptions;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// Why the run failed: the `error:` message, lines after it, and the exit code.
struct Failure {
    message: String,
    details: Vec<String>,
    code: u8,
}

impl From<CommandError> for Failure {
    fn from(e: CommandError) -> Failure {
        Failure {
            message: e.to_string(),
            details: e.details(),
            // The reader of our output went away (`| head`): nothing failed.
            code: if e.is_broken_pipe() { 0 } else { e.exit_code() },
        }
    }
}

impl From<paths::NoDataDir> for Failure {
    fn from(e: paths::NoDataDir) -> Failure {
        CommandError::from(e).into()
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) if f.code == 0 => ExitCode::SUCCESS,
        Err(f) => {
            let mut err = memlens::text::stderr();
            // Each message is one line: a newline from a file name or a value must
            // not start a line that looks like memlens's own.
            let _ = writeln!(err, "error: {}", memlens::text::inert(&f.message));
            for line in f.details {
                let _ = writeln!(err, "{}", memlens::text::inert(&line));
            }
            ExitCode::from(f.code)
        }
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    if let Some(Command::Mcp) = cli.command {
        // Before anything takes stdout: it carries the protocol.
        return commands::mcp::run(&paths::store_path(cli.db)?).map_err(Failure::from);
    }
    // Everything printed passes through the one door that keeps escape sequences in
    // the data from acting on the terminal (`memlens::text`).
    let mut out = memlens::text::stdout();
    let mut err = memlens::text::stderr();
    let db = cli.db;
    let result = match cli.command {
        None => browse(&paths::store_path(db)?, cli.no_mouse, &mut out),
        Some(Command::Demo) => {
            let path = commands::demo::run(&paths::demo_path(db)?, Timestamp::now())?;
            browse(&path, cli.no_mouse, &mut out)
        }
        Some(Command::Import(args)) => {
            commands::import_allocator::reexec_with_import_allocator();
            commands::import::run(&paths::store_path(db)?, &args, &mut out, &mut err)
                .map_err(Failure::from)
        }
        Some(Command::Export(args)) => {
            commands::export::run(&paths::store_path(db)?, &args, &mut out, &mut err)
                .map_err(Failure::from)
        }
        Some(Command::Get(args)) => {
            commands::get::run(&paths::store_path(db)?, &args, &mut out).map_err(Failure::from)
        }
        Some(Command::Stats(args)) => {
            commands::stats::run(&paths::store_path(db)?, &args, &mut out).map_err(Failure::from)
        }
        Some(Command::Check(args)) => {
            commands::check::run(&paths::store_path(db)?, &args, &mut out).map_err(Failure::from)
        }
        Some(Command::Search(args)) => {
            memlens::search::command::run_at(&paths::store_path(db)?, &args, &mut out)
                .map_err(search_failure)
        }
        Some(Command::Review(args)) => {
            commands::review::run(&paths::store_path(db)?, &args, &mut out).map_err(Failure::from)
        }
        Some(Command::Mcp) => Ok(()),
        Some(Command::Curate(cmd)) => {
            let store = open_existing(&paths::store_path(db)?)?;
            memlens::curate::run(&store, &cmd, &mut out).map_err(|e| Failure {
                message: e.to_string(),
                details: Vec::new(),
                code: if e.is_usage() { 2 } else { 1 },
            })
        }
    };
    let flushed = out.flush().map_err(|e| CommandError::io("stdout", e));
    result?;
    match flushed {
        Err(e) if !e.is_broken_pipe() => Err(e.into()),
        _ => Ok(()),
    }
}

/// Opens the browser on a store, or prints its summary when there is no terminal.
fn browse(path: &Path, no_mouse: bool, out: &mut dyn Write) -> Result<(), Failure> {
    if !browse::has_terminal() {
        return browse::summary(path, out).map_err(Failure::from);
    }
    // redb meets some damage with a panic; the browser's open reports it as an error.
    let store =
        memlens::tui::shield::shielded(|| open_existing(path)).map_err(|reason| Failure {
            message: format!("{}: {reason}", path.display()),
            details: Vec::new(),
            code: 1,
        })??;
    let options = TuiOptions {
        no_mouse,
        config_path: None,
    };
    let ended = memlens::tui::run(store, options).map_err(|e| Failure {
        message: format!("{e:#}"),
        details: Vec::new(),
        code: 1,
    })?;
    if let memlens::tui::signals::Ended::Signal(_) = ended {
        // The terminal is restored and the writes done: exit as the signal would have.
        std::process::exit(ended.exit_code());
    }
    Ok(())
}

/// A failed search: a bad flag combination or filter is a usage error (exit 2).
fn search_failure(e: anyhow::Error) -> Failure {
    use memlens::search::command::SearchCommandError;
    let usage = e.downcast_ref::<SearchCommandError>().is_some()
        || e.downcast_ref::<memlens::search::FilterError>().is_some();
    Failure {
        message: format!("{e:#}"),
        details: Vec::new(),
        code: if usage { 2 } else { 1 },
    }
}
