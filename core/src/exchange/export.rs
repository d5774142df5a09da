//! Export: canonical JSONL (sorted by id, stored fields only, so it imports back
//! without warnings and two exports of the same memories are byte-identical), and
//! hivelore's Markdown tree.

use super::ExchangeError;
use super::hivelore::{HIVELORE_TYPES, write as md};
use crate::store::StoreReader;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

/// What an export wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExportSummary {
    /// Memories written.
    pub written: usize,
    /// Soft-deleted memories left out.
    pub deleted_left_out: usize,
    /// hivelore only: ids whose type hivelore does not know (it will refuse those files).
    pub unknown_types: Vec<String>,
    /// hivelore only: ids written under another name than their own path, to avoid
    /// overwriting a file written by the same export.
    pub renamed: Vec<String>,
    /// hivelore only: the usage file written with the memories' read counts, when any
    /// was read.
    pub usage_file: Option<std::path::PathBuf>,
}

/// Writes every memory (soft-deleted ones only with `include_deleted`) as one line of
/// canonical JSON, in id order.
pub fn export_jsonl(
    reader: &StoreReader,
    out: &mut dyn Write,
    include_deleted: bool,
    out_name: &Path,
) -> Result<ExportSummary, ExchangeError> {
    let mut summary = ExportSummary::default();
    let mut line = Vec::new();
    reader.try_for_each_by_id(|memory| {
        if memory.is_deleted() && !include_deleted {
            summary.deleted_left_out += 1;
            return Ok(());
        }
        line.clear();
        super::json_line::write_json_line(&memory, &mut line);
        line.push(b'\n');
        out.write_all(&line)
            .map_err(|e| ExchangeError::io(out_name, e))?;
        summary.written += 1;
        Ok::<(), ExchangeError>(())
    })?;
    out.flush().map_err(|e| ExchangeError::io(out_name, e))?;
    Ok(summary)
}

/// Writes every memory as a hivelore `.md` file under `dir` (created when missing). A
/// directory that already holds `.md` files is refused: the files of memories since
/// purged or moved to another scope would stay beside the new ones, and importing the
/// directory would bring them back (or stop at an id held twice).
pub fn export_hivelore(
    reader: &StoreReader,
    dir: &Path,
    include_deleted: bool,
) -> Result<ExportSummary, ExchangeError> {
    if dir.exists() && !dir.is_dir() {
        return Err(ExchangeError::BadPath {
            path: dir.to_path_buf(),
            reason: "is a file; a hivelore export needs a directory".into(),
        });
    }
    if let Some(held) = md_files_under(dir).filter(|n| *n > 0) {
        return Err(ExchangeError::BadPath {
            path: dir.to_path_buf(),
            reason: format!(
                "already holds {}; export into a new or empty directory (files of memories since purged or moved would stay beside the new ones, and importing the directory would read them too)",
                crate::words::plural(held, ".md file")
            ),
        });
    }
    std::fs::create_dir_all(dir).map_err(|e| ExchangeError::io(dir, e))?;
    let mut summary = ExportSummary::default();
    let mut taken: HashSet<String> = HashSet::new();
    let mut reads = Vec::new();
    reader.try_for_each_by_id(|memory| {
        if memory.is_deleted() && !include_deleted {
            summary.deleted_left_out += 1;
            return Ok(());
        }
        if memory.read_count > 0 || memory.last_read_at.is_some() {
            reads.push((memory.id.clone(), memory.read_count, memory.last_read_at));
        }
        let wanted = md::relative_path(&memory);
        let path = free_path(&wanted, &mut taken);
        if path != wanted {
            summary.renamed.push(memory.id.clone());
        }
        if !HIVELORE_TYPES.contains(&memory.memory_type.as_str()) {
            summary.unknown_types.push(memory.id.clone());
        }
        let full = dir.join(&path);
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| ExchangeError::io(parent, e))?;
        }
        // a deleted memory is written as memlens marks one in a hivelore project, so
        // that hivelore treats it as retired (it ignores `deleted_at`)
        let file = crate::project::deleted::as_file(&memory);
        std::fs::write(&full, md::render(&file)).map_err(|e| ExchangeError::io(&full, e))?;
        summary.written += 1;
        Ok::<(), ExchangeError>(())
    })?;
    summary.usage_file = write_usage(dir, &reads)?;
    Ok(summary)
}

/// Writes the read counts of `reads` (id, count, last read) where hivelore reads them
/// for the memories of `dir`: `.ai/.cache/usage.json` beside a `.ai/memories` directory,
/// else `.cache/usage.json` inside `dir` (which `memlens import DIR` reads). A usage
/// file already there keeps its other counters and entries; one of a version hivelore
/// would not read is left alone. `None` when nothing was written.
fn write_usage(
    dir: &Path,
    reads: &[(String, u32, Option<crate::model::Timestamp>)],
) -> Result<Option<std::path::PathBuf>, ExchangeError> {
    use crate::project::usage::{USAGE_FILE, UsageIndex};
    if reads.is_empty() {
        return Ok(None);
    }
    let beside_memories = dir.file_name().is_some_and(|n| n == "memories")
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n == ".ai");
    let cache = match dir.parent() {
        Some(ai) if beside_memories => ai.join(".cache"),
        _ => dir.join(".cache"),
    };
    let path = cache.join(USAGE_FILE);
    let mut usage = UsageIndex::load(&path).map_err(|e| ExchangeError::BadPath {
        path: path.clone(),
        reason: e.to_string(),
    })?;
    let mut changed = false;
    for (id, count, last) in reads {
        changed |= usage.set_reads(id, *count, *last);
    }
    let Some(text) = changed
        .then(|| usage.render(crate::model::Timestamp::now()))
        .flatten()
    else {
        return Ok(None);
    };
    std::fs::create_dir_all(&cache).map_err(|e| ExchangeError::io(&cache, e))?;
    std::fs::write(&path, text).map_err(|e| ExchangeError::io(&path, e))?;
    Ok(Some(path))
}

/// How many `.md` files are in `dir` and below (`None` when it cannot be read: the
/// export then says why as it writes).
fn md_files_under(dir: &Path) -> Option<usize> {
    let mut count = 0;
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).ok()?.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(path),
                Ok(_) if path.extension().is_some_and(|e| e == "md") => count += 1,
                _ => {}
            }
        }
    }
    Some(count)
}

/// `wanted`, or `<stem>-2.md`, `<stem>-3.md`, … when an earlier memory of the same export
/// took it (compared without case, for case-insensitive file systems).
fn free_path(wanted: &Path, taken: &mut HashSet<String>) -> PathBuf {
    let key = |p: &Path| p.to_string_lossy().to_lowercase();
    if taken.insert(key(wanted)) {
        return wanted.to_path_buf();
    }
    let stem = wanted
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    for n in 2.. {
        let candidate = wanted.with_file_name(format!("{stem}-{n}.md"));
        if taken.insert(key(&candidate)) {
            return candidate;
        }
    }
    wanted.to_path_buf()
}
