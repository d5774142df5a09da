//! The corpus a collection keeps between the requests it answers from the persisted
//! index (while its in-memory index loads): the facts and the columns read for one
//! request are what the next one reads again, so they are kept, with the store's change
//! number they were read at, and the next request on the same change reads only the
//! columns it adds. A tab switch or a slider step pressed during the load then reads one
//! column instead of the whole collection's facts. The searcher made over the corpus is
//! kept with it, and with the searcher what it worked out for one request that the next
//! may reuse: the memories the last filters keep, the browse orders.
//!
//! A kept corpus answers exactly as one read for the request alone: every column it
//! holds was read at the same change, and the answer code reads only the columns the
//! request needs (`tests/search_plan.rs` holds the two to each other).

use crate::search::Stop;
use crate::search::searcher::Searcher;
use crate::search::stored::{self, Needs};
use crate::store::{StoreReader, StoreResult};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// What one collection keeps: at most one searcher over a corpus of one change of the
/// store.
#[derive(Default)]
pub struct KeptCorpus {
    kept: Mutex<Option<Kept>>,
}

/// A searcher over a corpus read at `change`, holding what `read` needs.
struct Kept {
    change: u64,
    read: Needs,
    searcher: Searcher,
}

impl KeptCorpus {
    /// Lets the kept corpus go (the in-memory index answers from now on).
    pub fn clear(&self) {
        *self.kept.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// The kept corpus, unless another request is using it; what a request that
    /// panicked left half made is let go.
    fn free(&self) -> Option<MutexGuard<'_, Option<Kept>>> {
        match self.kept.try_lock() {
            Ok(slot) => Some(slot),
            Err(TryLockError::Poisoned(held)) => {
                let mut slot = held.into_inner();
                *slot = None;
                Some(slot)
            }
            Err(TryLockError::WouldBlock) => None,
        }
    }
}

/// Runs `f` on a searcher over a corpus of `reader` holding what `needs` asks for: the
/// one `kept` holds, its corpus extended, when it was read at the reader's change, else
/// one over a corpus read now, which `kept` then holds. A kept searcher keeps what it
/// worked out for earlier requests on the same corpus (the last filters' selection,
/// the browse orders), as the loaded one does. `None` when the persisted index cannot
/// answer (as [`stored::load`]), and when `stop` said so while a column was read into
/// the kept corpus (which then stays as it was). Without `kept`, or when another
/// request is using its searcher, the corpus is read for this request alone.
pub(crate) fn with_searcher<T>(
    kept: Option<&KeptCorpus>,
    reader: &StoreReader,
    needs: &Needs,
    stop: Stop<'_>,
    f: impl FnOnce(&Searcher) -> T,
) -> StoreResult<Option<T>> {
    let searcher = |corpus| Searcher::with(corpus, None, reader.path());
    let Some(mut slot) = kept.and_then(KeptCorpus::free) else {
        return Ok(stored::load(reader, needs)?.map(|c| f(&searcher(c))));
    };
    let change = reader.change_number()?;
    let kept = match slot.take() {
        Some(mut k) if k.change == change => {
            if !stored::extend(reader, &mut k.searcher.corpus, &mut k.read, needs, stop)? {
                if stop() {
                    // stopped before the corpus changed: kept for the request that stopped it
                    *slot = Some(k);
                }
                return Ok(None);
            }
            Some(k)
        }
        _ => stored::load(reader, needs)?.map(|corpus| Kept {
            change,
            read: needs.clone(),
            searcher: searcher(corpus),
        }),
    };
    let Some(k) = kept else {
        return Ok(None);
    };
    let answer = f(&k.searcher);
    *slot = Some(k);
    Ok(Some(answer))
}
