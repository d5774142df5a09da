//! Bringing the index up to date from the project's files: those whose size or
//! modification time differ from what the index recorded are read (a file whose bytes
//! hash the same only has its time updated), files gone from disk take their memory
//! with them (as hivelore's `mem_delete` removes the file), and a changed `usage.json`
//! updates the read counts. Everything changes in one transaction that is not written
//! back to the files it came from.

use super::files::{self, Fingerprint, Stat, USAGE_KEY};
use super::merge::merge;
use super::usage::UsageIndex;
use super::{Project, ProjectError};
use crate::exchange::RecordSink;
use crate::exchange::hivelore::read::{Usage, parse_memory};
use crate::exchange::lines::{MAX_RECORD_BYTES, read_at_most};
use crate::model::{Memory, Timestamp};
use crate::store::{Store, StoreReader};
use std::collections::{HashMap, HashSet};

/// What bringing the index up to date did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Synced {
    /// Memory files in the project.
    pub files: usize,
    /// Files read because they changed (or were new).
    pub read: usize,
    /// Ids of the memories that changed or appeared, in path order.
    pub changed: Vec<String>,
    /// Ids of the memories whose file went away.
    pub removed: Vec<String>,
    /// Files that could not be read as memories, each `PATH: reason` (their memory,
    /// if the index had one, is kept as it was).
    pub problems: Vec<String>,
}

impl Synced {
    /// True when the index changed.
    pub fn changed_anything(&self) -> bool {
        !self.changed.is_empty() || !self.removed.is_empty()
    }
}

/// One file read because it changed.
struct Fresh {
    relative: String,
    bytes: Vec<u8>,
    stat: Stat,
}

impl Fresh {
    /// The file at `relative`, of `stat`, read (no bytes when it is larger than a memory
    /// may be: then it is not one).
    fn read(project: &Project, relative: &str, stat: Stat) -> Result<Fresh, ProjectError> {
        let path = project.file(relative);
        let bytes =
            read_at_most(&path, MAX_RECORD_BYTES).map_err(|e| ProjectError::io(&path, e))?;
        Ok(Fresh {
            relative: relative.to_string(),
            bytes: bytes.unwrap_or_default(),
            stat,
        })
    }
}

/// Collects what one file parses to.
#[derive(Default)]
struct One {
    memory: Option<Memory>,
    problems: Vec<String>,
}

/// What hivelore's loader skips a file for that an import takes (its schema requires
/// an `id`, a `created_at` and one of its types): a project in place shows what
/// hivelore's agents see.
impl RecordSink for One {
    fn file(&mut self, _name: &str) {}
    fn memory(&mut self, _line: usize, memory: Memory) {
        let types = crate::exchange::hivelore::HIVELORE_TYPES;
        if !types.contains(&memory.memory_type.as_str()) {
            self.problems.push(format!(
                "type: `{}` is not one of hivelore's types ({}), so hivelore skips the file",
                memory.memory_type,
                types.join(", ")
            ));
        }
        self.memory = Some(memory);
    }
    fn problem(&mut self, line: usize, field: &str, reason: String) {
        self.problems
            .push(format!("line {line}: {field}: {reason}"));
    }
    fn warning(&mut self, _line: usize, field: &str, _reason: String) {
        // an import fills these in; hivelore's loader skips the file
        if matches!(field, "id" | "created_at") {
            self.problems
                .push(format!("{field}: missing, so hivelore skips the file"));
        }
    }
}

/// A memory file's name without `.md`: the id of a file that names none.
fn stem_of(relative: &str) -> &str {
    relative
        .rsplit('/')
        .next()
        .and_then(|n| n.strip_suffix(".md"))
        .unwrap_or_default()
}

/// Why the file at `relative`, holding `bytes`, is not read as a memory: its first
/// problem, or else the id another file holds.
pub(super) fn why_unread(relative: &str, bytes: &[u8]) -> String {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return "not valid UTF-8".into();
    };
    let mut one = One::default();
    let now = Timestamp::now();
    parse_memory(
        text,
        relative,
        stem_of(relative),
        &mut one,
        &HashMap::new(),
        now,
    );
    match (one.memory, one.problems.into_iter().next()) {
        (_, Some(problem)) => problem,
        (Some(m), None) => format!("its id `{}` is held by another file", m.id),
        (None, None) => "not a memory".into(),
    }
}

/// Reads the whole project against the index and applies what changed.
pub fn bring_up_to_date(store: &Store, project: &Project) -> Result<Synced, ProjectError> {
    let reader = store.read()?;
    let known = files::load(&reader)?;
    let on_disk = files::list(&project.memories)?;
    let mut fresh = Vec::new();
    let mut touched = Vec::new();
    for relative in &on_disk {
        let path = project.file(relative);
        let Some(stat) = files::stat(&path)? else {
            continue;
        };
        let old = known.get(relative);
        if old.is_some_and(|f| f.same_stat(&stat)) {
            continue;
        }
        let file = Fresh::read(project, relative, stat)?;
        match old {
            Some(f) if f.size == stat.size && f.hash == files::hash(&file.bytes) => {
                touched.push((
                    relative.clone(),
                    Fingerprint {
                        mtime_ns: stat.mtime_ns,
                        ..f.clone()
                    },
                ));
            }
            _ => fresh.push(file),
        }
    }
    let present: HashSet<&String> = on_disk.iter().collect();
    let gone: Vec<(String, String)> = known
        .iter()
        .filter(|(p, _)| p.as_str() != USAGE_KEY && !present.contains(p))
        .map(|(p, f)| (p.clone(), f.id.clone()))
        .collect();
    // a file left unread because another held its id may hold it now that a file went
    if gone.iter().any(|(_, id)| !id.is_empty()) {
        let mut again = Vec::new();
        for relative in unread_files(&known, &present, &fresh) {
            if let Some(stat) = files::stat(&project.file(relative))? {
                again.push(Fresh::read(project, relative, stat)?);
            }
        }
        fresh.extend(again);
    }
    let usage_stat = files::stat(&project.usage_path())?;
    let usage_changed = match (known.get(USAGE_KEY), usage_stat) {
        (Some(f), Some(s)) => !f.same_stat(&s),
        (None, None) => false,
        _ => true,
    };
    let held = held_elsewhere(&known, &fresh, &gone);
    // files left unread on an earlier open and unchanged since: said again, as
    // hivelore's loader says them on every load
    let mut still_unread = Vec::new();
    for relative in unread_files(&known, &present, &fresh) {
        if let Some(stat) = files::stat(&project.file(relative))? {
            let file = Fresh::read(project, relative, stat)?;
            still_unread.push(format!("{relative}: {}", why_unread(relative, &file.bytes)));
        }
    }
    still_unread.sort();
    let changes = Changes {
        fresh,
        touched,
        gone,
        held,
        usage_changed,
    };
    let mut synced = apply(store, project, &reader, changes)?;
    synced.files = on_disk.len();
    synced.problems.extend(still_unread);
    Ok(synced)
}

/// The files of `known` that are `present` and were not read as memories (not one, or
/// a duplicate of another's id), and are not among `fresh`, read now.
fn unread_files<'k>(
    known: &'k HashMap<String, Fingerprint>,
    present: &HashSet<&String>,
    fresh: &[Fresh],
) -> Vec<&'k String> {
    let read: HashSet<&str> = fresh.iter().map(|f| f.relative.as_str()).collect();
    (known.iter())
        .filter(|(p, f)| {
            f.id.is_empty()
                && p.as_str() != USAGE_KEY
                && present.contains(p)
                && !read.contains(p.as_str())
        })
        .map(|(p, _)| p)
        .collect()
}

/// The ids the files that are there and not read again hold, with their paths: a file
/// read now that claims one is a duplicate. `gone` are the known paths not there.
fn held_elsewhere(
    known: &HashMap<String, Fingerprint>,
    fresh: &[Fresh],
    gone: &[(String, String)],
) -> HashMap<String, String> {
    let left_out: HashSet<&str> = (fresh.iter().map(|f| f.relative.as_str()))
        .chain(gone.iter().map(|(p, _)| p.as_str()))
        .collect();
    known
        .iter()
        .filter(|(p, f)| !f.id.is_empty() && !left_out.contains(p.as_str()))
        .map(|(p, f)| (f.id.clone(), p.clone()))
        .collect()
}

/// What changed on disk since the index last read the project.
struct Changes {
    /// The files to read.
    fresh: Vec<Fresh>,
    /// Files whose modification time alone changed, with their new fingerprints.
    touched: Vec<(String, Fingerprint)>,
    /// Paths (with their ids) that no longer exist.
    gone: Vec<(String, String)>,
    /// Id → the file holding it, of the files that are there and not read again.
    held: HashMap<String, String>,
    /// `usage.json` changed: every memory's counts are read from it again.
    usage_changed: bool,
}

/// Reads the changed files into the index.
fn apply(
    store: &Store,
    project: &Project,
    reader: &StoreReader,
    changes: Changes,
) -> Result<Synced, ProjectError> {
    let Changes {
        fresh,
        touched,
        gone,
        held,
        usage_changed,
    } = changes;
    let usage_path = project.usage_path();
    let usage = UsageIndex::load(&usage_path)?.counts();
    let mut synced = Synced {
        read: fresh.len(),
        ..Synced::default()
    };
    let mut puts: Vec<Memory> = Vec::new();
    let mut prints: Vec<(String, Fingerprint)> = touched;
    let mut ids_here: HashSet<String> = HashSet::new();
    let now = Timestamp::now();
    for f in fresh {
        let text = String::from_utf8(f.bytes.clone()).map_err(|_| "not valid UTF-8".to_string());
        let mut one = One::default();
        match &text {
            Ok(t) => parse_memory(t, &f.relative, stem_of(&f.relative), &mut one, &usage, now),
            Err(e) => one.problems.push(e.clone()),
        }
        let print = |id: &str| Fingerprint {
            size: f.stat.size,
            mtime_ns: f.stat.mtime_ns,
            hash: files::hash(&f.bytes),
            id: id.to_string(),
        };
        let memory = match (one.memory, one.problems.is_empty()) {
            (Some(m), true) => m,
            _ => {
                let why = one
                    .problems
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "not a memory".into());
                synced.problems.push(format!("{}: {why}", f.relative));
                prints.push((f.relative.clone(), print("")));
                continue;
            }
        };
        let elsewhere = held.get(&memory.id).filter(|p| **p != f.relative);
        if let Some(other) = elsewhere {
            synced.problems.push(format!(
                "{}: id `{}` is already used by {other}; not read",
                f.relative, memory.id
            ));
            // not read again until it changes
            prints.push((f.relative.clone(), print("")));
            continue;
        }
        if !ids_here.insert(memory.id.clone()) {
            synced.problems.push(format!(
                "{}: id `{}` is already used by another file; not read",
                f.relative, memory.id
            ));
            // not read again until it changes
            prints.push((f.relative.clone(), print("")));
            continue;
        }
        let stored = reader.get(&memory.id)?;
        let id = memory.id.clone();
        let held_by = |target: &str| {
            reader
                .get(target)
                .ok()
                .flatten()
                .is_some_and(|t| t.relationships.iter().any(|r| r.target == id))
        };
        let changed_at = Timestamp(f.stat.mtime_ns).whole_millis();
        let mut merged = merge(stored.as_ref(), memory, &held_by, changed_at);
        merged.normalise();
        let errors = merged.validate();
        if let Some(e) = errors.first() {
            synced
                .problems
                .push(format!("{}: {}: {}", f.relative, e.field, e.reason));
            continue;
        }
        prints.push((f.relative.clone(), print(&merged.id)));
        if stored.as_ref() != Some(&merged) {
            synced.changed.push(merged.id.clone());
            puts.push(merged);
        }
    }
    let mut purges = Vec::new();
    for (path, id) in &gone {
        if !id.is_empty() && !ids_here.contains(id) && reader.get(id)?.is_some() {
            purges.push(id.clone());
        }
        let _ = path;
    }
    if usage_changed {
        reads_from_usage(reader, &usage, &ids_here, &mut puts, &mut synced)?;
    }
    synced.removed = purges.clone();
    if puts.is_empty()
        && purges.is_empty()
        && prints.is_empty()
        && gone.is_empty()
        && !usage_changed
    {
        return Ok(synced);
    }
    let mut w = store.write_unmirrored()?;
    {
        let mut bulk = w.bulk()?;
        for m in &puts {
            bulk.put(m)?;
        }
        for id in &purges {
            bulk.purge(id)?;
        }
    }
    for (path, _) in &gone {
        files::remove(&w, path)?;
    }
    for (path, print) in &prints {
        files::set(&w, path, print)?;
    }
    if let Some(stat) = files::stat(&usage_path)? {
        let bytes = std::fs::read(&usage_path).map_err(|e| ProjectError::io(&usage_path, e))?;
        let print = Fingerprint {
            size: stat.size,
            mtime_ns: stat.mtime_ns,
            hash: files::hash(&bytes),
            id: String::new(),
        };
        files::set(&w, USAGE_KEY, &print)?;
    }
    w.commit()?;
    Ok(synced)
}

/// Every memory whose reads differ from `usage.json` (and that was not just read from
/// its file, which took them already) gets the sidecar's reads.
fn reads_from_usage(
    reader: &StoreReader,
    usage: &HashMap<String, Usage>,
    done: &HashSet<String>,
    puts: &mut Vec<Memory>,
    synced: &mut Synced,
) -> Result<(), ProjectError> {
    let mut found = Vec::new();
    reader.for_each(|_, m| {
        if done.contains(&m.id) {
            return;
        }
        let Some(u) = usage.get(&m.id) else {
            return;
        };
        let last = match (u.last_read_at, m.last_read_at) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        if m.read_count != u.read_count || m.last_read_at != last {
            let mut m = m;
            m.read_count = u.read_count;
            m.last_read_at = last;
            found.push(m);
        }
    })?;
    for m in found {
        synced.changed.push(m.id.clone());
        puts.push(m);
    }
    Ok(())
}

/// Reads the given paths (relative to `.ai/memories`) again whatever their
/// fingerprints say, plus `usage.json` when `usage` is set: what the live view does
/// when files change under it.
pub fn reread(
    store: &Store,
    project: &Project,
    paths: &[String],
    usage: bool,
) -> Result<Synced, ProjectError> {
    let reader = store.read()?;
    let known = files::load(&reader)?;
    let mut fresh = Vec::new();
    let mut gone = Vec::new();
    for relative in paths {
        let path = project.file(relative);
        match files::stat(&path)? {
            Some(stat) => {
                let bytes = read_at_most(&path, MAX_RECORD_BYTES)
                    .map_err(|e| ProjectError::io(&path, e))?
                    .unwrap_or_default();
                if known
                    .get(relative)
                    .is_some_and(|f| f.hash == files::hash(&bytes) && f.size == stat.size)
                {
                    continue;
                }
                fresh.push(Fresh {
                    relative: relative.clone(),
                    bytes,
                    stat,
                });
            }
            None => {
                if let Some(f) = known.get(relative) {
                    gone.push((relative.clone(), f.id.clone()));
                }
            }
        }
    }
    let held = held_elsewhere(&known, &fresh, &gone);
    let changes = Changes {
        fresh,
        touched: Vec::new(),
        gone,
        held,
        usage_changed: usage,
    };
    apply(store, project, &reader, changes)
}
