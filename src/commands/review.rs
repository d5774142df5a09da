//! `memlens review QUEUE`: the memories (or pairs) waiting in one review queue, one
//! line each, or as JSON.

use super::{CommandError, CommandResult, read_existing};
use crate::cli::ReviewArgs;
use crate::model::{Memory, Timestamp};
use crate::review::{Entry, Review, ReviewOptions};
use crate::search::Hit;
use crate::search::output::{cut, hit_json};
use crate::store::{StoreReader, StoreResult, guarded};
use serde_json::{Map, Value, json};
use std::io::Write;
use std::path::Path;

/// Runs `memlens review` as of now.
pub fn run(store_path: &Path, args: &ReviewArgs, out: &mut dyn Write) -> CommandResult<()> {
    run_at(store_path, args, Timestamp::now(), out)
}

/// Runs `memlens review` with the clock given.
pub fn run_at(
    store_path: &Path,
    args: &ReviewArgs,
    now: Timestamp,
    out: &mut dyn Write,
) -> CommandResult<()> {
    guarded(store_path, || {
        let reader = read_existing(store_path)?;
        let options = ReviewOptions {
            now,
            root: args.root.clone(),
        };
        let review = Review::of(&reader, &options, &[args.queue])?;
        let entries = review.entries(args.queue);
        let shown = &entries[..entries.len().min(args.limit.unwrap_or(usize::MAX))];
        let text = if args.json {
            let mut rows = Vec::with_capacity(shown.len());
            for e in shown {
                rows.push(Value::Object(entry_json(&reader, e)?));
            }
            let mut line = crate::text::json::to_compact(&json!({
                "queue": args.queue.as_str(),
                "total": entries.len(),
                "entries": rows,
            }));
            line.push('\n');
            line
        } else {
            let mut text = String::new();
            for e in shown {
                text.push_str(&entry_line(&reader, e)?);
                text.push('\n');
            }
            if shown.len() < entries.len() {
                text.push_str(&format!("… {} more\n", entries.len() - shown.len()));
            }
            text.push_str(&format!("{} in {}\n", entries.len(), args.queue));
            text
        };
        out.write_all(text.as_bytes())
            .map_err(|e| CommandError::io("stdout", e))
    })
}

fn memory(reader: &StoreReader, doc: u32) -> StoreResult<Option<Memory>> {
    reader.get_doc(doc)
}

/// A memory as `search --json` shows a result.
fn brief(reader: &StoreReader, memory: Memory) -> StoreResult<Value> {
    let relationship_count = reader.relationship_count(&memory)?;
    let hit = Hit {
        memory,
        relationship_count,
        score: None,
        match_quality: None,
        is_discovery: None,
    };
    Ok(hit_json(&hit, ""))
}

/// One entry as JSON: the memory's brief fields, the reason, and for a pair the other
/// memory and how alike they are.
fn entry_json(reader: &StoreReader, e: &Entry) -> StoreResult<Map<String, Value>> {
    let mut o = match memory(reader, e.doc)? {
        Some(m) => match brief(reader, m)? {
            Value::Object(o) => o,
            _ => Map::new(),
        },
        None => Map::from_iter([("id".to_string(), Value::from(e.id.clone()))]),
    };
    o.insert("reason".into(), e.reason.clone().into());
    if let Some((doc, id)) = &e.other {
        let other = match memory(reader, *doc)? {
            Some(m) => brief(reader, m)?,
            None => json!({ "id": id }),
        };
        o.insert("other".into(), other);
    }
    if let Some(s) = e.similarity {
        o.insert("similarity".into(), json!((s * 1000.0).round() / 1000.0));
    }
    Ok(o)
}

/// One entry as a line: `ID  reason  headline`, or `KEEP ~ OTHER  reason`.
fn entry_line(reader: &StoreReader, e: &Entry) -> StoreResult<String> {
    let headline = memory(reader, e.doc)?
        .map(|m| cut(m.headline(), 60))
        .unwrap_or_default();
    Ok(match &e.other {
        Some((_, other)) => format!("{}  ~  {}  {}  {headline}", e.id, other, e.reason),
        None => format!("{}  {}  {headline}", e.id, e.reason),
    })
}
