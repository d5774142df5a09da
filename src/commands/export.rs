//! `memlens export`: canonical JSONL to a file or stdout, or a hivelore tree to a
//! directory. A JSONL file is written beside its final name and renamed into place, so
//! a failed export never leaves half a file where a good one was (a device or a named
//! pipe is written as it is).

use super::{CommandError, CommandResult, memories, read_existing};
use crate::cli::{ExportArgs, ExportFormatArg};
use memlens::exchange::{ExportSummary, export_hivelore, export_jsonl};
use memlens::store::guarded;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Runs `memlens export`; data goes to `-o` or `out`, the summary (only when writing to
/// a path) to `out`, advice to `err`.
pub fn run(
    store_path: &Path,
    args: &ExportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CommandResult<()> {
    if args.format == ExportFormatArg::Hivelore && args.output.is_none() {
        return Err(CommandError::Usage(
            "--format hivelore needs -o DIR (the directory to write the .md files to)".into(),
        ));
    }
    guarded(store_path, || write_export(store_path, args, out, err))
}

fn write_export(
    store_path: &Path,
    args: &ExportArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> CommandResult<()> {
    let reader = &read_existing(store_path)?;
    let summary = match (&args.format, &args.output) {
        (ExportFormatArg::Jsonl, None) => {
            let mut buffered = BufWriter::with_capacity(1 << 16, out);
            export_jsonl(
                reader,
                &mut buffered,
                args.include_deleted,
                Path::new("stdout"),
            )?;
            return Ok(());
        }
        (ExportFormatArg::Jsonl, Some(path)) => jsonl_to_file(reader, path, args.include_deleted)?,
        (ExportFormatArg::Hivelore, Some(dir)) => {
            export_hivelore(reader, dir, args.include_deleted)?
        }
        (ExportFormatArg::Hivelore, None) => return Ok(()),
    };
    let target = args.output.as_deref().unwrap_or(Path::new("-"));
    report(&summary, target, out).map_err(|e| CommandError::io("stdout", e))?;
    advise(&summary, err);
    Ok(())
}

/// Where an export to `path` is written: `Replace(file)` for a regular file or a new
/// one (the file a symlink points to, so the link stays a link), which is written beside
/// itself and renamed into place; `InPlace` for anything else that exists, such as
/// `/dev/null` or a named pipe, which a rename would replace by a plain file.
enum Destination {
    Replace(PathBuf),
    InPlace,
}

fn destination(path: &Path) -> Destination {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => Destination::InPlace,
        Ok(_) => Destination::Replace(std::fs::canonicalize(path).unwrap_or(path.to_path_buf())),
        Err(_) => Destination::Replace(path.to_path_buf()),
    }
}

fn jsonl_to_file(
    reader: &memlens::store::StoreReader,
    path: &Path,
    include_deleted: bool,
) -> CommandResult<ExportSummary> {
    let Destination::Replace(target) = destination(path) else {
        let file = std::fs::File::create(path).map_err(|e| CommandError::io(path, e))?;
        let mut writer = BufWriter::with_capacity(1 << 16, file);
        let summary = export_jsonl(reader, &mut writer, include_deleted, path)?;
        writer.flush().map_err(|e| CommandError::io(path, e))?;
        return Ok(summary);
    };
    let path = target.as_path();
    let temp = super::temp_beside(path, "partial");
    let written = (|| {
        let file = std::fs::File::create(&temp).map_err(|e| CommandError::io(&temp, e))?;
        let mut writer = BufWriter::with_capacity(1 << 16, file);
        let summary = export_jsonl(reader, &mut writer, include_deleted, path)?;
        let file = writer
            .into_inner()
            .map_err(|e| CommandError::io(path, e.into_error()))?;
        file.sync_all().map_err(|e| CommandError::io(path, e))?;
        std::fs::rename(&temp, path).map_err(|e| CommandError::io(path, e))?;
        Ok::<ExportSummary, CommandError>(summary)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

fn report(summary: &ExportSummary, target: &Path, out: &mut dyn Write) -> std::io::Result<()> {
    let mut line = format!(
        "exported {} to {}",
        memories(summary.written),
        target.display()
    );
    if summary.deleted_left_out > 0 {
        line.push_str(&format!(
            " ({} soft-deleted left out; --include-deleted exports them)",
            summary.deleted_left_out
        ));
    }
    if let Some(usage) = &summary.usage_file {
        line.push_str(&format!("; read counts in {}", usage.display()));
    }
    writeln!(out, "{line}")
}

fn advise(summary: &ExportSummary, err: &mut dyn Write) {
    let list = |ids: &[String]| {
        let mut shown: Vec<&str> = ids.iter().take(5).map(String::as_str).collect();
        if ids.len() > 5 {
            shown.push("…");
        }
        shown.join(", ")
    };
    if !summary.unknown_types.is_empty() {
        let _ = writeln!(
            err,
            "warning: {} {} a type hivelore does not know and will not load: {}",
            memories(summary.unknown_types.len()),
            memlens::words::have(summary.unknown_types.len()),
            list(&summary.unknown_types)
        );
    }
    if !summary.renamed.is_empty() {
        let _ = writeln!(
            err,
            "warning: {} would have shared a file name and were written as <name>-2.md etc.: {}",
            memories(summary.renamed.len()),
            list(&summary.renamed)
        );
    }
}
