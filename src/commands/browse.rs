//! `memlens` without a subcommand (and `memlens demo` once its store is built): the
//! memory browser on a store. The browser needs a terminal on stdin and stdout; without
//! one (a pipe, a script, CI) memlens prints where the store is and its counts instead,
//! so `memlens demo > /dev/null` still builds the demo store and says where it is.

use super::stats::Stats;
use super::{CommandError, CommandResult, open_existing};
use std::io::{IsTerminal, Write};
use std::path::Path;

/// True when both stdin and stdout are terminals, so the browser can run.
pub fn has_terminal() -> bool {
    std::io::stdin().is_terminal() && std::io::stdout().is_terminal()
}

/// The store's path and counts, for when there is no terminal to browse in.
pub fn summary(store_path: &Path, out: &mut dyn Write) -> CommandResult<()> {
    let store = open_existing(store_path)?;
    let stats = memlens::store::guarded(store_path, || {
        Ok::<_, CommandError>(Stats::of(&store.read()?)?)
    })?;
    let text = format!(
        "store       {}\n{}(the browser opens when memlens runs in a terminal)\n",
        store_path.display(),
        stats.to_text()
    );
    out.write_all(text.as_bytes())
        .map_err(|e| CommandError::io("stdout", e))
}
