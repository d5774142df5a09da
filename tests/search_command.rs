//! `memlens search` as the binary parses and runs it: flag parsing (usage errors exit 2), the
//! `--json` document, the table, and `--track`.

mod search_support;

use clap::Parser;
use memlens::model::{Memory, Timestamp};
/// The command's own module, as the `memlens` binary compiles it.
#[path = "../src/commands/search.rs"]
#[allow(dead_code)]
mod search_command;

use search_command::{SearchArgs, run};
use search_support::store_with;

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: SearchArgs,
}

fn parse(args: &[&str]) -> Result<SearchArgs, clap::Error> {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    Cli::try_parse_from(all).map(|c| c.args)
}

fn memories() -> Vec<Memory> {
    (0..6)
        .map(|i| {
            let mut m = Memory::new(
                format!("id-{i}"),
                format!(
                    "line one\x1b[2J of memory {i}\nredb cache notes {}",
                    "word ".repeat(i)
                ),
                Timestamp(1_750_000_000_000_000_000 + i as i64 * 1_000_000_000),
            );
            m.title = (i % 2 == 0).then(|| format!("Title {i}"));
            m.tags = vec!["t".into()];
            m
        })
        .collect()
}

fn output(store: &memlens::store::Store, args: &[&str]) -> String {
    let args = parse(args).expect("valid flags");
    let mut out = Vec::new();
    run(store, &args, &mut out).expect("search runs");
    String::from_utf8(out).expect("utf-8")
}

#[test]
fn bad_flags_are_usage_errors_naming_the_problem() {
    let e = parse(&["--filter", "colour=red"]).expect_err("unknown key refused");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("colour"), "{e}");
    let e = parse(&["--filter", "feel_humor=high"]).expect_err("bad value refused");
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("high"), "{e}");
    let e = parse(&["--mode", "property"]).expect_err("property needs a field");
    assert_eq!(e.exit_code(), 2);
    let e = parse(&["--sort-field", "nonsense"]).expect_err("unknown field refused");
    assert_eq!(e.exit_code(), 2);
    assert!(parse(&["--engine", "magic"]).is_err());
    let ok = parse(&[
        "--sort-field",
        "feel_humor",
        "--order",
        "asc",
        "two",
        "words",
    ])
    .unwrap();
    let req = ok.request().unwrap();
    assert_eq!(req.query, "two words");
    assert_eq!(req.mode.as_str(), "property");
}

#[test]
fn json_has_the_spec_shape_and_counts_all_matches() {
    let (_dir, store) = store_with(&memories());
    let text = output(
        &store,
        &["--json", "--engine", "bm25", "--limit", "2", "cache"],
    );
    let v: serde_json::Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["total"], 6);
    assert_eq!(v["engine"], "bm25");
    assert_eq!(v["mode"], "relevance");
    assert!(v.get("notice").is_none());
    // without a query the list is in time order, and says so
    let browse: serde_json::Value =
        serde_json::from_str(&output(&store, &["--json", "--limit", "1"])).expect("json");
    assert_eq!(browse["mode"], "time");
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 2);
    for r in results {
        for key in [
            "id",
            "title",
            "type",
            "scope",
            "status",
            "tags",
            "created_at",
            "snippet",
        ] {
            assert!(r.get(key).is_some(), "{key} missing in {r}");
        }
        assert!(r["score"].as_f64().unwrap() > 0.0);
        assert_eq!(r["relationship_count"], 0);
        assert_eq!(r["rating_bayesian"], 3.0);
        let snippet = r["snippet"].as_str().unwrap();
        assert!(!snippet.chars().any(char::is_control), "{snippet:?}");
        assert!(!snippet.contains('\n'));
    }
    // a literal OR fallback carries its notice and match_quality
    let text = output(&store, &["--json", "cache", "absentword"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        v["notice"],
        "no memory matches every word; showing partial matches"
    );
    assert_eq!(v["results"][0]["match_quality"], "partial");
    // discovery marks every result
    let text = output(&store, &["--json", "--mode", "discovery"]);
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["is_discovery"] == true)
    );
}

#[test]
fn the_table_is_clean_and_track_counts_only_what_is_shown() {
    let (_dir, store) = store_with(&memories());
    let text = output(&store, &["--limit", "3", "--track", "--mode", "time"]);
    assert!(text.starts_with("6 matches, showing 1–3"), "{text}");
    assert!(!text.contains('\x1b'));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("ID"));
    assert!(
        lines[2].starts_with("id-5") && lines[4].starts_with("id-3"),
        "{text}"
    );
    let reader = store.read().unwrap();
    for i in 0..6 {
        let m = reader.get(&format!("id-{i}")).unwrap().unwrap();
        let shown = i >= 3;
        assert_eq!(m.read_count, u32::from(shown), "id-{i}");
        assert_eq!(m.last_read_at.is_some(), shown, "id-{i}");
        assert_eq!(m.updated_at, m.created_at, "a read is not an edit");
    }
}
