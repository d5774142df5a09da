//! The edits that change one memory in place — the verbs that can also be applied to a
//! whole selection at once — as pure functions on a `Memory`.

use super::error::{CurateError, CurateResult};
use super::field::FieldValue;
use crate::model::{FieldError, Memory, Rating, Status, Timestamp};
use serde_json::Value;

/// Key in `extra` where hivelore records who validated a memory.
pub const VALIDATED_BY: &str = "validated_by";
/// Key in `extra` where hivelore keeps why a memory was rejected or went stale.
pub const STALE_REASON: &str = "stale_reason";
/// The keys of `extra` that go with the status: approve, reject and supersede set them
/// together with it.
pub const STATUS_KEYS: [&str; 2] = [VALIDATED_BY, STALE_REASON];
/// The `validated_by` value of an approval made by a person.
pub const VALIDATED_BY_HUMAN: &str = "human";
/// The `validated_by` value of an approval made by an agent (through `memlens mcp`'s
/// `mem_approve`, as hivelore's own `mem_approve` records it).
pub const VALIDATED_BY_AGENT: &str = "agent";

/// A change to one memory's own fields; the same edit can be applied to many memories.
#[derive(Debug, Clone, PartialEq)]
pub enum Edit {
    /// Set these fields, in order (title, body, tags, type, scope, `feel_*`, …).
    Set(Vec<FieldValue>),
    /// Status `validated`, `validated_by: human` (a recorded `stale_reason` is cleared).
    Approve,
    /// An agent's approval (hivelore's `mem_approve`): status `validated`,
    /// `validated_by: agent`, so it stays in the approval queue of a memory that asks a
    /// person's approval, and shows in the agent queue.
    ApproveByAgent,
    /// Status `rejected`, the reason kept as `stale_reason` (a recorded `validated_by`
    /// is cleared, as hivelore does when a memory leaves `validated`).
    Reject {
        /// Why it is rejected.
        reason: String,
    },
    /// An agent's rejection (hivelore's `mem_reject`): status `rejected`, the reason
    /// kept as `stale_reason` when one is given (else the recorded one stays).
    RejectByAgent {
        /// Why it is rejected, if the agent said.
        reason: Option<String>,
    },
    /// Rate 1–5 as the person at this terminal ([`current_rater`]): their rating,
    /// replacing the one they gave before.
    Rate(u8),
    /// Rate 1–5 as a named rater, replacing that rater's earlier rating.
    RateAs {
        /// Who rates.
        rater: String,
        /// The rating, 1–5.
        rating: u8,
    },
    /// Take back a rater's rating (`None`: the person at this terminal); the imported
    /// aggregate stays.
    Retract {
        /// Whose rating.
        rater: Option<String>,
    },
    /// Soft delete: `deleted_at` = now, with an optional reason.
    Delete {
        /// Why it is deleted.
        reason: Option<String>,
    },
    /// Undo a soft delete.
    Restore,
    /// Add these tags (existing ones stay, in order).
    Tag(Vec<String>),
    /// Remove these tags.
    Untag(Vec<String>),
    /// Superseded by another memory: status `deprecated`, `stale_reason` naming it, a
    /// `superseded_by` link to it (a recorded `validated_by` is cleared).
    Supersede {
        /// The memory that supersedes this one.
        by: String,
    },
    /// A person says the two memories of the pair are not duplicates: each records the
    /// other in `not_duplicate_of`, so the pair is not listed again.
    NotDuplicate {
        /// The pair (the edit goes to both).
        pair: [String; 2],
    },
}

/// Key in `extra` where memlens keeps the ids a memory was judged not to duplicate.
pub const NOT_DUPLICATE_OF: &str = "not_duplicate_of";
/// The relationship kind from a superseded memory to the one that supersedes it.
pub const SUPERSEDED_BY: &str = "superseded_by";

/// How the `stale_reason` a supersede writes begins; the kept memory's id follows.
const SUPERSEDED_PREFIX: &str = "superseded by ";

/// True when `old` was superseded by the memory `keep`: deprecated, with the reason
/// [`Edit::Supersede`] writes or a `superseded_by` link to it (a supersede adds no link
/// when one to it is there already, a `duplicates` one say).
pub(crate) fn is_superseded_by(old: &Memory, keep: &str) -> bool {
    let reason = old.extra.get(STALE_REASON).and_then(|v| v.as_str());
    old.status == Status::Deprecated
        && (reason.and_then(|r| r.strip_prefix(SUPERSEDED_PREFIX)) == Some(keep)
            || old
                .relationships
                .iter()
                .any(|r| r.target == keep && r.kind == SUPERSEDED_BY))
}

impl Edit {
    /// Checks what does not depend on any memory (rating range, a reason present).
    pub fn check(&self) -> CurateResult<()> {
        match self {
            Edit::Rate(n) | Edit::RateAs { rating: n, .. } if !(1..=5).contains(n) => {
                Err(CurateError::BadValue {
                    field: "rating".into(),
                    value: n.to_string(),
                    reason: "is not a whole number 1–5".into(),
                })
            }
            Edit::RateAs { rater, .. } | Edit::Retract { rater: Some(rater) }
                if not_a_name(rater) =>
            {
                Err(CurateError::BadValue {
                    field: "rater".into(),
                    value: rater.clone(),
                    reason: "is not a name".into(),
                })
            }
            Edit::Rate(_) | Edit::Retract { rater: None } if not_a_name(&current_rater()) => {
                Err(CurateError::BadValue {
                    field: RATER_ENV.into(),
                    value: current_rater(),
                    reason: "is not a name".into(),
                })
            }
            Edit::Reject { reason } if reason.trim().is_empty() => Err(CurateError::MissingReason),
            Edit::NotDuplicate { pair } if pair[0] == pair[1] => Err(CurateError::BadValue {
                field: "ids".into(),
                value: pair[0].clone(),
                reason: "names the same memory twice".into(),
            }),
            _ => Ok(()),
        }
    }

    /// Applies the edit to `memory` as of `now`. It does not touch `updated_at`: the
    /// caller moves it only when something really changed.
    pub fn apply_to(&self, memory: &mut Memory, now: Timestamp) -> CurateResult<()> {
        match self {
            Edit::Set(values) => values.iter().for_each(|v| v.write_to(memory)),
            Edit::Approve | Edit::ApproveByAgent => {
                let by = match self {
                    Edit::ApproveByAgent => VALIDATED_BY_AGENT,
                    _ => VALIDATED_BY_HUMAN,
                };
                memory.status = Status::Validated;
                memory.extra.insert(VALIDATED_BY.into(), by.into());
                clear_extra(memory, STALE_REASON);
            }
            Edit::Reject { reason } => reject(memory, Some(reason)),
            Edit::RejectByAgent { reason } => reject(memory, reason.as_ref()),
            Edit::Rate(n) => rate_as(memory, &current_rater(), *n)?,
            Edit::RateAs { rater, rating } => rate_as(memory, rater, *rating)?,
            Edit::Retract { rater } => {
                let rater = rater.clone().unwrap_or_else(current_rater);
                if let Some(i) = memory.ratings.iter().position(|r| r.rater == rater) {
                    let old = memory.ratings.remove(i);
                    memory.rating_sum = memory.rating_sum.saturating_sub(u32::from(old.value));
                    memory.rating_count = memory.rating_count.saturating_sub(1);
                }
            }
            Edit::Delete { reason } => {
                if memory.deleted_at.is_none() {
                    memory.deleted_at = Some(now);
                }
                if let Some(r) = reason.as_deref().map(str::trim).filter(|r| !r.is_empty()) {
                    memory.deleted_reason = Some(r.to_string());
                }
            }
            Edit::Restore => {
                memory.deleted_at = None;
                memory.deleted_reason = None;
            }
            Edit::Tag(tags) => memory.tags.extend(tags.iter().cloned()),
            Edit::Untag(tags) => memory
                .tags
                .retain(|t| !tags.iter().any(|gone| gone.trim() == t)),
            Edit::Supersede { by } => {
                memory.status = Status::Deprecated;
                memory.extra.insert(
                    STALE_REASON.into(),
                    format!("{SUPERSEDED_PREFIX}{by}").into(),
                );
                clear_extra(memory, VALIDATED_BY);
                // a link the pair already has (a `duplicates` one, most often) becomes
                // the `superseded_by` link
                match memory.relationships.iter_mut().find(|r| r.target == *by) {
                    Some(link) => link.kind = SUPERSEDED_BY.into(),
                    None => memory.relationships.push(crate::model::Relationship {
                        target: by.clone(),
                        kind: SUPERSEDED_BY.into(),
                        strength: None,
                    }),
                }
            }
            Edit::NotDuplicate { pair } => {
                let Some(other) = pair.iter().find(|id| **id != memory.id) else {
                    return Ok(());
                };
                let list = memory
                    .extra
                    .entry(NOT_DUPLICATE_OF)
                    .or_insert_with(|| Value::Array(Vec::new()));
                if !list.is_array() {
                    *list = Value::Array(Vec::new());
                }
                if let Value::Array(ids) = list
                    && !ids.iter().any(|v| v.as_str() == Some(other))
                {
                    ids.push(other.clone().into());
                }
            }
        }
        Ok(())
    }

    /// The past-tense verb for a report line: `approved`, `rated`, …
    pub fn verb(&self) -> &'static str {
        match self {
            Edit::Set(_) => "updated",
            Edit::Approve | Edit::ApproveByAgent => "approved",
            Edit::Reject { .. } | Edit::RejectByAgent { .. } => "rejected",
            Edit::Rate(_) | Edit::RateAs { .. } => "rated",
            Edit::Retract { .. } => "retracted the rating of",
            Edit::Delete { .. } => "deleted",
            Edit::Restore => "restored",
            Edit::Tag(_) => "tagged",
            Edit::Untag(_) => "untagged",
            Edit::Supersede { .. } => "superseded",
            Edit::NotDuplicate { .. } => "marked not a duplicate",
        }
    }

    /// Why applying this edit changed nothing, for a report line.
    pub fn no_op_reason(&self) -> &'static str {
        match self {
            Edit::Set(_) => "already has those values",
            Edit::Approve | Edit::ApproveByAgent => "already approved",
            Edit::Reject { .. } | Edit::RejectByAgent { .. } => "already rejected for that reason",
            Edit::Rate(_) | Edit::RateAs { .. } => "rating unchanged",
            Edit::Retract { .. } => "has no rating by that rater",
            Edit::Delete { .. } => "already deleted",
            Edit::Restore => "not deleted",
            Edit::Tag(_) => "already has those tags",
            Edit::Untag(_) => "has none of those tags",
            Edit::Supersede { .. } => "already superseded by it",
            Edit::NotDuplicate { .. } => "already marked not a duplicate",
        }
    }

    /// A short description for the undo history: `approve`, `set type`, `rate 4`, …
    pub fn describe(&self) -> String {
        match self {
            Edit::Set(values) => {
                let names: Vec<_> = values.iter().map(FieldValue::field).collect();
                format!("set {}", names.join(", "))
            }
            Edit::Approve | Edit::ApproveByAgent => "approve".into(),
            Edit::Reject { .. } | Edit::RejectByAgent { .. } => "reject".into(),
            Edit::Rate(n) | Edit::RateAs { rating: n, .. } => format!("rate {n}"),
            Edit::Retract { .. } => "retract rating".into(),
            Edit::Delete { .. } => "delete".into(),
            Edit::Restore => "restore".into(),
            Edit::Tag(t) => format!("tag {}", t.join(",")),
            Edit::Untag(t) => format!("untag {}", t.join(",")),
            Edit::Supersede { by } => format!("supersede by `{by}`"),
            Edit::NotDuplicate { .. } => "mark not a duplicate".into(),
        }
    }
}

/// Status `rejected`, with `reason` kept as `stale_reason` when there is one (a
/// recorded `validated_by` is cleared, as hivelore does when a memory leaves
/// `validated`).
fn reject(memory: &mut Memory, reason: Option<&String>) {
    memory.status = Status::Rejected;
    if let Some(reason) = reason.map(|r| r.trim()).filter(|r| !r.is_empty()) {
        memory.extra.insert(STALE_REASON.into(), reason.into());
    }
    clear_extra(memory, VALIDATED_BY);
}

/// The rater of ratings given at this terminal: `$MEMLENS_RATER` as it is set (a rate
/// refuses one that is not a name, [`Edit::check`]), else the login name (`$USER`,
/// `$LOGNAME`), else `you`.
pub fn current_rater() -> String {
    if let Some(chosen) = std::env::var_os(RATER_ENV).filter(|v| !v.is_empty()) {
        return chosen.to_string_lossy().trim().to_string();
    }
    ["USER", "LOGNAME"]
        .iter()
        .filter_map(|k| std::env::var(k).ok())
        .map(|v| v.trim().to_string())
        .find(|v| !not_a_name(v))
        .unwrap_or_else(|| "you".into())
}

/// The variable that names the person rating at this terminal.
pub const RATER_ENV: &str = "MEMLENS_RATER";

/// A rater's name that is blank or holds a control character.
fn not_a_name(rater: &str) -> bool {
    rater.trim().is_empty() || rater.chars().any(char::is_control)
}

/// `rater`'s rating `n` of `memory`: it replaces their earlier one (the sum moves by
/// the difference, the count stays) or is added to the aggregate, which keeps the
/// ratings imported with the memory either way — remember-core's rule.
fn rate_as(memory: &mut Memory, rater: &str, n: u8) -> CurateResult<()> {
    let too_many = || CurateError::Invalid {
        id: memory.id.clone(),
        errors: vec![FieldError::new("rating_count", "too many ratings")],
    };
    match memory.ratings.iter().position(|r| r.rater == rater) {
        Some(i) => {
            let old = u32::from(memory.ratings[i].value);
            memory.rating_sum = memory.rating_sum - old.min(memory.rating_sum) + u32::from(n);
            memory.ratings[i].value = n;
        }
        None => {
            let (sum, count) = memory
                .rating_sum
                .checked_add(u32::from(n))
                .zip(memory.rating_count.checked_add(1))
                .ok_or_else(too_many)?;
            memory.rating_sum = sum;
            memory.rating_count = count;
            memory.ratings.push(Rating {
                rater: rater.to_string(),
                value: n,
            });
        }
    }
    Ok(())
}

/// Sets an `extra` key to null when it holds a value, keeping the key (hivelore writes
/// its schema defaults as `null`); an absent key stays absent.
fn clear_extra(memory: &mut Memory, key: &str) {
    if let Some(v) = memory.extra.get_mut(key) {
        *v = Value::Null;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn memory() -> Memory {
        Memory::new("m", "body", Timestamp(0))
    }

    #[test]
    fn approve_and_reject_record_who_and_why_where_hivelore_keeps_them() {
        let mut m = memory();
        m.extra.insert(STALE_REASON.into(), "old".into());
        Edit::Approve.apply_to(&mut m, Timestamp(1)).unwrap();
        assert_eq!(m.status, Status::Validated);
        assert_eq!(m.extra[VALIDATED_BY], "human");
        assert_eq!(m.extra[STALE_REASON], Value::Null);
        let reject = Edit::Reject {
            reason: " superseded ".into(),
        };
        reject.apply_to(&mut m, Timestamp(2)).unwrap();
        assert_eq!(m.status, Status::Rejected);
        assert_eq!(m.extra[STALE_REASON], "superseded");
        assert_eq!(m.extra[VALIDATED_BY], Value::Null);
        let fresh = &mut memory();
        reject.apply_to(fresh, Timestamp(2)).unwrap();
        assert!(!fresh.extra.contains_key(VALIDATED_BY));
    }

    #[test]
    fn a_raters_new_rating_replaces_theirs_and_a_retraction_takes_it_back() {
        let mut m = memory();
        (m.rating_sum, m.rating_count) = (9, 2); // imported aggregate
        let rate = |rater: &str, rating| Edit::RateAs {
            rater: rater.into(),
            rating,
        };
        let retract = |rater: &str| Edit::Retract {
            rater: Some(rater.into()),
        };
        let steps = [
            (rate("ann", 4), (13, 3)),
            (rate("ann", 2), (11, 3)),
            (rate("bo", 5), (16, 4)),
            (retract("ann"), (14, 3)),
            (retract("ann"), (14, 3)),
            (retract("bo"), (9, 2)),
        ];
        for (edit, want) in steps {
            edit.apply_to(&mut m, Timestamp(1)).unwrap();
            assert_eq!((m.rating_sum, m.rating_count), want, "{edit:?}");
            assert!(m.validate().is_empty(), "{:?}", m.validate());
        }
        assert!(m.ratings.is_empty());
    }

    #[test]
    fn a_second_delete_keeps_the_first_time_and_restore_clears_both_fields() {
        let mut m = memory();
        let delete = Edit::Delete {
            reason: Some("dup".into()),
        };
        delete.apply_to(&mut m, Timestamp(5)).unwrap();
        delete.apply_to(&mut m, Timestamp(9)).unwrap();
        assert_eq!(m.deleted_at, Some(Timestamp(5)));
        assert_eq!(m.deleted_reason.as_deref(), Some("dup"));
        Edit::Restore.apply_to(&mut m, Timestamp(10)).unwrap();
        assert_eq!((m.deleted_at, m.deleted_reason), (None, None));
    }

    #[test]
    fn ratings_outside_one_to_five_and_blank_reasons_are_refused() {
        assert!(Edit::Rate(0).check().unwrap_err().is_usage());
        assert!(Edit::Rate(6).check().is_err());
        assert!(Edit::Rate(5).check().is_ok());
        let bad_rater = Edit::RateAs {
            rater: " ".into(),
            rating: 3,
        };
        assert!(bad_rater.check().is_err());
        let blank = Edit::Reject {
            reason: "  ".into(),
        };
        assert!(matches!(blank.check(), Err(CurateError::MissingReason)));
    }
}
