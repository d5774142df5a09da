//! The memories a `memlens mcp` server holds for its whole life: the store opened once
//! (shared with the browser, the commands and other servers: see
//! [`crate::store::Sharing`]) and one [`LocalCollection`] over it, whose in-memory
//! index loads in the background and is brought up to date before every answer with
//! what any process wrote since (the store's change log). A call therefore pays
//! neither an open nor a load. The store is opened by the first call; when no file is
//! there yet, that call creates an empty store (said on stderr, the server's log), so an
//! agent's first memory needs no import first.

use super::ToolError;
use crate::collection::{Collection, LocalCollection};
use crate::store::Store;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// The store a server serves, opened on first use and kept open.
pub(super) struct Held {
    path: PathBuf,
    open: Mutex<Option<Open>>,
}

/// The open store and the collection over it.
#[derive(Clone)]
pub(super) struct Open {
    /// For the writes (curation changes, tracked reads).
    pub store: Arc<Store>,
    /// For the searches and reads.
    pub memories: Arc<LocalCollection>,
}

impl Held {
    /// The store at `path`, not opened yet.
    pub fn new(path: &Path) -> Held {
        Held {
            path: path.to_path_buf(),
            open: Mutex::new(None),
        }
    }

    /// The file served.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open store, opening it (waiting while an import holds it alone) and starting
    /// the load of its index when no call has yet.
    pub fn open(&self) -> Result<Open, ToolError> {
        let mut slot = self.open.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(open) = slot.as_ref() {
            return Ok(open.clone());
        }
        let store = Arc::new(open_or_create(&self.path)?);
        let memories = Arc::new(LocalCollection::over(Arc::clone(&store)));
        load_in_background(&self.path, &memories);
        let open = Open { store, memories };
        *slot = Some(open.clone());
        Ok(open)
    }
}

/// The store at `path`, created empty when no file is there (an empty file or anything
/// else that is not a store is refused as by every command).
fn open_or_create(path: &Path) -> Result<Store, crate::existing::OpenError> {
    use crate::existing::OpenError;
    match crate::existing::open_existing(path) {
        Err(OpenError::NoStore { .. }) => {
            let store = crate::store::guarded(path, || {
                crate::store::shared::store_when_free(|| Store::open(path))
            })?;
            use std::io::Write;
            let _ = writeln!(
                crate::text::stderr(),
                "memlens mcp: {}: no store was there; created an empty one",
                path.display()
            );
            Ok(store)
        }
        other => other,
    }
}

/// Loads the collection's in-memory index on a thread of its own; until it is loaded,
/// and if loading fails (said on stderr, the server's log), the persisted index answers
/// every call exactly.
fn load_in_background(path: &Path, memories: &Arc<LocalCollection>) {
    let memories = Arc::clone(memories);
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        if let Err(e) = crate::store::guarded(&path, || Collection::load(memories.as_ref())) {
            use std::io::Write;
            let _ = writeln!(
                crate::text::stderr(),
                "memlens mcp: answering from the index on disk: {e}"
            );
        }
    });
}
