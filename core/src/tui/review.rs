//! The review queues in the browser: a Review tab whose list is one queue at a time,
//! with every queue's count in the tab bar and what is left on the status line.
//!
//! How it behaves:
//! - The list, the detail pane and every curation key work on a queue as on a search:
//!   a verb on the memory under the cursor writes through, the queue is listed again
//!   and the memory leaves it when it no longer belongs, so the cursor lands on the
//!   next one; skipping moves on without a change; undo brings it back.
//! - On the pair queues (duplicates, conflicts) the right pane shows both memories
//!   side by side, the one kept on the left; merge (with nothing marked) merges the
//!   right one into the left after a yes, supersede deprecates the right one in
//!   favour of the left, "not a duplicate" records the pair so it never comes back,
//!   and swap changes which one is kept.
//! - Leaving for a mode tab (its number, or next/previous tab) ends the review.

use super::action::Action;
use super::curate::{begin, send};
use super::effect::Effect;
use super::modal::ConfirmFor;
use super::navigate::{move_selection, search_done};
use super::state::{Overlay, PAGE_SIZE, State};
use crate::curate::{Change, Edit};
use crate::model::Memory;
use crate::review::{Queue, ReviewRequest};

/// What the screen keeps of the review: the queue shown, every queue's count, and the
/// rest of each listed entry.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReviewScreen {
    /// The queue the list shows; `None` outside the Review tab.
    pub queue: Option<Queue>,
    /// Each queue's count, by [`Queue::index`], once known.
    pub counts: [Option<usize>; 6],
    /// The rest of each entry of the loaded page, in the order of its hits.
    pub rows: Vec<QueueRow>,
}

/// An entry's reason and, for a pair, its other memory.
#[derive(Debug, Clone, PartialEq)]
pub struct QueueRow {
    /// Why it is in the queue.
    pub reason: String,
    /// The other memory of a pair (the one merged or superseded).
    pub other: Option<Memory>,
    /// How alike the pair is.
    pub similarity: Option<f64>,
}

impl ReviewScreen {
    /// The row of a list position, when its page is loaded.
    pub fn row(&self, state_offset: usize, index: usize) -> Option<&QueueRow> {
        index
            .checked_sub(state_offset)
            .and_then(|i| self.rows.get(i))
    }

    /// How many are left in the queue shown.
    pub fn left(&self) -> Option<usize> {
        self.counts[self.queue?.index()]
    }
}

/// The queue page to ask for instead of a search, while a queue is shown: narrowed to
/// the search the query box and the filters make.
pub(super) fn page_effect(state: &State, offset: usize) -> Option<Effect> {
    let queue = state.review.queue?;
    Some(Effect::Review {
        generation: state.generation,
        request: Box::new(ReviewRequest {
            queue,
            narrow: state.request(0),
            offset,
            limit: PAGE_SIZE,
            root: None,
        }),
    })
}

/// The selected entry's pair: the memory kept and the other one.
pub fn selected_pair(state: &State) -> Option<(&Memory, &Memory)> {
    let hit = state.selected_hit()?;
    let row = state.review.row(state.results.offset, state.selected)?;
    Some((&hit.memory, row.other.as_ref()?))
}

/// Handles the review actions; hands every other action back.
pub(super) fn update(state: &mut State, action: Action, fx: &mut Vec<Effect>) -> Option<Action> {
    match action {
        Action::ShowReview => show(state, state.review.queue.unwrap_or(Queue::Pending), fx),
        Action::NextQueue | Action::PreviousQueue if state.review.queue.is_some() => {
            let at = state.review.queue.map_or(0, Queue::index);
            let step = if action == Action::NextQueue { 1 } else { 5 };
            show(state, Queue::ALL[(at + step) % 6], fx);
        }
        Action::NextQueue | Action::PreviousQueue => {}
        Action::SkipEntry => {
            begin(state);
            move_selection(state, 1, fx);
        }
        Action::Merge if state.marked.is_empty() && selected_pair(state).is_some() => {
            if let Some((keep, other)) = selected_pair(state) {
                let (into, from) = (keep.id.clone(), vec![other.id.clone()]);
                begin(state);
                state.overlay = Some(Overlay::Confirm(ConfirmFor::Merge { into, from }));
            }
        }
        Action::NotDuplicate | Action::Supersede | Action::SwapPair => {
            pair_verb(state, &action, fx)
        }
        Action::ReviewDone {
            generation,
            response,
            rows,
            counts,
            elapsed,
        } => {
            state.review.counts = counts;
            if generation == state.generation && state.review.queue.is_some() {
                state.review.rows = rows;
                let offset = state.requested_offset;
                search_done(state, (offset, response), elapsed, fx);
            }
        }
        other => return Some(other),
    }
    None
}

/// Shows a queue: the list becomes its entries, from the top.
fn show(state: &mut State, queue: Queue, fx: &mut Vec<Effect>) {
    state.review.queue = Some(queue);
    state.review.rows.clear();
    // the list of another queue must not stand under this one's title meanwhile
    state.results = Default::default();
    state.detail = None;
    state.detail_target = None;
    state.marked.clear();
    state.following = false;
    super::update::search_again(state, fx);
}

/// The verbs that need a pair under the cursor.
fn pair_verb(state: &mut State, action: &Action, fx: &mut Vec<Effect>) {
    begin(state);
    let Some((keep, other)) = selected_pair(state).map(|(k, o)| (k.id.clone(), o.id.clone()))
    else {
        state.message = Some("not a pair: open the duplicates or conflicts queue".into());
        return;
    };
    match action {
        Action::NotDuplicate if state.review.queue != Some(Queue::Duplicates) => {
            state.message = Some(
                "not a duplicate is for the duplicates queue: settle a conflict with S (supersede) or by editing one of them"
                    .into(),
            );
        }
        Action::NotDuplicate => {
            let pair = [keep.clone(), other.clone()];
            send(
                state,
                Change::edit(pair.clone(), Edit::NotDuplicate { pair }),
                fx,
            );
        }
        Action::Supersede => {
            send(state, Change::Supersede { keep, old: other }, fx);
        }
        _ => {
            // keep the other one: swap the pair in place (until the queue is listed again)
            let at = state.selected.saturating_sub(state.results.offset);
            if let (Some(hit), Some(row)) = (
                state.results.hits.get_mut(at),
                state.review.rows.get_mut(at),
            ) && let Some(o) = row.other.as_mut()
            {
                std::mem::swap(&mut hit.memory, o);
                state.detail_target = Some(hit.memory.id.clone());
                state.detail = None;
                fx.push(Effect::LoadDetail {
                    id: hit.memory.id.clone(),
                });
                state.report = Some(format!("keeping `{}`", hit.memory.id));
            }
        }
    }
}
