//! Histograms for the filter sliders: the distribution of one field over the memories
//! the other filters keep, and how many the field's own range keeps.

use crate::search::Stop;
use crate::search::corpus::Corpus;
use crate::search::engine::in_parts;
use crate::search::request::NumericField;
use std::ops::Range;

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

/// How many memories a histogram counts between two looks at its stop.
const STOP_EVERY: usize = 1 << 14;

/// The histogram of `field` over `set` (ascending slots: the memories that pass the
/// other filters), `kept` of them passing every filter. On all cores for large sets;
/// `None` once `stop` says so (it is asked every [`STOP_EVERY`] memories).
pub(crate) fn build(
    c: &Corpus,
    set: &[u32],
    kept: usize,
    field: NumericField,
    bins: usize,
    stop: Stop<'_>,
) -> Option<Histogram> {
    // the field's column found once, not at every memory
    let column = c.column(field);
    let value = move |slot: u32| match column {
        Some(column) => column.get(slot as usize),
        None => c.value(slot as usize, field),
    };
    let values = |range: std::ops::Range<usize>| set[range].iter().filter_map(move |&s| value(s));
    let (min, max) = match nominal_range(field) {
        Some(range) => range,
        None => {
            // the smallest and largest value present, per part of the set
            let parts = in_parts(set.len(), |range| {
                let mut lo_hi = (f64::INFINITY, f64::NEG_INFINITY);
                let whole = in_pieces(range, stop, |piece| {
                    lo_hi = values(piece).fold(lo_hi, |(lo, hi), v| (lo.min(v), hi.max(v)));
                });
                vec![whole.then_some(lo_hi)]
            });
            let (lo, hi) = parts
                .into_iter()
                .try_fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), part| {
                    part.map(|(l, h)| (lo.min(l), hi.max(h)))
                })?;
            if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) }
        }
    };
    // counts per bin and values present, per part of the set
    let parts = in_parts(set.len(), |range| {
        let mut counts = vec![0u32; bins];
        let mut present = 0;
        let whole = in_pieces(range, stop, |piece| {
            for v in values(piece) {
                present += 1;
                if bins > 0 {
                    counts[bin_of(v, min, max, bins)] += 1;
                }
            }
        });
        vec![whole.then_some((counts, present))]
    });
    let parts: Vec<(Vec<u32>, usize)> = parts.into_iter().collect::<Option<_>>()?;
    let mut counts = vec![0u32; bins];
    let mut present = 0;
    for (part, n) in parts {
        present += n;
        for (total, c) in counts.iter_mut().zip(part) {
            *total += c;
        }
    }
    Some(Histogram {
        min,
        max,
        counts,
        kept,
        present,
    })
}

/// Calls `f` on `range` in pieces of [`STOP_EVERY`], asking `stop` before each; false
/// when it said to stop.
fn in_pieces(range: Range<usize>, stop: Stop<'_>, mut f: impl FnMut(Range<usize>)) -> bool {
    for from in range.clone().step_by(STOP_EVERY) {
        if stop() {
            return false;
        }
        f(from..(from + STOP_EVERY).min(range.end));
    }
    true
}
