//! Review queues: the lists of memories that need a person — approval, pending,
//! agent-validated, stale, near-duplicates, conflicts — as plain library functions over
//! a store snapshot, so the command line and the browser show the same lists (and a
//! future single front door can serve them as saved requests).
//!
//! How it behaves, where the queues' sources leave room:
//! - `approval`: `requires_human_approval` and no person has decided (approved or
//!   turned down) yet. `pending`: draft or proposed. `agent`: validated with
//!   `validated_by` agent or auto. All three, like hivelore's `mem_pending`, most read
//!   first, then newest, then id.
//! - `stale`: see [`queues::is_stale`]; deprecated and rejected memories are done
//!   with. Oldest read first.
//! - `duplicates` and `conflicts` hold pairs, most similar first; the first of a pair
//!   is the one to keep by hivelore's rule ([`conflicts::keep_first`]).
//! - Deleted memories are in no queue. A pair a person marked "not a duplicate"
//!   (`not_duplicate_of` in `extra`, on both memories) is never listed again.

pub mod conflicts;
pub mod duplicates;
pub mod fields;
pub mod queues;
pub mod request;
pub mod scan;
pub mod shingles;
pub mod update;

pub use queues::ReviewOptions;
pub use request::{LiveReview, ReviewItem, ReviewPage, ReviewRequest};
pub use scan::{Entry, Review};

use std::fmt;
use std::str::FromStr;

/// One review queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Queue {
    /// `requires_human_approval`, not yet decided by a person.
    Approval,
    /// Draft and proposed, most read first.
    Pending,
    /// Validated by an agent or automatically, not by a person.
    Agent,
    /// Status stale, neither read nor changed for 180 days, expired, or anchored to
    /// files gone.
    Stale,
    /// Pairs of near-duplicate memories.
    Duplicates,
    /// Pairs of memories that may contradict each other.
    Conflicts,
}

impl Queue {
    /// Every queue, in the order the browser shows them.
    pub const ALL: [Queue; 6] = [
        Queue::Approval,
        Queue::Pending,
        Queue::Agent,
        Queue::Stale,
        Queue::Duplicates,
        Queue::Conflicts,
    ];

    /// The name on the command line and in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Queue::Approval => "approval",
            Queue::Pending => "pending",
            Queue::Agent => "agent",
            Queue::Stale => "stale",
            Queue::Duplicates => "duplicates",
            Queue::Conflicts => "conflicts",
        }
    }

    /// The title the browser's tab shows.
    pub fn title(self) -> &'static str {
        match self {
            Queue::Approval => "Approval",
            Queue::Pending => "Pending",
            Queue::Agent => "AI-validated",
            Queue::Stale => "Stale",
            Queue::Duplicates => "Duplicates",
            Queue::Conflicts => "Conflicts",
        }
    }

    /// Position in [`Queue::ALL`].
    pub fn index(self) -> usize {
        Queue::ALL.iter().position(|q| *q == self).unwrap_or(0)
    }

    /// True for the queues whose entries are pairs of memories.
    pub fn holds_pairs(self) -> bool {
        matches!(self, Queue::Duplicates | Queue::Conflicts)
    }
}

impl fmt::Display for Queue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Queue {
    type Err = String;
    fn from_str(s: &str) -> Result<Queue, String> {
        Queue::ALL
            .into_iter()
            .find(|q| q.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Queue::ALL.iter().map(|q| q.as_str()).collect();
                format!("`{s}` is not a queue: one of {}", names.join(", "))
            })
    }
}
