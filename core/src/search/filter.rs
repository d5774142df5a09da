//! Which memories pass the filters of SPEC §3.1, evaluated over the corpus columns.

use crate::model::Status;
use crate::search::corpus::{Corpus, NO_MODULE};
use crate::search::engine::{in_parts, scan};
use crate::search::request::{Filters, NumericField, Range};

pub use crate::model::SESSION_RECAP;

/// Filters turned into column numbers, ready to test slots fast.
pub(crate) struct CompiledFilters<'a> {
    filters: &'a Filters,
    types: Option<Vec<u32>>,
    exclude_types: Vec<u32>,
    /// Session recaps are left out (the default): told by the corpus's recap flags.
    hide_recaps: bool,
    modules: Option<Vec<u32>>,
    tags: Option<Vec<u32>>,
    ranges: Vec<(NumericField, Range)>,
    created_from: Option<i64>,
    created_to: Option<i64>,
    /// Whether a bound of the ignored field was left out.
    left_out: bool,
    /// Whether the facts' flags (deleted, session recap) are all these filters read.
    only_flags: bool,
}

fn numbers(names: &[String], lookup: impl Fn(&str) -> Option<u32>) -> Vec<u32> {
    names.iter().filter_map(|n| lookup(n)).collect()
}

impl<'a> CompiledFilters<'a> {
    /// Compiles `filters`; the range on `ignore` (if any) is left out (for histograms).
    pub fn new(c: &Corpus, filters: &'a Filters, ignore: Option<NumericField>) -> Self {
        let exclude_types = numbers(&filters.exclude_types, |n| c.type_names.number(n));
        let hide_recaps =
            !filters.include_session_recap && !filters.types.iter().any(|t| t == SESSION_RECAP);
        let types = (!filters.types.is_empty())
            .then(|| numbers(&filters.types, |n| c.type_names.number(n)));
        let modules = (!filters.modules.is_empty())
            .then(|| numbers(&filters.modules, |n| c.module_names.number(n)));
        let tags =
            (!filters.tags.is_empty()).then(|| numbers(&filters.tags, |n| c.tag_names.number(n)));
        let mut ranges = Vec::new();
        let mut left_out = false;
        let mut add = |field: NumericField, r: Range| {
            if r.is_open() {
                return;
            }
            if ignore == Some(field) {
                left_out = true;
            } else {
                ranges.push((field, r));
            }
        };
        add(NumericField::Weight, filters.weight);
        add(NumericField::Trust, filters.trust);
        add(NumericField::TrustLevel, filters.trust_level);
        add(
            NumericField::RatingBayesian,
            Range {
                min: filters.rating_min,
                max: None,
            },
        );
        add(NumericField::RelationshipCount, filters.relationship_count);
        for (i, r) in filters.feel.iter().enumerate() {
            add(NumericField::Feel(i), *r);
        }
        for (c, r) in crate::model::Composite::ALL.iter().zip(&filters.composites) {
            add(NumericField::Composite(*c), *r);
        }
        let ignore_time = ignore == Some(NumericField::CreatedAt);
        let time_bounded = filters.created_from.is_some() || filters.created_to.is_some();
        let created_from = filters.created_from.filter(|_| !ignore_time).map(|t| t.0);
        let created_to = filters.created_to.filter(|_| !ignore_time).map(|t| t.0);
        // none of the filters `passes_columns` tests is there (a new filter there is
        // named here too; the plan's oracle tests catch one that is not)
        let only_flags = types.is_none()
            && exclude_types.is_empty()
            && filters.scopes.is_empty()
            && modules.is_none()
            && !filters.exclude_rejected
            && filters.statuses.is_empty()
            && tags.is_none()
            && created_from.is_none()
            && created_to.is_none()
            && filters.has_relationships.is_none()
            && ranges.is_empty();
        CompiledFilters {
            only_flags,
            left_out: left_out || (ignore_time && time_bounded),
            filters,
            types,
            exclude_types,
            hide_recaps,
            modules,
            tags,
            ranges,
            created_from,
            created_to,
        }
    }

    /// Whether a bound on the field left out at compiling was there: when not, these
    /// filters keep what the whole filters keep.
    pub fn leaves_out_any(&self) -> bool {
        self.left_out
    }

    /// Whether the memory in `slot` passes every filter.
    pub fn passes(&self, c: &Corpus, slot: usize) -> bool {
        self.passes_flags(c.deleted[slot], c.recap[slot])
            && (self.only_flags || self.passes_columns(c, slot))
    }

    /// Whether a memory soft-deleted or not (`deleted`), a session recap or not
    /// (`recap`), passes the filters on these flags.
    #[inline]
    fn passes_flags(&self, deleted: bool, recap: bool) -> bool {
        self.filters.deleted.keeps(deleted) && !(self.hide_recaps && recap)
    }

    /// Whether the memory in `slot` passes every filter beside the flags'.
    fn passes_columns(&self, c: &Corpus, slot: usize) -> bool {
        let f = self.filters;
        // each column read only when a filter asks about it
        if self.types.is_some() || !self.exclude_types.is_empty() {
            let t = c.types[slot];
            if self.exclude_types.contains(&t)
                || self.types.as_ref().is_some_and(|ts| !ts.contains(&t))
            {
                return false;
            }
        }
        if !f.scopes.is_empty() && !f.scopes.contains(&c.scope[slot]) {
            return false;
        }
        if let Some(modules) = &self.modules
            && (c.module[slot] == NO_MODULE || !modules.contains(&c.module[slot]))
        {
            return false;
        }
        if f.exclude_rejected || !f.statuses.is_empty() {
            let status = c.status[slot];
            if (f.exclude_rejected && status == Status::Rejected)
                || (!f.statuses.is_empty() && !f.statuses.contains(&status))
            {
                return false;
            }
        }
        if let Some(tags) = &self.tags
            && !c.tags_of(slot).iter().any(|t| tags.contains(t))
        {
            return false;
        }
        if self.created_from.is_some() || self.created_to.is_some() {
            let created = c.created[slot];
            if self.created_from.is_some_and(|lo| created < lo)
                || self.created_to.is_some_and(|hi| created > hi)
            {
                return false;
            }
        }
        if let Some(has) = f.has_relationships
            && (c.relationship_count[slot] > 0) != has
        {
            return false;
        }
        self.ranges
            .iter()
            .all(|(field, r)| r.admits(c.value(slot, *field)))
    }

    /// Every slot that passes, ascending; on all cores for large stores, except that
    /// filters on the flags alone (the default ones among them) read the flags a run at
    /// a time on one.
    pub fn select(&self, c: &Corpus) -> Vec<u32> {
        if !self.only_flags {
            return in_parts(c.len(), |range| {
                range
                    .filter(|&s| self.passes(c, s))
                    .map(|s| s as u32)
                    .collect()
            });
        }
        // One pass into one vector: a run of flags takes about a nanosecond a slot, less
        // than what the second core would save, and gathering its part into the answer
        // wrote (and faulted in) the whole set twice. Every slot is written at the end
        // of those kept so far, which moves on only when it passes: no branch on the
        // flags.
        debug_assert_eq!(c.deleted.len(), c.recap.len());
        let mut kept = vec![0u32; c.len()];
        let mut len = 0;
        let runs = c.deleted.runs(0..c.len()).zip(c.recap.runs(0..c.len()));
        for ((first, deleted), (also, recap)) in runs {
            debug_assert_eq!((first, deleted.len()), (also, recap.len()));
            for (slot, (&d, &r)) in (first as u32..).zip(deleted.iter().zip(recap)) {
                kept[len] = slot;
                len += usize::from(self.passes_flags(d, r));
            }
        }
        kept.truncate(len);
        kept
    }

    /// The slots of `within` (ascending) that pass, when it holds every slot that does.
    pub fn select_within(&self, c: &Corpus, within: &[u32]) -> Vec<u32> {
        scan(within, |s| self.passes(c, s as usize).then_some(s))
    }
}

/// Whether the lower bound `mine` keeps nothing that `wider` leaves out (`None`: no
/// bound).
fn min_within<T: PartialOrd>(mine: Option<T>, wider: Option<T>) -> bool {
    wider.is_none_or(|w| mine.is_some_and(|m| m >= w))
}

/// Whether the upper bound `mine` keeps nothing that `wider` leaves out (`None`: no
/// bound).
fn max_within<T: PartialOrd>(mine: Option<T>, wider: Option<T>) -> bool {
    wider.is_none_or(|w| mine.is_some_and(|m| m <= w))
}

impl Range {
    /// Whether every value this range admits `outer` admits too (a bounded range
    /// admits no absent value, so inside a bounded one only a bounded one fits, which
    /// the bounds already say).
    fn within(&self, outer: &Range) -> bool {
        min_within(self.min, outer.min) && max_within(self.max, outer.max)
    }
}

impl Filters {
    /// Whether every memory these filters keep is kept by `wider` too: the same filters
    /// with each numeric range, the rating minimum and the time window at most as wide
    /// (a slider moved inwards), so the narrower set can be picked out of the wider one.
    pub(crate) fn narrows(&self, wider: &Filters) -> bool {
        let rest_equal = Filters {
            weight: wider.weight,
            trust: wider.trust,
            relationship_count: wider.relationship_count,
            feel: wider.feel,
            composites: wider.composites,
            rating_min: wider.rating_min,
            created_from: wider.created_from,
            created_to: wider.created_to,
            ..self.clone()
        } == *wider;
        rest_equal
            && self.weight.within(&wider.weight)
            && self.trust.within(&wider.trust)
            && self.relationship_count.within(&wider.relationship_count)
            && self.feel.iter().zip(&wider.feel).all(|(a, b)| a.within(b))
            && self
                .composites
                .iter()
                .zip(&wider.composites)
                .all(|(a, b)| a.within(b))
            && min_within(self.rating_min, wider.rating_min)
            && min_within(self.created_from, wider.created_from)
            && max_within(self.created_to, wider.created_to)
    }
}
