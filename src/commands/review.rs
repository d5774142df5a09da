//! `memlens review QUEUE`: the memories (or pairs) waiting in one review queue, one
//! line each, or as JSON.

use super::{CommandError, CommandResult, read_existing};
use crate::cli::ReviewArgs;
use memlens::collection::LocalCollection;
use memlens::model::Timestamp;
use memlens::review::{ReviewItem, ReviewRequest};
use memlens::search::output::cut;
use memlens::search::{Filters, SearchRequest};
use memlens::store::guarded;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;

/// Runs `memlens review` as of now.
pub fn run(store_path: &Path, args: &ReviewArgs, out: &mut dyn Write) -> CommandResult<()> {
    run_at(store_path, args, Timestamp::now(), out)
}

/// Runs `memlens review` with the clock given: one page of the queue through the
/// front door ([`Collection::review`]), narrowed to the search QUERY and `--filter`s
/// give.
pub fn run_at(
    store_path: &Path,
    args: &ReviewArgs,
    now: Timestamp,
    out: &mut dyn Write,
) -> CommandResult<()> {
    guarded(store_path, || {
        let memories = LocalCollection::snapshot(read_existing(store_path)?);
        let page = memories.review_at(&request(args)?, now)?;
        let listed = args.offset + page.items.len();
        let text = if args.json {
            let mut rows = Vec::with_capacity(page.items.len());
            for item in &page.items {
                rows.push(Value::Object(item.json()));
            }
            let mut line = memlens::text::json::to_compact(&json!({
                "queue": args.queue.as_str(),
                "total": page.total,
                "entries": rows,
            }));
            line.push('\n');
            line
        } else {
            let mut text = String::new();
            for item in &page.items {
                text.push_str(&item_line(item));
                text.push('\n');
            }
            if listed < page.total {
                text.push_str(&format!("… {} more\n", page.total - listed));
            }
            text.push_str(&format!("{} in {}\n", page.total, args.queue));
            text
        };
        out.write_all(text.as_bytes())
            .map_err(|e| CommandError::io("stdout", e))
    })
}

/// The front door's request for the command's arguments.
fn request(args: &ReviewArgs) -> CommandResult<ReviewRequest> {
    if let Some(root) = args.root.as_ref().filter(|r| !r.is_dir()) {
        // every anchored memory would be stale against a directory that is not there
        return Err(CommandError::Usage(format!(
            "--root {}: no such directory (the project the memories' anchors are paths in)",
            root.display()
        )));
    }
    let filters =
        Filters::from_args(&args.filters).map_err(|e| CommandError::Usage(e.to_string()))?;
    Ok(ReviewRequest {
        queue: args.queue,
        narrow: SearchRequest {
            query: args.query.join(" "),
            engine: args.engine,
            filters,
            ..SearchRequest::default()
        },
        offset: args.offset,
        limit: args.limit.unwrap_or(usize::MAX),
        root: args.root.clone(),
    })
}

/// One entry as a line: `ID  reason  headline`, or `KEEP ~ OTHER  reason  headline`.
fn item_line(item: &ReviewItem) -> String {
    let m = &item.hit.memory;
    let headline = cut(m.headline(), 60);
    match &item.other {
        Some(other) => format!(
            "{}  ~  {}  {}  {headline}",
            m.id, other.memory.id, item.reason
        ),
        None => format!("{}  {}  {headline}", m.id, item.reason),
    }
}
