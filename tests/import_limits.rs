//! Bounded input: `memlens import` on an endless input (`/dev/zero`, a pipe fed
//! forever), a gzip bomb, or a line or hivelore file over the record limit stops with
//! `error: FILE:LINE: …`, exit 1, the store unchanged and the process's peak memory
//! bounded; a memory at exactly the body limit still imports.

mod exchange_support;

use exchange_support::*;
use flate2::Compression;
use flate2::write::GzEncoder;
use memlens::exchange::lines::{GZIP_FLOOR_BYTES, MAX_RECORD_BYTES, gzip_limit};
use memlens::exchange::{ExchangeError, Format, ImportSource, OnConflict, import};
use memlens::model::validate::MAX_BODY_BYTES;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// Peak resident memory a bounded import may reach (its buffers are a few lines of
/// at most 8 MiB each).
const PEAK_LIMIT_KB: i64 = 300 * 1024;

/// What a run of the real binary gave: exit code, stderr and peak resident memory.
struct Run {
    code: i32,
    stderr: String,
    peak_kb: i64,
}

/// Runs `memlens --db DB ARGS…` and measures its own peak resident memory (wait4's
/// ru_maxrss is this one child's, not the test process's other children's).
#[allow(clippy::zombie_processes, reason = "wait4 reaps the child")]
fn run_measured(db: &Path, args: &[&str]) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_memlens"))
        .arg("--db")
        .arg(db)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn memlens");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut err, &mut text).expect("read stderr");
        text
    });
    let pid = libc::pid_t::try_from(child.id()).expect("pid");
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for; both pointers are valid.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else {
        -1
    };
    Run {
        code,
        stderr: reader.join().expect("stderr thread"),
        peak_kb: usage.ru_maxrss,
    }
}

/// A store with one memory in it, and its export, to check it is left unchanged.
fn store_with_one(dir: &Path) -> (std::path::PathBuf, String) {
    let db = dir.join("store.redb");
    let store = memlens::store::Store::open(&db).expect("open");
    import_jsonl(
        &store,
        "one.jsonl",
        "{\"id\":\"kept\",\"body\":\"already here\"}\n",
    )
    .expect("first import");
    let before = export_all(&store);
    (db, before)
}

fn export_of(db: &Path) -> String {
    export_all(&memlens::store::Store::open(db).expect("reopen"))
}

/// Asserts the run failed as a bounded input error naming `file` and its line.
fn assert_refused(run: &Run, file: &Path, line: usize, reason: &str) {
    assert_eq!(run.code, 1, "exit code; stderr: {}", run.stderr);
    let first = run.stderr.lines().next().unwrap_or("");
    let expected = format!("error: {}:{line}: ", file.display());
    assert!(first.starts_with(&expected), "{first}");
    assert!(first.contains(reason), "{first}");
    assert!(
        run.peak_kb < PEAK_LIMIT_KB,
        "peak memory {} KiB is over {PEAK_LIMIT_KB} KiB",
        run.peak_kb
    );
}

#[test]
fn dev_zero_is_refused_at_line_one_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (db, before) = store_with_one(dir.path());
    let zero = Path::new("/dev/zero");
    for format in ["auto", "jsonl", "openmemory", "mcp-memory", "hivelore"] {
        let run = run_measured(&db, &["import", "--format", format, "/dev/zero"]);
        let what = if format == "hivelore" { "file" } else { "line" };
        assert_refused(&run, zero, 1, &format!("{what} is longer than 8 MiB"));
    }
    assert_eq!(export_of(&db), before);
}

#[test]
fn a_pipe_fed_forever_is_refused_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (db, before) = store_with_one(dir.path());
    let pipe = dir.path().join("endless.jsonl");
    let made = Command::new("mkfifo").arg(&pipe).status().unwrap();
    assert!(made.success());
    let feeder_pipe = pipe.clone();
    // Writes a first good line, then one that never ends, until the reader goes away.
    let feeder = std::thread::spawn(move || {
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .open(&feeder_pipe)
            .unwrap();
        let chunk = vec![b'x'; 1 << 16];
        let mut written = 0usize;
        let _ = out.write_all(b"{\"id\":\"n\",\"body\":\"x\"}\n{\"id\":\"endless\",\"body\":\"");
        while out.write_all(&chunk).is_ok() {
            written += chunk.len();
        }
        written
    });
    let run = run_measured(
        &db,
        &["import", "--format", "jsonl", pipe.to_str().unwrap()],
    );
    let written = feeder.join().unwrap();
    assert_refused(&run, &pipe, 2, "line is longer than 8 MiB");
    assert!(written >= MAX_RECORD_BYTES, "the reader stopped early");
    assert_eq!(export_of(&db), before);
}

/// `copies` gzip members, each of `lines` copies of `line`, concatenated: a file that
/// decompresses to far more than it holds.
fn gzip_bomb(path: &Path, line: &[u8], lines: usize, copies: usize) -> u64 {
    let mut member = GzEncoder::new(Vec::new(), Compression::best());
    for _ in 0..lines {
        member.write_all(line).unwrap();
    }
    let member = member.finish().unwrap();
    let mut file = std::fs::File::create(path).unwrap();
    for _ in 0..copies {
        file.write_all(&member).unwrap();
    }
    (line.len() * lines * copies) as u64
}

#[test]
fn a_gzip_bomb_is_refused_with_bounded_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (db, before) = store_with_one(dir.path());
    let bomb = dir.path().join("memories.jsonl.gz");
    // one record of a 64 KiB body repeated: 100 MiB of lines, each one valid JSON
    let body = "x".repeat(64 << 10);
    let line = format!("{{\"id\":\"same\",\"content\":\"{body}\",\"state\":\"active\"}}\n");
    let inflated = gzip_bomb(&bomb, line.as_bytes(), 16, 100);
    let compressed = std::fs::metadata(&bomb).unwrap().len();
    assert!(inflated > 100 << 20, "the bomb is {inflated} bytes");
    let limit = gzip_limit(compressed);
    assert!(inflated > limit, "{inflated} is within the limit {limit}");
    let run = run_measured(&db, &["import", bomb.to_str().unwrap()]);
    // the line being read when the decompressed bytes passed the limit
    let line_at = usize::try_from(limit / line.len() as u64).unwrap() + 1;
    assert_refused(&run, &bomb, line_at, "as it may be a gzip bomb");
    assert_eq!(export_of(&db), before);
}

#[test]
fn a_gzip_file_within_its_ratio_imports() {
    // 2 000 short memories compress far below the ratio limit and the floor
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.jsonl.gz");
    let mut gz = GzEncoder::new(Vec::new(), Compression::best());
    for i in 0..2000 {
        writeln!(
            gz,
            "{{\"id\":\"m{i}\",\"content\":\"note {i}\",\"state\":\"active\"}}"
        )
        .unwrap();
    }
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
    assert!(gzip_limit(0) == GZIP_FLOOR_BYTES);
    let (_d, store) = temp_store();
    let summary = import_paths(&store, &[&path], OnConflict::Fail).unwrap();
    assert_eq!(summary.added, 2000);
}

fn import_file(path: &Path, format: Format) -> Result<usize, ExchangeError> {
    let (_d, store) = temp_store();
    let source = ImportSource::Path(path.to_path_buf(), Some(format));
    import(&store, &[source], &options(OnConflict::Fail)).map(|s| s.added)
}

/// A canonical line whose body is `len` bytes.
fn line_with_body(id: &str, len: usize) -> String {
    format!("{{\"id\":\"{id}\",\"body\":\"{}\"}}\n", "b".repeat(len))
}

#[test]
fn a_body_at_the_limit_imports_and_a_longer_line_is_a_body_problem_until_the_line_cap() {
    let dir = tempfile::tempdir().unwrap();
    let at_limit = dir.path().join("at.jsonl");
    std::fs::write(&at_limit, line_with_body("a", MAX_BODY_BYTES)).unwrap();
    assert_eq!(import_file(&at_limit, Format::Jsonl).unwrap(), 1);

    // a 2 MiB line is under the line cap: its body is what is wrong
    let two = dir.path().join("two.jsonl");
    std::fs::write(&two, line_with_body("b", 2 << 20)).unwrap();
    match import_file(&two, Format::Jsonl) {
        Err(ExchangeError::Invalid { problems, .. }) => {
            let shown = problems.lines();
            assert_eq!(shown.len(), 1, "{shown:?}");
            assert!(shown[0].starts_with(&format!("{}:1: body: ", two.display())));
        }
        other => panic!("expected a body problem, got {other:?}"),
    }

    // one byte past the cap (line ending excluded) stops the run at its line
    let over = dir.path().join("over.jsonl");
    let mut text = line_with_body("c", 10);
    text.push_str(&"y".repeat(MAX_RECORD_BYTES + 1));
    std::fs::write(&over, &text).unwrap();
    let err = import_file(&over, Format::Jsonl).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}:2: line is longer than 8 MiB", over.display())
    );
}

#[test]
fn a_hivelore_file_over_the_record_cap_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("memories");
    std::fs::create_dir(&tree).unwrap();
    let ok = "---\nid: fine\ncreated_at: 2026-01-01T00:00:00Z\n---\n# Fine\n";
    std::fs::write(tree.join("a.md"), ok).unwrap();
    assert_eq!(import_file(&tree, Format::Hivelore).unwrap(), 1);
    let big = tree.join("b.md");
    let mut text = String::from("---\nid: big\n---\n");
    text.push_str(&"z".repeat(MAX_RECORD_BYTES));
    std::fs::write(&big, text).unwrap();
    let err = import_file(&tree, Format::Hivelore).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{}:1: file is longer than 8 MiB", big.display())
    );
}

/// Imports `path` with `--format auto`: the format it was read as, or the error.
fn detected(path: &Path) -> Result<Format, String> {
    let (_d, store) = temp_store();
    import_paths(&store, &[path], OnConflict::Fail)
        .map(|s| s.sources[0].1)
        .map_err(|e| e.to_string())
}

#[test]
fn a_first_line_over_a_mebibyte_is_still_detected_by_its_keys() {
    let dir = tempfile::tempdir().unwrap();
    let big = "n".repeat(3 << 19); // 1.5 MiB
    let cases = [
        (
            Format::Jsonl,
            format!("{{\"id\":\"a\",\"body\":\"x\",\"note\":\"{big}\"}}\n"),
        ),
        (
            Format::Openmemory,
            format!(
                "{{\"id\":\"a\",\"content\":\"x\",\"metadata\":{{\"note\":\"{big}\"}},\"state\":\"active\"}}\n"
            ),
        ),
        (
            Format::McpMemory,
            format!(
                "{{\"type\":\"entity\",\"name\":\"a\",\"note\":\"{big}\",\"entityType\":\"person\",\"observations\":[\"x\"]}}\n"
            ),
        ),
    ];
    for (format, text) in cases {
        let path = dir.path().join(format!("{format}.jsonl"));
        std::fs::write(&path, &text).unwrap();
        assert!(text.len() > 1 << 20);
        assert_eq!(detected(&path), Ok(format), "{format}");
    }
    // a body over the limit is still that format's problem, not a misreading
    let body = dir.path().join("big-body.jsonl");
    let text = format!("{{\"id\":\"a\",\"content\":\"{big}\",\"state\":\"active\"}}\n");
    std::fs::write(&body, text).unwrap();
    let err = detected(&body).unwrap_err();
    assert!(err.contains("1 problem"), "{err}");
    let (_d, store) = temp_store();
    match import_paths(&store, &[&body], OnConflict::Fail) {
        Err(ExchangeError::Invalid { problems, .. }) => {
            // named as the file names it
            assert!(problems.shown[0].field == "content", "{:?}", problems.shown)
        }
        other => panic!("expected a body problem, got {other:?}"),
    }
}
