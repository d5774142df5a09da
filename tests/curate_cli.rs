//! The curation verbs as the command line parses and runs them: a tiny harness parses
//! the arguments with clap the way `memlens` does and calls `curate::run` directly.

mod curate_support;

use clap::Parser;
use curate_support::*;
/// The command's own module, as the `memlens` binary compiles it.
#[path = "../src/commands/curate.rs"]
mod curate_command;

use curate_command::{CurateCommand, run};
use memlens::model::{Scope, Status};
use memlens::store::Store;

#[derive(Parser)]
#[command(name = "memlens")]
struct Cli {
    #[command(subcommand)]
    command: CurateCommand,
}

/// What a command line did: its output, or its error and the exit code it maps to.
enum Outcome {
    Printed(String),
    Failed { code: i32, message: String },
}

fn memlens(store: &Store, args: &[&str]) -> Outcome {
    let cli = match Cli::try_parse_from(std::iter::once("memlens").chain(args.iter().copied())) {
        Ok(cli) => cli,
        Err(e) => {
            return Outcome::Failed {
                code: e.exit_code(),
                message: e.to_string(),
            };
        }
    };
    let mut out = Vec::new();
    match run(store, &cli.command, &mut out) {
        Ok(()) => Outcome::Printed(String::from_utf8(out).expect("utf-8 output")),
        Err(e) => {
            assert!(out.is_empty(), "output before an error: {out:?}");
            Outcome::Failed {
                code: if e.is_usage() { 2 } else { 1 },
                message: e.to_string(),
            }
        }
    }
}

fn ok(store: &Store, args: &[&str]) -> Vec<String> {
    match memlens(store, args) {
        Outcome::Printed(text) => text.lines().map(String::from).collect(),
        Outcome::Failed { message, .. } => panic!("{args:?} failed: {message}"),
    }
}

/// Runs a command that must fail with `code`, leave the store as it was, and name
/// every one of `names` in its message.
fn fails(store: &Store, args: &[&str], code: i32, names: &[&str]) {
    let before = snapshot(store);
    match memlens(store, args) {
        Outcome::Printed(text) => panic!("{args:?} succeeded: {text}"),
        Outcome::Failed { code: got, message } => {
            assert_eq!(got, code, "{args:?}: {message}");
            for name in names {
                assert!(
                    message.contains(name),
                    "{args:?}: `{name}` not in: {message}"
                );
            }
        }
    }
    assert_eq!(snapshot(store), before, "{args:?} changed the store");
}

fn store_with(ids: &[&str]) -> (tempfile::TempDir, Store) {
    let (dir, store) = temp_store();
    seed(&store, &ids.iter().map(|id| memory(id)).collect::<Vec<_>>());
    (dir, store)
}

#[test]
fn set_reports_the_changed_fields_and_stores_them() {
    let (_dir, store) = store_with(&["a"]);
    let lines = ok(
        &store,
        &[
            "set",
            "a",
            "scope=module",
            "module=tui",
            "feel_humor=0.25",
            "weight=0.5",
        ],
    );
    assert_eq!(lines, ["updated a: scope, module, feel_humor"]);
    let a = get(&store, "a");
    assert_eq!((a.scope, a.module.as_deref()), (Scope::Module, Some("tui")));
    assert_eq!(
        ok(&store, &["set", "a", "weight=0.5"]),
        ["unchanged a: already has those values"]
    );
}

#[test]
fn set_refuses_unknown_derived_and_bad_fields_naming_them() {
    let (_dir, store) = store_with(&["a"]);
    fails(&store, &["set", "a", "colour=red"], 2, &["colour"]);
    fails(
        &store,
        &["set", "a", "rating_bayesian=4"],
        2,
        &["rating_bayesian"],
    );
    fails(&store, &["set", "a", "read_count=4"], 2, &["read_count"]);
    fails(
        &store,
        &["set", "a", "title=ok", "trust=1.5"],
        2,
        &["trust", "1.5"],
    );
    fails(&store, &["set", "a", "status=done"], 2, &["status", "done"]);
    fails(
        &store,
        &["set", "a", "rem_visits=-1"],
        2,
        &["rem_visits", "-1"],
    );
    fails(&store, &["set", "a", "scope=module"], 2, &["module"]);
    fails(&store, &["set", "a", "title"], 2, &["FIELD=VALUE"]);
    fails(&store, &["set", "ghost", "title=x"], 1, &["ghost"]);
    fails(&store, &["set", "a"], 2, &[]);
}

#[test]
fn a_raters_second_rating_replaces_the_first_and_can_be_retracted() {
    let (_dir, store) = store_with(&["a"]);
    assert_eq!(
        ok(&store, &["rate", "a", "5", "--rater", "ann"]),
        ["rated a 5: rating 3.33 from 1 rating"]
    );
    assert_eq!(
        ok(&store, &["rate", "a", "1", "--rater", "ann"]),
        ["rated a 1: rating 2.67 from 1 rating"]
    );
    assert_eq!(
        ok(&store, &["rate", "a", "4", "--rater", "bo"]),
        ["rated a 4: rating 2.86 from 2 ratings"]
    );
    assert_eq!(
        ok(&store, &["rate", "a", "--retract", "--rater", "ann"]),
        ["retracted the rating of ann on a: rating 3.17 from 1 rating"]
    );
    assert_eq!(
        ok(&store, &["rate", "a", "--retract", "--rater", "ann"]),
        ["unchanged a: has no rating by that rater"]
    );
    fails(&store, &["rate", "a", "3", "--retract"], 2, &["--retract"]);
    fails(&store, &["rate", "a"], 2, &[]);
}

#[test]
fn rate_approve_reject_print_one_line_per_changed_memory() {
    let (_dir, store) = store_with(&["a", "b", "c"]);
    assert_eq!(
        ok(&store, &["rate", "a", "5"]),
        ["rated a 5: rating 3.33 from 1 rating"]
    );
    fails(&store, &["rate", "a", "6"], 2, &["6"]);
    fails(&store, &["rate", "ghost", "3"], 1, &["ghost"]);
    let lines = ok(&store, &["approve", "a", "b"]);
    assert_eq!(lines.len(), 2);
    assert!(
        lines[0].starts_with("approved a: ") && lines[0].contains("status"),
        "{lines:?}"
    );
    assert_eq!(
        ok(&store, &["approve", "a"]),
        ["unchanged a: already approved"]
    );
    fails(&store, &["approve", "a", "ghost", "c"], 1, &["ghost"]);
    assert_eq!(get(&store, "c").status, Status::Draft);
    fails(&store, &["reject", "c"], 2, &["--reason"]);
    let lines = ok(&store, &["reject", "b", "c", "--reason", "wrong"]);
    assert_eq!(lines.len(), 2);
    assert_eq!(get(&store, "b").extra["stale_reason"], "wrong");
}

#[test]
fn delete_restore_and_purge_with_confirmation() {
    let (_dir, store) = store_with(&["a", "b"]);
    assert_eq!(ok(&store, &["delete", "a", "--reason", "dup"]).len(), 1);
    assert!(get(&store, "a").is_deleted());
    assert_eq!(
        ok(&store, &["restore", "a", "b"]),
        [
            "restored a: deleted_at, deleted_reason",
            "unchanged b: not deleted"
        ]
    );
    fails(&store, &["purge", "a", "b"], 2, &["--yes", "2 memories"]);
    fails(
        &store,
        &["purge", "a"],
        2,
        &["--yes", "removes 1 memory for good"],
    );
    fails(&store, &["purge", "a", "ghost", "--yes"], 1, &["ghost"]);
    assert_eq!(
        ok(&store, &["purge", "a", "b", "--yes"]),
        ["purged a", "purged b"]
    );
    assert!(!exists(&store, "a") && !exists(&store, "b"));
}

#[test]
fn link_and_unlink_from_the_command_line() {
    let (_dir, store) = store_with(&["a", "b"]);
    assert_eq!(
        ok(&store, &["link", "a", "b"]),
        ["linked a and b as related (held by a)"]
    );
    assert_eq!(linked(&store, "b"), ["a"]);
    assert_eq!(
        ok(&store, &["link", "b", "a", "--kind", "blocks"]),
        ["linked b and a as blocks (held by a)"]
    );
    // linking again without a kind keeps the link's own
    let again = ok(&store, &["link", "a", "b"]);
    assert!(again[0].contains("already linked"), "{again:?}");
    let a = store.read().unwrap().get("a").unwrap().unwrap();
    assert_eq!(a.relationships[0].kind, "blocks");
    fails(&store, &["link", "a", "a"], 2, &["itself"]);
    fails(&store, &["link", "a", "ghost"], 1, &["ghost"]);
    assert_eq!(ok(&store, &["unlink", "b", "a"]), ["unlinked a from b"]);
    fails(&store, &["unlink", "a", "b"], 1, &["not linked"]);
}

#[test]
fn merge_keeps_one_memory_and_deletes_the_others_with_a_link_back() {
    let (_dir, store) = store_with(&["a", "b", "c", "d"]);
    ok(&store, &["set", "b", "body=Another view.", "tags=extra"]);
    ok(&store, &["link", "b", "d", "--kind", "supports"]);
    ok(&store, &["rate", "b", "5"]);
    let lines = ok(&store, &["merge", "a", "b", "c"]);
    assert_eq!(lines[1..], ["merged b into a", "merged c into a"]);
    assert!(lines[0].starts_with("kept a: "), "{lines:?}");
    for field in ["body", "tags", "rating", "relationships"] {
        assert!(lines[0].contains(field), "{field} not in {lines:?}");
    }
    let a = get(&store, "a");
    assert_eq!(a.body, "body of a\n\nAnother view.\n\nbody of c");
    assert!(a.tags.contains(&"extra".to_string()));
    assert_eq!((a.rating_sum, a.rating_count), (5, 1));
    let held: Vec<(&str, &str)> = a
        .relationships
        .iter()
        .map(|r| (r.target.as_str(), r.kind.as_str()))
        .collect();
    assert_eq!(held, [("d", "supports"), ("b", "merged"), ("c", "merged")]);
    for id in ["b", "c"] {
        let m = get(&store, id);
        assert!(m.deleted_at.is_some(), "{id} not deleted");
        assert_eq!(m.deleted_reason.as_deref(), Some("merged into a"));
    }
    // refused, the store left as it was
    fails(&store, &["merge", "a", "b"], 1, &["`b`", "deleted"]);
    fails(&store, &["merge", "d", "d"], 2, &["itself"]);
    fails(&store, &["merge", "d", "ghost"], 1, &["ghost"]);
    fails(&store, &["merge", "d"], 2, &["FROM"]);
}
