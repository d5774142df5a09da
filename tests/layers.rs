//! The library's layers, read from its sources: no import cycle among `schema` (the
//! file's layout), `store`, `index` and `search` beyond the edges listed in `KNOWN`
//! (each one a debt to pay, never a new one), and `schema` imports none of the others.
//! A module's edge to another is any `crate::other` path in its files, outside their
//! unit-test modules (a test may build a store to test the index).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const LAYERS: [&str; 4] = ["schema", "store", "index", "search"];

/// Edges that still close a cycle (none now: the index reads the store's tables
/// through `schema`, below both).
const KNOWN: &[(&str, &str)] = &[];

fn sources(dir: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("read source");
            // a file's unit tests come last, in `mod tests`
            let code = match text.find("#[cfg(test)]\nmod tests") {
                Some(at) => text[..at].to_string(),
                None => text,
            };
            out.push(code);
        }
    }
}

fn edges() -> BTreeMap<&'static str, BTreeSet<&'static str>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src");
    let mut graph = BTreeMap::new();
    for from in LAYERS {
        let mut files = Vec::new();
        sources(&src.join(from), &mut files);
        let to: BTreeSet<&str> = LAYERS
            .into_iter()
            .filter(|&to| to != from)
            .filter(|to| {
                let path = format!("crate::{to}");
                files.iter().any(|f| {
                    f.match_indices(&path).any(|(at, _)| {
                        !f[at + path.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    })
                })
            })
            .collect();
        graph.insert(from, to);
    }
    graph
}

/// A cycle through `graph`, if any, as the modules on it.
fn cycle(graph: &BTreeMap<&'static str, BTreeSet<&'static str>>) -> Option<Vec<&'static str>> {
    fn visit(
        at: &'static str,
        graph: &BTreeMap<&'static str, BTreeSet<&'static str>>,
        path: &mut Vec<&'static str>,
    ) -> Option<Vec<&'static str>> {
        if let Some(i) = path.iter().position(|&p| p == at) {
            return Some(path[i..].to_vec());
        }
        path.push(at);
        for &next in graph.get(at).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path) {
                return Some(c);
            }
        }
        path.pop();
        None
    }
    LAYERS
        .into_iter()
        .find_map(|start| visit(start, graph, &mut Vec::new()))
}

#[test]
fn store_index_and_search_import_each_other_only_through_known_edges() {
    let mut graph = edges();
    for (from, to) in KNOWN {
        let known = graph.get_mut(from).is_some_and(|e| e.remove(to));
        assert!(known, "{from} → {to} no longer exists: take it off KNOWN");
    }
    assert_eq!(cycle(&graph), None, "an import cycle: {graph:?}");
    assert_eq!(
        graph["schema"],
        BTreeSet::new(),
        "schema imports a layer above it"
    );
}

#[test]
fn a_cycle_is_found() {
    let mut graph = BTreeMap::new();
    graph.insert("store", BTreeSet::from(["index"]));
    graph.insert("index", BTreeSet::from(["search"]));
    graph.insert("search", BTreeSet::from(["store"]));
    assert!(cycle(&graph).is_some());
    graph.insert("search", BTreeSet::new());
    assert_eq!(cycle(&graph), None);
}

/// The entries of the library's `core/src` (a top-level file or module directory) whose
/// source, outside
/// unit-test modules, holds any of `needles`.
fn entries_holding(needles: &[&str]) -> Vec<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("core/src");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&src).expect("read src") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let mut files = Vec::new();
        if path.is_dir() {
            sources(&path, &mut files);
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(std::fs::read_to_string(&path).expect("read source"));
        }
        if files.iter().any(|f| needles.iter().any(|n| f.contains(n))) {
            found.push(name);
        }
    }
    found.sort();
    found
}

/// The library's source files that name `word` as a path (`word::`).
fn library_files_naming(word: &str) -> Vec<String> {
    entries_holding(&[&format!("{word}::")])
}

/// The names of the dependencies in the `[dependencies]` table of the manifest at
/// `path` (relative to the project root).
fn dependencies_of(path: &str) -> Vec<String> {
    let manifest = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path))
        .expect("manifest");
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
        } else if inside && let Some((name, _)) = line.split_once('=') {
            names.push(name.trim().to_string());
        }
    }
    names
}

/// The layers that see the redb file's transactions: its layout, the store and the
/// store's own index, which the store writes inside its transactions.
const STORAGE: [&str; 3] = ["schema", "store", "index"];

#[test]
fn a_raw_redb_transaction_never_leaves_the_store() {
    let needles = [".txn()", "Transaction", "begin_read", "begin_write"];
    let holding = entries_holding(&needles);
    let outside: Vec<&String> = holding
        .iter()
        .filter(|name| !STORAGE.contains(&name.as_str()))
        .collect();
    assert_eq!(
        outside,
        Vec::<&String>::new(),
        "a redb transaction outside the store"
    );
    // the check sees the store's own
    assert!(holding.iter().any(|name| name == "store"), "{holding:?}");
}

#[test]
fn clap_and_anyhow_are_only_in_the_binary() {
    // the library is a crate of its own (`core/`), which cannot reach either
    let library = dependencies_of("core/Cargo.toml");
    let binary = dependencies_of("Cargo.toml");
    for word in ["clap", "anyhow"] {
        assert!(!library.iter().any(|d| d == word), "{word} in {library:?}");
        assert!(binary.iter().any(|d| d == word), "{word} not in {binary:?}");
        assert_eq!(
            library_files_naming(word),
            Vec::<String>::new(),
            "{word} in the library"
        );
    }
    // the check reads the library's dependencies, and the binary's use of both
    assert!(library.iter().any(|d| d == "redb"), "{library:?}");
    let main = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("src/main.rs"))
        .expect("main.rs");
    assert!(main.contains("clap::") && main.contains("anyhow::"));
}
