//! `memlens stats`: how many memories, and how they split by type, scope and status.
//!
//! `total` counts every stored memory and `deleted` the soft-deleted ones among them;
//! the splits and the `rated` (at least one rating) and `scored` (at least one
//! `feel_*`) counts are over the memories not deleted, the ones the browser shows.

use super::{CommandError, CommandResult, read_existing};
use crate::cli::StatsArgs;
use memlens::model::{Memory, Scope, Status};
use memlens::store::{StoreError, StoreReader, guarded};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The counts `stats` shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Every stored memory.
    pub total: usize,
    /// Soft-deleted memories.
    pub deleted: usize,
    /// Memories not deleted with at least one rating.
    pub rated: usize,
    /// Memories not deleted with at least one `feel_*` score.
    pub scored: usize,
    /// Memories not deleted, by type.
    pub by_type: BTreeMap<String, usize>,
    /// Memories not deleted, by scope.
    pub by_scope: BTreeMap<Scope, usize>,
    /// Memories not deleted, by status.
    pub by_status: BTreeMap<Status, usize>,
}

impl Stats {
    /// Counts one memory.
    pub fn add(&mut self, m: &Memory) {
        self.total += 1;
        if m.is_deleted() {
            self.deleted += 1;
            return;
        }
        self.rated += usize::from(m.rating_count > 0);
        self.scored += usize::from(m.is_scored());
        *self.by_type.entry(m.memory_type.clone()).or_default() += 1;
        *self.by_scope.entry(m.scope).or_default() += 1;
        *self.by_status.entry(m.status).or_default() += 1;
    }

    /// The counts of every memory in a store snapshot.
    pub fn of(reader: &StoreReader) -> Result<Stats, StoreError> {
        let mut stats = Stats::default();
        reader.for_each(|_, m| stats.add(&m))?;
        Ok(stats)
    }

    /// As JSON: every scope and status listed, zero counts included.
    pub fn to_json(&self) -> Value {
        let by_scope: Map<String, Value> = Scope::ALL
            .iter()
            .map(|s| {
                (
                    s.as_str().to_string(),
                    self.by_scope.get(s).copied().unwrap_or(0).into(),
                )
            })
            .collect();
        let by_status: Map<String, Value> = Status::ALL
            .iter()
            .map(|s| {
                (
                    s.as_str().to_string(),
                    self.by_status.get(s).copied().unwrap_or(0).into(),
                )
            })
            .collect();
        json!({
            "total": self.total,
            "deleted": self.deleted,
            "rated": self.rated,
            "scored": self.scored,
            "by_type": self.by_type,
            "by_scope": by_scope,
            "by_status": by_status,
        })
    }

    /// As readable lines: the splits largest first.
    pub fn to_text(&self) -> String {
        fn split<K: std::fmt::Display>(counts: impl Iterator<Item = (K, usize)>) -> String {
            let mut v: Vec<(String, usize)> = counts.map(|(k, n)| (k.to_string(), n)).collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
            if v.is_empty() {
                return "-".into();
            }
            v.iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
        let mut out = format!(
            "memories    {} ({} deleted)\nrated       {}\nscored      {}\n",
            self.total, self.deleted, self.rated, self.scored
        );
        out.push_str(&format!(
            "by type     {}\n",
            split(self.by_type.iter().map(|(k, n)| (k, *n)))
        ));
        out.push_str(&format!(
            "by scope    {}\n",
            split(self.by_scope.iter().map(|(k, n)| (k, *n)))
        ));
        out.push_str(&format!(
            "by status   {}\n",
            split(self.by_status.iter().map(|(k, n)| (k, *n)))
        ));
        out
    }
}

/// Runs `memlens stats`.
pub fn run(store_path: &Path, args: &StatsArgs, out: &mut dyn Write) -> CommandResult<()> {
    let stats = guarded(store_path, || -> CommandResult<Stats> {
        Ok(Stats::of(&read_existing(store_path)?)?)
    })?;
    let text = if args.json {
        let mut j = stats.to_json();
        j["store"] = store_path.display().to_string().into();
        format!("{}\n", memlens::text::json::to_compact(&j))
    } else {
        format!("store       {}\n{}", store_path.display(), stats.to_text())
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CommandError::io("stdout", e))
}
