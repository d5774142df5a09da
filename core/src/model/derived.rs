//! Values computed from a memory's stored fields, never read from input:
//! Bayesian rating, composites, and hivelore's confidence tier.

use super::feel::Composite;
use super::memory::{Memory, Status};
use super::timestamp::Timestamp;
use std::fmt;

/// Prior mean of the Bayesian rating.
pub const RATING_PRIOR_MEAN: f64 = 3.0;
/// Weight of the prior, in ratings.
pub const RATING_PRIOR_WEIGHT: f64 = 5.0;
/// Ratings needed before the plain average is shown and a memory leaves discovery.
pub const RATED_THRESHOLD: u32 = 5;

/// hivelore's confidence tier, derived for display only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ConfidenceTier {
    /// Stale, deprecated or rejected.
    Stale,
    /// A draft.
    Unverified,
    /// Proposed, read fewer than 3 times.
    Low,
    /// Validated, or proposed and read ≥ 3 times.
    Trusted,
    /// Validated and read ≥ 10 times.
    Authoritative,
}

impl ConfidenceTier {
    /// The tier's name as hivelore shows it.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfidenceTier::Stale => "stale",
            ConfidenceTier::Unverified => "unverified",
            ConfidenceTier::Low => "low",
            ConfidenceTier::Trusted => "trusted",
            ConfidenceTier::Authoritative => "authoritative",
        }
    }

    fn lower(self) -> ConfidenceTier {
        match self {
            ConfidenceTier::Authoritative => ConfidenceTier::Trusted,
            ConfidenceTier::Trusted => ConfidenceTier::Low,
            ConfidenceTier::Low => ConfidenceTier::Unverified,
            ConfidenceTier::Unverified | ConfidenceTier::Stale => ConfidenceTier::Stale,
        }
    }
}

impl fmt::Display for ConfidenceTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Days without a read after which the tier drops by one.
pub const TIER_DECAY_DAYS: i64 = 180;

/// `(sum + 3 × 5) / (count + 5)`: the Bayesian rating of `count` ratings adding up to
/// `sum`; 3.0 with none.
pub fn bayesian_rating(sum: u32, count: u32) -> f64 {
    (f64::from(sum) + RATING_PRIOR_MEAN * RATING_PRIOR_WEIGHT)
        / (f64::from(count) + RATING_PRIOR_WEIGHT)
}

impl Memory {
    /// [`bayesian_rating`] of this memory's ratings.
    pub fn rating_bayesian(&self) -> f64 {
        bayesian_rating(self.rating_sum, self.rating_count)
    }

    /// The plain average, only once there are at least 5 ratings.
    pub fn rating_avg(&self) -> Option<f64> {
        (self.rating_count >= RATED_THRESHOLD)
            .then(|| f64::from(self.rating_sum) / f64::from(self.rating_count))
    }

    /// A composite significance score; `None` when no dimension it uses is scored.
    pub fn composite(&self, which: Composite) -> Option<f64> {
        which.compute(&self.feel)
    }

    /// hivelore's confidence tier at time `now` (SPEC §2.3).
    pub fn confidence_tier(&self, now: Timestamp) -> ConfidenceTier {
        let tier = match self.status {
            Status::Draft => ConfidenceTier::Unverified,
            Status::Proposed if self.read_count >= 3 => ConfidenceTier::Trusted,
            Status::Proposed => ConfidenceTier::Low,
            Status::Validated if self.read_count >= 10 => ConfidenceTier::Authoritative,
            Status::Validated => ConfidenceTier::Trusted,
            Status::Stale | Status::Deprecated | Status::Rejected => ConfidenceTier::Stale,
        };
        let last_seen = self.last_read_at.unwrap_or(self.created_at);
        if tier != ConfidenceTier::Stale && last_seen.days_until(now) >= TIER_DECAY_DAYS {
            tier.lower()
        } else {
            tier
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: &str) -> Timestamp {
        Timestamp::parse(s).unwrap()
    }

    #[test]
    fn bayesian_rating_starts_at_three_and_moves_with_ratings() {
        let mut m = Memory::new("a", "b", at("2026-01-01T00:00:00Z"));
        assert_eq!(m.rating_bayesian(), 3.0);
        assert_eq!(m.rating_avg(), None);
        m.rating_sum = 25;
        m.rating_count = 5;
        assert_eq!(m.rating_bayesian(), 4.0);
        assert_eq!(m.rating_avg(), Some(5.0));
    }

    #[test]
    fn tier_follows_status_reads_and_decays_after_180_days() {
        let created = at("2026-01-01T00:00:00Z");
        let mut m = Memory::new("a", "b", created);
        m.status = Status::Validated;
        assert_eq!(
            m.confidence_tier(at("2026-02-01T00:00:00Z")),
            ConfidenceTier::Trusted
        );
        m.read_count = 10;
        assert_eq!(
            m.confidence_tier(at("2026-02-01T00:00:00Z")),
            ConfidenceTier::Authoritative
        );
        assert_eq!(
            m.confidence_tier(at("2026-07-01T00:00:00Z")),
            ConfidenceTier::Trusted
        );
        m.last_read_at = Some(at("2026-06-30T00:00:00Z"));
        assert_eq!(
            m.confidence_tier(at("2026-07-01T00:00:00Z")),
            ConfidenceTier::Authoritative
        );
        m.status = Status::Proposed;
        m.read_count = 2;
        assert_eq!(
            m.confidence_tier(at("2026-07-01T00:00:00Z")),
            ConfidenceTier::Low
        );
        m.status = Status::Rejected;
        assert_eq!(
            m.confidence_tier(at("2026-07-01T00:00:00Z")),
            ConfidenceTier::Stale
        );
    }
}
