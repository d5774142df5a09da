//! The corpus a collection keeps between the requests it answers from the persisted
//! index (while its in-memory index loads): the facts and the columns read for one
//! request are what the next one reads again, so they are kept, with the store's change
//! number they were read at, and the next request on the same change reads only the
//! columns it adds. A tab switch or a slider step pressed during the load then reads one
//! column instead of the whole collection's facts.
//!
//! A kept corpus answers exactly as one read for the request alone: every column it
//! holds was read at the same change, and the answer code reads only the columns the
//! request needs (`tests/search_plan.rs` holds the two to each other).

use crate::search::corpus::Corpus;
use crate::search::stored::{self, Needs};
use crate::store::{StoreReader, StoreResult};
use std::sync::{Mutex, MutexGuard, PoisonError, TryLockError};

/// What one collection keeps: at most one corpus, of one change of the store.
#[derive(Default)]
pub struct KeptCorpus {
    kept: Mutex<Option<Kept>>,
}

/// A corpus read at `change`, holding what `read` needs.
struct Kept {
    change: u64,
    read: Needs,
    corpus: Corpus,
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

/// Runs `f` on a corpus of `reader` holding what `needs` asks for: the one `kept` holds,
/// extended, when it was read at the reader's change, else one read now, which `kept`
/// then holds. `f` hands the corpus back with its answer. `None` when the persisted
/// index cannot answer (as [`stored::load`]). Without `kept`, or when another request is
/// using its corpus, the corpus is read for this request alone.
pub(crate) fn with_corpus<T>(
    kept: Option<&KeptCorpus>,
    reader: &StoreReader,
    needs: &Needs,
    f: impl FnOnce(Corpus) -> (T, Corpus),
) -> StoreResult<Option<T>> {
    let Some(mut slot) = kept.and_then(KeptCorpus::free) else {
        return Ok(stored::load(reader, needs)?.map(|c| f(c).0));
    };
    let change = reader.change_number()?;
    let kept = match slot.take() {
        Some(mut k) if k.change == change => {
            stored::extend(reader, &mut k.corpus, &mut k.read, needs)?.then_some(k)
        }
        _ => stored::load(reader, needs)?.map(|corpus| Kept {
            change,
            read: needs.clone(),
            corpus,
        }),
    };
    let Some(mut k) = kept else {
        return Ok(None);
    };
    let (answer, corpus) = f(k.corpus);
    k.corpus = corpus;
    *slot = Some(k);
    Ok(Some(answer))
}
