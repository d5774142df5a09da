//! The live view: while the browser is open, agents' servers and commands write to the
//! same store. A task reads the collection's version (the store's change number) a few
//! times a second; when it is not the one the collection was refreshed to, it asks for
//! a refresh, which reads from the change log which memories to read again (or loads
//! everything when the log cannot say), and the state refreshes the list as after the
//! browser's own writes, keeping the selection.

use super::offload::{Waits, offload};
use crate::collection::Collection;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::{mpsc, watch};

/// How often the change number is read: a change shows within this and one update.
pub const WATCH_EVERY: Duration = Duration::from_millis(200);

/// Reads the collection's version every [`WATCH_EVERY`] until the browser is gone
/// (nobody listens on `app` any more), and asks `reload` for a refresh whenever it
/// differs from `held`, the version the collection was last refreshed to.
pub async fn watch_store<A>(
    memories: Arc<dyn Collection>,
    held: Arc<AtomicU64>,
    reload: watch::Sender<u64>,
    app: mpsc::UnboundedSender<A>,
    waits: Waits,
) {
    let mut tick = tokio::time::interval(WATCH_EVERY);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut asked_for = None;
    while !app.is_closed() {
        tick.tick().await;
        let m = memories.clone();
        let Ok(Ok(now)) = offload(&waits, move || m.version()).await else {
            continue;
        };
        // asked once per number: the update under way brings the index to it
        if now != held.load(Ordering::Relaxed) && asked_for != Some(now) {
            asked_for = Some(now);
            reload.send_modify(|v| *v += 1);
        }
    }
}
