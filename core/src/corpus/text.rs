//! The real text a generated corpus is made of: fortunes, WordNet glosses and the
//! hivelore fixtures when they are on the machine, a small built-in text otherwise.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where fortunes live on Debian (`%`-separated entries, one file per collection).
const FORTUNES_DIR: &str = "/usr/share/games/fortunes";
/// Where WordNet's data files live on Debian (`wordnet-base`).
const WORDNET_DIR: &str = "/usr/share/wordnet";
/// The hivelore fixtures, relative to this crate (`core/`, in the project root).
const FIXTURES_DIR: &str = "../../shared/fixtures/hivelore/memories";

/// Used when none of the real sources is present, so a fresh clone still works.
const FALLBACK: &str = "\
Retries on the payout webhook must carry the idempotency key or the ledger posts twice.
The outbox table is drained by one worker per shard; never run two on the same shard.
Use the replica for statement exports, the primary is reserved for postings.
Currency amounts are integers in minor units; floats round and the totals drift.
A timeout on the bank gateway is not a failure: poll the status before retrying.
Migrations that rewrite a large table run in batches of ten thousand rows.
The merchant cache is invalidated by the settings event, not by a time to live.
Kafka consumers commit offsets only after the database transaction commits.
Schema changes ship in two steps: add the column, deploy, then backfill and enforce.
Refunds larger than the original charge are rejected by the card network.
Alerts page only when a customer can see the problem; everything else is a ticket.
The cursor for the event feed is opaque; clients must not parse it.
Invoices are immutable once sent; corrections are credit notes.
Session recap: paired on the reconciliation job, found the off-by-one in the date window.
Decided to keep the balance in one row per account and lock it with select for update.
Glossary: a posting is one leg of a double-entry transaction.
Gotcha: the test clock in staging runs in UTC while the batch scheduler uses local time.
Convention: every public endpoint takes a request id and echoes it in the response.
Attempted to shard by merchant id; hot merchants made one shard ten times busier.
Architecture: payments flow from the API to the outbox, then to the ledger and the bank.";

/// The text pool: fragments to build bodies from, and words for titles and tags.
#[derive(Debug, Default)]
pub struct TextPool {
    /// Short passages (a fortune, a gloss, a paragraph), one line each.
    pub fragments: Vec<String>,
    /// Distinct lowercase words, in first-seen order, for the tag vocabulary.
    pub words: Vec<String>,
    /// One line per source used, for `sources()`.
    pub used: Vec<String>,
}

/// The pool, read once per process.
pub fn pool() -> &'static TextPool {
    static POOL: OnceLock<TextPool> = OnceLock::new();
    POOL.get_or_init(load)
}

fn sorted_files(dir: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.is_file() && keep(p));
    files.sort();
    files
}

/// Collapses whitespace and drops control characters, so a fragment is one clean line.
fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        let word: String = word.chars().filter(|c| !c.is_control()).collect();
        if word.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&word);
    }
    out
}

fn load_fortunes(pool: &mut TextPool) {
    // The `.dat` index files and `.u8` links sit beside the text files.
    let files = sorted_files(Path::new(FORTUNES_DIR), |p| p.extension().is_none());
    let before = pool.fragments.len();
    for file in &files {
        let Ok(bytes) = std::fs::read(file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for entry in text.split("\n%\n") {
            let entry = clean(entry);
            if entry.len() >= 20 {
                pool.fragments.push(entry);
            }
        }
    }
    let added = pool.fragments.len() - before;
    if added > 0 {
        pool.used.push(format!(
            "fortunes: {added} entries from {} files in {FORTUNES_DIR}",
            files.len()
        ));
    }
}

fn load_wordnet(pool: &mut TextPool) {
    let before = pool.fragments.len();
    for part in ["noun", "verb", "adj", "adv"] {
        let Ok(text) = std::fs::read_to_string(Path::new(WORDNET_DIR).join(format!("data.{part}")))
        else {
            continue;
        };
        // Lines starting with two spaces are the licence header.
        for line in text.lines().filter(|l| !l.starts_with("  ")) {
            if let Some((_, gloss)) = line.split_once(" | ") {
                let gloss = clean(gloss);
                if gloss.len() >= 12 {
                    pool.fragments.push(gloss);
                }
            }
        }
    }
    let added = pool.fragments.len() - before;
    if added > 0 {
        pool.used.push(format!(
            "wordnet: {added} glosses from {WORDNET_DIR}/data.*"
        ));
    }
}

fn load_fixtures(pool: &mut TextPool) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURES_DIR);
    let files = sorted_files(&dir, |p| p.extension().is_some_and(|e| e == "md"));
    let before = pool.fragments.len();
    for file in &files {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        // Drop the YAML frontmatter: everything up to the second `---` line.
        let body = match text
            .strip_prefix("---\n")
            .and_then(|t| t.split_once("\n---\n"))
        {
            Some((_, body)) => body,
            None => &text,
        };
        for paragraph in body.split("\n\n") {
            let p = clean(paragraph.trim_start_matches('#'));
            if p.len() >= 20 {
                pool.fragments.push(p);
            }
        }
    }
    let added = pool.fragments.len() - before;
    if added > 0 {
        pool.used.push(format!(
            "hivelore fixtures: {added} paragraphs from {} files",
            files.len()
        ));
    }
}

fn load() -> TextPool {
    let mut pool = TextPool::default();
    load_fortunes(&mut pool);
    load_wordnet(&mut pool);
    load_fixtures(&mut pool);
    if pool.fragments.is_empty() {
        pool.fragments = FALLBACK.lines().map(clean).collect();
        pool.used.push(format!(
            "built-in fallback text: {} sentences",
            pool.fragments.len()
        ));
    }
    let mut seen = std::collections::HashSet::new();
    for fragment in &pool.fragments {
        for word in fragment.split(|c: char| !c.is_ascii_alphabetic()) {
            if (4..=12).contains(&word.len()) {
                let w = word.to_ascii_lowercase();
                if seen.insert(w.clone()) {
                    pool.words.push(w);
                }
            }
        }
        if pool.words.len() >= 4000 {
            break;
        }
    }
    pool
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_makes_one_line_without_control_characters() {
        assert_eq!(clean("  a\tb\n\nc\u{8}d \u{1b}[0m "), "a b cd [0m");
    }

    #[test]
    fn the_pool_is_never_empty() {
        let p = pool();
        assert!(!p.fragments.is_empty());
        assert!(p.words.len() >= 20, "{} words", p.words.len());
        assert!(!p.used.is_empty());
    }
}
