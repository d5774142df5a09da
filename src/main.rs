//! The `memlens` command: parses the command line and runs one subcommand.

use clap::Parser;

/// mimalloc in an import, the system's allocator elsewhere (`memlens::allocator`,
/// `commands::allocation`).
#[global_allocator]
static ALLOCATOR: memlens::allocator::Allocator = memlens::allocator::Allocator;

mod cli;
mod commands;

use cli::{Cli, Command};
use commands::allocation::Allocation;
use commands::{CommandError, browse, open_existing};
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

impl From<memlens::existing::OpenError> for Failure {
    fn from(e: memlens::existing::OpenError) -> Failure {
        CommandError::from(e).into()
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

/// What the process of the command `cli` names needs of the allocator.
fn allocation(cli: &Cli) -> Allocation {
    match &cli.command {
        None | Some(Command::Demo(_) | Command::Mcp) => Allocation::Staying,
        // a project refuses `import`: nothing to start again for
        Some(Command::Import(_)) if cli.hivelore.is_some() => Allocation::Staying,
        Some(Command::Import(_)) => Allocation::Import,
        Some(_) => Allocation::Request,
    }
}

fn run(cli: Cli) -> Result<(), Failure> {
    commands::allocation::prepare(allocation(&cli));
    if let (Some(Command::Mcp), Some(_)) = (&cli.command, &cli.hivelore) {
        // its writes would not reach the project's files
        return Err(Failure {
            message: "mcp serves a memlens store (--db), not a hivelore project: agents keep \
                      using hivelore's own tools on its files, and the browser shows what they write"
                .into(),
            details: Vec::new(),
            code: 2,
        });
    }
    if let Some(Command::Mcp) = cli.command {
        // Before anything takes stdout: it carries the protocol.
        return commands::mcp::run(&paths::store_path(cli.db)?).map_err(Failure::from);
    }
    // Everything printed passes through the one door that keeps escape sequences in
    // the data from acting on the terminal (`memlens::text`).
    let mut out = memlens::text::stdout();
    let mut err = memlens::text::stderr();
    if let Some(root) = cli.hivelore.clone() {
        return run_project(&root, cli, &mut out, &mut err);
    }
    let db = cli.db;
    let result = match cli.command {
        None => browse(&paths::store_path(db)?, cli.no_mouse, &mut out),
        Some(Command::Demo(demo)) => {
            let built = memlens::demo::build_at(&paths::demo_path(db)?, Timestamp::now())
                .map_err(CommandError::from)?;
            if let Some(kept) = &built.kept {
                let _ = writeln!(
                    err,
                    "memlens: the earlier demo store held changes made since it was built; it is kept as {}",
                    kept.display()
                );
            }
            browse(&built.path, cli.no_mouse || demo.no_mouse, &mut out)
        }
        Some(Command::Import(args)) => {
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
            commands::search::run_at(&paths::store_path(db)?, &args, &mut out)
                .map_err(search_failure)
        }
        Some(Command::Review(args)) => {
            commands::review::run(&paths::store_path(db)?, &args, &mut out).map_err(Failure::from)
        }
        Some(Command::Mcp) => Ok(()),
        Some(Command::Curate(cmd)) => {
            let store = open_existing(&paths::store_path(db)?)?;
            commands::curate::run(&store, &cmd, &mut out).map_err(|e| Failure {
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

/// Runs a command on a hivelore project (`--hivelore`): the project's index brought up
/// to date first, curation and the browser written through to its files.
fn run_project(
    root: &Path,
    cli: Cli,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<(), Failure> {
    let usage = |what: &str| Failure {
        message: format!(
            "{what} does not apply to a hivelore project (--hivelore): add its files to .ai/memories instead"
        ),
        details: Vec::new(),
        code: 2,
    };
    let failed = |e: memlens::project::ProjectError| Failure {
        message: e.to_string(),
        details: Vec::new(),
        code: 1,
    };
    let project = memlens::project::Project::locate(root).map_err(failed)?;
    let index = project.index_path();
    let (store, synced) = memlens::store::guarded(&index, || {
        project
            .open(&memlens::existing::announce_long_steps(&index))
            .map_err(|e| memlens::store::StoreError::WriteThrough(e.to_string()))
    })
    .map_err(|e| Failure {
        message: e.to_string(),
        details: Vec::new(),
        code: 1,
    })?;
    for problem in &synced.problems {
        let _ = writeln!(err, "warning: {}", memlens::text::inert(problem));
    }
    memlens::project::private::set_revealed(cli.reveal_private);
    let result = match cli.command {
        None => browse_store(store, &index, cli.no_mouse, Some(project), out),
        Some(Command::Demo(_)) => Err(usage("demo")),
        Some(Command::Import(_)) => Err(usage("import")),
        Some(Command::Search(args)) => {
            commands::search::run(&store, &args, out).map_err(search_failure)
        }
        Some(Command::Curate(cmd)) => {
            commands::curate::run(&store, &cmd, out).map_err(|e| Failure {
                message: e.to_string(),
                details: Vec::new(),
                code: if e.is_usage() { 2 } else { 1 },
            })
        }
        Some(command) => {
            // the read-only commands open the index themselves
            drop(store);
            match command {
                Command::Export(args) => commands::export::run(&index, &args, out, err),
                Command::Get(args) => commands::get::run(&index, &args, out),
                Command::Stats(args) => commands::stats::run(&index, &args, out),
                Command::Check(args) => commands::check::run(&index, &args, out),
                Command::Review(args) => commands::review::run(&index, &args, out),
                // refused before the project is opened
                Command::Mcp => Ok(()),
                Command::Demo(_) | Command::Import(_) | Command::Search(_) | Command::Curate(_) => {
                    unreachable!("answered above")
                }
            }
            .map_err(Failure::from)
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
    browse_store(store, path, no_mouse, None, out)
}

/// Runs the browser on an open store (a project's, to be watched, when given).
fn browse_store(
    store: memlens::store::Store,
    path: &Path,
    no_mouse: bool,
    project: Option<memlens::project::Project>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    if !browse::has_terminal() {
        drop(store);
        return browse::summary(path, out).map_err(Failure::from);
    }
    let options = TuiOptions {
        no_mouse,
        config_path: None,
        project,
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
    use commands::search::SearchCommandError;
    let usage = e.downcast_ref::<SearchCommandError>().is_some()
        || e.downcast_ref::<memlens::search::FilterError>().is_some();
    // the reader of the output went away (`| head`): nothing failed
    let reader_gone = e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    Failure {
        message: format!("{e:#}"),
        details: Vec::new(),
        code: match (reader_gone, usage) {
            (true, _) => 0,
            (_, true) => 2,
            _ => 1,
        },
    }
}
