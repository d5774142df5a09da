//! hivelore against its real files: the 122 fixtures mapped field by field on import
//! and written back key for key (values compared as parsed YAML, with YAML 1.1 typing
//! checked by an independent oracle), bodies byte for byte; other memories written as
//! hivelore and read back; a project directory with its usage sidecar.

mod exchange_support;

use exchange_support::generate;
use exchange_support::*;
use memlens::exchange::{Format, OnConflict, export_hivelore};
use memlens::model::{Memory, Timestamp};
use memlens::store::Store;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Frontmatter text and body of a hivelore file, split the plain way: the file starts
/// with `---\n`, the frontmatter ends at the next `---\n` line.
fn split_md(text: &str) -> (&str, &str) {
    let rest = text.strip_prefix("---\n").expect("starts with ---");
    let end = rest.find("\n---\n").expect("closing ---") + 1;
    (&rest[..end], &rest[end + 4..])
}

fn md_files(dir: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                let rel = p.strip_prefix(dir).unwrap().to_string_lossy().into_owned();
                out.insert(rel, p);
            }
        }
    }
    out
}

fn memories_by_id(store: &Store) -> BTreeMap<String, Memory> {
    store
        .read()
        .unwrap()
        .memories()
        .unwrap()
        .into_iter()
        .map(|m| (m.id.clone(), m))
        .collect()
}

#[test]
fn hivelore_fixtures_import_with_every_field_mapped() {
    let Some(dir) = hivelore_fixtures() else {
        return;
    };
    let (_tmp, store) = temp_store();
    let summary = import_paths(&store, &[&dir], OnConflict::Fail).unwrap();
    assert_eq!(summary.sources[0].1, Format::Hivelore);
    let files = md_files(&dir);
    assert_eq!(files.len(), 122);
    assert_eq!(summary.added, 122);
    let stored = memories_by_id(&store);
    for (rel, path) in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let (yaml, body) = split_md(&text);
        let fm: serde_json::Map<String, Value> = serde_yaml_ng::from_str(yaml).unwrap();
        let id = fm["id"].as_str().unwrap();
        let m = &stored[id];
        let s = |k: &str| fm[k].as_str().unwrap().to_string();
        assert_eq!(m.body, body, "{rel}: body");
        assert_eq!(m.scope.as_str(), s("scope"), "{rel}");
        assert_eq!(m.memory_type, s("type"), "{rel}");
        assert_eq!(m.status.as_str(), s("status"), "{rel}");
        let tags: Vec<String> = fm["tags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        assert_eq!(m.tags, tags, "{rel}");
        let created = Timestamp::parse(&s("created_at")).unwrap();
        assert_eq!(m.created_at, created, "{rel}");
        assert_eq!(m.updated_at, created, "{rel}: hivelore has no updated_at");
        let last_read = fm
            .get("last_read_at")
            .and_then(Value::as_str)
            .map(|t| Timestamp::parse(t).unwrap());
        assert_eq!(m.last_read_at, last_read, "{rel}");
        let related: Vec<&str> = fm
            .get("related_ids")
            .and_then(Value::as_array)
            .map_or(vec![], |a| a.iter().map(|v| v.as_str().unwrap()).collect());
        let links: Vec<&str> = m.relationships.iter().map(|r| r.target.as_str()).collect();
        assert_eq!(links, related, "{rel}");
        assert!(m.relationships.iter().all(|r| r.kind == "related"));
        let heading = body
            .lines()
            .find_map(|l| l.strip_prefix("# "))
            .map(|t| t.trim().to_string());
        assert_eq!(m.title, heading, "{rel}: title");
        let modelled = [
            "id",
            "scope",
            "type",
            "status",
            "tags",
            "created_at",
            "last_read_at",
            "related_ids",
        ];
        let expected_extra: serde_json::Map<String, Value> = fm
            .iter()
            .filter(|(k, _)| !modelled.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        assert_eq!(m.extra, expected_extra, "{rel}: extra");
        let source = m.source.as_ref().unwrap();
        assert_eq!(source.system, "hivelore");
        assert_eq!(source.path.as_deref(), Some(rel.as_str()));
        let keys: Vec<&str> = fm.keys().map(String::as_str).collect();
        assert_eq!(source.keys, keys, "{rel}: keys in order");
    }
}

/// True when a YAML 1.1 reader (js-yaml) would give this plain scalar a type other than
/// string: a boolean, null, integer, float or timestamp.
fn typed_in_yaml_1_1(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let words = [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "",
    ];
    if words.contains(&lower.as_str()) {
        return true;
    }
    let plain = lower.trim_start_matches(['-', '+']).replace('_', "");
    if plain.parse::<f64>().is_ok() || [".inf", ".nan"].contains(&plain.as_str()) {
        return true;
    }
    if plain.starts_with("0x") || plain.starts_with("0o") || plain.starts_with("0b") {
        return true;
    }
    if !plain.is_empty()
        && plain
            .split(':')
            .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit() || c == '.'))
    {
        return true; // sexagesimal
    }
    is_yaml_1_1_timestamp(s)
}

/// The YAML 1.1 timestamp type: `YYYY-M-D`, optionally followed by `T` or spaces, a
/// time `H:MM:SS(.f)` and a zone `Z` or `±H(:MM)`, and nothing else.
fn is_yaml_1_1_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let digits = |i: &mut usize, min: usize, max: usize| {
        let start = *i;
        while *i < b.len() && *i - start < max && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i - start >= min
    };
    let byte = |i: &mut usize, c: u8| {
        let ok = *i < b.len() && b[*i] == c;
        *i += usize::from(ok);
        ok
    };
    if !(digits(&mut i, 4, 4)
        && byte(&mut i, b'-')
        && digits(&mut i, 1, 2)
        && byte(&mut i, b'-')
        && digits(&mut i, 1, 2))
    {
        return false;
    }
    if i == b.len() {
        return true;
    }
    if !(byte(&mut i, b'T') || byte(&mut i, b't')) {
        let start = i;
        while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    if !(digits(&mut i, 1, 2)
        && byte(&mut i, b':')
        && digits(&mut i, 2, 2)
        && byte(&mut i, b':')
        && digits(&mut i, 2, 2))
    {
        return false;
    }
    if byte(&mut i, b'.') {
        digits(&mut i, 0, usize::MAX);
    }
    while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
        i += 1;
    }
    if i == b.len() || (byte(&mut i, b'Z') && i == b.len()) {
        return true;
    }
    (byte(&mut i, b'+') || byte(&mut i, b'-'))
        && digits(&mut i, 1, 2)
        && (i == b.len() || (byte(&mut i, b':') && digits(&mut i, 2, 2)))
        && i == b.len()
}

#[test]
fn the_yaml_1_1_oracle_knows_its_types() {
    for typed in [
        "2026-04-25",
        "2026-04-25T23:39:56.850Z",
        "2001-12-14 21:59:43.10 -5",
        "1_000",
        "0x1F",
        "12:30",
        "yes",
        "~",
        "-1.5e3",
    ] {
        assert!(typed_in_yaml_1_1(typed), "{typed}");
    }
    for plain in [
        "2026-04-25-decision-esm-only",
        "team",
        "v0.1.0",
        "2026-04-25T",
    ] {
        assert!(!typed_in_yaml_1_1(plain), "{plain}");
    }
}

fn string_scalars<'a>(v: &'a serde_yaml_ng::Value, out: &mut Vec<&'a str>) {
    match v {
        serde_yaml_ng::Value::String(s) => out.push(s),
        serde_yaml_ng::Value::Sequence(items) => items.iter().for_each(|i| string_scalars(i, out)),
        serde_yaml_ng::Value::Mapping(m) => m.iter().for_each(|(k, v)| {
            string_scalars(k, out);
            string_scalars(v, out);
        }),
        _ => {}
    }
}

#[test]
fn hivelore_fixtures_export_back_key_for_key_with_bodies_unchanged() {
    let Some(dir) = hivelore_fixtures() else {
        return;
    };
    let (tmp, store) = temp_store();
    import_paths(&store, &[&dir], OnConflict::Fail).unwrap();
    let out = tmp.path().join("export");
    let summary = export_hivelore(&store.read().unwrap(), &out, false).unwrap();
    assert_eq!(summary.written, 122);
    assert!(summary.unknown_types.is_empty() && summary.renamed.is_empty());
    let originals = md_files(&dir);
    let exported = md_files(&out);
    assert_eq!(
        originals.keys().collect::<Vec<_>>(),
        exported.keys().collect::<Vec<_>>()
    );
    for (rel, path) in &originals {
        let a = std::fs::read_to_string(path).unwrap();
        let b = std::fs::read_to_string(&exported[rel]).unwrap();
        let ((ya, ba), (yb, bb)) = (split_md(&a), split_md(&b));
        assert!(ba.as_bytes() == bb.as_bytes(), "{rel}: body changed");
        let va: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(ya).unwrap();
        let vb: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(yb).unwrap();
        assert_eq!(va, vb, "{rel}: frontmatter values");
        let keys = |m: &serde_yaml_ng::Mapping| m.keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&va), keys(&vb), "{rel}: key order");
        let mut strings = Vec::new();
        let whole = serde_yaml_ng::Value::Mapping(vb.clone());
        string_scalars(&whole, &mut strings);
        for s in strings.into_iter().filter(|s| typed_in_yaml_1_1(s)) {
            let quoted = yb.contains(&format!("'{}'", s.replace('\'', "''")))
                || yb.contains(&format!("\"{s}\""));
            assert!(
                quoted,
                "{rel}: {s:?} would not read back as a string in YAML 1.1:\n{yb}"
            );
        }
    }
    // Importing the export gives the very same memories.
    let (_t2, again) = temp_store();
    import_paths(&again, &[&out], OnConflict::Fail).unwrap();
    assert_eq!(export_all(&again), export_all(&store));
}

#[test]
fn hivelore_export_of_other_memories_imports_back_unchanged_but_for_source() {
    let (tmp, store) = temp_store();
    let mut originals = generate::memories(11, 300);
    for (i, m) in originals.iter_mut().enumerate() {
        m.source = None;
        // what a person changed in memlens goes out with the memory and comes back
        m.curated.status = i % 3 == 0;
        m.curated.text = i % 5 == 0;
        if i % 7 == 0 {
            m.curated.tags_added = vec!["mine".into()];
            m.curated.tags_removed = vec!["noise".into(), "2026-01-01".into()];
        }
    }
    import_jsonl(&store, "gen.jsonl", &generate::jsonl(&originals)).unwrap();
    let out = tmp.path().join("md");
    let summary = export_hivelore(&store.read().unwrap(), &out, true).unwrap();
    assert_eq!(summary.written, 300);
    let (_t2, again) = temp_store();
    import_paths(&again, &[&out], OnConflict::Fail).unwrap();
    let back = memories_by_id(&again);
    assert_eq!(back.len(), 300);
    for m in &originals {
        let mut got = back[&m.id].clone();
        assert_eq!(got.source.as_ref().unwrap().system, "hivelore");
        got.source = None;
        let key = |r: &memlens::model::Relationship| {
            (
                r.target.clone(),
                r.kind.clone(),
                r.strength.map(f64::to_bits),
            )
        };
        let mut want = m.clone();
        want.relationships.sort_by_key(key);
        got.relationships.sort_by_key(key);
        assert_eq!(got, want);
    }
}

#[test]
fn a_project_directory_reads_its_memories_and_usage_sidecar() {
    let tmp = tempfile::tempdir().unwrap();
    let team = tmp.path().join(".ai/memories/team");
    std::fs::create_dir_all(&team).unwrap();
    std::fs::create_dir_all(tmp.path().join(".ai/.cache")).unwrap();
    std::fs::write(team.join("x.md"), "---\nid: x\ntype: gotcha\ncreated_at: '2026-01-01T00:00:00.000Z'\nlast_read_at: '2026-01-05T00:00:00.000Z'\n---\n# X\nbody\n").unwrap();
    std::fs::write(team.join("notes.txt"), "not a memory").unwrap();
    std::fs::write(
        tmp.path().join(".ai/.cache/usage.json"),
        r#"{"version":1,"updated_at":"2026-02-01T00:00:00.000Z","by_id":{"x":{"read_count":7,"last_read_at":"2026-02-01T00:00:00.000Z","rejected_count":0}}}"#,
    )
    .unwrap();
    let (_t, store) = temp_store();
    import_paths(&store, &[tmp.path()], OnConflict::Fail).unwrap();
    let x = &memories_by_id(&store)["x"];
    assert_eq!(x.read_count, 7);
    assert_eq!(x.last_read_at, Timestamp::parse("2026-02-01T00:00:00Z"));
    assert_eq!(
        x.source.as_ref().unwrap().path.as_deref(),
        Some("team/x.md")
    );
    assert_eq!(x.title.as_deref(), Some("X"));
}

/// A soft-deleted memory exported with `--include-deleted` is a file hivelore treats as
/// retired (`status: deprecated`, the deletion said in `stale_reason`; hivelore reads
/// no `deleted_at`), and importing it gives back the deleted memory with its own status
/// and rejection reason.
#[test]
fn a_deleted_memory_exports_as_retired_for_hivelore_and_imports_back_deleted() {
    let (tmp, store) = temp_store();
    let line = |id: &str, extra: &str| {
        format!(
            r#"{{"id":"{id}","body":"b {id}","type":"gotcha","status":"rejected","stale_reason":"ships CJS","created_at":"2026-01-02T03:04:05.000Z","updated_at":"2026-01-02T03:04:05.000Z"{extra}}}"#
        )
    };
    let text = [
        line(
            "gone",
            r#","deleted_at":"2026-02-03T04:05:06.000Z","deleted_reason":"duplicate""#,
        ),
        line("kept", ""),
    ]
    .join("\n");
    import_jsonl(&store, "in.jsonl", &text).unwrap();
    let out = tmp.path().join("md");
    export_hivelore(&store.read().unwrap(), &out, true).unwrap();
    let files = md_files(&out);
    let file = |id: &str| {
        let path = files
            .iter()
            .find(|(rel, _)| rel.contains(id))
            .map(|(_, p)| p.clone())
            .expect("exported");
        let text = std::fs::read_to_string(path).unwrap();
        let yaml: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(split_md(&text).0).unwrap();
        yaml
    };
    let gone = file("gone");
    let get =
        |m: &serde_yaml_ng::Mapping, k: &str| m.get(k).and_then(|v| v.as_str()).map(str::to_string);
    assert_eq!(
        get(&gone, "status").as_deref(),
        Some("deprecated"),
        "{gone:?}"
    );
    let reason = get(&gone, "stale_reason").unwrap_or_default();
    assert!(
        reason.starts_with("deleted in memlens at 2026-02-03T04:05:06.000Z (status was rejected")
            && reason.ends_with("): duplicate"),
        "{reason}"
    );
    assert!(!gone.contains_key("deleted_at"), "{gone:?}");
    assert_eq!(get(&file("kept"), "status").as_deref(), Some("rejected"));
    let (_t2, again) = temp_store();
    import_paths(&again, &[&out], OnConflict::Fail).unwrap();
    let back = memories_by_id(&again);
    let m = &back["gone"];
    assert_eq!(m.status, memlens::model::Status::Rejected);
    assert_eq!(
        m.deleted_at,
        Some(Timestamp::parse("2026-02-03T04:05:06.000Z").unwrap())
    );
    assert_eq!(m.deleted_reason.as_deref(), Some("duplicate"));
    assert_eq!(m.extra["stale_reason"], "ships CJS");
    assert!(back["kept"].deleted_at.is_none());
}

/// A hivelore export writes the memories' read counts where hivelore reads them (beside
/// a `.ai/memories` directory, `.ai/.cache/usage.json`; else inside the directory, where
/// an import of it reads them), keeping the counters of a usage file already there; an
/// import of the export gives the counts back.
#[test]
fn a_hivelore_export_keeps_the_read_counts_in_the_usage_file() {
    let (tmp, store) = temp_store();
    let text = [
        r#"{"id":"read-one","body":"a","read_count":7,"last_read_at":"2026-03-04T05:06:07.000Z","created_at":"2026-01-02T03:04:05.000Z"}"#,
        r#"{"id":"unread","body":"b","created_at":"2026-01-02T03:04:05.000Z"}"#,
    ]
    .join("\n");
    import_jsonl(&store, "in.jsonl", &text).unwrap();
    let project = tmp.path().join("proj");
    let cache = project.join(".ai/.cache");
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::write(
        cache.join("usage.json"),
        r#"{"version":1,"updated_at":null,"by_id":{"read-one":{"read_count":1,"last_read_at":null,"applied_count":4}}}"#,
    )
    .unwrap();
    for dir in [project.join(".ai/memories"), tmp.path().join("plain")] {
        let summary = export_hivelore(&store.read().unwrap(), &dir, false).unwrap();
        let usage = summary.usage_file.expect("a usage file written");
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&usage).unwrap()).unwrap();
        assert_eq!(doc["version"], 1);
        assert_eq!(doc["by_id"]["read-one"]["read_count"], 7, "{doc}");
        assert_eq!(
            doc["by_id"]["read-one"]["last_read_at"],
            "2026-03-04T05:06:07.000Z"
        );
        assert!(doc["by_id"].get("unread").is_none(), "{doc}");
        let (_t, again) = temp_store();
        import_paths(&again, &[&dir], OnConflict::Fail).unwrap();
        let back = memories_by_id(&again);
        assert_eq!(back["read-one"].read_count, 7);
        assert_eq!(back["unread"].read_count, 0);
    }
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(cache.join("usage.json")).unwrap()).unwrap();
    assert_eq!(kept["by_id"]["read-one"]["applied_count"], 4, "{kept}");
    assert!(tmp.path().join("plain/.cache/usage.json").is_file());
}

/// Every link of an exported memory is in `related_ids`, which is all hivelore reads of
/// links; a kind goes in `relationships` beside it, and the import reads the pair as
/// the one link it is.
#[test]
fn an_export_lists_every_link_in_related_ids_for_hivelore() {
    let (tmp, store) = temp_store();
    let text = [
        r#"{"id":"old","body":"a","created_at":"2026-01-02T03:04:05.000Z","relationships":[{"target":"new","kind":"superseded_by"},{"target":"other","kind":"related"}]}"#,
        r#"{"id":"new","body":"b","created_at":"2026-01-02T03:04:05.000Z"}"#,
        r#"{"id":"other","body":"c","created_at":"2026-01-02T03:04:05.000Z"}"#,
    ]
    .join("\n");
    import_jsonl(&store, "in.jsonl", &text).unwrap();
    let out = tmp.path().join("md");
    export_hivelore(&store.read().unwrap(), &out, false).unwrap();
    let files = md_files(&out);
    let (_, path) = files.iter().find(|(rel, _)| rel.contains("old")).unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let yaml: serde_yaml_ng::Mapping = serde_yaml_ng::from_str(split_md(&text).0).unwrap();
    let related: Vec<String> = yaml["related_ids"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    assert_eq!(related, ["other", "new"], "{text}");
    let (_t2, again) = temp_store();
    import_paths(&again, &[&out], OnConflict::Fail).unwrap();
    let mut links: Vec<(String, String)> = memories_by_id(&again)["old"]
        .relationships
        .iter()
        .map(|r| (r.target.clone(), r.kind.clone()))
        .collect();
    links.sort();
    assert_eq!(
        links,
        [
            ("new".to_string(), "superseded_by".to_string()),
            ("other".to_string(), "related".to_string())
        ]
    );
}
