//! Tracked reads: opening a memory counts as a read (`read_count` + 1, `last_read_at` =
//! now). A read is not an edit: `updated_at` stays, and it never enters the undo history.

use super::apply::existing;
use super::error::{CurateError, CurateResult};
use crate::model::{Memory, Timestamp};
use crate::store::Store;

/// Records one read of each memory now, in one durable transaction; returns the
/// memories as stored afterwards. An unknown id aborts all.
pub fn track_reads(store: &Store, ids: &[String]) -> CurateResult<Vec<Memory>> {
    track_reads_at(store, ids, Timestamp::now())
}

/// [`track_reads`] with the clock given. An id listed twice is read twice.
pub fn track_reads_at(store: &Store, ids: &[String], now: Timestamp) -> CurateResult<Vec<Memory>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut w = store.write()?;
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let mut memory = existing(&w, id)?;
        memory.read_count = memory.read_count.saturating_add(1);
        memory.last_read_at = Some(now);
        w.put(&memory)?;
        out.push(memory);
    }
    w.commit()?;
    Ok(out)
}

/// Records one read of every memory of a search's page now, and puts each memory as
/// stored afterwards into its hit (`memlens search --track`, the agents' searches).
pub fn track_hits(store: &Store, hits: &mut [crate::search::Hit]) -> CurateResult<()> {
    let ids: Vec<String> = hits.iter().map(|h| h.memory.id.clone()).collect();
    let updated = track_reads(store, &ids)?;
    for (hit, memory) in hits.iter_mut().zip(updated) {
        hit.memory = memory;
    }
    Ok(())
}

/// Records one read of a memory now; returns it as stored afterwards.
pub fn track_read(store: &Store, id: &str) -> CurateResult<Memory> {
    track_reads(store, &[id.to_string()])?
        .pop()
        .ok_or_else(|| CurateError::UnknownId(id.to_string()))
}
