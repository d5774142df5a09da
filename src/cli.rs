//! The command line of SPEC §4 as clap types. Parsing only: each subcommand is run by
//! its own function in `commands`.

use crate::commands::curate::CurateCommand;
use crate::commands::search::SearchArgs;
use clap::{Args, Parser, Subcommand, ValueEnum};
use memlens::exchange::{Format, OnConflict};
use std::path::PathBuf;

/// memlens: browse and curate the memories AI coding agents keep.
#[derive(Debug, Parser)]
#[command(name = "memlens", version, about, propagate_version = true)]
pub struct Cli {
    /// The store file (default: $MEMLENS_DB, else memlens/memlens.redb in the XDG data dir)
    #[arg(long, global = true, value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Curate a hivelore project in place: its root or its .ai/memories. Its files stay
    /// the source of truth; the store is its index in .ai/.cache/memlens/ (--db is
    /// ignored), brought up to date on open, and every change is written to the files
    #[arg(long, global = true, value_name = "PATH")]
    pub hivelore: Option<PathBuf>,

    /// Show `<private>…</private>` blocks instead of a placeholder
    #[arg(long, global = true)]
    pub reveal_private: bool,

    /// Browser: leave the mouse alone, whatever the config file says
    #[arg(long)]
    pub no_mouse: bool,

    /// What to do; without one, the memory browser opens.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Browse a fresh store built from the demo collection (`--db` only replaces a
    /// missing file or an earlier demo store)
    Demo(DemoArgs),
    /// Import memories, all or nothing
    Import(ImportArgs),
    /// Export memories
    Export(ExportArgs),
    /// Search or browse memories
    Search(SearchArgs),
    /// Show one memory
    Get(GetArgs),
    /// Count the memories by type, scope and status
    Stats(StatsArgs),
    /// Verify the store end to end (exit 1 when anything is wrong); --repair rebuilds
    /// what can be rebuilt from the memories
    Check(CheckArgs),
    /// List a review queue: approval, pending, agent, stale, duplicates, conflicts
    Review(ReviewArgs),
    /// Serve the agents' memory tools (MCP) on stdin/stdout
    Mcp,
    /// Curation: set, rate, approve, reject, delete, restore, purge, link, unlink,
    /// merge, supersede, not-duplicate
    #[command(flatten)]
    Curate(CurateCommand),
}

/// `memlens review`.
#[derive(Debug, Args)]
pub struct ReviewArgs {
    /// The queue: approval, pending, agent, stale, duplicates or conflicts
    #[arg(value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<memlens::review::Queue>()))]
    pub queue: memlens::review::Queue,
    /// The project the memories are about: anchors whose files are gone under it make a
    /// memory stale
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// Show at most N entries (the total is still counted)
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Skip the first N entries
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: usize,
    /// Keep only entries whose memory (of a pair: either one) matches this filter, as
    /// `memlens search --filter` (repeatable)
    #[arg(long = "filter", value_name = "KEY=VALUE",
          value_parser = crate::commands::search::parse_filter)]
    pub filters: Vec<String>,
    /// The engine QUERY is matched with: literal, bm25 or fuzzy
    #[arg(long, default_value = "literal",
          value_parser = clap::builder::TypedValueParser::map(
              clap::builder::PossibleValuesParser::new(["literal", "bm25", "fuzzy"]),
              |s: String| crate::commands::search::parse_engine(&s)))]
    pub engine: memlens::search::Engine,
    /// One JSON object: {"queue", "total", "entries": [...]}
    #[arg(long)]
    pub json: bool,
    /// Keep only entries whose memory (of a pair: either one) this search finds
    #[arg(value_name = "QUERY")]
    pub query: Vec<String>,
}

/// `memlens import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Input format; `auto` looks at each path
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    pub format: FormatArg,
    /// What to do with ids already in the store
    #[arg(long, value_enum, default_value_t = OnConflictArg::Fail)]
    pub on_conflict: OnConflictArg,
    /// Check everything and report; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Files or directories to import (a directory is a hivelore tree)
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
}

/// `memlens export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Output format
    #[arg(long, value_enum, default_value_t = ExportFormatArg::Jsonl)]
    pub format: ExportFormatArg,
    /// Also export soft-deleted memories
    #[arg(long)]
    pub include_deleted: bool,
    /// Output file (jsonl; default stdout) or directory (hivelore; required)
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,
}

/// `memlens get`.
#[derive(Debug, Args)]
pub struct GetArgs {
    /// The memory's id
    pub id: String,
    /// Print JSON: the stored fields and the derived ones
    #[arg(long)]
    pub json: bool,
}

/// `memlens demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Leave the mouse alone, whatever the config file says
    #[arg(long)]
    pub no_mouse: bool,
}

/// `memlens stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

/// `memlens check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Rebuild the store from every memory that can be read, in one transaction; the
    /// old file is kept beside it and damaged memories are set aside, never dropped
    #[arg(long)]
    pub repair: bool,
    /// Print JSON
    #[arg(long)]
    pub json: bool,
}

/// `--format` of `import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Decide per path: a directory or `.md` is hivelore, `.gz` or a zip archive OpenMemory, else by the first line
    Auto,
    /// memlens's canonical JSONL
    Jsonl,
    /// A hivelore `.ai/memories` tree or `.md` file
    Hivelore,
    /// The MCP memory server's memory.jsonl
    McpMemory,
    /// OpenMemory's memories.jsonl(.gz), or the zip its UI downloads
    Openmemory,
}

impl FormatArg {
    /// The format chosen, `None` for auto-detection.
    pub fn format(self) -> Option<Format> {
        match self {
            FormatArg::Auto => None,
            FormatArg::Jsonl => Some(Format::Jsonl),
            FormatArg::Hivelore => Some(Format::Hivelore),
            FormatArg::McpMemory => Some(Format::McpMemory),
            FormatArg::Openmemory => Some(Format::Openmemory),
        }
    }
}

/// `--on-conflict` of `import`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OnConflictArg {
    /// Stop; nothing is imported
    Fail,
    /// Keep the stored memory
    Skip,
    /// Replace the stored memory
    Overwrite,
    /// Take the source's text and scores, keep what was done in memlens (status,
    /// ratings, links, tags, merges, created_at)
    Update,
}

impl From<OnConflictArg> for OnConflict {
    fn from(arg: OnConflictArg) -> OnConflict {
        match arg {
            OnConflictArg::Fail => OnConflict::Fail,
            OnConflictArg::Skip => OnConflict::Skip,
            OnConflictArg::Overwrite => OnConflict::Overwrite,
            OnConflictArg::Update => OnConflict::Update,
        }
    }
}

/// `--format` of `export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportFormatArg {
    /// Canonical JSONL, sorted by id
    Jsonl,
    /// A directory of hivelore `.md` files
    Hivelore,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed_and_db_is_global() {
        Cli::command().debug_assert();
        let cli = Cli::try_parse_from(["memlens", "stats", "--db", "x.redb", "--json"]).unwrap();
        assert_eq!(cli.db, Some(PathBuf::from("x.redb")));
        let cli =
            Cli::try_parse_from(["memlens", "import", "--format", "mcp-memory", "a", "b"]).unwrap();
        let Some(Command::Import(args)) = cli.command else {
            panic!("not import")
        };
        assert_eq!(args.format.format(), Some(Format::McpMemory));
        assert_eq!(args.paths.len(), 2);
        let err = Cli::try_parse_from(["memlens", "import"]).unwrap_err();
        assert_eq!(err.exit_code(), 2);
    }
}
