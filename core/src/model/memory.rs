//! The `Memory` record: every stored field of SPEC §2, with its enums and defaults.

use super::feel::FEEL_COUNT;
use super::timestamp::Timestamp;
use serde_json::{Map, Value};
use std::fmt;
use std::str::FromStr;

/// Who can see a memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Scope {
    /// Only its author (the default).
    #[default]
    Personal,
    /// The whole team.
    Team,
    /// One module of the code base; `module` names it.
    Module,
    /// Shared across teams.
    Shared,
}

/// Where a memory is in its review life.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum Status {
    /// Written, not yet proposed (the default).
    #[default]
    Draft,
    /// Proposed for review.
    Proposed,
    /// Approved by a reviewer.
    Validated,
    /// Superseded; kept for history.
    Deprecated,
    /// No longer true.
    Stale,
    /// Turned down in review.
    Rejected,
}

macro_rules! named_enum {
    ($ty:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $ty {
            /// Every value, in declaration order.
            pub const ALL: &'static [$ty] = &[$($ty::$variant),+];
            /// The lowercase name used in files and on the command line.
            pub fn as_str(self) -> &'static str {
                match self { $($ty::$variant => $name),+ }
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
        impl FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                match s {
                    $($name => Ok($ty::$variant),)+
                    _ => Err(format!(
                        "`{s}` is not one of {}",
                        [$($name),+].join(", ")
                    )),
                }
            }
        }
    };
}

named_enum!(Scope { Personal => "personal", Team => "team", Module => "module", Shared => "shared" });
named_enum!(Status {
    Draft => "draft",
    Proposed => "proposed",
    Validated => "validated",
    Deprecated => "deprecated",
    Stale => "stale",
    Rejected => "rejected",
});

/// A link from one memory to another. Links are undirected: it shows on both ends.
#[derive(Debug, Clone, PartialEq)]
pub struct Relationship {
    /// Id of the other memory (it may be missing from the store).
    pub target: String,
    /// Free-form kind, `related` by default.
    pub kind: String,
    /// Optional strength in 0–1.
    pub strength: Option<f64>,
}

/// Where a memory was imported from.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Source {
    /// The system it came from: `hivelore`, `mcp-memory`, `openmemory`, `jsonl`, …
    pub system: String,
    /// The file it came from, relative to the import root when there is one.
    pub path: Option<String>,
    /// Its id in that system, when it differs from the memlens id.
    pub id: Option<String>,
    /// hivelore only: the frontmatter keys in their original order, so an export
    /// writes back the same keys in the same order.
    pub keys: Vec<String>,
}

/// One person's rating of a memory, given in memlens; a newer one of the same rater
/// replaces it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rating {
    /// Who rated (`$MEMLENS_RATER`, else the login name).
    pub rater: String,
    /// The rating, 1–5.
    pub value: u8,
}

/// The default kind of a relationship.
pub const DEFAULT_RELATIONSHIP_KIND: &str = "related";
/// What the browser and the command line show for a memory with neither a title nor
/// a body.
pub const EMPTY_HEADLINE: &str = "(empty memory)";
/// The default memory type.
pub const DEFAULT_TYPE: &str = "note";

/// One memory, with every stored field. Derived values are methods (see `derived`).
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    /// Unique id, 1–200 chars without control characters.
    pub id: String,
    /// Optional title (hivelore: the first `# ` heading of the body).
    pub title: Option<String>,
    /// The text; required, at most 1 MiB.
    pub body: String,
    /// The memory type (`type` in files): lowercase `[a-z0-9_-]{1,40}`.
    pub memory_type: String,
    /// Who it is for.
    pub scope: Scope,
    /// The module, required when scope is `module`.
    pub module: Option<String>,
    /// Review status.
    pub status: Status,
    /// Tags: trimmed, non-empty, no duplicates, order kept.
    pub tags: Vec<String>,
    /// Weight 0–1.
    pub weight: f64,
    /// Trust 0–1.
    pub trust: f64,
    /// Optional confidence 0–1.
    pub confidence: Option<f64>,
    /// remember-core's `trust_score`: how confidential it is, 1 public … 5 secret.
    pub trust_level: Option<super::TrustLevel>,
    /// When it was written.
    pub created_at: Timestamp,
    /// When it last changed.
    pub updated_at: Timestamp,
    /// When it was soft-deleted.
    pub deleted_at: Option<Timestamp>,
    /// Why it was soft-deleted.
    pub deleted_reason: Option<String>,
    /// When it was last read.
    pub last_read_at: Option<Timestamp>,
    /// How often it was read.
    pub read_count: u32,
    /// Sum of all ratings (each 1–5).
    pub rating_sum: u32,
    /// Number of ratings.
    pub rating_count: u32,
    /// The ratings given in memlens, one per rater; each is also counted in
    /// `rating_sum` and `rating_count`, beside the aggregate imported with the memory.
    pub ratings: Vec<Rating>,
    /// Links to other memories.
    pub relationships: Vec<Relationship>,
    /// The 31 `feel_*` and `functional_*` scores, indexed like `FEEL_DIMS`; `None` = not
    /// scored.
    pub feel: [Option<f64>; FEEL_COUNT],
    /// REM consolidation visits.
    pub rem_visits: Option<u32>,
    /// Where it was imported from.
    pub source: Option<Source>,
    /// Every input field memlens does not model, written back on export.
    pub extra: Map<String, Value>,
    /// What a person changed in memlens, kept by a re-import from the source.
    pub curated: super::Curated,
}

impl Memory {
    /// A memory with the given id and body and every other field at its default,
    /// created and updated at `at`.
    pub fn new(id: impl Into<String>, body: impl Into<String>, at: Timestamp) -> Memory {
        Memory {
            id: id.into(),
            title: None,
            body: body.into(),
            memory_type: DEFAULT_TYPE.to_string(),
            scope: Scope::default(),
            module: None,
            status: Status::default(),
            tags: Vec::new(),
            weight: 0.5,
            trust: 0.5,
            confidence: None,
            trust_level: None,
            created_at: at,
            updated_at: at,
            deleted_at: None,
            deleted_reason: None,
            last_read_at: None,
            read_count: 0,
            rating_sum: 0,
            rating_count: 0,
            ratings: Vec::new(),
            relationships: Vec::new(),
            feel: [None; FEEL_COUNT],
            rem_visits: None,
            source: None,
            extra: Map::new(),
            curated: super::Curated::default(),
        }
    }

    /// True when the memory is soft-deleted.
    pub fn is_deleted(&self) -> bool {
        self.deleted_at.is_some()
    }

    /// True when at least one dimension is scored.
    pub fn is_scored(&self) -> bool {
        self.feel.iter().any(Option::is_some)
    }

    /// True when the body is empty or blank: a memory all the same (hivelore loads such
    /// files, OpenMemory and the MCP memory server write them).
    pub fn has_empty_body(&self) -> bool {
        self.body.trim().is_empty()
    }

    /// The headline as the browser and the command line show it: [`Self::headline`],
    /// or [`EMPTY_HEADLINE`] when there is none, so an empty memory is seen as such.
    pub fn shown_headline(&self) -> &str {
        match self.headline() {
            "" => EMPTY_HEADLINE,
            h => h,
        }
    }

    /// The title, or else the first non-blank body line, trimmed (the list's headline).
    pub fn headline(&self) -> &str {
        match self.title.as_deref().map(str::trim) {
            Some(t) if !t.is_empty() => t,
            _ => self
                .body
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty())
                .unwrap_or(""),
        }
    }
}
