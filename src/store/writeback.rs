//! The store file as redb sees it, with early write-back: once a few megabytes have
//! been written since the last time, a helper thread asks the kernel to start writing
//! the file's dirty pages to the disk, without waiting for it. A large commit's final
//! flush to the disk then finds most of its pages already written, instead of starting
//! on all of them (about a tenth of an import's time went to that wait), and the disk
//! works while the import computes.

use redb::backends::FileBackend;
use redb::{BackendError, StorageBackend};
use std::fs::File;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{SyncSender, TrySendError};
use std::sync::{Arc, Mutex};

/// Bytes written between two requests to start write-back.
const KICK_EVERY_BYTES: u64 = 16 << 20;

/// A [`FileBackend`] that starts the kernel's write-back as it goes (see the module).
#[derive(Debug)]
pub struct EarlyWriteback {
    file: FileBackend,
    /// Bytes written since the last request.
    pending: AtomicU64,
    /// Wakes the helper thread; `None` where the system has no way to start write-back.
    kick: Mutex<Option<SyncSender<()>>>,
    /// Requests the helper thread has made.
    #[cfg(test)]
    requests: Arc<AtomicU64>,
}

impl EarlyWriteback {
    /// Wraps `file`, whose writes are to be sent on to the disk early.
    pub fn new(file: File) -> std::io::Result<EarlyWriteback> {
        let requests = Arc::new(AtomicU64::new(0));
        let kick = start_writeback_thread(&file, Arc::clone(&requests))?;
        Ok(EarlyWriteback {
            file: FileBackend::new(file).map_err(std::io::Error::other)?,
            pending: AtomicU64::new(0),
            kick: Mutex::new(kick),
            #[cfg(test)]
            requests,
        })
    }

    /// How many times write-back was requested so far.
    #[cfg(test)]
    fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn wrote(&self, bytes: usize) {
        let before = self.pending.fetch_add(bytes as u64, Ordering::Relaxed);
        if before + bytes as u64 >= KICK_EVERY_BYTES {
            self.pending.store(0, Ordering::Relaxed);
            if let Some(kick) = self.kick.lock().ok().as_deref().and_then(Option::as_ref) {
                // a request already waiting covers these pages too
                if let Err(TrySendError::Disconnected(())) = kick.try_send(()) {
                    // the thread is gone: writes carry on without it
                }
            }
        }
    }
}

/// Starts the thread that asks for write-back of `file` each time it is woken (counting
/// its requests in `requests`), until its sender is dropped.
#[cfg(target_os = "linux")]
fn start_writeback_thread(
    file: &File,
    requests: Arc<AtomicU64>,
) -> std::io::Result<Option<SyncSender<()>>> {
    use std::os::fd::AsRawFd;
    let file = file.try_clone()?;
    let (kick, woken) = std::sync::mpsc::sync_channel::<()>(1);
    std::thread::Builder::new()
        .name("memlens-writeback".into())
        .spawn(move || {
            for () in woken {
                // SAFETY: the descriptor stays open as long as `file` lives, here.
                // Failure only means the pages are written at the commit instead.
                unsafe {
                    libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
                }
                requests.fetch_add(1, Ordering::Relaxed);
            }
        })?;
    Ok(Some(kick))
}

/// Elsewhere, pages are written at the commit.
#[cfg(not(target_os = "linux"))]
fn start_writeback_thread(
    _file: &File,
    _requests: Arc<AtomicU64>,
) -> std::io::Result<Option<SyncSender<()>>> {
    Ok(None)
}

impl StorageBackend for EarlyWriteback {
    fn len(&self) -> Result<u64, std::io::Error> {
        self.file.len()
    }

    fn read(&self, offset: u64, out: &mut [u8]) -> Result<(), std::io::Error> {
        self.file.read(offset, out)
    }

    fn set_len(&self, len: u64) -> Result<(), std::io::Error> {
        self.file.set_len(len)
    }

    fn sync_data(&self) -> Result<(), std::io::Error> {
        self.pending.store(0, Ordering::Relaxed);
        self.file.sync_data()
    }

    fn write(&self, offset: u64, data: &[u8]) -> Result<(), std::io::Error> {
        self.file.write(offset, data)?;
        self.wrote(data.len());
        Ok(())
    }

    fn close(&self) -> Result<(), std::io::Error> {
        if let Ok(mut kick) = self.kick.lock() {
            kick.take();
        }
        self.file.close()
    }

    fn try_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.try_lock_range(start, end)
    }

    fn try_lock_shared_range(
        &self,
        start: Bound<u64>,
        end: Bound<u64>,
    ) -> Result<bool, BackendError> {
        self.file.try_lock_shared_range(start, end)
    }

    fn lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_range(start, end)
    }

    fn lock_shared_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.lock_shared_range(start, end)
    }

    fn unlock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<(), BackendError> {
        self.file.unlock_range(start, end)
    }

    fn query_lock_range(&self, start: Bound<u64>, end: Bound<u64>) -> Result<bool, BackendError> {
        self.file.query_lock_range(start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn backend(dir: &tempfile::TempDir) -> EarlyWriteback {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.path().join("store.redb"))
            .unwrap();
        EarlyWriteback::new(file).unwrap()
    }

    #[test]
    fn writes_read_back_the_same_and_a_few_megabytes_start_write_back() {
        let dir = tempfile::tempdir().unwrap();
        let file = backend(&dir);
        let megabyte: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
        let total = 2 * KICK_EVERY_BYTES / (1 << 20) + 1;
        for at in 0..total {
            file.write(at << 20, &megabyte).unwrap();
        }
        assert_eq!(file.len().unwrap(), total << 20);
        let mut back = vec![0u8; 1 << 20];
        for at in [0, total / 2, total - 1] {
            file.read(at << 20, &mut back).unwrap();
            assert!(back == megabyte, "megabyte {at} reads back different");
        }
        let waited = std::time::Instant::now();
        while cfg!(target_os = "linux") && file.requests() == 0 {
            assert!(
                waited.elapsed().as_secs() < 30,
                "no write-back was requested"
            );
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        file.sync_data().unwrap();
        file.close().unwrap();
    }

    #[test]
    fn small_writes_request_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = backend(&dir);
        file.write(0, &[7u8; 4096]).unwrap();
        file.sync_data().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        assert_eq!(file.requests(), 0);
        file.close().unwrap();
    }
}
