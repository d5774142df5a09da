//! The project while the browser is open: a watcher notices files that agents add,
//! change or delete (hivelore's `mem_save`, `mem_update`, `mem_delete`) and
//! `usage.json`, and the browser's write task reads them into the index, in order with
//! the person's own writes, keeping the selection. When the memory the person is
//! editing changes on disk, the editor stays open with their text and the status line
//! shows what the file says now; saving then is the person's choice, made knowing both.
//!
//! On Linux the watcher is told by the kernel which files changed (inotify,
//! [`super::notify`]) and only those are read, so a change shows at once however many
//! files the project has. Elsewhere, or where inotify is unavailable, it polls: every
//! [`POLL`] the memory files' sizes and modification times are compared with the last
//! look (a few hundred microseconds for a hundred files); a project whose look takes
//! longer is looked at less often, at most a quarter of the time.

use super::{Project, files, sync};
use crate::collection::Collection;
use crate::tui::action::Action;
use crate::tui::editor::OnDisk;
use crate::tui::state::State;
use crate::tui::write::{WriteKind, WriteOutcome, WriteReport, Written};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How often the project is looked at.
pub const POLL: Duration = Duration::from_millis(200);

/// What the files look like: every memory file's path, size and time, and
/// `usage.json`'s, folded into one number.
fn look(project: &Project) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for relative in files::list(&project.memories).unwrap_or_default() {
        relative.hash(&mut hasher);
        if let Ok(Some(stat)) = files::stat(&project.file(&relative)) {
            (stat.size, stat.mtime_ns).hash(&mut hasher);
        }
    }
    if let Ok(Some(stat)) = files::stat(&project.usage_path()) {
        (stat.size, stat.mtime_ns).hash(&mut hasher);
    }
    hasher.finish()
}

/// What the watcher saw change.
#[derive(Debug, Clone, PartialEq)]
pub struct Changed {
    /// The project.
    pub project: Project,
    /// The memory files that changed (paths under `.ai/memories`); `None`: look at
    /// every file.
    pub paths: Option<Vec<String>>,
    /// Whether `usage.json` changed.
    pub usage: bool,
}

impl Changed {
    /// Anything may have changed: every file is compared with the index.
    pub fn everything(project: Project) -> Changed {
        Changed {
            project,
            paths: None,
            usage: true,
        }
    }
}

/// Stops the watcher when dropped.
pub struct Watcher {
    stop: Arc<AtomicBool>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Watches `project` on a thread of its own, sending [`Action::FilesChanged`] whenever
/// its files look different from the last look; ends when dropped or when nobody
/// listens any more.
pub fn watch(project: Project, actions: tokio::sync::mpsc::UnboundedSender<Action>) -> Watcher {
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    std::thread::spawn(move || {
        #[cfg(target_os = "linux")]
        if let Some(notifier) = super::notify::Notifier::new(&project) {
            return notified(notifier, project, actions, &stopped);
        }
        let mut last = look(&project);
        while !stopped.load(Ordering::Relaxed) {
            let started = Instant::now();
            let now = look(&project);
            let took = started.elapsed();
            if now != last {
                last = now;
                if actions
                    .send(Action::FilesChanged(Box::new(Changed::everything(
                        project.clone(),
                    ))))
                    .is_err()
                {
                    break;
                }
            }
            std::thread::sleep(POLL.max(took * 4));
        }
    });
    Watcher { stop }
}

/// The watcher's loop with kernel notifications: the files named are read, after a
/// short pause that gathers the rest of a burst (an agent writing several files).
#[cfg(target_os = "linux")]
fn notified(
    mut notifier: super::notify::Notifier,
    project: Project,
    actions: tokio::sync::mpsc::UnboundedSender<Action>,
    stopped: &AtomicBool,
) {
    while !stopped.load(Ordering::Relaxed) {
        let mut noticed = notifier.wait(200);
        if noticed.paths.is_empty() && !noticed.usage && !noticed.everything {
            continue;
        }
        let more = notifier.wait(15);
        noticed.usage |= more.usage;
        noticed.everything |= more.everything;
        for p in more.paths {
            if !noticed.paths.contains(&p) {
                noticed.paths.push(p);
            }
        }
        let changed = Changed {
            project: project.clone(),
            paths: (!noticed.everything).then_some(noticed.paths),
            usage: noticed.usage,
        };
        if actions
            .send(Action::FilesChanged(Box::new(changed)))
            .is_err()
        {
            break;
        }
    }
}

/// Reads what changed on disk into the collection (the write task runs it, so it is
/// in order with the person's writes) and answers like a write.
pub fn reread(memories: &dyn Collection, changed: &Changed, started: Instant) -> Action {
    let synced = memories.read_project(&changed.project, changed.paths.as_deref(), changed.usage);
    let result = synced.map_err(|e| e.to_string()).and_then(|synced| {
        let mut changed = Vec::new();
        for id in synced.changed.iter().chain(&synced.removed) {
            let after = memories.get(id).map_err(|e| e.to_string())?;
            changed.push(Written {
                id: id.clone(),
                after,
            });
        }
        let mut description = describe(&synced);
        if let Some(p) = synced.problems.first() {
            description.push_str(&format!(" · not read: {p}"));
        }
        Ok(WriteReport {
            description,
            changed,
            unchanged: Vec::new(),
            no_op_reason: None,
        })
    });
    let history = memories.history();
    Action::Written(Box::new(WriteOutcome {
        kind: WriteKind::Disk,
        token: 0,
        result,
        next_undo: history.next_undo,
        next_redo: history.next_redo,
        elapsed: started.elapsed(),
    }))
}

fn describe(synced: &sync::Synced) -> String {
    let (c, r) = (synced.changed.len(), synced.removed.len());
    match (c, r) {
        (0, 0) => "files changed on disk; no memory changed".into(),
        (c, 0) => format!("{} changed on disk", crate::words::memories(c)),
        (0, r) => format!("{} deleted on disk", crate::words::plural(r, "memory file")),
        (c, r) => format!("{c} changed and {r} deleted on disk"),
    }
}

/// When the memory in the editor changed on disk, says so and shows what the file
/// says now beside the person's unsaved text (which stays in the editor).
pub fn warn_editor(state: &mut State, changed: &[Written]) {
    let Some(editor) = state.editor.as_mut() else {
        return;
    };
    let Some(w) = changed.iter().find(|w| w.id == editor.id) else {
        return;
    };
    let (disk, summary) = match &w.after {
        None => (OnDisk::Deleted, "the file was deleted".to_string()),
        Some(m) => (
            OnDisk::Changed(Box::new(m.clone())),
            format!("on disk now: {}", m.status.as_str()),
        ),
    };
    editor.on_disk = Some(disk);
    state.message = Some(format!(
        "`{}` changed on disk while you edit it — {summary}, both versions side by side — your text is still here: Ctrl-s saves it over the new version, Esc keeps the file's",
        editor.id
    ));
}
