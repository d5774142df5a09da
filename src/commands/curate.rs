//! The curation verbs on the command line (`memlens set|rate|approve|reject|delete|
//! restore|purge|link|unlink|merge`), for scripts: one durable change per invocation, one
//! report line per memory named.

use memlens::curate::apply::{Change, apply};
use memlens::curate::edit::Edit;
use memlens::curate::error::{CurateError, CurateResult};
use memlens::curate::field::parse_assignments;
use memlens::curate::report;
use memlens::store::Store;
use std::io::Write;

/// The curation subcommands. Each prints one line per changed memory (and one per
/// memory left as it was, starting `unchanged`); on any error nothing changes.
#[derive(Debug, Clone, PartialEq, Eq, clap::Subcommand)]
pub enum CurateCommand {
    /// Set fields of a memory: title, body, type, scope, module, status, tags
    /// (comma-separated), weight, trust, trust_level (1–5 or public … secret), confidence, feel_*, functional_*, rem_visits. An
    /// empty value removes an optional field.
    Set {
        /// The memory.
        id: String,
        /// One or more FIELD=VALUE.
        #[arg(value_name = "FIELD=VALUE", required = true)]
        fields: Vec<String>,
    },
    /// Rate a memory 1–5 as one rater: a rater has one rating, which a new one replaces
    /// (the imported aggregate stays; the Bayesian score follows). `--retract` takes it
    /// back.
    Rate {
        /// The memory.
        id: String,
        /// The rating, 1–5.
        #[arg(value_parser = clap::value_parser!(u8).range(1..=5), required_unless_present = "retract")]
        rating: Option<u8>,
        /// Take back the rater's rating instead.
        #[arg(long, conflicts_with = "rating")]
        retract: bool,
        /// Who rates (default: $MEMLENS_RATER, else the login name).
        #[arg(long)]
        rater: Option<String>,
    },
    /// Approve memories: status validated, validated by a human.
    Approve {
        /// The memories.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Reject memories with a reason: status rejected, the reason kept as stale_reason.
    Reject {
        /// The memories.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Why they are rejected.
        #[arg(long, required = true)]
        reason: String,
    },
    /// Soft-delete memories (they stay in the store and can be restored).
    Delete {
        /// The memories.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Why they are deleted.
        #[arg(long)]
        reason: Option<String>,
    },
    /// Restore soft-deleted memories.
    Restore {
        /// The memories.
        #[arg(required = true)]
        ids: Vec<String>,
    },
    /// Remove memories for good (needs --yes).
    Purge {
        /// The memories.
        #[arg(required = true)]
        ids: Vec<String>,
        /// Confirm that the memories are to be removed for good.
        #[arg(long)]
        yes: bool,
    },
    /// Link two memories (undirected); linking again with --kind changes the kind.
    Link {
        /// One memory (it holds the relationship).
        a: String,
        /// The other memory.
        b: String,
        /// The relationship kind: `related` when not given for a new link; a link
        /// already there keeps its own unless one is given.
        #[arg(long)]
        kind: Option<String>,
    },
    /// Remove the link between two memories, whichever side holds it.
    Unlink {
        /// One memory.
        a: String,
        /// The other memory.
        b: String,
    },
    /// Merge memories into one: it gains their bodies, tags, ratings, reads and links
    /// (and a title when it has none), and they are soft-deleted ("merged into INTO")
    /// with a `merged` link from it.
    Merge {
        /// The memory kept.
        into: String,
        /// The memories merged into it.
        #[arg(required = true)]
        from: Vec<String>,
    },
    /// Keep one memory and deprecate another in its favour: OLD gets status deprecated,
    /// a stale_reason "superseded by KEEP" and a superseded_by link to it.
    Supersede {
        /// The memory kept.
        keep: String,
        /// The memory superseded.
        old: String,
    },
    /// Mark two memories as not duplicates of each other, so `memlens review
    /// duplicates` no longer lists the pair.
    NotDuplicate {
        /// One memory.
        a: String,
        /// The other memory.
        b: String,
    },
}

impl CurateCommand {
    /// The library change this command asks for; usage errors (bad fields or values,
    /// purge without `--yes`) are found here, before the store is touched.
    pub fn to_change(&self) -> CurateResult<Change> {
        let edit = |ids: &[String], edit: Edit| Change::edit(ids.iter().cloned(), edit);
        Ok(match self {
            CurateCommand::Set { id, fields } => edit(
                std::slice::from_ref(id),
                Edit::Set(parse_assignments(fields)?),
            ),
            CurateCommand::Rate {
                id,
                rating,
                retract,
                rater,
            } => {
                // without --rater, the person at this terminal ($MEMLENS_RATER, …)
                let e = match (rating, rater.clone()) {
                    (Some(rating), Some(rater)) if !retract => Edit::RateAs {
                        rater,
                        rating: *rating,
                    },
                    (Some(rating), None) if !retract => Edit::Rate(*rating),
                    (_, rater) => Edit::Retract { rater },
                };
                e.check()?;
                edit(std::slice::from_ref(id), e)
            }
            CurateCommand::Approve { ids } => edit(ids, Edit::Approve),
            CurateCommand::Reject { ids, reason } => edit(
                ids,
                Edit::Reject {
                    reason: reason.clone(),
                },
            ),
            CurateCommand::Delete { ids, reason } => edit(
                ids,
                Edit::Delete {
                    reason: reason.clone(),
                },
            ),
            CurateCommand::Restore { ids } => edit(ids, Edit::Restore),
            CurateCommand::Purge { ids, yes } => {
                if !*yes {
                    let distinct: std::collections::HashSet<_> = ids.iter().collect();
                    return Err(CurateError::PurgeNotConfirmed(distinct.len()));
                }
                Change::Purge { ids: ids.clone() }
            }
            CurateCommand::Link { a, b, kind } => Change::Link {
                a: a.clone(),
                b: b.clone(),
                kind: kind.clone().unwrap_or_default(),
            },
            CurateCommand::Unlink { a, b } => Change::Unlink {
                a: a.clone(),
                b: b.clone(),
            },
            CurateCommand::Merge { into, from } => Change::Merge {
                into: into.clone(),
                from: from.clone(),
            },
            CurateCommand::Supersede { keep, old } => Change::Supersede {
                keep: keep.clone(),
                old: old.clone(),
            },
            CurateCommand::NotDuplicate { a, b } => Change::edit(
                [a.clone(), b.clone()],
                Edit::NotDuplicate {
                    pair: [a.clone(), b.clone()],
                },
            ),
        })
    }
}

/// Runs one curation command against the store and reports what changed to `out`.
pub fn run(store: &Store, cmd: &CurateCommand, out: &mut dyn Write) -> Result<(), CurateError> {
    let change = cmd.to_change()?;
    let applied = memlens::store::guarded(store.path(), || apply(store, &change))?;
    report(&change, &applied, out)
}
