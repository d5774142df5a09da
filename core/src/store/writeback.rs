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
    /// The helper thread, started by the first request: a store that never writes
    /// that much (the browser, a curation command) starts none.
    helper: Mutex<Helper>,
    /// Requests the helper thread has made.
    requests: Arc<AtomicU64>,
}

/// Where the helper thread is.
#[derive(Debug)]
enum Helper {
    /// Not started; it will ask for write-back of this descriptor of the file.
    Waiting(File),
    /// Started; woken through this.
    Running(SyncSender<()>),
    /// None: the system has no way to start write-back, the thread could not start or
    /// has stopped, or the store is closed.
    Off,
}

impl EarlyWriteback {
    /// Wraps `file`, whose writes are to be sent on to the disk early.
    pub fn new(file: File) -> std::io::Result<EarlyWriteback> {
        let helper = if cfg!(target_os = "linux") {
            Helper::Waiting(file.try_clone()?)
        } else {
            Helper::Off
        };
        Ok(EarlyWriteback {
            file: FileBackend::new(file).map_err(std::io::Error::other)?,
            pending: AtomicU64::new(0),
            helper: Mutex::new(helper),
            requests: Arc::new(AtomicU64::new(0)),
        })
    }

    /// How many times write-back was requested so far.
    #[cfg(test)]
    fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    fn wrote(&self, bytes: usize) {
        let bytes = bytes as u64;
        let before = self.pending.fetch_add(bytes, Ordering::Relaxed);
        if before + bytes < KICK_EVERY_BYTES {
            return;
        }
        self.pending.store(0, Ordering::Relaxed);
        let Ok(mut helper) = self.helper.lock() else {
            return;
        };
        *helper = match std::mem::replace(&mut *helper, Helper::Off) {
            Helper::Waiting(file) => start_writeback_thread(file, Arc::clone(&self.requests))
                .map_or(Helper::Off, Helper::Running),
            other => other,
        };
        if let Helper::Running(kick) = &*helper
            // a request already waiting covers these pages too
            && let Err(TrySendError::Disconnected(())) = kick.try_send(())
        {
            // the thread is gone: writes carry on without it
            *helper = Helper::Off;
        }
    }
}

/// Starts the thread that asks for write-back of `file` each time it is woken (counting
/// its requests in `requests`), until its sender is dropped.
fn start_writeback_thread(file: File, requests: Arc<AtomicU64>) -> std::io::Result<SyncSender<()>> {
    let (kick, woken) = std::sync::mpsc::sync_channel::<()>(1);
    std::thread::Builder::new()
        .name("memlens-writeback".into())
        .spawn(move || {
            for () in woken {
                start_writeback(&file);
                requests.fetch_add(1, Ordering::Relaxed);
            }
        })?;
    Ok(kick)
}

/// Asks the kernel to start writing `file`'s dirty pages, without waiting for them.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: the descriptor is open for as long as `file` lives. Failure only means
    // the pages are written at the commit instead.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
}

/// Elsewhere no helper starts (see [`EarlyWriteback::new`]): pages are written at the
/// commit.
#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File) {}

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
        if let Ok(mut helper) = self.helper.lock() {
            *helper = Helper::Off;
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
