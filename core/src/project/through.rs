//! Writing each commit through to the project's files before it is committed.
//!
//! For every memory the commit puts, its file is brought to what the memory says of the
//! fields hivelore has (see [`super::merge`]); a soft-deleted memory is written
//! `deprecated` with a deletion marker ([`super::deleted`]); a purged memory's file is
//! removed with its `usage.json` entry, as hivelore's `mem_delete` does. A link is
//! written into both memories' `related_ids`, an unlink removed from both. Reads go to
//! `usage.json`. A file whose text would not change is not written; a file that changed
//! on disk since memlens read it is never overwritten: the commit is refused, and the
//! next read of the project takes the file's new text.

use super::deleted;
use super::files::{self, USAGE_KEY};
use super::splice::{self, Wanted};
use super::usage::UsageIndex;
use super::{Project, ProjectError};
use crate::exchange::hivelore::is_field_key;
use crate::exchange::hivelore::write::{file_name_for, relative_path};
use crate::model::{Memory, Timestamp};
use crate::store::{StoreError, StoreWriter, WriteThrough};
use serde_json::Value;
use std::collections::HashSet;

/// The write-through of one project.
#[derive(Debug)]
pub struct Through {
    project: Project,
}

impl Through {
    /// Writes commits through to `project`'s files.
    pub fn new(project: Project) -> Through {
        Through { project }
    }
}

impl WriteThrough for Through {
    fn before_commit(&self, w: &StoreWriter, touched: &[(String, u32)]) -> Result<(), String> {
        write_through(&self.project, w, touched).map_err(|e| e.to_string())
    }
}

/// Why a commit was not written through.
#[derive(Debug, thiserror::Error)]
enum ThroughError {
    #[error(
        "{0}: changed on disk since memlens read it; nothing was written — the project is read again on the next open (the browser reads it at once), then make the change again"
    )]
    ChangedOnDisk(String),
    #[error(
        "{0}: memlens cannot read this file as a memory ({1}); nothing was written — fix the file, then make the change again"
    )]
    Unreadable(String, String),
    #[error(
        "{0}: hivelore loads no memory of type `{1}` (its types: {types}); nothing was written",
        types = crate::exchange::hivelore::HIVELORE_TYPES.join(", ")
    )]
    NotAHiveloreType(String, String),
    #[error(transparent)]
    Project(#[from] ProjectError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Gives the file at `path` the modification time of now, its bytes unchanged.
fn touch(path: &std::path::Path) -> std::io::Result<()> {
    std::fs::File::options()
        .write(true)
        .open(path)?
        .set_modified(std::time::SystemTime::now())
}

/// One file to write.
struct Planned {
    relative: String,
    new: String,
    id: String,
}

fn write_through(
    project: &Project,
    w: &StoreWriter,
    touched: &[(String, u32)],
) -> Result<(), ThroughError> {
    let mut seen = HashSet::new();
    // the first put of an id carries its read count before the commit
    let firsts: Vec<&(String, u32)> = touched
        .iter()
        .filter(|(id, _)| seen.insert(id.as_str()))
        .collect();
    let ids: Vec<&String> = firsts.iter().map(|(id, _)| id).collect();
    let reads_before: std::collections::HashMap<&str, u32> =
        firsts.iter().map(|(id, n)| (id.as_str(), *n)).collect();
    let touched_set: HashSet<&str> = ids.iter().map(|s| s.as_str()).collect();
    let mut usage_diverged = false;
    let mut usage = UsageIndex::load(&project.usage_path())?;
    let mut usage_changed = false;
    let mut plans: Vec<Planned> = Vec::new();
    let mut removals: Vec<String> = Vec::new();
    let mut partners: Vec<String> = Vec::new();
    for id in &ids {
        let current = w.get(id)?;
        let relative = match files::path_of(w, id)? {
            Some(p) => p,
            None => match &current {
                Some(m) => relative_path(m).to_string_lossy().replace('\\', "/"),
                None => format!("{}.md", file_name_for(id)),
            },
        };
        let Some(memory) = current else {
            if read_checked(project, w, &relative)?.is_some() {
                removals.push(relative);
            }
            usage_changed |= usage.remove(id);
            continue;
        };
        let before = reads_before.get(id.as_str()).copied().unwrap_or(0);
        if let Some(count) = usage.add_reads(id, before, memory.read_count, memory.last_read_at) {
            usage_changed = true;
            // reads hivelore counted meanwhile: the index takes them on its next read
            usage_diverged |= count != memory.read_count;
        }
        let old = read_checked(project, w, &relative)?;
        // a type hivelore does not load would hide the memory from its agents: refused
        // when memlens would write it (a file that has one already is the agent's)
        let old_type = (old.as_deref())
            .and_then(splice::frontmatter)
            .and_then(|f| f.get("type").and_then(Value::as_str).map(str::to_string));
        let known =
            crate::exchange::hivelore::HIVELORE_TYPES.contains(&memory.memory_type.as_str());
        if !known && old_type.as_deref() != Some(memory.memory_type.as_str()) {
            return Err(ThroughError::NotAHiveloreType(
                relative,
                memory.memory_type.clone(),
            ));
        }
        let (plan, changed_links) = plan(w, &memory, relative, old, &touched_set)?;
        partners.extend(
            changed_links
                .into_iter()
                .filter(|p| !touched_set.contains(p.as_str())),
        );
        plans.extend(plan);
    }
    let mut done: HashSet<String> = HashSet::new();
    for partner in partners {
        if !done.insert(partner.clone()) {
            continue;
        }
        let Some(memory) = w.get(&partner)? else {
            continue;
        };
        let Some(relative) = files::path_of(w, &partner)? else {
            continue;
        };
        let old = read_checked(project, w, &relative)?;
        if old.is_none() {
            continue;
        }
        plans.extend(plan(w, &memory, relative, old, &touched_set)?.0);
    }
    for p in &plans {
        let print = files::write_atomically(&project.file(&p.relative), p.new.as_bytes(), &p.id)?;
        files::set(w, &p.relative, &print)?;
    }
    for relative in &removals {
        let path = project.file(relative);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(ProjectError::io(&path, e).into()),
        }
        files::remove(w, relative)?;
    }
    if usage_changed && let Some(text) = usage.render(Timestamp::now()) {
        let path = project.usage_path();
        let print = files::write_atomically(&path, text.as_bytes(), "")?;
        if !usage_diverged {
            files::set(w, USAGE_KEY, &print)?;
        }
    }
    Ok(())
}

/// The file's text when it is there, after checking it is what memlens last read or
/// wrote (a file memlens has no record of is taken as it is).
fn read_checked(
    project: &Project,
    w: &StoreWriter,
    relative: &str,
) -> Result<Option<String>, ThroughError> {
    let path = project.file(relative);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match files::get(w, relative)? {
                // deleted on disk since it was read: never silently written back
                Some(f) if !f.id.is_empty() => {
                    Err(ThroughError::ChangedOnDisk(relative.to_string()))
                }
                _ => Ok(None),
            };
        }
        Err(e) => return Err(ProjectError::io(&path, e).into()),
    };
    if let Some(known) = files::get(w, relative)? {
        if known.hash != files::hash(&bytes) || known.size != bytes.len() as u64 {
            // a change that left the file's size and time as they were: given a time of
            // its own, so that the next read of the project takes it, as the error says
            let _ = touch(&path);
            return Err(ThroughError::ChangedOnDisk(relative.to_string()));
        }
        // read, but not as a memory (broken frontmatter, an id another file holds): its
        // memory as the index knows it would overwrite what the file says now
        if known.id.is_empty() {
            let why = super::sync::why_unread(relative, &bytes);
            return Err(ThroughError::Unreadable(relative.to_string(), why));
        }
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| ThroughError::ChangedOnDisk(relative.to_string()))
}

/// The file a memory should have, when that differs from `old`, and the memories whose
/// `related_ids` gain or lose this one.
fn plan(
    w: &StoreWriter,
    memory: &Memory,
    relative: String,
    old: Option<String>,
    touched: &HashSet<&str>,
) -> Result<(Option<Planned>, Vec<String>), ThroughError> {
    let old_front = old.as_deref().and_then(splice::frontmatter);
    let old_related: Vec<String> = old_front
        .as_ref()
        .and_then(|f| f.get("related_ids"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let related = related_ids(w, memory, &old_related, touched)?;
    let changed: Vec<String> = related
        .iter()
        .filter(|r| !old_related.contains(r))
        .chain(old_related.iter().filter(|r| !related.contains(r)))
        .cloned()
        .collect();
    let wanted = wanted(memory, &related, old_front.as_ref());
    let new = match old
        .as_deref()
        .and_then(|t| splice::splice(t, &wanted, &memory.body))
    {
        Some(text) => text,
        None => splice::whole(&wanted, &memory.body),
    };
    if old.as_deref() == Some(new.as_str()) {
        return Ok((None, changed));
    }
    Ok((
        Some(Planned {
            relative,
            new,
            id: memory.id.clone(),
        }),
        changed,
    ))
}

/// The memory's `related_ids`: its own links' targets, and every memory that holds a
/// link to it among those the file lists and those this commit changed; the file's
/// order kept, new ones after.
fn related_ids(
    w: &StoreWriter,
    memory: &Memory,
    listed: &[String],
    touched: &HashSet<&str>,
) -> Result<Vec<String>, ThroughError> {
    let own: Vec<&str> = memory
        .relationships
        .iter()
        .map(|r| r.target.as_str())
        .collect();
    let mut holders: Vec<&str> = Vec::new();
    for candidate in listed
        .iter()
        .map(String::as_str)
        .chain(touched.iter().copied())
    {
        if candidate == memory.id || own.contains(&candidate) || holders.contains(&candidate) {
            continue;
        }
        if w.get(candidate)?
            .is_some_and(|m| m.relationships.iter().any(|r| r.target == memory.id))
        {
            holders.push(candidate);
        }
    }
    let wanted: Vec<&str> = own.iter().chain(holders.iter()).copied().collect();
    let mut out: Vec<String> = listed
        .iter()
        .filter(|r| wanted.contains(&r.as_str()))
        .cloned()
        .collect();
    for r in wanted {
        if !out.iter().any(|o| o == r) {
            out.push(r.to_string());
        }
    }
    Ok(out)
}

/// The frontmatter entries the file should have: the fields hivelore has, every
/// `extra` key, and the removal of a non-field key the memory no longer has. Keys that
/// name memlens fields hivelore lacks (and `last_read_at`, which reads keep in
/// `usage.json`) are left as the file has them.
fn wanted(
    memory: &Memory,
    related: &[String],
    old: Option<&serde_json::Map<String, Value>>,
) -> Wanted {
    let mut out: Wanted = Vec::new();
    let mut put = |k: &str, v: Option<Value>| out.push((k.to_string(), v));
    put("id", Some(memory.id.clone().into()));
    put("scope", Some(memory.scope.as_str().into()));
    put("module", memory.module.clone().map(Value::from));
    put("type", Some(memory.memory_type.clone().into()));
    let status = if memory.deleted_at.is_some() {
        "deprecated"
    } else {
        memory.status.as_str()
    };
    put("status", Some(status.into()));
    put("tags", Some(memory.tags.clone().into()));
    put("created_at", Some(memory.created_at.to_string().into()));
    put(
        "related_ids",
        Some(
            related
                .iter()
                .cloned()
                .map(Value::from)
                .collect::<Vec<_>>()
                .into(),
        ),
    );
    for (k, v) in &memory.extra {
        if is_field_key(k) {
            continue;
        }
        let v = match (k.as_str(), memory.deleted_at) {
            ("stale_reason", Some(at)) => {
                // the memory's own reason goes inside the marker, for a fresh index
                let earlier = v.as_str().filter(|r| deleted::parse(r).is_none());
                let why = memory.deleted_reason.as_deref();
                deleted::marker(at, memory.status, why, earlier).into()
            }
            _ => v.clone(),
        };
        out.push((k.clone(), Some(v)));
    }
    if let Some(at) = memory.deleted_at
        && !memory.extra.contains_key("stale_reason")
    {
        out.push((
            "stale_reason".into(),
            Some(deleted::marker(at, memory.status, memory.deleted_reason.as_deref(), None).into()),
        ));
    }
    if let Some(old) = old {
        // a key the file lacks is not added for a value hivelore would assume anyway
        out.retain(|(k, v)| old.contains_key(k) || !v.as_ref().is_none_or(|v| is_assumed(k, v)));
        for k in old.keys() {
            if !is_field_key(k) && !memory.extra.contains_key(k) && !out.iter().any(|(o, _)| o == k)
            {
                out.push((k.clone(), None));
            }
        }
    }
    out
}

/// True for a value hivelore's schema gives a key the file does not have.
fn is_assumed(key: &str, value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
        Value::String(s) => matches!(
            (key, s.as_str()),
            ("scope", "personal") | ("status", "draft")
        ),
        Value::Bool(b) => !b,
        Value::Number(_) => false,
    }
}
