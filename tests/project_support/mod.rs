//! A temporary copy of the hivelore fixtures laid out as a project, and a reader that
//! follows hivelore's own loader rules (`packages/core/src/loader.ts`, `parser.ts`,
//! `usage.ts`, `memory-lifecycle.ts`) to see what hivelore would serve.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

// needs `mod exchange_support;` beside it (the shared fixtures are found there)

/// A project in a fresh temporary directory: `.ai/memories/team/` holds a copy of the
/// fixtures (as in hivelore's own repository). Removed on drop.
pub struct TempProject {
    /// The project root.
    pub root: PathBuf,
}

impl TempProject {
    /// A copy of the fixtures, or `None` when they are absent.
    pub fn new(name: &str) -> Option<TempProject> {
        let source = crate::exchange_support::hivelore_fixtures()?;
        let root =
            std::env::temp_dir().join(format!("memlens-project-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let team = root.join(".ai/memories/team");
        std::fs::create_dir_all(&team).unwrap();
        for entry in std::fs::read_dir(&source).unwrap() {
            let p = entry.unwrap().path();
            std::fs::copy(&p, team.join(p.file_name().unwrap())).unwrap();
        }
        Some(TempProject { root })
    }

    /// `.ai/memories`.
    pub fn memories(&self) -> PathBuf {
        self.root.join(".ai/memories")
    }

    /// The file of a fixture memory.
    pub fn file(&self, id: &str) -> PathBuf {
        self.memories().join("team").join(format!("{id}.md"))
    }

    /// Every file under the project (`.ai/.cache` left out) with its bytes.
    pub fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.memories()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p
                        .strip_prefix(&self.root)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    out.insert(rel, std::fs::read(&p).unwrap());
                }
            }
        }
        out
    }
}

impl Drop for TempProject {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// One memory as hivelore loads it.
#[derive(Debug, Clone, PartialEq)]
pub struct Loaded {
    /// Its frontmatter, parsed.
    pub front: serde_json::Map<String, Value>,
    /// The body after the frontmatter, private blocks stripped (`stripPrivate`).
    pub body: String,
}

impl Loaded {
    /// The frontmatter's `status`, `draft` when absent (the schema's default).
    pub fn status(&self) -> &str {
        self.front
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("draft")
    }

    /// `related_ids`, empty when absent.
    pub fn related(&self) -> Vec<String> {
        self.front
            .get("related_ids")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }

    /// hivelore's hard lifecycle gate (`retirementSignal`'s status rule): deprecated,
    /// rejected and stale memories are not fed back to agents.
    pub fn served(&self) -> bool {
        !matches!(self.status(), "deprecated" | "rejected" | "stale")
    }
}

/// Every memory under `.ai/memories` by id, as `loadMemoriesFromDir` lists and
/// `parseMemory` reads them (every `*.md` below, recursively; a file whose frontmatter
/// does not parse, or lacks an id, type or created_at, is invalid and left out).
pub fn load(memories: &Path) -> BTreeMap<String, Loaded> {
    let mut out = BTreeMap::new();
    let mut stack = vec![memories.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let e = e.unwrap();
            let p = e.path();
            let kind = e.file_type().unwrap();
            if kind.is_dir() {
                stack.push(p);
            } else if kind.is_file() && p.to_string_lossy().ends_with(".md") {
                let text = std::fs::read_to_string(&p).unwrap();
                let Some(rest) = text.strip_prefix("---\n") else {
                    continue;
                };
                let Some(end) = rest.find("\n---\n") else {
                    continue;
                };
                let Ok(Value::Object(front)) = serde_yaml_ng::from_str::<Value>(&rest[..end + 1])
                else {
                    continue;
                };
                let (Some(id), true, true) = (
                    front.get("id").and_then(Value::as_str).map(str::to_string),
                    front.contains_key("type"),
                    front.contains_key("created_at"),
                ) else {
                    continue;
                };
                let body = strip_private(rest[end + 5..].trim());
                out.insert(id, Loaded { front, body });
            }
        }
    }
    out
}

/// `stripPrivate`: every `<private>…</private>` removed (shortest match), then the end
/// trimmed.
pub fn strip_private(body: &str) -> String {
    let mut out = String::new();
    let mut rest = body;
    while let Some(s) = rest.find("<private>") {
        match rest[s..].find("</private>") {
            Some(e) => {
                out.push_str(&rest[..s]);
                rest = &rest[s + e + "</private>".len()..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out.trim_end().to_string()
}

/// `getUsage(index, id).read_count` from `.ai/.cache/usage.json` (0 without one, or
/// for a file of another version).
pub fn reads(root: &Path, id: &str) -> u64 {
    let Ok(text) = std::fs::read_to_string(root.join(".ai/.cache/usage.json")) else {
        return 0;
    };
    let Ok(doc) = serde_json::from_str::<Value>(&text) else {
        return 0;
    };
    if doc["version"] != 1 {
        return 0;
    }
    doc["by_id"][id]["read_count"].as_u64().unwrap_or(0)
}
