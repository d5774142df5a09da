//! The rows of the filter panel: which filter each row edits, its bounds and step,
//! and how `h`/`l`/`H`/`L`/`0` change it. Every value lives in `search::Filters`.

use crate::model::{Composite, FEEL_COUNT, FEEL_DIMS, Scope, Status, Timestamp};
use crate::search::{DeletedFilter, Filters, NumericField, Range};

/// The filter a row of the panel edits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterKind {
    /// Soft-deleted memories: exclude, include or only.
    Deleted,
    /// One status, or any.
    Status,
    /// Hide rejected memories.
    ExcludeRejected,
    /// One scope, or any.
    Scope,
    /// One type, or any.
    Type,
    /// One tag, or any.
    Tag,
    /// One module, or any.
    Module,
    /// With or without relationships, or either.
    HasRelationships,
    /// Range on weight.
    Weight,
    /// Range on trust.
    Trust,
    /// Range of remember-core confidentiality levels, 1 public … 5 secret.
    TrustLevel,
    /// Minimum Bayesian rating.
    RatingMin,
    /// Range on relationship_count.
    RelationshipCount,
    /// Range on created_at.
    CreatedAt,
    /// Range on a composite significance.
    Composite(Composite),
    /// Range on one `feel_*` dimension.
    Feel(usize),
}

/// Every row of the panel, in display order.
pub fn all_rows() -> Vec<FilterKind> {
    let mut rows = vec![
        FilterKind::Deleted,
        FilterKind::Status,
        FilterKind::ExcludeRejected,
        FilterKind::Scope,
        FilterKind::Type,
        FilterKind::Tag,
        FilterKind::Module,
        FilterKind::HasRelationships,
        FilterKind::Weight,
        FilterKind::Trust,
        FilterKind::TrustLevel,
        FilterKind::RatingMin,
        FilterKind::RelationshipCount,
        FilterKind::CreatedAt,
    ];
    rows.extend(Composite::ALL.into_iter().map(FilterKind::Composite));
    rows.extend((0..FEEL_COUNT).map(FilterKind::Feel));
    rows
}

/// The values the choice rows offer and the spans of the open-ended sliders,
/// gathered from the store in the background.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Facets {
    /// Every type in the store, sorted.
    pub types: Vec<String>,
    /// Every tag in the store, sorted.
    pub tags: Vec<String>,
    /// Every module in the store, sorted.
    pub modules: Vec<String>,
    /// Highest relationship_count.
    pub max_relationships: u32,
    /// Earliest and latest created_at.
    pub created_span: Option<(Timestamp, Timestamp)>,
}

/// Step of the `feel_*`, composite, weight and trust sliders.
pub const STEP: f64 = 0.05;

impl FilterKind {
    /// The label shown in the panel.
    pub fn label(self) -> String {
        match self {
            FilterKind::Deleted => "deleted".into(),
            FilterKind::Status => "status".into(),
            FilterKind::ExcludeRejected => "hide rejected".into(),
            FilterKind::Scope => "scope".into(),
            FilterKind::Type => "type".into(),
            FilterKind::Tag => "tag".into(),
            FilterKind::Module => "module".into(),
            FilterKind::HasRelationships => "has relationships".into(),
            FilterKind::Weight => "weight".into(),
            FilterKind::Trust => "trust".into(),
            FilterKind::TrustLevel => "trust level 1 public–5 secret".into(),
            FilterKind::RatingMin => "rating (bayesian) min".into(),
            FilterKind::RelationshipCount => "relationship_count".into(),
            FilterKind::CreatedAt => "created_at".into(),
            FilterKind::Composite(c) => c.field().into(),
            FilterKind::Feel(i) => FEEL_DIMS[i].field.into(),
        }
    }

    /// The numeric field a slider row ranges over; `None` for choice rows.
    pub fn field(self) -> Option<NumericField> {
        Some(match self {
            FilterKind::Weight => NumericField::Weight,
            FilterKind::Trust => NumericField::Trust,
            FilterKind::TrustLevel => NumericField::TrustLevel,
            FilterKind::RatingMin => NumericField::RatingBayesian,
            FilterKind::RelationshipCount => NumericField::RelationshipCount,
            FilterKind::CreatedAt => NumericField::CreatedAt,
            FilterKind::Composite(c) => NumericField::Composite(c),
            FilterKind::Feel(i) => NumericField::Feel(i),
            _ => return None,
        })
    }

    /// True for rows drawn as a slider over a histogram.
    pub fn is_slider(self) -> bool {
        self.field().is_some()
    }

    /// The slider's full span and step.
    pub fn span(self, facets: &Facets) -> (f64, f64, f64) {
        match self {
            FilterKind::RatingMin => (1.0, 5.0, 0.1),
            FilterKind::TrustLevel => (1.0, 5.0, 1.0),
            FilterKind::RelationshipCount => (0.0, f64::from(facets.max_relationships.max(1)), 1.0),
            FilterKind::CreatedAt => match facets.created_span {
                Some((lo, hi)) if hi > lo => {
                    let (lo, hi) = (lo.as_secs_f64(), hi.as_secs_f64());
                    (lo, hi, (hi - lo) / 20.0)
                }
                Some((lo, _)) => (lo.as_secs_f64(), lo.as_secs_f64() + 1.0, 1.0),
                None => (0.0, 1.0, 1.0),
            },
            FilterKind::Composite(c) => {
                let (lo, hi) = c.range();
                (lo, hi, STEP)
            }
            FilterKind::Feel(i) => (FEEL_DIMS[i].min, FEEL_DIMS[i].max, STEP),
            _ => (0.0, 1.0, STEP),
        }
    }

    /// The row's current range (sliders only).
    pub fn range(self, f: &Filters) -> Range {
        match self {
            FilterKind::Weight => f.weight,
            FilterKind::Trust => f.trust,
            FilterKind::TrustLevel => f.trust_level,
            FilterKind::RatingMin => Range {
                min: f.rating_min,
                max: None,
            },
            FilterKind::RelationshipCount => f.relationship_count,
            FilterKind::CreatedAt => Range {
                min: f.created_from.map(Timestamp::as_secs_f64),
                max: f.created_to.map(Timestamp::as_secs_f64),
            },
            FilterKind::Composite(c) => f.composites[c.index()],
            FilterKind::Feel(i) => f.feel[i],
            _ => Range::default(),
        }
    }

    fn set_range(self, f: &mut Filters, r: Range) {
        let secs = |v: f64| Timestamp((v * 1e9) as i64);
        match self {
            FilterKind::Weight => f.weight = r,
            FilterKind::Trust => f.trust = r,
            FilterKind::TrustLevel => f.trust_level = r,
            FilterKind::RatingMin => f.rating_min = r.min,
            FilterKind::RelationshipCount => f.relationship_count = r,
            FilterKind::CreatedAt => {
                f.created_from = r.min.map(secs);
                f.created_to = r.max.map(secs);
            }
            FilterKind::Composite(c) => f.composites[c.index()] = r,
            FilterKind::Feel(i) => f.feel[i] = r,
            _ => {}
        }
    }

    /// True when the row filters nothing out.
    pub fn is_off(self, f: &Filters) -> bool {
        match self {
            FilterKind::Deleted => f.deleted == DeletedFilter::Exclude,
            FilterKind::Status => f.statuses.is_empty(),
            FilterKind::ExcludeRejected => !f.exclude_rejected,
            FilterKind::Scope => f.scopes.is_empty(),
            FilterKind::Type => f.types.is_empty(),
            FilterKind::Tag => f.tags.is_empty(),
            FilterKind::Module => f.modules.is_empty(),
            FilterKind::HasRelationships => f.has_relationships.is_none(),
            _ => self.range(f).is_open(),
        }
    }

    /// The filters with this row reset: what the row's histogram is drawn over.
    pub fn without(self, f: &Filters) -> Filters {
        let mut out = f.clone();
        self.reset(&mut out);
        out
    }

    /// Resets the row to "off".
    pub fn reset(self, f: &mut Filters) {
        match self {
            FilterKind::Deleted => f.deleted = DeletedFilter::Exclude,
            FilterKind::Status => f.statuses.clear(),
            FilterKind::ExcludeRejected => f.exclude_rejected = false,
            FilterKind::Scope => f.scopes.clear(),
            FilterKind::Type => f.types.clear(),
            FilterKind::Tag => f.tags.clear(),
            FilterKind::Module => f.modules.clear(),
            FilterKind::HasRelationships => f.has_relationships = None,
            _ => self.set_range(f, Range::default()),
        }
    }

    /// Moves the lower bound (`upper == false`) or upper bound by `steps` (±1); on a
    /// choice row, steps through the choices instead. A bound pushed to its end of the
    /// span is dropped, so the slider turns itself off at full width.
    pub fn nudge(self, f: &mut Filters, facets: &Facets, upper: bool, steps: i32) {
        if !self.is_slider() {
            if !upper {
                self.cycle_choice(f, facets, steps);
            }
            return;
        }
        if upper && self == FilterKind::RatingMin {
            return;
        }
        let (lo, hi, step) = self.span(facets);
        let mut r = self.range(f);
        let eps = step * 1e-6;
        if upper {
            let v = r.max.unwrap_or(hi) + f64::from(steps) * step;
            let v = snap(v, lo, step).clamp(r.min.unwrap_or(lo), hi);
            r.max = (v < hi - eps).then_some(v);
        } else {
            let v = r.min.unwrap_or(lo) + f64::from(steps) * step;
            let v = snap(v, lo, step).clamp(lo, r.max.unwrap_or(hi));
            r.min = (v > lo + eps).then_some(v);
        }
        self.set_range(f, r);
    }

    fn cycle_choice(self, f: &mut Filters, facets: &Facets, steps: i32) {
        match self {
            FilterKind::Deleted => {
                let all = [
                    DeletedFilter::Exclude,
                    DeletedFilter::Include,
                    DeletedFilter::Only,
                ];
                f.deleted = all[cycle(position(&all, &f.deleted), all.len(), steps)];
            }
            FilterKind::ExcludeRejected => f.exclude_rejected = !f.exclude_rejected,
            FilterKind::HasRelationships => {
                let all = [None, Some(true), Some(false)];
                f.has_relationships =
                    all[cycle(position(&all, &f.has_relationships), all.len(), steps)];
            }
            FilterKind::Status => cycle_one(&mut f.statuses, Status::ALL, steps),
            FilterKind::Scope => cycle_one(&mut f.scopes, Scope::ALL, steps),
            FilterKind::Type => cycle_one(&mut f.types, &facets.types, steps),
            FilterKind::Tag => cycle_one(&mut f.tags, &facets.tags, steps),
            FilterKind::Module => cycle_one(&mut f.modules, &facets.modules, steps),
            _ => {}
        }
    }

    /// The row's value as text: a choice, or the range's bounds.
    pub fn value_text(self, f: &Filters, facets: &Facets) -> String {
        let any_or = |v: &[String]| v.first().cloned().unwrap_or_else(|| "any".into());
        match self {
            FilterKind::Deleted => match f.deleted {
                DeletedFilter::Exclude => "hidden".into(),
                DeletedFilter::Include => "shown".into(),
                DeletedFilter::Only => "only deleted".into(),
            },
            FilterKind::Status => f.statuses.first().map_or("any".into(), |s| s.to_string()),
            FilterKind::ExcludeRejected => if f.exclude_rejected { "yes" } else { "no" }.into(),
            FilterKind::Scope => f.scopes.first().map_or("any".into(), |s| s.to_string()),
            FilterKind::Type => any_or(&f.types),
            FilterKind::Tag => any_or(&f.tags),
            FilterKind::Module => any_or(&f.modules),
            FilterKind::HasRelationships => match f.has_relationships {
                None => "either".into(),
                Some(true) => "yes".into(),
                Some(false) => "no".into(),
            },
            _ => {
                let (lo, hi, _) = self.span(facets);
                let r = self.range(f);
                let a = self.format_value(r.min.unwrap_or(lo));
                if self == FilterKind::RatingMin {
                    return format!("≥ {a}");
                }
                let b = self.format_value(r.max.unwrap_or(hi));
                format!("{a} – {b}")
            }
        }
    }

    /// A bound written for the panel (dates as days, counts as integers).
    pub fn format_value(self, v: f64) -> String {
        match self {
            FilterKind::CreatedAt => {
                let ts = Timestamp((v * 1e9) as i64).to_string();
                ts.get(..10).unwrap_or(&ts).to_string()
            }
            FilterKind::RelationshipCount => format!("{v:.0}"),
            FilterKind::RatingMin => format!("{v:.1}"),
            _ => format!("{v:.2}"),
        }
    }
}

fn snap(v: f64, lo: f64, step: f64) -> f64 {
    lo + ((v - lo) / step).round() * step
}

fn position<T: PartialEq>(all: &[T], v: &T) -> usize {
    all.iter().position(|x| x == v).unwrap_or(0)
}

fn cycle(at: usize, len: usize, steps: i32) -> usize {
    let len = len as i64;
    (at as i64 + i64::from(steps)).rem_euclid(len) as usize
}

/// Steps a single-choice filter through "any", then each value in turn.
fn cycle_one<T: Clone + PartialEq>(chosen: &mut Vec<T>, values: &[T], steps: i32) {
    let at = chosen
        .first()
        .and_then(|c| values.iter().position(|v| v == c))
        .map_or(0, |i| i + 1);
    let next = cycle(at, values.len() + 1, steps);
    chosen.clear();
    if next > 0 {
        chosen.push(values[next - 1].clone());
    }
}
