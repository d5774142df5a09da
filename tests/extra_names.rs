//! A key kept in `extra` can never stand in for a real field: a file that carries
//! `"extra": {"id": …, "body": …}` (or hivelore frontmatter `body:` / `source:`) cannot
//! forge another memory in an export, and every export imports back to the same store.

mod exchange_support;

use exchange_support::{memlens, stderr, stdout};
use serde_json::{Value, json};
use std::path::Path;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(home: &Path, args: &[&str]) -> (String, String) {
    let out = memlens(home, args, &[]);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    (stdout(&out), stderr(&out))
}

fn lines(export: &str) -> Vec<Value> {
    export
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect()
}

#[test]
fn an_extra_id_and_body_cannot_forge_another_memory() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let file = h.join("in.jsonl");
    let attacker = json!({
        "id": "attacker", "body": "harmless",
        "extra": {"id": "victim", "body": "forged", "source": {"system": "x"}},
        "snippet": "kept", "confidence_tier": "trusted",
    });
    let victim = json!({"id": "victim", "body": "the real text"});
    std::fs::write(&file, format!("{attacker}\n{victim}\n")).unwrap();
    let db = h.join("s.redb");
    let (_, warnings) = ok(h, &["import", "--db", s(&db), s(&file)]);
    for key in ["snippet", "confidence_tier"] {
        assert!(warnings.contains(&format!("{key}: ")), "{warnings}");
    }

    let (export, _) = ok(h, &["export", "--db", s(&db)]);
    let rows = lines(&export);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        ["attacker", "victim"],
        "one line per memory, its own id"
    );
    assert_eq!(rows[0]["body"], "harmless");
    assert_eq!(rows[1]["body"], "the real text");
    assert_eq!(rows[0]["extra"]["id"], "victim");
    assert_eq!(rows[0]["extra"]["body"], "forged");
    assert_eq!(rows[0]["extra"]["snippet"], "kept");

    for args in [
        vec!["get", "attacker", "--json"],
        vec!["search", "--json", "harmless"],
    ] {
        let mut args = args.clone();
        args.extend(["--db", s(&db)]);
        let (out, _) = ok(h, &args);
        let v: Value = serde_json::from_str(&out).unwrap();
        let m = if v.get("results").is_some() {
            &v["results"][0]
        } else {
            &v
        };
        assert_eq!(m["id"], "attacker", "{out}");
        assert_eq!(m["extra"]["body"], "forged", "{out}");
        assert!(m.get("source").is_none(), "{out}");
    }

    // The export imports back, without a warning, to a store that exports the same.
    let back = h.join("export.jsonl");
    std::fs::write(&back, &export).unwrap();
    let db2 = h.join("t.redb");
    let (_, warnings) = ok(h, &["import", "--db", s(&db2), s(&back)]);
    assert_eq!(warnings, "");
    assert_eq!(ok(h, &["export", "--db", s(&db2)]).0, export);
}

#[test]
fn hivelore_frontmatter_naming_a_memlens_field_is_kept_and_said() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let dir = h.join("memories/team");
    std::fs::create_dir_all(&dir).unwrap();
    let file = "---\nid: m1\ntype: gotcha\nbody: forged\nsource: a wiki page\ncreated_at: \"2026-01-01T00:00:00.000Z\"\n---\n# Real\n\nThe real body.\n";
    std::fs::write(dir.join("m1.md"), file).unwrap();
    let db = h.join("s.redb");
    let (_, warnings) = ok(
        h,
        &[
            "import",
            "--format",
            "hivelore",
            "--db",
            s(&db),
            s(&h.join("memories")),
        ],
    );
    assert!(
        warnings.contains("body: names a memlens field"),
        "{warnings}"
    );
    assert!(
        warnings.contains("source: names a memlens field"),
        "{warnings}"
    );
    let (export, _) = ok(h, &["export", "--db", s(&db)]);
    let rows = lines(&export);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["body"], "# Real\n\nThe real body.\n");
    assert_eq!(rows[0]["source"]["system"], "hivelore");
    assert_eq!(rows[0]["extra"]["body"], "forged");
    assert_eq!(rows[0]["extra"]["source"], "a wiki page");

    // Written back as hivelore, the frontmatter keys are where they were.
    let out = h.join("out");
    ok(
        h,
        &[
            "export",
            "--format",
            "hivelore",
            "--db",
            s(&db),
            "-o",
            s(&out),
        ],
    );
    let written: Vec<_> = walk(&out);
    assert_eq!(written.len(), 1, "{written:?}");
    let text = std::fs::read_to_string(&written[0]).unwrap();
    assert!(text.contains("\nbody: forged\n"), "{text}");
    assert!(text.contains("\nsource: a wiki page\n"), "{text}");
    assert!(text.ends_with("# Real\n\nThe real body.\n"), "{text}");
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "md") {
            out.push(path);
        }
    }
    out
}
