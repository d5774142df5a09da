//! `--filter KEY=VALUE` and the TUI's filter editing: turning text into [`Filters`],
//! with errors that name the key and the bad value.

use crate::model::{Composite, Timestamp, TrustLevel, input_dim_index};
use crate::search::request::{DeletedFilter, Filters, Range};

/// A filter that cannot be applied.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FilterError {
    /// The key names no filter.
    #[error(
        "unknown filter `{key}`; use type, exclude_type, scope, module, status, exclude_rejected, include_session_recap, tag, weight, trust, trust_level, created_at, rating_min, relationship_count, has_relationships, deleted, feel_* or a composite"
    )]
    UnknownKey {
        /// The key as given.
        key: String,
    },
    /// The value does not fit the key.
    #[error("filter `{key}`: bad value `{value}`: {reason}")]
    BadValue {
        /// The key.
        key: String,
        /// The value as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The argument has no `=`.
    #[error("filter `{0}`: expected KEY=VALUE")]
    NotKeyValue(String),
    /// One key given twice: the later would silently replace the earlier.
    #[error(
        "filter `{key}` is given twice (`{first}` and `{second}`); give it once, a list as `{key}=a,b` (any of them)"
    )]
    Repeated {
        /// The key.
        key: String,
        /// The first value given.
        first: String,
        /// The second.
        second: String,
    },
}

impl Filters {
    /// The filters of the `KEY=VALUE` arguments given on a command line, each key at
    /// most once (`tag` and `tags` are one key).
    pub fn from_args(args: &[impl AsRef<str>]) -> Result<Filters, FilterError> {
        let mut filters = Filters::default();
        let mut given: Vec<(String, String)> = Vec::new();
        for arg in args {
            let arg = arg.as_ref();
            let (key, value) = arg
                .split_once('=')
                .ok_or_else(|| FilterError::NotKeyValue(arg.to_string()))?;
            let (key, value) = (key.trim(), value.trim());
            filters.apply_kv(key, value)?;
            let key = if key == "tags" { "tag" } else { key };
            if let Some((_, first)) = given.iter().find(|(k, _)| k == key) {
                return Err(FilterError::Repeated {
                    key: key.to_string(),
                    first: first.clone(),
                    second: value.to_string(),
                });
            }
            given.push((key.to_string(), value.to_string()));
        }
        Ok(filters)
    }

    /// Applies one `KEY=VALUE` argument as given on the command line.
    pub fn apply_arg(&mut self, arg: &str) -> Result<(), FilterError> {
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| FilterError::NotKeyValue(arg.to_string()))?;
        self.apply_kv(key.trim(), value.trim())
    }

    /// Applies one filter by key (SPEC §4): lists are comma-separated, ranges are
    /// `LO..HI` with either bound optional (a single number means exactly that value).
    pub fn apply_kv(&mut self, key: &str, value: &str) -> Result<(), FilterError> {
        let bad = |reason: String| FilterError::BadValue {
            key: key.to_string(),
            value: value.to_string(),
            reason,
        };
        match key {
            // types are lowercase: `type=Decision` means decision
            "type" => self.types = lowercase(list(value).map_err(bad)?),
            "exclude_type" => self.exclude_types = lowercase(list(value).map_err(bad)?),
            "scope" => self.scopes = parsed_list(value).map_err(bad)?,
            "module" => self.modules = list(value).map_err(bad)?,
            "status" => self.statuses = parsed_list(value).map_err(bad)?,
            "exclude_rejected" => self.exclude_rejected = boolean(value).map_err(bad)?,
            "include_session_recap" => {
                self.include_session_recap = boolean(value).map_err(bad)?;
            }
            "tag" | "tags" => self.tags = list(value).map_err(bad)?,
            "weight" => self.weight = within(range(value), 0.0, 1.0).map_err(bad)?,
            "trust" => self.trust = within(range(value), 0.0, 1.0).map_err(bad)?,
            "created_at" => {
                let (from, to) = time_range(value).map_err(bad)?;
                self.created_from = from;
                self.created_to = to;
            }
            "trust_level" => self.trust_level = trust_levels(value).map_err(bad)?,
            "rating_min" => {
                let min = within(range(value), 1.0, 5.0).map_err(bad)?;
                match (min.min, min.max) {
                    (Some(lo), Some(hi)) if lo == hi => self.rating_min = Some(lo),
                    _ => return Err(bad("expected one number 1–5".into())),
                }
            }
            "relationship_count" => {
                self.relationship_count = within(range(value), 0.0, f64::INFINITY).map_err(bad)?;
            }
            "has_relationships" => self.has_relationships = Some(boolean(value).map_err(bad)?),
            "deleted" => {
                self.deleted = match value {
                    "exclude" => DeletedFilter::Exclude,
                    "include" => DeletedFilter::Include,
                    "only" => DeletedFilter::Only,
                    _ => return Err(bad("expected exclude, include or only".into())),
                }
            }
            _ => {
                if let Some(c) = Composite::from_field(key) {
                    self.composites[c.index()] = range(value).map_err(bad)?;
                } else if let Some(i) = input_dim_index(key) {
                    let dim = &crate::model::FEEL_DIMS[i];
                    self.feel[i] = within(range(value), dim.min, dim.max).map_err(bad)?;
                } else {
                    return Err(FilterError::UnknownKey {
                        key: key.to_string(),
                    });
                }
            }
        }
        Ok(())
    }
}

/// The items lowercased (memory types are lowercase).
pub(crate) fn lowercase(items: Vec<String>) -> Vec<String> {
    items.into_iter().map(|t| t.to_lowercase()).collect()
}

fn list(value: &str) -> Result<Vec<String>, String> {
    let items: Vec<String> = value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if items.is_empty() {
        return Err("expected a comma-separated list".into());
    }
    Ok(items)
}

fn parsed_list<T: std::str::FromStr<Err = String>>(value: &str) -> Result<Vec<T>, String> {
    list(value)?.iter().map(|s| s.parse()).collect()
}

/// Levels by name or number: `public..restricted`, `3..`, `secret`, or a list
/// `public,secret` (from its lowest to its highest).
fn trust_levels(value: &str) -> Result<Range, String> {
    let level = |s: &str| -> Result<Option<f64>, String> {
        if s.is_empty() {
            return Ok(None);
        }
        s.parse::<TrustLevel>().map(|l| Some(f64::from(l.number())))
    };
    if value.contains(',') && !value.contains("..") {
        let levels = list(value)?
            .iter()
            .map(|s| level(s))
            .collect::<Result<Vec<_>, _>>()?;
        let levels: Vec<f64> = levels.into_iter().flatten().collect();
        let lo = levels.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = levels.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if levels.len() != (hi - lo) as usize + 1 {
            return Err("a list of levels must be consecutive (or use LO..HI)".into());
        }
        return Ok(Range {
            min: Some(lo),
            max: Some(hi),
        });
    }
    let (lo, hi) = bounds(value);
    Ok(Range {
        min: level(lo)?,
        max: level(hi)?,
    })
}

fn boolean(value: &str) -> Result<bool, String> {
    match value {
        "true" | "yes" | "1" => Ok(true),
        "false" | "no" | "0" => Ok(false),
        _ => Err("expected true or false".into()),
    }
}

fn number(value: &str) -> Result<f64, String> {
    match value.trim().parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(format!("`{}` is not a number", value.trim())),
    }
}

fn bounds(value: &str) -> (&str, &str) {
    match value.split_once("..") {
        Some((lo, hi)) => (lo.trim(), hi.trim()),
        None => (value.trim(), value.trim()),
    }
}

/// `range` when both its bounds lie in `lo..=hi`, the values the field can take: a
/// bound outside could only ever keep nothing (or everything).
fn within(range: Result<Range, String>, lo: f64, hi: f64) -> Result<Range, String> {
    let range = range?;
    for bound in [range.min, range.max].into_iter().flatten() {
        if bound < lo || bound > hi {
            let shown = crate::model::validate::shown_number(bound);
            return Err(if hi.is_finite() {
                format!("{shown} is outside {lo}–{hi}, the values it can take")
            } else {
                format!("{shown} is below {lo}, the least it can be")
            });
        }
    }
    Ok(range)
}

fn range(value: &str) -> Result<Range, String> {
    let (lo, hi) = bounds(value);
    let parse = |s: &str| (!s.is_empty()).then(|| number(s)).transpose();
    let (min, max) = (parse(lo)?, parse(hi)?);
    if let (Some(min), Some(max)) = (min, max)
        && min > max
    {
        return Err(format!(
            "{lo} is above {hi}: nothing is in that range (write {hi}..{lo})"
        ));
    }
    Ok(Range { min, max })
}

/// Bounds of a `created_at` range. A bare date as the upper bound includes that whole
/// day (up to its last nanosecond).
fn time_range(value: &str) -> Result<(Option<Timestamp>, Option<Timestamp>), String> {
    let (lo, hi) = bounds(value);
    let parse = |s: &str| -> Result<Option<Timestamp>, String> {
        if s.is_empty() {
            return Ok(None);
        }
        Timestamp::parse(s)
            .map(Some)
            .ok_or_else(|| format!("`{s}` is not a date (YYYY-MM-DD) or an RFC 3339 time"))
    };
    let from = parse(lo)?;
    let mut to = parse(hi)?;
    if let Some(t) = to
        && hi.len() == 10
    {
        to = Some(Timestamp(t.0.saturating_add(86_400_000_000_000 - 1)));
    }
    if let (Some(f), Some(t)) = (from, to)
        && f > t
    {
        return Err(format!(
            "{lo} is after {hi}: nothing is in that range (write {hi}..{lo})"
        ));
    }
    Ok((from, to))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Status;
    use crate::search::Range;

    #[test]
    fn keys_fill_the_matching_filter() {
        let mut f = Filters::default();
        f.apply_arg("type=Decision, gotcha").unwrap();
        f.apply_arg("exclude_type=Session_Recap").unwrap();
        f.apply_arg("status=validated").unwrap();
        f.apply_arg("feel_humor=0.5..").unwrap();
        f.apply_arg("total_significance=..1.5").unwrap();
        f.apply_arg("created_at=2026-01-01..2026-06-30").unwrap();
        assert_eq!(f.types, ["decision", "gotcha"], "types are lowercase");
        assert_eq!(f.exclude_types, ["session_recap"]);
        assert_eq!(f.statuses, [Status::Validated]);
        assert_eq!(
            f.feel[input_dim_index("feel_humor").unwrap()].min,
            Some(0.5)
        );
        assert_eq!(f.composites[2].max, Some(1.5));
        assert_eq!(
            f.created_to.unwrap().to_string(),
            "2026-06-30T23:59:59.999999999Z"
        );
    }

    #[test]
    fn trust_levels_are_taken_by_name_number_range_or_consecutive_list() {
        let level = |v: &str| {
            let mut f = Filters::default();
            f.apply_arg(&format!("trust_level={v}"))
                .map(|()| f.trust_level)
        };
        let r = |min, max| Range { min, max };
        assert_eq!(level("secret"), Ok(r(Some(5.0), Some(5.0))));
        assert_eq!(level("Public..3"), Ok(r(Some(1.0), Some(3.0))));
        assert_eq!(level("restricted.."), Ok(r(Some(4.0), None)));
        assert_eq!(level("internal,confidential"), Ok(r(Some(2.0), Some(3.0))));
        assert!(level("public,secret").is_err());
        assert!(level("topsecret").is_err());
        assert!(level("6").is_err());
    }

    #[test]
    fn unknown_keys_and_bad_values_are_named() {
        let mut f = Filters::default();
        let twice = Filters::from_args(&["type=decision", "status=validated", "type=gotcha"]);
        assert_eq!(
            twice.unwrap_err().to_string(),
            "filter `type` is given twice (`decision` and `gotcha`); give it once, a list as `type=a,b` (any of them)"
        );
        assert!(Filters::from_args(&["tag=a", "tags=b"]).is_err());
        let reversed = Filters::from_args(&["feel_humor=1..0"])
            .unwrap_err()
            .to_string();
        assert!(reversed.contains("1 is above 0"), "{reversed}");
        assert!(Filters::from_args(&["created_at=2026-02-01..2026-01-01"]).is_err());
        assert!(
            Filters::from_args(&["weight=0.5..0.5", "created_at=2026-01-01..2026-01-01"]).is_ok()
        );
        let once = Filters::from_args(&["type=decision,gotcha", "tag=a"]).unwrap();
        assert_eq!((once.types.len(), once.tags.len()), (2, 1));
        let e = f.apply_arg("colour=red").unwrap_err().to_string();
        assert!(e.contains("`colour`"), "{e}");
        let e = f.apply_arg("weight=a..1").unwrap_err().to_string();
        assert!(e.contains("weight") && e.contains("`a`"), "{e}");
        let e = f.apply_arg("status=done").unwrap_err().to_string();
        assert!(e.contains("done"), "{e}");
        assert!(f.apply_arg("feel_nothing=0..1").is_err());
        assert!(f.apply_arg("deleted=maybe").is_err());
        assert!(f.apply_arg("weight").is_err());
        // a bound outside what the field can take could only keep nothing (or all)
        for (arg, said) in [
            ("weight=2", "2 is outside 0–1"),
            ("trust=-0.1..", "-0.1 is outside 0–1"),
            ("rating_min=6", "6 is outside 1–5"),
            ("rating_min=-1", "-1 is outside 1–5"),
            ("relationship_count=-1..3", "-1 is below 0"),
            ("feel_humor=..1.5", "1.5 is outside 0–1"),
            ("feel_valence=-2..0", "-2 is outside -1–1"),
        ] {
            let e = f.apply_arg(arg).unwrap_err().to_string();
            assert!(e.contains(said), "{arg}: {e}");
        }
        assert_eq!(f, Filters::default());
        for ok in [
            "feel_valence=-1..-0.5",
            "rating_min=4.5",
            "relationship_count=3..",
        ] {
            assert!(Filters::default().apply_arg(ok).is_ok(), "{ok}");
        }
    }
}
