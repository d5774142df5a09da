//! `memlens get ID`: one memory, as a readable page or as JSON with the derived values
//! (`rating_bayesian`, `rating_avg` once rated 5 times, `relationship_count`, the
//! composites when scored, `confidence_tier`) after the stored fields.

use super::{CommandError, CommandResult, read_existing};
use crate::cli::GetArgs;
use memlens::exchange::derived::with_derived;
use memlens::model::{Composite, FEEL_DIMS, Memory, Timestamp};
use memlens::store::{StoreError, StoreReader, guarded};
use memlens::text::json::to_compact;
use std::io::Write;
use std::path::Path;

/// Runs `memlens get`.
pub fn run(store_path: &Path, args: &GetArgs, out: &mut dyn Write) -> CommandResult<()> {
    guarded(store_path, || show(store_path, args, out))
}

fn show(store_path: &Path, args: &GetArgs, out: &mut dyn Write) -> CommandResult<()> {
    let reader = &read_existing(store_path)?;
    let memory = reader
        .get(&args.id)?
        .ok_or_else(|| StoreError::UnknownId(args.id.clone()))?;
    let memory = memlens::project::private::shown_memory(&memory).into_owned();
    let text = if args.json {
        let mut line = to_compact(&with_derived(reader, &memory, Timestamp::now())?);
        line.push('\n');
        line
    } else {
        page(reader, &memory, Timestamp::now())?
    };
    out.write_all(text.as_bytes())
        .map_err(|e| CommandError::io("stdout", e))
}

/// A readable page about a memory: fields, scores, links, then the body.
pub fn page(reader: &StoreReader, m: &Memory, now: Timestamp) -> Result<String, StoreError> {
    let mut lines: Vec<String> = Vec::new();
    // every field but the body is one line: a line break in a title, a tag or a
    // reason is shown as `^J`, never as a row of its own that reads like another field
    let mut row = |label: &str, value: String| {
        lines.push(format!("{label:<14}{}", memlens::text::inert(&value)));
    };
    row("id", m.id.clone());
    if let Some(t) = &m.title {
        row("title", t.clone());
    }
    let module = m
        .module
        .as_deref()
        .map(|x| format!(" ({x})"))
        .unwrap_or_default();
    row(
        "type",
        format!(
            "{}   scope: {}{module}   status: {}",
            m.memory_type, m.scope, m.status
        ),
    );
    if !m.tags.is_empty() {
        row("tags", m.tags.join(", "));
    }
    row("created", m.created_at.to_string());
    if m.updated_at != m.created_at {
        row("updated", m.updated_at.to_string());
    }
    if let Some(t) = m.deleted_at {
        let why = m
            .deleted_reason
            .as_deref()
            .map(|r| format!(" ({r})"))
            .unwrap_or_default();
        row("deleted", format!("{t}{why}"));
    }
    let last = m
        .last_read_at
        .map(|t| format!(", last {t}"))
        .unwrap_or_default();
    row("reads", format!("{}{last}", m.read_count));
    let avg = m
        .rating_avg()
        .map(|a| format!(", average {a:.2}"))
        .unwrap_or_default();
    row(
        "rating",
        format!(
            "{:.2} ({}{avg})",
            m.rating_bayesian(),
            memlens::words::plural(m.rating_count as usize, "rating")
        ),
    );
    let confidence = m
        .confidence
        .map(|c| format!("   confidence: {c}"))
        .unwrap_or_default();
    row(
        "weight",
        format!(
            "{}   trust: {}{confidence}   tier: {}",
            m.weight,
            m.trust,
            m.confidence_tier(now)
        ),
    );
    if let Some(level) = m.trust_level {
        row(
            "confidential",
            format!("{} (trust level {} of 5)", level.label(), level.number()),
        );
    }
    if !m.ratings.is_empty() {
        let raters: Vec<String> = m
            .ratings
            .iter()
            .map(|r| format!("{} {}", r.rater, r.value))
            .collect();
        row("raters", raters.join(", "));
    }
    let scored: Vec<String> = FEEL_DIMS
        .iter()
        .zip(&m.feel)
        .filter_map(|(d, v)| v.map(|v| format!("{} {v}", d.field)))
        .collect();
    if !scored.is_empty() {
        row("feel", scored.join(", "));
        let composites: Vec<String> = Composite::ALL
            .iter()
            .filter_map(|c| m.composite(*c).map(|v| format!("{} {v:.3}", c.field())))
            .collect();
        row("significance", composites.join(", "));
    }
    if let Some(v) = m.rem_visits {
        row("rem visits", v.to_string());
    }
    for rel in &m.relationships {
        let target = match reader.get(&rel.target)? {
            Some(t) => format!("{} ({})", rel.target, t.shown_headline()),
            None => format!("{} (missing)", rel.target),
        };
        let strength = rel
            .strength
            .map(|s| format!(" strength {s}"))
            .unwrap_or_default();
        let arrow = if memlens::exchange::mcp_memory::written_towards(m, rel) {
            "←"
        } else {
            "→"
        };
        row("links", format!("{} {arrow} {target}{strength}", rel.kind));
    }
    let from = reader.linked_from(&m.id)?;
    if !from.is_empty() {
        row("linked from", from.join(", "));
    }
    row(
        "related",
        memlens::words::memories(reader.relationship_count(m)? as usize),
    );
    if let Some(s) = &m.source {
        let path = s
            .path
            .as_deref()
            .map(|p| format!(": {p}"))
            .unwrap_or_default();
        let id =
            s.id.as_deref()
                .map(|i| format!(" (its id there: {i})"))
                .unwrap_or_default();
        row("source", format!("{}{path}{id}", s.system));
    }
    for (k, v) in &m.extra {
        row("extra", format!("{k}: {v}"));
    }
    let mut text = lines.join("\n");
    text.push_str("\n\n");
    if m.has_empty_body() {
        text.push_str("(empty memory: the body is empty)");
    }
    text.push_str(&m.body);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    Ok(memlens::text::inert_lines(&text).into_owned())
}
