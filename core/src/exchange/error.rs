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
    /// 1-based line in that file (0: the file as a whole).
    pub line: usize,
    /// The field at fault, as written in the input (`feel_humor`, `id`, `json`, …).
    pub field: String,
    /// What is wrong, naming the bad value.
    pub reason: String,
}

impl fmt::Display for ImportError {
    /// `file:line: field: reason`; `file: field: reason` for one about the whole file
    /// (line 0).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.line == 0 {
            return write!(f, "{}: {}: {}", self.file, self.field, self.reason);
        }
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
    /// The problems counted by kind (boxed: an error carries two of these lists).
    kinds: Box<Kinds>,
}

/// Problems counted by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Kinds {
    /// The first [`PROBLEM_CAP`] kinds of problem, each counted.
    alike: Vec<Alike>,
    /// Problems of the kinds past those.
    untallied: usize,
}

/// Problems of one kind: the same field, reason and file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Alike {
    first: ImportError,
    /// The first [`Alike::NAMED`] lines.
    lines: Vec<usize>,
    count: usize,
}

impl Kinds {
    /// Counts `problem` with those of its kind.
    fn add(&mut self, problem: &ImportError) {
        let same = |a: &&mut Alike| {
            (&a.first.file, &a.first.field, &a.first.reason)
                == (&problem.file, &problem.field, &problem.reason)
        };
        let room = self.alike.len() < PROBLEM_CAP;
        match self.alike.iter_mut().find(same) {
            Some(a) => {
                a.count += 1;
                if a.lines.len() < Alike::NAMED {
                    a.lines.push(problem.line);
                }
            }
            None if room => self.alike.push(Alike {
                lines: vec![problem.line],
                first: problem.clone(),
                count: 1,
            }),
            None => self.untallied += 1,
        }
    }
}

impl Alike {
    /// Lines a grouped problem names.
    const NAMED: usize = 5;

    fn line(&self) -> String {
        if self.count == 1 {
            return self.first.to_string();
        }
        let named: Vec<String> = self.lines.iter().map(usize::to_string).collect();
        let more = match self.count - self.lines.len() {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        let p = &self.first;
        let lines = named.join(", ");
        format!(
            "{}: {}: {} (lines {lines}{more})",
            p.file, p.field, p.reason
        )
    }
}

impl Problems {
    /// Records one problem (kept when under the cap, counted always).
    pub fn push(&mut self, problem: ImportError) {
        self.kinds.add(&problem);
        if self.shown.len() < PROBLEM_CAP {
            self.shown.push(problem);
        }
        self.total += 1;
    }

    /// True when nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// One line for each kind of problem (the same field, the same reason, the same
    /// file), naming its first lines and counting all of them (`f.jsonl:
    /// rating_bayesian: derived field ignored … (lines 1, 2, 3, 4, 5 and 18 more)`):
    /// what warnings print, where one remark about each of a thousand records would
    /// bury the rest. Kinds past the first [`PROBLEM_CAP`] are counted at the end.
    pub fn grouped_lines(&self) -> Vec<String> {
        let mut out: Vec<String> = self.kinds.alike.iter().map(Alike::line).collect();
        if self.kinds.untallied > 0 {
            out.push(format!("… and {} more", self.kinds.untallied));
        }
        out
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

use crate::words::plural;

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
        // grouped: one line for the fifty alike, the count of those left out after it
        assert_eq!(
            p.grouped_lines(),
            ["a.jsonl: body: must not be empty (lines 1, 2, 3, 4, 5 and 48 more)"]
        );
    }

    #[test]
    fn grouped_lines_keep_apart_what_differs_and_a_single_one_as_it_is() {
        let mut p = Problems::default();
        p.push(problem(4));
        p.push(ImportError {
            field: "title".into(),
            ..problem(7)
        });
        p.push(problem(9));
        // kinds past the cap are counted at the end
        for i in 0..PROBLEM_CAP {
            p.push(ImportError {
                field: format!("f{i}"),
                ..problem(1)
            });
        }
        let lines = p.grouped_lines();
        assert_eq!(lines.len(), PROBLEM_CAP + 1);
        assert_eq!(lines[PROBLEM_CAP], "… and 2 more");
        assert_eq!(
            lines[..2],
            [
                "a.jsonl: body: must not be empty (lines 4, 9)",
                "a.jsonl:7: title: must not be empty"
            ]
        );
    }
}
