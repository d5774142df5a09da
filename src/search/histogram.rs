//! Histograms for the filter sliders: the distribution of one field over the memories
//! the other filters keep, and how many the field's own range keeps.

use crate::search::corpus::Corpus;
use crate::search::engine::in_parts;
use crate::search::filter::CompiledFilters;
use crate::search::request::{Filters, NumericField};

/// The distribution of one numeric field.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Histogram {
    /// Lower edge of the first bin: the field's nominal minimum (`feel_*`, composites,
    /// weight, trust, confidence), else the smallest value present.
    pub min: f64,
    /// Upper edge of the last bin (inclusive), chosen like `min`.
    pub max: f64,
    /// Memories per bin; bin `i` covers `[min + i·w, min + (i+1)·w)`, the last bin also
    /// its upper edge.
    pub counts: Vec<u32>,
    /// Memories that pass every filter, this field's range included.
    pub kept: usize,
    /// Memories that pass the other filters and have the field.
    pub present: usize,
}

/// The nominal range of a field, when it has one.
pub fn nominal_range(field: NumericField) -> Option<(f64, f64)> {
    match field {
        NumericField::Feel(i) => crate::model::FEEL_DIMS.get(i).map(|d| (d.min, d.max)),
        NumericField::Composite(c) => Some(c.range()),
        NumericField::Weight | NumericField::Trust | NumericField::Confidence => Some((0.0, 1.0)),
        NumericField::TrustLevel => Some((1.0, 5.0)),
        NumericField::RatingBayesian => Some((1.0, 5.0)),
        _ => None,
    }
}

/// Bin of `v` among `bins` equal bins over `[min, max]`.
pub fn bin_of(v: f64, min: f64, max: f64, bins: usize) -> usize {
    if bins == 0 {
        return 0;
    }
    let width = max - min;
    if width.is_nan() || width <= 0.0 {
        return 0;
    }
    let b = ((v - min) / width * bins as f64).floor();
    if b < 0.0 {
        0
    } else {
        (b as usize).min(bins - 1)
    }
}

pub(crate) fn build(c: &Corpus, filters: &Filters, field: NumericField, bins: usize) -> Histogram {
    let others = CompiledFilters::new(c, filters, Some(field));
    let all = CompiledFilters::new(c, filters, None);
    // the field's values and how many pass every filter, per part of the store on
    // all cores
    let parts = in_parts(c.len(), |range| {
        let mut values = Vec::new();
        let mut kept = 0;
        for slot in range {
            if !others.passes(c, slot) {
                continue;
            }
            if all.passes(c, slot) {
                kept += 1;
            }
            if let Some(v) = c.value(slot, field) {
                values.push(v);
            }
        }
        vec![(values, kept)]
    });
    let kept = parts.iter().map(|(_, k)| k).sum();
    let values: Vec<f64> = parts.into_iter().flat_map(|(v, _)| v).collect();
    let (min, max) = nominal_range(field).unwrap_or_else(|| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) }
    });
    let mut counts = vec![0u32; bins];
    if bins > 0 {
        for &v in &values {
            counts[bin_of(v, min, max, bins)] += 1;
        }
    }
    Histogram {
        min,
        max,
        counts,
        kept,
        present: values.len(),
    }
}
