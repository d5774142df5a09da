//! What goes wrong bringing memories in or taking them out: one problem at a place in an
//! input file (`FILE:LINE: field: reason`), and the errors that stop a whole run.

use crate::store::StoreError;
use std::fmt;
use std::path::PathBuf;

/// How many problems (and warnings) a run keeps to show; the rest are only counted.
pub const PROBLEM_CAP: usize = 50;

/// One problem with the input, at a file and line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportError {
    /// The input file, as the user named it (or as found under the directory given).
    pub file: String,
    /// 1-based line in that file.
    pub line: usize,
    /// The field at fault, as written in the input (`feel_humor`, `id`, `json`, …).
    pub field: String,
    /// What is wrong, naming the bad value.
    pub reason: String,
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}: {}",
            self.file, self.line, self.field, self.reason
        )
    }
}

/// A capped list of problems that still counts every one it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Problems {
    /// The first [`PROBLEM_CAP`] problems, in the order they were found.
    pub shown: Vec<ImportError>,
    /// How many there were in all.
    pub total: usize,
}

impl Problems {
    /// Records one problem (kept when under the cap, counted always).
    pub fn push(&mut self, problem: ImportError) {
        if self.shown.len() < PROBLEM_CAP {
            self.shown.push(problem);
        }
        self.total += 1;
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The lines to print: each problem, then `… and N more` when some were left out.
    pub fn lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.shown.iter().map(ToString::to_string).collect();
        let hidden = self.total - self.shown.len();
        if hidden > 0 {
            out.push(format!("… and {hidden} more"));
        }
        out
    }
}

/// An error that stops an import or export.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    /// The input had problems; nothing was written.
    #[error(
        "{} in the input; nothing was imported (the store is unchanged)",
        plural(.problems.total, "problem")
    )]
    Invalid {
        /// Every problem found (capped).
        problems: Problems,
        /// Warnings met on the way (capped).
        warnings: Problems,
    },
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// An input too large to read: a line or hivelore file longer than
    /// [`MAX_RECORD_BYTES`](super::lines::MAX_RECORD_BYTES), or a gzip file
    /// decompressing past [its limit](super::lines::gzip_limit). Nothing is written.
    #[error("{path}:{line}: {reason}")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The 1-based line where reading stopped.
        line: usize,
        /// What is too large, and the limit.
        reason: String,
    },
    /// A path that cannot be used for this format.
    #[error("{path}: {reason}")]
    BadPath {
        /// The path given.
        path: PathBuf,
        /// Why it cannot be used.
        reason: String,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ExchangeError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> ExchangeError {
        ExchangeError::Io {
            path: path.into(),
            source,
        }
    }
}

/// `1 problem`, `3 problems`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(line: usize) -> ImportError {
        ImportError {
            file: "a.jsonl".into(),
            line,
            field: "body".into(),
            reason: "must not be empty".into(),
        }
    }

    #[test]
    fn problems_keep_the_first_fifty_and_count_the_rest() {
        let mut p = Problems::default();
        for line in 1..=53 {
            p.push(problem(line));
        }
        let lines = p.lines();
        assert_eq!(lines.len(), PROBLEM_CAP + 1);
        assert_eq!(lines[0], "a.jsonl:1: body: must not be empty");
        assert_eq!(lines[PROBLEM_CAP], "… and 3 more");
        assert_eq!(p.total, 53);
    }
}
