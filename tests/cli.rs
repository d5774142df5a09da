//! The `memlens` binary end to end: exit codes (0, 1 with `error:`, 2 for usage),
//! store resolution (`--db`, `$MEMLENS_DB`, the XDG data dir), import problems printed
//! as `FILE:LINE: field: reason` with the store unchanged, `get`, `stats`, `export`,
//! `demo`, and the store summary printed instead of the browser when there is no terminal.

mod exchange_support;

use exchange_support::generate;
use exchange_support::{memlens, stderr, stdout};
#[cfg(target_os = "linux")]
use memlens::allocator::{ALLOCATOR_ENV, MIMALLOC};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(home: &Path, args: &[&str]) -> String {
    let out = memlens(home, args, &[]);
    assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
    stdout(&out)
}

/// A store at `home/s.redb` holding `memories`, imported by the binary from a JSONL file;
/// the store and the file.
fn imported_store(home: &Path, memories: &[memlens::model::Memory]) -> (PathBuf, PathBuf) {
    let file = home.join("gen.jsonl");
    std::fs::write(&file, generate::jsonl(memories)).unwrap();
    let db = home.join("s.redb");
    ok(home, &["import", "--db", s(&db), s(&file)]);
    (db, file)
}

fn export(home: &Path, db: &Path) -> String {
    ok(home, &["export", "--include-deleted", "--db", s(db)])
}

#[test]
fn bad_input_exits_1_with_precise_lines_and_leaves_the_store_alone() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("s.redb");
    let good = h.join("good.jsonl");
    std::fs::write(&good, "{\"id\":\"a\",\"body\":\"first\"}\n").unwrap();
    ok(h, &["import", "--db", s(&db), s(&good)]);
    let before = export(h, &db);
    let cases = [
        (
            "feel.jsonl",
            "{\"id\":\"b\",\"body\":\"x\",\"feel_fear\":-0.1}\n",
            "feel.jsonl:1: feel_fear: -0.1 is outside 0–1",
        ),
        (
            "dup.jsonl",
            "{\"id\":\"b\",\"body\":\"x\"}\n{\"id\":\"b\",\"body\":\"y\"}\n",
            "dup.jsonl:2: id: duplicate of DIR/dup.jsonl:1",
        ),
        (
            "nobody.jsonl",
            "{\"id\":\"b\"}\n",
            "nobody.jsonl:1: body: required field is missing",
        ),
        (
            "type.jsonl",
            "{\"id\":\"b\",\"body\":\"x\",\"rating_count\":-1}\n",
            "type.jsonl:1: rating_count: expected a non-negative integer, found a number",
        ),
        (
            "conflict.jsonl",
            "{\"id\":\"a\",\"body\":\"again\"}\n",
            "conflict.jsonl:1: id: `a` is already in the store (use --on-conflict skip, update or overwrite)",
        ),
    ];
    for (name, content, expected) in cases {
        let file = h.join(name);
        std::fs::write(&file, content).unwrap();
        let out = memlens(h, &["import", "--db", s(&db), s(&file)], &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(1), "{name}: {err}");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines[0],
            "error: 1 problem in the input; nothing was imported (the store is unchanged)"
        );
        let expected = format!(
            "{}/{}",
            h.display(),
            expected.replace("DIR", &h.display().to_string())
        );
        assert_eq!(lines[1..], [expected.as_str()], "{name}");
        assert!(stdout(&out).is_empty());
        assert_eq!(export(h, &db), before, "{name} changed the store");
    }
    let broken = h.join("broken.jsonl");
    std::fs::write(
        &broken,
        "{\"id\":\"c\",\"body\":\"x\"}\n{\"id\": \"d\" \"body\": 1}\n",
    )
    .unwrap();
    let out = memlens(h, &["import", "--db", s(&db), s(&broken)], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out)
            .contains("broken.jsonl:2: json: invalid JSON: expected `,` or `}` (column 12)"),
        "{}",
        stderr(&out)
    );
    let md = h.join("bad.md");
    std::fs::write(
        &md,
        "---\nid: m\ntype: gotcha\ntags: [a, b\ncreated_at: '2026-01-01T00:00:00Z'\n---\nbody\n",
    )
    .unwrap();
    let out = memlens(h, &["import", "--db", s(&db), s(&md)], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("bad.md:5: frontmatter: invalid YAML: "),
        "{}",
        stderr(&out)
    );
    assert_eq!(export(h, &db), before);
    // an OpenMemory record's problems name its own fields
    let om = h.join("om.jsonl");
    std::fs::write(&om, "{\"id\":\"x\",\"content\":5,\"state\":\"active\"}\n").unwrap();
    let out = memlens(h, &["import", "--db", s(&db), s(&om)], &[]);
    assert!(
        stderr(&out).contains("om.jsonl:1: content: expected a string"),
        "{}",
        stderr(&out)
    );
    // a gzip file cut short stops the import, which says nothing was imported
    let gz = h.join("cut.jsonl.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(
        &mut enc,
        "{\"id\":\"g\",\"content\":\"x\",\"state\":\"active\"}\n"
            .repeat(200)
            .as_bytes(),
    )
    .unwrap();
    let bytes = enc.finish().unwrap();
    std::fs::write(&gz, &bytes[..bytes.len() / 2]).unwrap();
    let out = memlens(h, &["import", "--db", s(&db), s(&gz)], &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.starts_with("error: ")
            && err.contains("cut.jsonl.gz")
            && err
                .trim_end()
                .ends_with("; nothing was imported (the store is unchanged)"),
        "{err}"
    );
    assert_eq!(export(h, &db), before);
    // a failed import into a store that was not there leaves no file behind
    let new = h.join("new.redb");
    let out = memlens(h, &["import", "--db", s(&new), s(&broken)], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(!new.exists(), "a failed import created {}", new.display());
}

#[test]
fn warnings_do_not_fail_and_dry_runs_leave_no_file() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let file = h.join("w.jsonl");
    std::fs::write(
        &file,
        "{\"id\":\"a\",\"body\":\"x\",\"rating_bayesian\":4.2}\n",
    )
    .unwrap();
    let db = h.join("new.redb");
    let out = memlens(h, &["import", "--dry-run", "--db", s(&db), s(&file)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("dry run: 1 memory read from"),
        "{}",
        stdout(&out)
    );
    assert!(!db.exists(), "a dry run created the store");
    let out = memlens(h, &["import", "--db", s(&db), s(&file)], &[]);
    assert_eq!(out.status.code(), Some(0));
    let warning = format!(
        "warning: {}:1: rating_bayesian: derived field ignored (memlens computes it)\n",
        file.display()
    );
    assert_eq!(stderr(&out), warning);
    let exported = export(h, &db);
    assert!(
        !exported.contains("rating_bayesian"),
        "derived fields are not exported"
    );
    // a format forced on a file that reads as another is read as told, and said
    let forced = h.join("forced.redb");
    let out = memlens(
        h,
        &[
            "import",
            "--format",
            "openmemory",
            "--db",
            s(&forced),
            s(&file),
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "warning: {}: format: looks like jsonl (what --format auto reads it as); read as openmemory, as --format says",
            file.display()
        )),
        "{}",
        stderr(&out)
    );
    let out = memlens(
        h,
        &[
            "import",
            "--format",
            "jsonl",
            "--db",
            s(&forced),
            s(&file),
            "--on-conflict",
            "skip",
        ],
        &[],
    );
    assert!(!stderr(&out).contains("looks like"), "{}", stderr(&out));
}

#[test]
fn the_store_comes_from_db_then_memlens_db_then_the_data_dir() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let file = h.join("a.jsonl");
    std::fs::write(&file, "{\"id\":\"a\",\"body\":\"x\"}\n").unwrap();
    let env_db = h.join("env.redb");
    let out = memlens(h, &["import", s(&file)], &[("MEMLENS_DB", s(&env_db))]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(env_db.exists());
    let default_db = h.join("data/memlens/memlens.redb");
    assert!(!default_db.exists());
    ok(h, &["import", s(&file)]);
    assert!(default_db.exists());
    let flag_db = h.join("flag.redb");
    let out = memlens(
        h,
        &["import", "--db", s(&flag_db), s(&file)],
        &[("MEMLENS_DB", s(&env_db))],
    );
    assert_eq!(out.status.code(), Some(0));
    assert!(flag_db.exists());
    let summary = ok(h, &[]);
    assert!(
        summary.starts_with(&format!("store       {}\n", default_db.display())),
        "{summary}"
    );
    assert!(summary.contains("memories    1 (0 deleted)"));
    assert!(
        summary
            .lines()
            .last()
            .unwrap()
            .contains("the browser opens when memlens runs in a terminal")
    );
}

#[test]
fn usage_errors_exit_2() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    for args in [
        &["import"][..],
        &["import", "--format", "xml", "a"],
        &["export", "--format", "hivelore"],
        &["stats", "--bogus"],
        &["get"],
    ] {
        let out = memlens(h, args, &[]);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).starts_with("error:"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    let out = memlens(h, &["stats", "--db", s(&h.join("none.redb"))], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("no store here yet"));
    assert!(
        !h.join("none.redb").exists(),
        "reading commands must not create a store"
    );
}

#[test]
fn an_empty_file_is_not_taken_for_a_store_and_stays_empty() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let empty = h.join("empty.redb");
    std::fs::write(&empty, b"").unwrap();
    for args in [
        &["stats"][..],
        &["search", "ledger"],
        &["get", "mem-1"],
        &["set", "mem-1", "weight=0.5"],
        &["review", "pending"],
    ] {
        let mut args = args.to_vec();
        args.extend(["--db", s(&empty)]);
        let out = memlens(h, &args, &[]);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("the file is empty, not a memlens store"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            std::fs::metadata(&empty).unwrap().len(),
            0,
            "{args:?} wrote"
        );
    }
}

#[test]
fn get_and_stats_agree_with_the_memories() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let memories = generate::memories(5, 400);
    let (db, _) = imported_store(h, &memories);
    let stats: Value = serde_json::from_str(&ok(h, &["stats", "--json", "--db", s(&db)])).unwrap();
    let live: Vec<_> = memories.iter().filter(|m| m.deleted_at.is_none()).collect();
    assert_eq!(stats["total"], 400);
    assert_eq!(stats["deleted"], 400 - live.len());
    assert_eq!(
        stats["rated"],
        live.iter().filter(|m| m.rating_count > 0).count()
    );
    assert_eq!(
        stats["scored"],
        live.iter()
            .filter(|m| m.feel.iter().any(Option::is_some))
            .count()
    );
    let mut by_type: BTreeMap<String, usize> = BTreeMap::new();
    for m in &live {
        *by_type.entry(m.memory_type.clone()).or_default() += 1;
    }
    assert_eq!(stats["by_type"], serde_json::to_value(&by_type).unwrap());
    assert_eq!(
        stats["by_status"]["validated"],
        live.iter()
            .filter(|m| m.status.as_str() == "validated")
            .count()
    );
    // A memory with ratings and links, checked against values worked out here.
    let m = memories
        .iter()
        .find(|m| m.rating_count >= 5 && !m.relationships.is_empty())
        .unwrap();
    let got: Value =
        serde_json::from_str(&ok(h, &["get", &m.id, "--json", "--db", s(&db)])).unwrap();
    assert_eq!(got["id"], m.id.as_str());
    let bayes = (f64::from(m.rating_sum) + 15.0) / (f64::from(m.rating_count) + 5.0);
    assert!((got["rating_bayesian"].as_f64().unwrap() - bayes).abs() < 1e-12);
    let avg = f64::from(m.rating_sum) / f64::from(m.rating_count);
    assert!((got["rating_avg"].as_f64().unwrap() - avg).abs() < 1e-12);
    let ids: std::collections::HashSet<&str> = memories.iter().map(|x| x.id.as_str()).collect();
    let mut linked: std::collections::BTreeSet<&str> = m
        .relationships
        .iter()
        .map(|r| r.target.as_str())
        .filter(|t| ids.contains(t) && *t != m.id)
        .collect();
    for other in &memories {
        if other.relationships.iter().any(|r| r.target == m.id) && other.id != m.id {
            linked.insert(other.id.as_str());
        }
    }
    assert_eq!(got["relationship_count"], linked.len());
    assert!(got.get("confidence_tier").is_some());
    let unrated = memories.iter().find(|m| m.rating_count < 5).unwrap();
    let got: Value =
        serde_json::from_str(&ok(h, &["get", &unrated.id, "--json", "--db", s(&db)])).unwrap();
    assert!(got.get("rating_avg").is_none());
    let text = ok(h, &["get", &m.id, "--db", s(&db)]);
    assert!(
        text.starts_with(&format!("id            {}\n", m.id)),
        "{text}"
    );
    assert!(text.ends_with(&format!("{}\n", m.body)));
    let out = memlens(h, &["get", "no-such-id", "--db", s(&db)], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr(&out), "error: no memory with id `no-such-id`\n");
}

#[test]
fn get_never_prints_escape_sequences_raw() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let file = h.join("esc.jsonl");
    std::fs::write(
        &file,
        "{\"id\":\"e\",\"title\":\"\\u001b[31mred\",\"body\":\"clear \\u001b[2J now\"}\n",
    )
    .unwrap();
    let db = h.join("s.redb");
    ok(h, &["import", "--db", s(&db), s(&file)]);
    let text = ok(h, &["get", "e", "--db", s(&db)]);
    assert!(!text.contains('\u{1b}'), "{text:?}");
    assert!(text.contains("clear ^[[2J now"), "{text:?}");
}

#[test]
fn exports_go_to_stdout_or_a_file_and_leave_deleted_out_by_default() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let memories = generate::memories(9, 200);
    let (db, _) = imported_store(h, &memories);
    let to_stdout = ok(h, &["export", "--db", s(&db)]);
    let out_file = h.join("out/export.jsonl");
    std::fs::create_dir_all(out_file.parent().unwrap()).unwrap();
    let said = ok(h, &["export", "--db", s(&db), "-o", s(&out_file)]);
    assert_eq!(std::fs::read_to_string(&out_file).unwrap(), to_stdout);
    let deleted = memories.iter().filter(|m| m.deleted_at.is_some()).count();
    assert!(deleted > 0);
    assert_eq!(to_stdout.lines().count(), 200 - deleted);
    assert!(
        said.contains(&format!("{deleted} soft-deleted left out")),
        "{said}"
    );
    assert_eq!(export(h, &db).lines().count(), 200);
    let dir = h.join("md");
    let to_dir = [
        "export",
        "--format",
        "hivelore",
        "--db",
        s(&db),
        "-o",
        s(&dir),
    ];
    ok(h, &to_dir);
    let count = walk(&dir);
    assert_eq!(count, 200 - deleted);
    // a second export into the same directory would leave the files of memories since
    // purged beside the new ones: refused, nothing written
    let some = memories.iter().find(|m| m.deleted_at.is_none()).unwrap();
    ok(h, &["purge", &some.id, "--yes", "--db", s(&db)]);
    let again = memlens(h, &to_dir, &[]);
    assert_eq!(again.status.code(), Some(1), "{}", stderr(&again));
    assert!(
        stderr(&again).contains(&format!("already holds {} .md files", 200 - deleted)),
        "{}",
        stderr(&again)
    );
    assert_eq!(walk(&dir), 200 - deleted, "nothing written or removed");
}

#[test]
fn an_export_keeps_a_symlink_a_link_and_a_named_pipe_a_pipe() {
    use std::os::unix::fs::FileTypeExt;
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (db, _) = imported_store(h, &generate::memories(3, 20));
    let expected = ok(h, &["export", "--db", s(&db)]);

    // a link to a file: the file it points to gets the export, the link stays
    let real = h.join("real.jsonl");
    std::fs::write(&real, "old\n").unwrap();
    let link = h.join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    ok(h, &["export", "--db", s(&db), "-o", s(&link)]);
    assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
    assert_eq!(std::fs::read_to_string(&real).unwrap(), expected);

    // a named pipe (like /dev/null, not a file a rename may replace): written through
    let pipe = h.join("pipe");
    make_fifo(&pipe);
    let reader = {
        let pipe = pipe.clone();
        std::thread::spawn(move || std::fs::read_to_string(pipe).unwrap())
    };
    ok(h, &["export", "--db", s(&db), "-o", s(&pipe)]);
    assert_eq!(reader.join().unwrap(), expected);
    assert!(std::fs::metadata(&pipe).unwrap().file_type().is_fifo());
    let left: Vec<_> = std::fs::read_dir(h)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// The entries of a running process's environment, as its memory holds them now.
#[cfg(target_os = "linux")]
fn environ(pid: u32) -> Vec<String> {
    let bytes = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
    String::from_utf8_lossy(&bytes)
        .split('\0')
        .map(str::to_string)
        .collect()
}

/// What `read` takes from process `pid` once `done` holds for it (or after `wait`),
/// looked at every 5 ms.
#[cfg(target_os = "linux")]
fn watch(
    pid: u32,
    read: impl Fn(u32) -> String,
    done: impl Fn(&str) -> bool,
    wait: std::time::Duration,
) -> String {
    let start = std::time::Instant::now();
    loop {
        let seen = read(pid);
        if done(&seen) || start.elapsed() >= wait {
            return seen;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// The entry of a running process's environment that chooses its allocator, if any.
#[cfg(target_os = "linux")]
fn environment(pid: u32) -> String {
    let entries = [
        format!("{ALLOCATOR_ENV}="),
        "MIMALLOC_ALLOW_THP=".to_string(),
    ];
    let mut found: Vec<String> = environ(pid)
        .into_iter()
        .filter(|e| entries.iter().any(|entry| e.starts_with(entry)))
        .collect();
    found.sort();
    found.join("\n")
}

/// Imports `memories` through a named pipe, with `MEMLENS_ALLOCATOR` set to `chosen`
/// and `MIMALLOC_ALLOW_THP` to `thp` (or unset); while the import waits for the pipe,
/// takes its allocator's environment entries once it names its allocator (or after 10 s).
/// Returns them with the export of the store.
#[cfg(target_os = "linux")]
fn import_through_a_pipe(
    home: &Path,
    memories: &[memlens::model::Memory],
    chosen: Option<&str>,
    thp: Option<&str>,
) -> (String, String) {
    use std::io::Write;
    let pipe = home.join("input.jsonl");
    make_fifo(&pipe);
    let db = home.join("p.redb");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_memlens"));
    cmd.args(["--db", s(&db), "import", "--format", "jsonl", s(&pipe)])
        .env_remove(ALLOCATOR_ENV)
        .stdout(std::process::Stdio::null());
    cmd.env_remove("MIMALLOC_ALLOW_THP");
    if let Some(value) = chosen {
        cmd.env(ALLOCATOR_ENV, value);
    }
    if let Some(value) = thp {
        cmd.env("MIMALLOC_ALLOW_THP", value);
    }
    let mut child = cmd.spawn().unwrap();
    let ten = std::time::Duration::from_secs(10);
    // the entries once the process names its allocator: a user's MIMALLOC_ALLOW_THP is
    // there before the import re-executes itself under mimalloc, the choice only after
    let named = |seen: &str| seen.contains(&format!("{ALLOCATOR_ENV}="));
    let seen = watch(child.id(), environment, named, ten);
    let mut input = std::fs::OpenOptions::new().write(true).open(&pipe).unwrap();
    input
        .write_all(generate::jsonl(memories).as_bytes())
        .unwrap();
    drop(input);
    assert!(child.wait().unwrap().success());
    (seen, export(home, &db))
}

#[cfg(target_os = "linux")]
#[test]
fn an_import_runs_with_mimalloc_unless_the_allocator_is_chosen() {
    let memories = generate::memories(5, 40);
    let file_home = tempfile::tempdir().unwrap();
    let (db, _) = imported_store(file_home.path(), &memories);
    let expected = export(file_home.path(), &db);

    let home = tempfile::tempdir().unwrap();
    let (seen, exported) = import_through_a_pipe(home.path(), &memories, None, None);
    // without mimalloc's huge pages for its arenas
    assert_eq!(
        seen,
        format!("{ALLOCATOR_ENV}={MIMALLOC}\nMIMALLOC_ALLOW_THP=0")
    );
    assert_eq!(exported, expected);

    // mimalloc's huge pages as the user set them
    let home = tempfile::tempdir().unwrap();
    let (seen, exported) = import_through_a_pipe(home.path(), &memories, None, Some("1"));
    assert_eq!(
        seen,
        format!("{ALLOCATOR_ENV}={MIMALLOC}\nMIMALLOC_ALLOW_THP=1")
    );
    assert_eq!(exported, expected);

    // an allocator the user chose is left as it is
    let home = tempfile::tempdir().unwrap();
    let (seen, exported) = import_through_a_pipe(home.path(), &memories, Some("system"), None);
    assert_eq!(seen, format!("{ALLOCATOR_ENV}=system"));
    assert_eq!(exported, expected);
}

/// Whether a part of the heap of process `pid` is advised to take huge pages (`hg`
/// among the `VmFlags` of a `[heap]` mapping in `/proc/PID/smaps`).
#[cfg(target_os = "linux")]
fn advised_huge_pages(pid: u32) -> bool {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).unwrap_or_default();
    let mut heap = false;
    for line in smaps.lines() {
        if let Some(flags) = line.strip_prefix("VmFlags:") {
            if heap && flags.split_whitespace().any(|f| f == "hg") {
                return true;
            }
        } else if !line.split_whitespace().next().unwrap_or("").ends_with(':') {
            // a mapping's first line: its range, permissions... and its name last
            heap = line.ends_with("[heap]");
        }
    }
    false
}

/// Runs `memlens search` printing every memory of `db` as JSON into a pipe nobody reads
/// yet, with `MEMLENS_HUGE_PAGES` set to `value` (or unset); once it waits for the pipe
/// to drain (or after 10 s), says whether it advised huge pages, then reads the pipe
/// and checks the search succeeded.
#[cfg(target_os = "linux")]
fn request_advises_huge_pages(db: &Path, value: Option<&str>) -> bool {
    use memlens::allocator::HUGE_PAGES_ENV;
    use std::io::Read;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_memlens"));
    cmd.args(["--db", s(db), "search", "--json", "--limit", "100000"])
        .env_remove(HUGE_PAGES_ENV)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    if let Some(value) = value {
        cmd.env(HUGE_PAGES_ENV, value);
    }
    let mut child = cmd.spawn().unwrap();
    let waiting =
        |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/wchan")).unwrap_or_default();
    let ten = std::time::Duration::from_secs(10);
    let wchan = watch(child.id(), waiting, |w| w.contains("pipe"), ten);
    assert!(
        wchan.contains("pipe"),
        "the search never filled its pipe: {wchan}"
    );
    let advised = advised_huge_pages(child.id());
    let mut printed = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut printed)
        .unwrap();
    assert!(child.wait().unwrap().success());
    assert!(printed.len() > 1 << 16, "{} bytes", printed.len());
    advised
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_request_asks_for_huge_pages_only_when_they_are_on() {
    if !Path::new("/sys/kernel/mm/transparent_hugepage/enabled").exists() {
        eprintln!("skipped: this kernel has no transparent huge pages");
        return;
    }
    let home = tempfile::tempdir().unwrap();
    // enough memories for the JSON of all of them to fill a pipe (64 KiB)
    let (db, _) = imported_store(home.path(), &generate::memories(7, 400));
    assert!(!request_advises_huge_pages(&db, None));
    assert!(request_advises_huge_pages(&db, Some("on")));
    assert!(request_advises_huge_pages(&db, Some("1")));
    assert!(!request_advises_huge_pages(&db, Some("off")));
}

/// Makes a named pipe at `path`.
fn make_fifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// The `.md` files under `dir`.
fn walk(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p)
            } else {
                usize::from(p.extension().is_some_and(|x| x == "md"))
            }
        })
        .sum()
}

#[test]
fn demo_builds_a_fresh_store_and_never_replaces_a_real_one() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let demo_lines = include_str!("../assets/demo.jsonl")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count();
    let default_demo = h.join("data/memlens/demo.redb");
    let real = h.join("real.redb");
    let out = memlens(h, &["demo"], &[("MEMLENS_DB", s(&real))]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        default_demo.exists() && !real.exists(),
        "demo must ignore MEMLENS_DB"
    );
    assert!(
        stdout(&out).contains(&format!("memories    {demo_lines} (")),
        "{}",
        stdout(&out)
    );
    ok(h, &["demo"]); // recreated
    // A real store at --db is refused and left as it was.
    let file = h.join("a.jsonl");
    std::fs::write(&file, "{\"id\":\"mine\",\"body\":\"precious\"}\n").unwrap();
    ok(h, &["import", "--db", s(&real), s(&file)]);
    let before = export(h, &real);
    let out = memlens(h, &["demo", "--db", s(&real)], &[]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with(&format!(
            "error: {}: it is a memlens store that is not a demo store",
            real.display()
        )),
        "{}",
        stderr(&out)
    );
    assert_eq!(export(h, &real), before);
    let text = h.join("notes.txt");
    std::fs::write(&text, "mine").unwrap();
    assert_eq!(
        memlens(h, &["demo", "--db", s(&text)], &[]).status.code(),
        Some(1)
    );
    assert_eq!(std::fs::read_to_string(&text).unwrap(), "mine");
    // A new path is created, an earlier demo store replaced: as it was built (tracked
    // reads aside) it goes, with changes it is kept beside the fresh one.
    let dir = h.join("d");
    let fresh = dir.join("demo2.redb");
    let files = || std::fs::read_dir(&dir).unwrap().count();
    ok(h, &["demo", "--db", s(&fresh)]);
    ok(h, &["search", "--db", s(&fresh), "--track", "webhook"]);
    let out = memlens(h, &["demo", "--db", s(&fresh)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("kept"), "{}", stderr(&out));
    assert_eq!(files(), 1, "a demo store only read is replaced");
    std::fs::write(&file, "{\"id\":\"extra\",\"body\":\"added to the demo\"}\n").unwrap();
    ok(h, &["import", "--db", s(&fresh), s(&file)]);
    assert_eq!(export(h, &fresh).lines().count(), demo_lines + 1);
    let changed = export(h, &fresh);
    let out = memlens(h, &["demo", "--db", s(&fresh)], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        export(h, &fresh).lines().count(),
        demo_lines,
        "the demo store was rebuilt"
    );
    let kept: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p != &fresh)
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert!(
        stderr(&out).contains(&format!("it is kept as {}", kept[0].display())),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        export(h, &kept[0]),
        changed,
        "the changed demo store is kept whole"
    );
    // a curation counts as a change too; the fresh store then goes aside as well
    ok(h, &["approve", "--db", s(&fresh), "mem-0001"]);
    ok(h, &["demo", "--db", s(&fresh)]);
    assert_eq!(files(), 3);
}

/// A search that writes nothing (like `get`, `stats` and `export`) leaves the store file
/// byte for byte as it was (it is opened read-only), gives the same answer as the
/// writable path (`--track` opens the store for writing, and counts the read), and a
/// missing store is still an error.
#[test]
fn a_search_reads_the_store_without_writing_to_it() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let db = h.join("s.redb");
    let data = h.join("m.jsonl");
    std::fs::write(
        &data,
        "{\"id\":\"a\",\"body\":\"alpha beta\"}\n{\"id\":\"b\",\"body\":\"beta gamma\"}\n",
    )
    .unwrap();
    ok(h, &["import", "--db", s(&db), s(&data)]);
    let before = std::fs::read(&db).unwrap();
    let mut answers = Vec::new();
    for engine in ["literal", "bm25", "fuzzy"] {
        let args = [
            "search",
            "--db",
            s(&db),
            "--json",
            "--engine",
            engine,
            "beta",
        ];
        answers.push(ok(h, &args));
    }
    // the other commands that only read do not write either
    ok(h, &["get", "--db", s(&db), "a"]);
    ok(h, &["stats", "--db", s(&db), "--json"]);
    ok(h, &["export", "--db", s(&db)]);
    assert_eq!(std::fs::read(&db).unwrap(), before, "the file changed");
    let hits = |json: &str| -> Vec<String> {
        let v: Value = serde_json::from_str(json).unwrap();
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(hits(&answers[1]), vec!["a", "b"]);
    let tracked = ok(
        h,
        &[
            "search",
            "--db",
            s(&db),
            "--json",
            "--engine",
            "bm25",
            "--track",
            "beta",
        ],
    );
    assert_eq!(hits(&tracked), hits(&answers[1]));
    let got = ok(h, &["get", "--db", s(&db), "--json", "a"]);
    let v: Value = serde_json::from_str(&got).unwrap();
    assert_eq!(v["read_count"], 1);
    let missing = memlens(h, &["search", "--db", s(&h.join("none.redb")), "x"], &[]);
    assert_eq!(missing.status.code(), Some(1), "{}", stderr(&missing));
}

/// A store whose index another version of memlens wrote is rebuilt when it is opened:
/// memlens says so first (the wait is long for a large store), once, and the answers
/// are those of the store before.
#[test]
fn a_store_with_an_older_index_is_rebuilt_once_with_a_notice() {
    use memlens::index::KEY_INDEX;
    use memlens::store::tables::META;
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let memories = generate::memories(3, 300);
    let (db, file) = imported_store(h, &memories);
    let word = memories[0]
        .body
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| w.len() >= 3)
        .expect("a word")
        .to_lowercase();
    let search = [
        "search",
        "--db",
        s(&db),
        "--engine",
        "bm25",
        "--json",
        &word,
    ];
    let before = ok(h, &search);
    assert!(!before.contains("\"total\": 0"), "{word}: {before}");
    let notice = memlens::existing::rebuild_notice(&db);
    for command in [
        &search[..],
        &["stats", "--db", s(&db)],
        &["import", "--db", s(&db), s(&file), "--on-conflict", "skip"],
    ] {
        {
            let raw = redb::Database::create(&db).unwrap();
            let txn = raw.begin_write().unwrap();
            txn.open_table(META)
                .unwrap()
                .insert(KEY_INDEX, 4u32.to_le_bytes().as_slice())
                .unwrap();
            txn.commit().unwrap();
        }
        let first = memlens(h, command, &[]);
        assert_eq!(
            first.status.code(),
            Some(0),
            "{command:?}: {}",
            stderr(&first)
        );
        assert!(
            stderr(&first).contains(&notice),
            "{command:?}: no notice: {}",
            stderr(&first)
        );
        let again = memlens(h, command, &[]);
        assert!(
            !stderr(&again).contains("rebuilding"),
            "{command:?}: {}",
            stderr(&again)
        );
        assert_eq!(ok(h, &search), before, "{command:?}: the answers changed");
    }
}

#[test]
fn the_browser_flag_belongs_to_the_commands_that_open_the_browser() {
    let home = tempfile::tempdir().unwrap();
    for (args, listed) in [
        (&["--help"][..], true),
        (&["demo", "--help"][..], true),
        (&["search", "--help"][..], false),
        (&["import", "--help"][..], false),
        (&["mcp", "--help"][..], false),
    ] {
        let help = ok(home.path(), args);
        assert_eq!(help.contains("--no-mouse"), listed, "{args:?}: {help}");
    }
    let out = memlens(home.path(), &["search", "--no-mouse", "x"], &[]);
    assert_eq!(out.status.code(), Some(2), "a usage error");
    assert!(stderr(&out).contains("--no-mouse"), "{}", stderr(&out));
}

#[test]
fn a_rater_named_by_memlens_rater_is_used_or_refused_never_replaced() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (db, _) = imported_store(h, &generate::memories(2, 7));
    let id = generate::memories(2, 7)[0].id.clone();
    let rate = |rater: &str, n: &str| {
        memlens(
            h,
            &["rate", &id, n, "--db", s(&db)],
            &[("MEMLENS_RATER", rater)],
        )
    };
    assert_eq!(rate("ann", "4").status.code(), Some(0));
    let bad = rate("bad\nname", "2");
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
    assert!(
        stderr(&bad).contains("MEMLENS_RATER: `bad^Jname` is not a name"),
        "{}",
        stderr(&bad)
    );
    let got: Value = serde_json::from_str(&ok(h, &["get", &id, "--json", "--db", s(&db)])).unwrap();
    let raters: Vec<&str> = got["ratings"]
        .as_array()
        .map(|r| r.iter().filter_map(|x| x["rater"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        raters,
        ["ann"],
        "the refused rating was not given as anyone else"
    );
}

#[test]
fn a_reader_that_stops_early_is_no_failure() {
    use std::io::Read;
    let home = tempfile::tempdir().unwrap();
    let h = home.path();
    let (db, _) = imported_store(h, &generate::memories(3, 600));
    for json in [true, false] {
        let mut args = vec!["search", "--limit", "600", "--db", s(&db)];
        if json {
            args.push("--json");
        }
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_memlens"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 16];
        child.stdout.take().unwrap().read_exact(&mut first).unwrap();
        // the pipe's reader is gone
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
}
