//! The live view: while the browser is open, agents' servers and commands write to the
//! same store. A task reads the store's change number a few times a second; when it is
//! not the one the search index was brought up to, it asks for the index's update,
//! which reads from the change log which memories to read again (or loads everything
//! when the log cannot say), and the state refreshes the list as after the browser's own
//! writes, keeping the selection.

use super::offload::{Waits, offload};
use crate::store::Store;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How often the change number is read: a change shows within this and one update.
pub const WATCH_EVERY: Duration = Duration::from_millis(200);

/// The change number the newest search index holds, shared by the watcher and the
/// update that sets it.
pub type Held = Arc<AtomicU64>;

/// The change number of the store as it is now (0 when it cannot be read): a search
/// index loaded after this call holds at least this change.
pub fn held_now(store: &Store) -> Held {
    let number = store
        .read()
        .and_then(|reader| reader.change_number())
        .unwrap_or(0);
    Arc::new(AtomicU64::new(number))
}

/// Reads the change number every [`WATCH_EVERY`] until the browser is gone (nobody
/// listens on `app` any more), and asks `reload` for an update whenever it differs from
/// the one the index holds.
pub async fn watch_store<A>(
    store: Arc<Store>,
    held: Held,
    reload: watch::Sender<u64>,
    app: mpsc::UnboundedSender<A>,
    waits: Waits,
) {
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut asked_for = None;
    while !app.is_closed() {
        tick.tick().await;
        let st = store.clone();
        let Ok(Some(now)) = offload(&waits, move || st.read().ok()?.change_number().ok()).await
        else {
            continue;
        };
        // asked once per number: the update under way brings the index to it
        if now != held.load(Ordering::Relaxed) && asked_for != Some(now) {
            asked_for = Some(now);
            reload.send_modify(|v| *v += 1);
        }
    }
}
