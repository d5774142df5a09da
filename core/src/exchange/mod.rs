//! Import and export: the formats people keep their memories in (canonical JSONL,
//! hivelore's Markdown tree, the MCP memory server's graph, OpenMemory's export), read
//! into one all-or-nothing write transaction, and written back out.
//!
//! Every reader turns its input into [`Memory`] values and hands them, with the line they
//! came from, to a [`RecordSink`]; the sink (see [`import`]) checks ids and writes. Readers
//! never touch the store, so each format is one small file.

pub mod derived;
pub mod detect;
pub mod error;
pub mod export;
pub mod fast_json;
pub mod hivelore;
pub mod import;
pub mod json_line;
mod json_scan;
pub mod jsonl;
pub mod lines;
pub mod mcp_memory;
pub mod openmemory;
pub mod openmemory_zip;
pub mod pipeline;
pub mod update;

pub use error::{ExchangeError, ImportError, PROBLEM_CAP, Problems};
pub use export::{ExportSummary, export_hivelore, export_jsonl};
pub use import::{ImportOptions, ImportSource, ImportSummary, import, import_into};

use crate::model::{Checked, FieldError, Memory};
use std::fmt;
use std::str::FromStr;

/// An input format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Format {
    /// memlens's canonical JSONL (also remember-core's field names).
    Jsonl,
    /// A hivelore `.ai/memories` tree of Markdown files with YAML frontmatter.
    Hivelore,
    /// The MCP reference memory server's `memory.jsonl` (entities and relations).
    McpMemory,
    /// OpenMemory's `memories.jsonl` or `memories.jsonl.gz` export, or the zip its UI
    /// downloads.
    Openmemory,
}

impl Format {
    /// Every input format.
    pub const ALL: [Format; 4] = [
        Format::Jsonl,
        Format::Hivelore,
        Format::McpMemory,
        Format::Openmemory,
    ];

    /// The name used on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Jsonl => "jsonl",
            Format::Hivelore => "hivelore",
            Format::McpMemory => "mcp-memory",
            Format::Openmemory => "openmemory",
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("unknown format `{s}`"))
    }
}

/// What to do with an imported memory whose id is already in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnConflict {
    /// Report it as a problem; nothing is imported (the default).
    #[default]
    Fail,
    /// Keep the stored memory and leave the imported one out.
    Skip,
    /// Replace the stored memory with the imported one.
    Overwrite,
    /// Take the text, scores and the other fields the source owns, keep what was done
    /// in memlens (status, ratings, links, tags, merges, `created_at`); see
    /// [`update::update_from_source`].
    Update,
}

/// Where readers deliver what they read. The current file is set with `file`; every
/// other call refers to a line of it.
pub trait RecordSink {
    /// The following records come from this file (named as the user will recognise it).
    fn file(&mut self, name: &str);
    /// A valid memory read from `line`.
    fn memory(&mut self, line: usize, memory: Memory);
    /// A valid memory read from `line` that the reader has already normalised and
    /// checked (a sink may skip checking it again).
    fn checked_memory(&mut self, line: usize, memory: Checked) {
        self.memory(line, memory.into_memory());
    }
    /// A problem at `line`: the run will write nothing.
    fn problem(&mut self, line: usize, field: &str, reason: String);
    /// Something worth telling that does not stop the run.
    fn warning(&mut self, line: usize, field: &str, reason: String);
}

/// Hands the outcome of `Memory::from_json` to a sink: the memory and its warnings, or
/// every field error, all at `line`.
pub fn deliver(
    sink: &mut dyn RecordSink,
    line: usize,
    outcome: Result<(Memory, Vec<FieldError>), Vec<FieldError>>,
) {
    match outcome {
        Ok((memory, warnings)) => {
            for w in warnings {
                sink.warning(line, &w.field, w.reason);
            }
            sink.memory(line, memory);
        }
        Err(errors) => {
            for e in first_per_field(errors) {
                sink.problem(line, &e.field, e.reason);
            }
        }
    }
}

/// The first error of each field (a missing body is not also reported as empty).
pub fn first_per_field(errors: Vec<FieldError>) -> Vec<FieldError> {
    let mut seen = std::collections::HashSet::new();
    errors
        .into_iter()
        .filter(|e| seen.insert(e.field.clone()))
        .collect()
}

/// A sink that keeps everything in memory: for tests, previews and tools that want
/// the parsed memories without a store.
#[derive(Debug, Default)]
pub struct Collected {
    /// Each memory with the file and line it came from.
    pub memories: Vec<(String, usize, Memory)>,
    /// Every problem.
    pub problems: Vec<ImportError>,
    /// Every warning.
    pub warnings: Vec<ImportError>,
    current: String,
}

impl Collected {
    fn at(&self, line: usize, field: &str, reason: String) -> ImportError {
        ImportError {
            file: self.current.clone(),
            line,
            field: field.to_string(),
            reason,
        }
    }
}

impl RecordSink for Collected {
    fn file(&mut self, name: &str) {
        self.current = name.to_string();
    }
    fn memory(&mut self, line: usize, memory: Memory) {
        self.memories.push((self.current.clone(), line, memory));
    }
    fn problem(&mut self, line: usize, field: &str, reason: String) {
        let e = self.at(line, field, reason);
        self.problems.push(e);
    }
    fn warning(&mut self, line: usize, field: &str, reason: String) {
        let w = self.at(line, field, reason);
        self.warnings.push(w);
    }
}
