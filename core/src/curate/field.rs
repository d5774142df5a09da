//! One settable field with its new value, parsed from the `FIELD=VALUE` text that
//! `memlens set` takes, or built directly by the TUI's editor and pickers.

use super::error::{CurateError, CurateResult};
use crate::model::json::DERIVED_FIELDS;
use crate::model::validate::is_valid_type;
use crate::model::{FEEL_DIMS, Memory, Scope, Status, input_dim_index};

/// A field of a memory that curation may set, with its new value.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// The title; `None` removes it.
    Title(Option<String>),
    /// The body text.
    Body(String),
    /// The memory type (`type`).
    Type(String),
    /// The scope.
    Scope(Scope),
    /// The module; `None` removes it.
    Module(Option<String>),
    /// The review status (approve and reject also record who and why; this does not).
    Status(Status),
    /// The whole tag list.
    Tags(Vec<String>),
    /// Weight 0–1.
    Weight(f64),
    /// Trust 0–1.
    Trust(f64),
    /// The confidentiality level (remember-core's `trust_score`, 1 public … 5 secret);
    /// `None` removes it.
    TrustLevel(Option<crate::model::TrustLevel>),
    /// Confidence 0–1; `None` removes it.
    Confidence(Option<f64>),
    /// One `feel_*` score by its index in `FEEL_DIMS`; `None` unscores it.
    Feel(usize, Option<f64>),
    /// REM consolidation visits; `None` removes them.
    RemVisits(Option<u32>),
}

/// Why a stored field cannot be set, and what to use instead.
fn not_settable(field: &str) -> Option<&'static str> {
    Some(match field {
        "rating_sum" | "rating_count" => "ratings change only by rating (`memlens rate ID N`)",
        "deleted_at" | "deleted_reason" => {
            "use `memlens delete ID --reason TEXT` and `memlens restore ID`"
        }
        "relationships" => "use `memlens link A B` and `memlens unlink A B`",
        "id" | "created_at" | "updated_at" | "last_read_at" | "read_count" | "source" => {
            "memlens keeps it"
        }
        f if DERIVED_FIELDS.contains(&f) => "it is derived from other fields",
        _ => return None,
    })
}

fn bad(field: &str, value: &str, reason: impl Into<String>) -> CurateError {
    CurateError::BadValue {
        field: field.to_string(),
        value: value.to_string(),
        reason: reason.into(),
    }
}

/// [`bad`] for a value a `FromStr` refused with a message that names it first
/// (`` `bogus` is not one of … ``): the value is named once.
fn refused(field: &str, value: &str, reason: String) -> CurateError {
    let named = format!("`{}` ", value.trim());
    let reason = reason
        .strip_prefix(&named)
        .map(str::to_string)
        .unwrap_or(reason);
    bad(field, value, reason)
}

fn optional(value: &str) -> Option<String> {
    (!value.trim().is_empty()).then(|| value.to_string())
}

fn number(field: &str, value: &str, lo: f64, hi: f64) -> CurateResult<f64> {
    let n: f64 = value
        .trim()
        .parse()
        .map_err(|_| bad(field, value, "is not a number"))?;
    if !n.is_finite() || n < lo || n > hi {
        return Err(bad(field, value, format!("is outside {lo}–{hi}")));
    }
    Ok(n)
}

fn optional_number(field: &str, value: &str, lo: f64, hi: f64) -> CurateResult<Option<f64>> {
    if value.trim().is_empty() {
        Ok(None)
    } else {
        number(field, value, lo, hi).map(Some)
    }
}

impl FieldValue {
    /// Parses one `FIELD=VALUE` argument. An empty value removes an optional field
    /// (title, module, confidence, rem_visits, any `feel_*`) and empties `tags`.
    pub fn parse_assignment(text: &str) -> CurateResult<FieldValue> {
        let (field, value) = text
            .split_once('=')
            .ok_or_else(|| CurateError::NotAnAssignment(text.to_string()))?;
        FieldValue::parse(field.trim(), value)
    }

    /// Parses the value of one field given by name.
    pub fn parse(field: &str, value: &str) -> CurateResult<FieldValue> {
        Ok(match field {
            "title" => FieldValue::Title(optional(value)),
            "body" => FieldValue::Body(value.to_string()),
            "type" => {
                let t = value.trim();
                if !is_valid_type(t) {
                    return Err(bad(field, value, "is not lowercase [a-z0-9_-]{1,40}"));
                }
                FieldValue::Type(t.to_string())
            }
            "scope" => {
                FieldValue::Scope(value.trim().parse().map_err(|e| refused(field, value, e))?)
            }
            "module" => FieldValue::Module(optional(value).map(|m| m.trim().to_string())),
            "status" => {
                FieldValue::Status(value.trim().parse().map_err(|e| refused(field, value, e))?)
            }
            "tags" => FieldValue::Tags(value.split(',').map(|t| t.trim().to_string()).collect()),
            "weight" => FieldValue::Weight(number(field, value, 0.0, 1.0)?),
            "trust" => FieldValue::Trust(number(field, value, 0.0, 1.0)?),
            "trust_level" | "trust_score" => FieldValue::TrustLevel(match value.trim() {
                "" => None,
                level => Some(level.parse().map_err(|e| refused(field, value, e))?),
            }),
            "confidence" => FieldValue::Confidence(optional_number(field, value, 0.0, 1.0)?),
            "rem_visits" => FieldValue::RemVisits(if value.trim().is_empty() {
                None
            } else {
                Some(value.trim().parse().map_err(|_| {
                    bad(
                        field,
                        value,
                        format!("is not a whole number 0–{}", u32::MAX),
                    )
                })?)
            }),
            f if input_dim_index(f).is_some() => {
                let i = input_dim_index(f).unwrap_or_default();
                let dim = &FEEL_DIMS[i];
                FieldValue::Feel(i, optional_number(field, value, dim.min, dim.max)?)
            }
            f => {
                return Err(match not_settable(f) {
                    Some(why) => CurateError::NotSettable {
                        field: f.to_string(),
                        why,
                    },
                    None => CurateError::UnknownField(f.to_string()),
                });
            }
        })
    }

    /// The field's name as written in files and on the command line.
    pub fn field(&self) -> &'static str {
        match self {
            FieldValue::Title(_) => "title",
            FieldValue::Body(_) => "body",
            FieldValue::Type(_) => "type",
            FieldValue::Scope(_) => "scope",
            FieldValue::Module(_) => "module",
            FieldValue::Status(_) => "status",
            FieldValue::Tags(_) => "tags",
            FieldValue::Weight(_) => "weight",
            FieldValue::Trust(_) => "trust",
            FieldValue::TrustLevel(_) => "trust_level",
            FieldValue::Confidence(_) => "confidence",
            FieldValue::Feel(i, _) => FEEL_DIMS.get(*i).map_or("feel_", |d| d.field),
            FieldValue::RemVisits(_) => "rem_visits",
        }
    }

    /// Writes the value into a memory (normalising and validating is the caller's part).
    pub fn write_to(&self, memory: &mut Memory) {
        match self {
            FieldValue::Title(t) => memory.title = t.clone(),
            FieldValue::Body(b) => memory.body = b.clone(),
            FieldValue::Type(t) => memory.memory_type = t.clone(),
            FieldValue::Scope(s) => memory.scope = *s,
            FieldValue::Module(m) => memory.module = m.clone(),
            FieldValue::Status(s) => memory.status = *s,
            FieldValue::Tags(t) => memory.tags = t.clone(),
            FieldValue::Weight(w) => memory.weight = *w,
            FieldValue::Trust(t) => memory.trust = *t,
            FieldValue::TrustLevel(l) => memory.trust_level = *l,
            FieldValue::Confidence(c) => memory.confidence = *c,
            FieldValue::Feel(i, v) => {
                if let Some(slot) = memory.feel.get_mut(*i) {
                    *slot = *v;
                }
            }
            FieldValue::RemVisits(v) => memory.rem_visits = *v,
        }
    }
}

/// Parses every `FIELD=VALUE` argument of `memlens set`, refusing a field given twice.
pub fn parse_assignments<S: AsRef<str>>(args: &[S]) -> CurateResult<Vec<FieldValue>> {
    let mut out: Vec<FieldValue> = Vec::with_capacity(args.len());
    for arg in args {
        let value = FieldValue::parse_assignment(arg.as_ref())?;
        if out.iter().any(|v| v.field() == value.field()) {
            return Err(CurateError::RepeatedField(value.field().to_string()));
        }
        out.push(value);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::feel_index;

    #[test]
    fn empty_values_remove_optional_fields_and_bad_values_name_field_and_value() {
        assert_eq!(
            FieldValue::parse_assignment("feel_humor=").unwrap(),
            FieldValue::Feel(feel_index("humor").unwrap(), None)
        );
        assert_eq!(
            FieldValue::parse_assignment("title=").unwrap(),
            FieldValue::Title(None)
        );
        let e = FieldValue::parse_assignment("feel_valence=-1.5").unwrap_err();
        assert!(e.is_usage());
        let msg = e.to_string();
        assert!(
            msg.contains("feel_valence") && msg.contains("-1.5"),
            "{msg}"
        );
        assert_eq!(
            FieldValue::parse_assignment("feel_valence=-1").unwrap(),
            FieldValue::Feel(feel_index("valence").unwrap(), Some(-1.0))
        );
        let e = FieldValue::parse_assignment("weight=heavy").unwrap_err();
        assert!(e.to_string().contains("weight") && e.to_string().contains("heavy"));
        let e = FieldValue::parse_assignment("type=Decision").unwrap_err();
        assert!(e.to_string().contains("Decision"));
        // a value a list refuses is named once
        for (arg, field) in [("status=bogus", "status"), ("scope=galaxy", "scope")] {
            let msg = FieldValue::parse_assignment(arg).unwrap_err().to_string();
            let value = arg.split_once('=').unwrap().1;
            assert_eq!(msg.matches(value).count(), 1, "{msg}");
            assert!(
                msg.starts_with(&format!("{field}: `{value}` is not one of ")),
                "{msg}"
            );
        }
    }

    #[test]
    fn derived_stored_and_unknown_fields_are_usage_errors_naming_the_field() {
        for field in ["rating_bayesian", "total_significance", "rating_sum", "id"] {
            let e = FieldValue::parse_assignment(&format!("{field}=1")).unwrap_err();
            assert!(matches!(e, CurateError::NotSettable { .. }), "{field}: {e}");
            assert!(e.is_usage() && e.to_string().contains(field));
        }
        let e = FieldValue::parse_assignment("feel_joy=0.3").unwrap_err();
        assert!(matches!(e, CurateError::UnknownField(ref f) if f == "feel_joy"));
        let e = FieldValue::parse_assignment("weight").unwrap_err();
        assert!(matches!(e, CurateError::NotAnAssignment(_)));
        let e = parse_assignments(&["tags=a", "tags=b"]).unwrap_err();
        assert!(matches!(e, CurateError::RepeatedField(ref f) if f == "tags"));
    }
}
