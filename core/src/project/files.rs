//! The project's memory files as memlens last read or wrote them: a fingerprint per
//! file (size, modification time, content hash, the id it holds), kept in the index
//! store's own tables so it changes in the same transaction as the memories.

use super::ProjectError;
use crate::store::{StoreError, StoreReader, StoreWriter};
use redb::{ReadableTable, TableDefinition};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Path under `.ai/memories` (`/`-separated) → encoded [`Fingerprint`].
const FILES: TableDefinition<&str, &[u8]> = TableDefinition::new("hivelore_files");
/// Memory id → the path of its file.
const PATHS: TableDefinition<&str, &str> = TableDefinition::new("hivelore_paths");
/// The key under which `usage.json`'s fingerprint is kept (no path starts with NUL).
pub const USAGE_KEY: &str = "\0usage.json";

/// What a file was like when memlens last read or wrote it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Fingerprint {
    /// Its length in bytes.
    pub size: u64,
    /// Its modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
    /// CRC-32 of its bytes.
    pub hash: u32,
    /// The memory id it holds (empty for `usage.json` or a file that is no memory).
    pub id: String,
}

impl Fingerprint {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(20 + self.id.len());
        out.extend_from_slice(&self.size.to_le_bytes());
        out.extend_from_slice(&self.mtime_ns.to_le_bytes());
        out.extend_from_slice(&self.hash.to_le_bytes());
        out.extend_from_slice(self.id.as_bytes());
        out
    }

    fn decode(bytes: &[u8]) -> Option<Fingerprint> {
        let size = u64::from_le_bytes(bytes.get(0..8)?.try_into().ok()?);
        let mtime_ns = i64::from_le_bytes(bytes.get(8..16)?.try_into().ok()?);
        let hash = u32::from_le_bytes(bytes.get(16..20)?.try_into().ok()?);
        let id = String::from_utf8(bytes.get(20..)?.to_vec()).ok()?;
        Some(Fingerprint {
            size,
            mtime_ns,
            hash,
            id,
        })
    }

    /// True when the file's size and modification time are still these (it is then
    /// taken as unchanged without reading it).
    pub fn same_stat(&self, stat: &Stat) -> bool {
        self.size == stat.size && self.mtime_ns == stat.mtime_ns
    }
}

/// A file's size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// Length in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i64,
}

/// The size and modification time of `path`; `None` when it is not there.
pub fn stat(path: &Path) -> Result<Option<Stat>, ProjectError> {
    match std::fs::metadata(path) {
        Ok(m) => Ok(Some(Stat {
            size: m.len(),
            mtime_ns: m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
        })),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ProjectError::io(path, e)),
    }
}

/// The content hash of a file's bytes.
pub fn hash(bytes: &[u8]) -> u32 {
    crc32fast::hash(bytes)
}

/// Every memory file under `memories`, as hivelore's loader lists them: names ending
/// in `.md`, in every directory below (symbolic links are not followed), as paths
/// relative to `memories` with `/` separators, sorted.
pub fn list(memories: &Path) -> Result<Vec<String>, ProjectError> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) -> Result<(), ProjectError> {
        let entries = match std::fs::read_dir(dir) {
            Ok(e) => e,
            // hivelore skips a directory it cannot read
            Err(_) => return Ok(()),
        };
        for entry in entries {
            let entry = entry.map_err(|e| ProjectError::io(dir, e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            if kind.is_dir() {
                walk(&entry.path(), &relative, out)?;
            } else if kind.is_file() && name.ends_with(".md") {
                out.push(relative);
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(memories, "", &mut out)?;
    out.sort();
    Ok(out)
}

fn storage(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::Storage {
        path: path.to_path_buf(),
        detail: e.to_string(),
    }
}

/// Every fingerprint in the index, by path (an index that has none yet: empty).
pub fn load(reader: &StoreReader) -> Result<HashMap<String, Fingerprint>, StoreError> {
    let path = reader.path();
    let Some(table) = reader.table_if_present(FILES)? else {
        return Ok(HashMap::new());
    };
    let mut out = HashMap::new();
    for row in table.iter().map_err(|e| storage(path, e))? {
        let (k, v) = row.map_err(|e| storage(path, e))?;
        if let Some(f) = Fingerprint::decode(v.value()) {
            out.insert(k.value().to_string(), f);
        }
    }
    Ok(out)
}

/// The fingerprint of one path, as the write transaction sees it.
pub fn get(w: &StoreWriter, relative: &str) -> Result<Option<Fingerprint>, StoreError> {
    let table = w.table(FILES)?;
    let value = table
        .get(relative)
        .map_err(|e| storage(&PathBuf::new(), e))?;
    Ok(value.and_then(|v| Fingerprint::decode(v.value())))
}

/// The path of the file holding a memory, as the write transaction sees it.
pub fn path_of(w: &StoreWriter, id: &str) -> Result<Option<String>, StoreError> {
    let table = w.table(PATHS)?;
    let value = table.get(id).map_err(|e| storage(&PathBuf::new(), e))?;
    Ok(value.map(|v| v.value().to_string()))
}

/// Records a file's fingerprint (and, for a memory file, that its id lives there).
pub fn set(w: &StoreWriter, relative: &str, print: &Fingerprint) -> Result<(), StoreError> {
    let err = |e: redb::Error| storage(&PathBuf::new(), e);
    let mut files = w.table(FILES)?;
    files
        .insert(relative, print.encode().as_slice())
        .map_err(|e| err(e.into()))?;
    if !print.id.is_empty() && relative != USAGE_KEY {
        let mut paths = w.table(PATHS)?;
        paths
            .insert(print.id.as_str(), relative)
            .map_err(|e| err(e.into()))?;
    }
    Ok(())
}

/// Forgets a file (and the id it held, unless another file holds that id now).
pub fn remove(w: &StoreWriter, relative: &str) -> Result<(), StoreError> {
    let err = |e: redb::Error| storage(&PathBuf::new(), e);
    let mut files = w.table(FILES)?;
    let old = files
        .remove(relative)
        .map_err(|e| err(e.into()))?
        .and_then(|v| Fingerprint::decode(v.value()));
    drop(files);
    if let Some(old) = old.filter(|o| !o.id.is_empty()) {
        let mut paths = w.table(PATHS)?;
        let held_here = paths
            .get(old.id.as_str())
            .map_err(|e| err(e.into()))?
            .is_some_and(|p| p.value() == relative);
        if held_here {
            paths.remove(old.id.as_str()).map_err(|e| err(e.into()))?;
        }
    }
    Ok(())
}

/// Writes `bytes` to `path` atomically: a temporary file beside it (whose name does not
/// end in `.md`, so no loader reads it half-written), flushed to disk, then renamed
/// over the old file. Returns the new file's fingerprint.
pub fn write_atomically(path: &Path, bytes: &[u8], id: &str) -> Result<Fingerprint, ProjectError> {
    use std::io::Write;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| ProjectError::io(dir, e))?;
    }
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let temp = path.with_file_name(format!(".{name}.{}.memlens-tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(old) = std::fs::metadata(path) {
            // keep the old file's permissions
            std::fs::set_permissions(&temp, old.permissions())?;
        }
        std::fs::rename(&temp, path)
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(ProjectError::io(path, e));
    }
    let stat = stat(path)?.unwrap_or(Stat {
        size: bytes.len() as u64,
        mtime_ns: 0,
    });
    Ok(Fingerprint {
        size: stat.size,
        mtime_ns: stat.mtime_ns,
        hash: hash(bytes),
        id: id.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_round_trip() {
        let f = Fingerprint {
            size: 12,
            mtime_ns: -3,
            hash: 7,
            id: "a-b".into(),
        };
        assert_eq!(Fingerprint::decode(&f.encode()), Some(f));
        assert_eq!(Fingerprint::decode(b"short"), None);
    }
}
