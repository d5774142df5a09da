//! Change notifications for a project's files on Linux (inotify through `libc`): which
//! memory files and whether `usage.json` changed, without looking at every file, so a
//! change shows at once however many files the project has.

use super::Project;
use std::collections::HashMap;
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// What changed since the last [`Notifier::wait`].
#[derive(Debug, Default, PartialEq)]
pub struct Noticed {
    /// Memory files (paths under `.ai/memories`) written, added, moved or removed.
    pub paths: Vec<String>,
    /// `usage.json` changed.
    pub usage: bool,
    /// A directory appeared or the queue overflowed: look at everything.
    pub everything: bool,
}

/// An inotify instance watching a project's directories.
pub struct Notifier {
    fd: i32,
    /// Watch descriptor → directory under `.ai/memories` (`""` for it), or `None` for
    /// `.ai/.cache`.
    dirs: HashMap<i32, Option<String>>,
    memories: std::path::PathBuf,
    /// `.ai/memories` itself was moved away or removed: its watches are dropped (one
    /// left on a moved directory would follow it wherever it went) until a directory
    /// is there again.
    root_lost: bool,
}

const MASK: u32 = libc::IN_CLOSE_WRITE
    | libc::IN_MODIFY
    | libc::IN_MOVED_TO
    | libc::IN_MOVED_FROM
    | libc::IN_DELETE
    | libc::IN_CREATE
    | libc::IN_MOVE_SELF
    | libc::IN_DELETE_SELF;

impl Drop for Notifier {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours and closed once.
        unsafe { libc::close(self.fd) };
    }
}

impl Notifier {
    /// Watches the project's memory directories and `.ai/.cache`; `None` when inotify
    /// is unavailable (the caller polls instead).
    pub fn new(project: &Project) -> Option<Notifier> {
        // SAFETY: plain system call; a negative result is checked.
        let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
        if fd < 0 {
            return None;
        }
        let mut n = Notifier {
            fd,
            dirs: HashMap::new(),
            memories: project.memories.clone(),
            root_lost: false,
        };
        n.add_tree("")?;
        let cache = project.cache_dir();
        let wd = n.add(&cache)?;
        n.dirs.insert(wd, None);
        Some(n)
    }

    fn add(&self, dir: &Path) -> Option<i32> {
        let path = CString::new(dir.as_os_str().as_bytes()).ok()?;
        // SAFETY: a valid C string and our descriptor.
        let wd = unsafe { libc::inotify_add_watch(self.fd, path.as_ptr(), MASK) };
        (wd >= 0).then_some(wd)
    }

    /// Watches a directory under `.ai/memories` and every directory below it.
    fn add_tree(&mut self, relative: &str) -> Option<()> {
        let dir = if relative.is_empty() {
            self.memories.clone()
        } else {
            self.memories.join(relative)
        };
        let wd = self.add(&dir)?;
        self.dirs.insert(wd, Some(relative.to_string()));
        for entry in std::fs::read_dir(&dir).ok()?.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                let name = entry.file_name().to_string_lossy().into_owned();
                let sub = if relative.is_empty() {
                    name
                } else {
                    format!("{relative}/{name}")
                };
                self.add_tree(&sub);
            }
        }
        Some(())
    }

    /// Drops the watches of `.ai/memories` and the directories below it.
    fn drop_tree(&mut self) {
        let tree: Vec<i32> = (self.dirs.iter())
            .filter(|(_, dir)| dir.is_some())
            .map(|(wd, _)| *wd)
            .collect();
        for wd in tree {
            // SAFETY: our descriptor and a watch of it (one already gone is refused)
            unsafe { libc::inotify_rm_watch(self.fd, wd) };
            self.dirs.remove(&wd);
        }
    }

    /// Waits up to `timeout_ms` for changes; an empty [`Noticed`] when none came. While
    /// `.ai/memories` is gone (moved away, removed whole: a branch switch, a restore
    /// from a backup), nothing is said — its memories are not taken for deleted — and
    /// once a directory is there again everything is looked at.
    pub fn wait(&mut self, timeout_ms: i32) -> Noticed {
        let mut noticed = Noticed::default();
        if self.root_lost {
            if self.memories.is_dir() && self.add_tree("").is_some() {
                self.root_lost = false;
                noticed.everything = true;
                return noticed;
            }
            std::thread::sleep(std::time::Duration::from_millis(
                timeout_ms.clamp(0, 200) as u64
            ));
            return noticed;
        }
        let mut poll = libc::pollfd {
            fd: self.fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        if unsafe { libc::poll(&mut poll, 1, timeout_ms) } <= 0 {
            return noticed;
        }
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            // SAFETY: reading into our buffer of its length.
            let n = unsafe { libc::read(self.fd, buf.as_mut_ptr().cast(), buf.len()) };
            if n <= 0 {
                break;
            }
            let mut at = 0usize;
            let n = n as usize;
            let header = std::mem::size_of::<libc::inotify_event>();
            while at + header <= n {
                // SAFETY: the kernel writes whole events; read unaligned.
                let event: libc::inotify_event =
                    unsafe { std::ptr::read_unaligned(buf[at..].as_ptr().cast()) };
                let name_len = event.len as usize;
                let raw = &buf[at + header..(at + header + name_len).min(n)];
                let name = String::from_utf8_lossy(raw.split(|b| *b == 0).next().unwrap_or(&[]))
                    .into_owned();
                at += header + name_len;
                if event.mask & libc::IN_Q_OVERFLOW != 0 {
                    noticed.everything = true;
                    continue;
                }
                let self_gone = event.mask
                    & (libc::IN_MOVE_SELF | libc::IN_DELETE_SELF | libc::IN_IGNORED)
                    != 0;
                if self_gone && self.dirs.get(&event.wd) == Some(&Some(String::new())) {
                    self.drop_tree();
                    self.root_lost = true;
                    // what the burst said of its files is moot: all is looked at again
                    return Noticed::default();
                }
                match self.dirs.get(&event.wd).cloned() {
                    Some(None) => noticed.usage |= name == super::usage::USAGE_FILE,
                    Some(Some(dir)) => {
                        let relative = if dir.is_empty() {
                            name
                        } else {
                            format!("{dir}/{name}")
                        };
                        if event.mask & libc::IN_ISDIR != 0 {
                            if event.mask & (libc::IN_CREATE | libc::IN_MOVED_TO) != 0 {
                                self.add_tree(&relative);
                            }
                            noticed.everything = true;
                        } else if relative.ends_with(".md") && !noticed.paths.contains(&relative) {
                            noticed.paths.push(relative);
                        }
                    }
                    None => {}
                }
            }
        }
        noticed
    }
}
