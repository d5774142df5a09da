//! Opening a store file: create when missing, refuse what is not ours, a newer schema,
//! or a file another process holds.

use super::StoreReader;
use super::error::{StoreError, StoreResult};
use super::links::{move_old_backlinks, seal_backlinks};
use super::tables::{
    BACKLINK_ROWS_SCHEMA, BACKLINKS, CHECKSUM_SCHEMA, FORMAT_MARKER, IDS, KEY_FORMAT, KEY_NEXT_DOC,
    KEY_SCHEMA, MEMORIES, META, SCHEMA_VERSION, SEALED_SCHEMA,
};
use super::writeback::EarlyWriteback;
use redb::{
    ConcurrencyMode, Database, DatabaseError, ReadOnlyDatabase, ReadableDatabase,
    ReadableTableMetadata, TableError,
};
use std::io::Read;
use std::path::Path;

const REDB_MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];

/// Wraps a redb error as a storage error naming the file.
pub fn storage_error(path: &Path, e: impl std::fmt::Display) -> StoreError {
    StoreError::of_storage(path, e)
}

fn io(path: &Path, source: std::io::Error) -> StoreError {
    StoreError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// A read error while opening the file: one that ran past its end (a file cut short
/// before the pages its header names) is damage, which `memlens check` explains.
fn opening_io(path: &Path, source: std::io::Error) -> StoreError {
    if source.kind() == std::io::ErrorKind::UnexpectedEof {
        storage_error(path, source)
    } else {
        io(path, source)
    }
}

/// Checks the file's first bytes before redb touches it, so a foreign file is never
/// modified.
fn check_magic(path: &Path) -> StoreResult<()> {
    let mut file = std::fs::File::open(path).map_err(|e| io(path, e))?;
    let mut head = [0u8; 9];
    let mut read = 0;
    while read < head.len() {
        match file.read(&mut head[read..]).map_err(|e| io(path, e))? {
            0 => break,
            n => read += n,
        }
    }
    if read == 0 {
        return Ok(()); // an empty file becomes a new store
    }
    if read < head.len() || head != REDB_MAGIC {
        return Err(StoreError::NotAStore {
            path: path.to_path_buf(),
            detail: "it is not a redb database".into(),
        });
    }
    Ok(())
}

/// The page cache of a read-only snapshot (one `memlens search`, `get` or `export`):
/// room for the branch pages of the tables a request walks; the chunks it reads are
/// read once, so caching them only churns memory (each page read past a full cache
/// frees another and allocates afresh). At 1M memories, against 8 MiB: `--engine fuzzy
/// water` 159 -> 124 ms and 69 -> 51 MB at its peak, `--mode rating` 92 -> 76 ms and
/// 55 -> 46 MB, a literal word 44 -> 30 ms and 26 -> 15 MB.
pub const REQUEST_CACHE_BYTES: usize = 512 << 10;

/// The page cache of a store opened to browse, search and curate: enough for the pages
/// a write touches, small enough that reading every search record once (as the browser
/// does when it opens) does not keep them all in memory. Unlike a read-only request's
/// ([`REQUEST_CACHE_BYTES`]), a write needs the branch pages of every table it changes:
/// at 1M memories, a durable curation write took 3.3 ms p99 with 8 MiB and 6.9 ms with
/// 512 KiB (benches/curate.rs, one run each).
pub const BROWSE_CACHE_BYTES: usize = 8 << 20;

/// The page cache of a store opened for a bulk import. redb keeps a transaction's
/// written pages in memory up to half of it and writes the older ones to the file
/// beyond that; an import commits in steps of a quarter of it ([`super::STEP_BYTES`]),
/// so each step's pages are still in memory when they are checksummed, and the memory
/// of the pages written out is reused rather than fresh memory, which the kernel must
/// zero first. With steps, 64 MiB imported faster than 256 MiB at both 100k and 1M
/// memories, with less resident memory (benches/RESULTS.md).
pub const BULK_CACHE_BYTES: usize = 64 << 20;

/// A step of a writable open that reads and writes every memory, once in the life of
/// a store (tens of seconds for a million memories), announced before it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongStep {
    /// The search index is of another version and is rebuilt from the memories.
    RebuildIndex,
    /// The memories of a store of an older schema are rewritten with their checksums.
    AddChecksums,
}

/// How an open shares the file with other processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sharing {
    /// Any number of memlens processes hold the file open for reading and writing at
    /// once (the browser, each agent's server, the commands); redb lets one write
    /// transaction run at a time among them and every new read sees the last commit,
    /// whichever process made it. How every store is opened.
    Shared,
    /// This process alone: a bulk import's open when no other process has the file,
    /// so it may commit in non-durable steps, which a shared file cannot take.
    Exclusive,
}

impl Sharing {
    fn mode(self) -> ConcurrencyMode {
        match self {
            Sharing::Shared => ConcurrencyMode::MultiWriter,
            Sharing::Exclusive => ConcurrencyMode::ExclusiveWriter,
        }
    }
}

/// Opens or creates the database with a page cache of `cache_bytes`, shared with
/// other processes as `sharing` says, and checks or stamps its format and schema
/// version; `before_long` runs first when the open is about to take one of the
/// [`LongStep`]s.
pub fn open_database(
    path: &Path,
    cache_bytes: usize,
    sharing: Sharing,
    before_long: &dyn Fn(LongStep),
) -> StoreResult<Database> {
    if path.is_dir() {
        return Err(StoreError::NotAStore {
            path: path.to_path_buf(),
            detail: "it is a directory".into(),
        });
    }
    if path.exists() {
        check_magic(path)?;
        if std::fs::metadata(path).map_err(|e| io(path, e))?.len() > 0 {
            precheck_read_only(path)?;
        }
    } else if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(|e| io(path, e))?;
    let backend = EarlyWriteback::new(file).map_err(|e| io(path, e))?;
    let db = Database::builder()
        .set_cache_size(cache_bytes)
        .set_concurrency_mode(sharing.mode())
        .create_with_backend(backend)
        .map_err(|e| match e {
            DatabaseError::DatabaseAlreadyOpen => StoreError::Locked {
                path: path.to_path_buf(),
            },
            DatabaseError::Storage(redb::StorageError::Io(source)) => opening_io(path, source),
            other => storage_error(path, other),
        })?;
    check_or_stamp(&db, path, before_long)?;
    Ok(db)
}

/// A read-only snapshot of the store at `path` without opening it for writing (nothing
/// of the file is written, not even redb's open marker); `None` when the store must be
/// opened for writing first: it is missing or empty, needs crash recovery, is of an
/// older schema (its backlinks in a multimap, its memories without checksums), or its
/// index is of an older version (the writable open upgrades them).
pub fn read_only_snapshot(path: &Path) -> StoreResult<Option<StoreReader>> {
    if !path.is_file() {
        return Ok(None);
    }
    check_magic(path)?;
    if std::fs::metadata(path).map_err(|e| io(path, e))?.len() == 0 {
        return Ok(None);
    }
    let Some(db) = open_read_only(path, REQUEST_CACHE_BYTES)? else {
        return Ok(None);
    };
    if check_format(&db, path)?.is_none_or(|version| version < SCHEMA_VERSION) {
        return Ok(None);
    }
    let txn = db.begin_read().map_err(|e| storage_error(path, e))?;
    if !crate::index::index_is_current(&txn).map_err(|e| storage_error(path, e))? {
        return Ok(None);
    }
    Ok(Some(StoreReader::owning(
        txn,
        path.to_path_buf(),
        db.into(),
    )))
}

/// Checks an existing file read-only before opening it for writing, so that a redb
/// file of another program (or of a newer memlens) is refused without a byte of it
/// changing. A file that needs crash recovery cannot be opened read-only; it is
/// checked after the writable open has repaired it.
fn precheck_read_only(path: &Path) -> StoreResult<()> {
    match open_read_only(path, BROWSE_CACHE_BYTES)? {
        Some(db) => check_format(&db, path).map(|_| ()),
        None => Ok(()),
    }
}

/// Opens the file read-only (a store another process holds is refused as locked);
/// `None` when it needs crash recovery, which only a writable open can do.
pub(super) fn open_read_only(
    path: &Path,
    cache_bytes: usize,
) -> StoreResult<Option<ReadOnlyDatabase>> {
    match Database::builder()
        .set_cache_size(cache_bytes)
        .set_concurrency_mode(Sharing::Shared.mode())
        .open_read_only(path)
    {
        Ok(db) => Ok(Some(db)),
        Err(DatabaseError::DatabaseAlreadyOpen) => Err(StoreError::Locked {
            path: path.to_path_buf(),
        }),
        Err(DatabaseError::RepairAborted) => Ok(None),
        Err(DatabaseError::Storage(redb::StorageError::Io(source))) => {
            Err(opening_io(path, source))
        }
        Err(other) => Err(storage_error(path, other)),
    }
}

/// Checks the format marker and schema version; the store's schema version, or `None`
/// for an empty database that still needs stamping.
fn check_format(db: &impl ReadableDatabase, path: &Path) -> StoreResult<Option<u32>> {
    let err = |e: redb::Error| storage_error(path, e);
    let read = db.begin_read().map_err(|e| err(e.into()))?;
    match read.open_table(META) {
        Ok(meta) => {
            let format = meta.get(KEY_FORMAT).map_err(|e| err(e.into()))?;
            if format.as_ref().map(|v| v.value()) != Some(FORMAT_MARKER) {
                return Err(StoreError::NotAStore {
                    path: path.to_path_buf(),
                    detail: "a redb database of another program".into(),
                });
            }
            let version = meta
                .get(KEY_SCHEMA)
                .map_err(|e| err(e.into()))?
                .and_then(|v| <[u8; 4]>::try_from(v.value()).ok())
                .map(u32::from_le_bytes)
                .unwrap_or(0);
            if version > SCHEMA_VERSION {
                return Err(StoreError::NewerSchema {
                    path: path.to_path_buf(),
                    found: version,
                    supported: SCHEMA_VERSION,
                });
            }
            Ok(Some(version))
        }
        Err(TableError::TableDoesNotExist(_)) => {
            let has_tables = read
                .list_tables()
                .map_err(|e| err(e.into()))?
                .next()
                .is_some();
            if has_tables {
                return Err(StoreError::NotAStore {
                    path: path.to_path_buf(),
                    detail: "a redb database of another program".into(),
                });
            }
            Ok(None)
        }
        Err(e) => Err(err(e.into())),
    }
}

pub(super) fn check_or_stamp(
    db: &Database,
    path: &Path,
    before_long: &dyn Fn(LongStep),
) -> StoreResult<()> {
    let Some(version) = check_format(db, path)? else {
        return stamp_new(db).map_err(|e| storage_error(path, e));
    };
    index_or_rebuild(db, before_long).map_err(|e| storage_error(path, e))?;
    if version < SCHEMA_VERSION {
        upgrade_schema(db, version, before_long).map_err(|e| storage_error(path, e))?;
    }
    Ok(())
}

/// Brings a store of an older schema `version` to this build's, in one transaction:
/// moves its backlinks into sealed rows when it kept them in a multimap, or seals its
/// rows when they have no checksum, rewrites its
/// memories with their checksums (after `before_long`, when it has any), and stamps
/// the schema, so that an older memlens refuses the store from then on instead of
/// meeting what it cannot read.
fn upgrade_schema(
    db: &Database,
    version: u32,
    before_long: &dyn Fn(LongStep),
) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    if version < BACKLINK_ROWS_SCHEMA {
        move_old_backlinks(&txn)?;
    } else if version < SEALED_SCHEMA {
        seal_backlinks(&txn)?;
    }
    if version < SEALED_SCHEMA {
        // the index was rebuilt before the backlinks were rows it can read
        crate::index::link_counts::refresh_all(&txn)?;
    }
    if version < CHECKSUM_SCHEMA && txn.open_table(MEMORIES)?.len()? > 0 {
        before_long(LongStep::AddChecksums);
        super::checksums::add_checksums(&txn)?;
    }
    txn.open_table(META)?
        .insert(KEY_SCHEMA, SCHEMA_VERSION.to_le_bytes().as_slice())?;
    super::changes::record(&txn, None)?;
    commit_durably(txn)?;
    Ok(())
}

/// Rebuilds the index of a store written before it existed or by a version with
/// another index (once; later opens find the index version stamped), after running
/// `before_long`.
fn index_or_rebuild(db: &Database, before_long: &dyn Fn(LongStep)) -> Result<(), redb::Error> {
    if crate::index::index_is_current(&db.begin_read()?)? {
        return Ok(());
    }
    before_long(LongStep::RebuildIndex);
    let txn = db.begin_write()?;
    crate::index::rebuild(&txn)?;
    super::changes::record(&txn, None)?;
    commit_durably(txn)?;
    Ok(())
}

/// Commits `txn` with redb's two-phase commit: the new root is made durable before the
/// header points at it, so a header slot that later fails its checksum is reported as
/// damage. Without it redb takes such a slot for a commit torn by a crash and reads the
/// previous one instead: bit rot in the header would silently undo the last write.
pub(super) fn commit_durably(mut txn: redb::WriteTransaction) -> Result<(), redb::CommitError> {
    txn.set_two_phase_commit(true);
    txn.commit()
}

fn stamp_new(db: &Database) -> Result<(), redb::Error> {
    let txn = db.begin_write()?;
    {
        let mut meta = txn.open_table(META)?;
        meta.insert(KEY_FORMAT, FORMAT_MARKER)?;
        meta.insert(KEY_SCHEMA, SCHEMA_VERSION.to_le_bytes().as_slice())?;
        meta.insert(KEY_NEXT_DOC, 0u32.to_le_bytes().as_slice())?;
        txn.open_table(MEMORIES)?;
        txn.open_table(IDS)?;
        txn.open_table(BACKLINKS)?;
        crate::index::create_tables(&txn)?;
    }
    crate::index::rebuild(&txn)?;
    commit_durably(txn)?;
    Ok(())
}
