//! `memlens import`: read the given paths into the store in one transaction, all or
//! nothing, and say what happened. A dry run against a store that does not exist yet
//! leaves no file behind.

use super::{CommandError, CommandResult, memories};
use crate::cli::ImportArgs;
use memlens::exchange::{
    ExchangeError, ImportOptions, ImportSource, ImportSummary, Problems, import,
};
use memlens::store::Store;
use std::io::Write;
use std::path::Path;

/// Runs `memlens import`; the summary goes to `out`, warnings to `err`.
pub fn run(
    store_path: &Path,
    args: &ImportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CommandResult<()> {
    memlens::store::guarded(store_path, || import_into_store(store_path, args, out, err))
}

fn import_into_store(
    store_path: &Path,
    args: &ImportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CommandResult<()> {
    let existed = store_path.exists();
    let store = Store::open_for_import(
        store_path,
        &memlens::existing::announce_long_steps(store_path),
    )?;
    let sources: Vec<ImportSource> = args
        .paths
        .iter()
        .map(|p| ImportSource::Path(p.clone(), args.format.format()))
        .collect();
    let options = ImportOptions {
        on_conflict: args.on_conflict.into(),
        dry_run: args.dry_run,
        ..ImportOptions::default()
    };
    let result = import(&store, &sources, &options);
    drop(store);
    if !existed && (args.dry_run || result.is_err()) {
        // Best effort: the file was only created to check against, or for an import
        // that wrote nothing: a failed import leaves no empty store behind.
        let _ = std::fs::remove_file(store_path);
    }
    match result {
        Ok(summary) => {
            print_warnings(&summary.warnings, err);
            report(&summary, store_path, out).map_err(|e| CommandError::io("stdout", e))
        }
        Err(e) => {
            if let ExchangeError::Invalid { warnings, .. } = &e {
                print_warnings(warnings, err);
                return Err(e.into());
            }
            // an input it could not read (the problems of one it read say it already)
            Err(match e {
                ExchangeError::Io { .. } | ExchangeError::TooLarge { .. } => {
                    CommandError::ImportStopped(e)
                }
                other => other.into(),
            })
        }
    }
}

fn print_warnings(warnings: &Problems, err: &mut dyn Write) {
    for line in warnings.grouped_lines() {
        // Warnings are advice; a closed stderr must not fail the import.
        let _ = writeln!(err, "warning: {}", memlens::text::inert(&line));
    }
}

fn report(summary: &ImportSummary, store_path: &Path, out: &mut dyn Write) -> std::io::Result<()> {
    let sources: Vec<String> = summary
        .sources
        .iter()
        .map(|(name, format)| format!("{name} ({format})"))
        .collect();
    // an update names each memory that kept a change of yours; the others took the
    // source's word whole and are only counted (a re-import of an unchanged project
    // printed a line for every memory)
    let keeping = summary.updates.iter().filter(|(_, kept)| !kept.is_empty());
    for (id, kept) in keeping.clone() {
        writeln!(out, "updated {id}: kept {}", kept.join(", "))?;
    }
    let counts = if summary.updates.is_empty() {
        format!(
            "{} new, {} replaced, {} skipped",
            summary.added, summary.replaced, summary.skipped
        )
    } else {
        format!(
            "{} new, {} updated ({} keeping changes made in memlens), {} skipped",
            summary.added,
            summary.replaced,
            keeping.count(),
            summary.skipped
        )
    };
    if summary.dry_run {
        writeln!(
            out,
            "dry run: {} read from {}; {counts}; nothing was written to {}",
            memories(summary.read),
            sources.join(", "),
            store_path.display()
        )
    } else {
        writeln!(
            out,
            "imported {} from {} into {} ({counts})",
            memories(summary.added + summary.replaced),
            sources.join(", "),
            store_path.display()
        )
    }
}
