//! The lines that say what a curation change did: one per changed memory, then one per
//! memory left unchanged. The command line prints them; the agents' tools return them.

use super::apply::{Applied, Change};
use super::edit::Edit;
use super::error::CurateResult;
use std::io::Write;

/// Writes one line per changed memory, then one per memory left unchanged.
pub fn report(change: &Change, applied: &Applied, out: &mut dyn Write) -> CurateResult<()> {
    for entry in applied.changed() {
        let id = &entry.id;
        match (change, &entry.after) {
            (
                Change::Edit {
                    edit: Edit::Rate(n) | Edit::RateAs { rating: n, .. },
                    ..
                },
                Some(m),
            ) => writeln!(
                out,
                "rated {id} {n}: rating {:.2} from {}",
                m.rating_bayesian(),
                crate::words::plural(m.rating_count as usize, "rating")
            )?,
            (
                Change::Edit {
                    edit: Edit::Retract { rater },
                    ..
                },
                Some(m),
            ) => writeln!(
                out,
                "retracted the rating of {} on {id}: rating {:.2} from {}",
                rater.as_deref().unwrap_or("you"),
                m.rating_bayesian(),
                crate::words::plural(m.rating_count as usize, "rating")
            )?,
            (Change::Edit { edit, .. }, _) => writeln!(
                out,
                "{} {id}: {}",
                edit.verb(),
                entry.changed_fields().join(", ")
            )?,
            (Change::Purge { .. }, _) => writeln!(out, "purged {id}")?,
            (Change::Link { a, b, kind }, _) => writeln!(
                out,
                "linked {a} and {b} as {} (held by {id})",
                super::apply::kind_or_default(kind)
            )?,
            (Change::Unlink { a, b }, _) => {
                let other = if id == a { b } else { a };
                writeln!(out, "unlinked {id} from {other}")?
            }
            (Change::Merge { into, .. }, _) if id == into => {
                writeln!(out, "kept {id}: {}", entry.changed_fields().join(", "))?
            }
            (Change::Merge { into, .. }, _) => writeln!(out, "merged {id} into {into}")?,
            // the kept memory changes only when it gives up its own link to the old one
            (Change::Supersede { keep, old }, _) if id == keep => writeln!(
                out,
                "kept {id}: its link to {old} is now {old}'s superseded_by link"
            )?,
            (Change::Supersede { keep, .. }, _) => writeln!(
                out,
                "superseded {id} by {keep}: {}",
                entry.changed_fields().join(", ")
            )?,
            (Change::Create(_), _) => writeln!(out, "created {id}")?,
        }
    }
    for id in &applied.unchanged {
        let why = change.no_op_reason().unwrap_or("nothing to change");
        writeln!(out, "unchanged {id}: {why}")?;
    }
    Ok(())
}
