//! The corpus written in every shape the peers read, and bulk import: `memlens import`
//! as a whole process beside SQLite FTS5 (`sqlite3`, one transaction) and tantivy-py.

use super::{MEMLENS, Table, have, p50_p95, timed};
use memlens::corpus::{CorpusSpec, generate, plain_line};
use memlens::index::tokenize::{fuzzy_haystack, literal_haystack};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The corpus files of one run.
pub struct Files {
    /// Canonical JSONL, for `memlens import`.
    pub jsonl: PathBuf,
    /// Each memory's literal haystack on one line (fields apart by a tab), for grep.
    pub literal: PathBuf,
    /// Each memory's fuzzy haystack on one line, for fzf.
    pub fuzzy: PathBuf,
    /// `id<TAB>title<TAB>body`, for tantivy-py.
    pub tsv: PathBuf,
    /// The FTS5 load script, one transaction.
    pub sql: PathBuf,
    /// Bytes of plain text (title and body, a line each).
    pub text_bytes: u64,
    /// Bytes of the fuzzy haystacks file.
    pub fuzzy_bytes: u64,
}

/// Writes the corpus once in every shape the peers need.
pub fn write_corpus(dir: &Path, n: usize) -> Files {
    let files = Files {
        jsonl: dir.join("memories.jsonl"),
        literal: dir.join("literal.txt"),
        fuzzy: dir.join("fuzzy.txt"),
        tsv: dir.join("memories.tsv"),
        sql: dir.join("load.sql"),
        text_bytes: 0,
        fuzzy_bytes: 0,
    };
    let open = |p: &Path| {
        BufWriter::with_capacity(
            1 << 20,
            std::fs::File::create(p).expect("create corpus file"),
        )
    };
    let (mut jsonl, mut literal, mut fuzzy, mut tsv, mut sql) = (
        open(&files.jsonl),
        open(&files.literal),
        open(&files.fuzzy),
        open(&files.tsv),
        open(&files.sql),
    );
    writeln!(
        sql,
        "CREATE VIRTUAL TABLE t USING fts5(id, title, body);\nBEGIN;"
    )
    .expect("write");
    let (mut text_bytes, mut fuzzy_bytes) = (0u64, 0u64);
    let spec = CorpusSpec {
        seed: 2026,
        size: n,
        body_bytes_target: 200,
    };
    for m in generate(spec) {
        let line = plain_line(&m);
        text_bytes += line.len() as u64 + 1;
        writeln!(jsonl, "{}", m.to_json_line()).expect("write");
        // what memlens's literal and fuzzy engines search
        writeln!(literal, "{}", literal_haystack(&m).replace('\n', "\t")).expect("write");
        let hay = fuzzy_haystack(&m);
        fuzzy_bytes += hay.len() as u64 + 1;
        writeln!(fuzzy, "{hay}").expect("write");
        let flat = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        let title = m.title.as_deref().unwrap_or("");
        writeln!(tsv, "{}\t{}\t{}", m.id, flat(title), flat(&m.body)).expect("write");
        let q = |s: &str| s.replace('\'', "''");
        writeln!(
            sql,
            "INSERT INTO t VALUES('{}','{}','{}');",
            q(&m.id),
            q(title),
            q(&m.body)
        )
        .expect("write");
    }
    writeln!(sql, "COMMIT;").expect("write");
    // On disk before anything is timed: else the kernel writes the corpus back during
    // the first import (some 3 GB at 1M), which then pays for it.
    for w in [jsonl, literal, fuzzy, tsv, sql] {
        let file = w.into_inner().expect("flush corpus file");
        file.sync_all().expect("sync corpus file");
    }
    Files {
        text_bytes,
        fuzzy_bytes,
        ..files
    }
}

/// `memlens import` of the JSONL into fresh stores; the last store is kept.
pub fn import(table: &mut Table, dir: &Path, files: &Files, n: usize, runs: usize) -> PathBuf {
    let mut times = Vec::new();
    let mut store = PathBuf::new();
    for run in 0..runs {
        store = dir.join(format!("store{run}.redb"));
        let t = timed(
            Command::new(MEMLENS)
                .arg("--db")
                .arg(&store)
                .args(["import", "--format", "jsonl"])
                .arg(&files.jsonl),
        )
        .expect("memlens import failed");
        println!("  import run {run}: {:.2} s", t.as_secs_f64());
        times.push(t);
        if run + 1 < runs {
            let _ = std::fs::remove_file(&store);
        }
    }
    let (p50, _) = p50_p95(times);
    let rate = n as f64 / (p50 / 1e3);
    let size = std::fs::metadata(&store).map(|m| m.len()).unwrap_or(0);
    println!(
        "  store file {:.1} MB ({} bytes/memory)",
        size as f64 / 1e6,
        size / n as u64
    );
    table.row(
        "bulk import, whole process (memories/s)",
        format!("{rate:.0}/s ({:.2} s)", p50 / 1e3),
        "—",
        String::new(),
        String::new(),
        "≥ 100k/s; 1M ≤ 10 s",
    );
    store
}

/// `sqlite3` loading id, title and body into an FTS5 table; the last database is kept.
pub fn fts5_import(
    table: &mut Table,
    dir: &Path,
    files: &Files,
    n: usize,
    runs: usize,
) -> Option<PathBuf> {
    if !have("sqlite3", "-version") {
        println!("| bulk import | | sqlite3 FTS5 | peer missing | | |");
        return None;
    }
    let mut times = Vec::new();
    let mut db = PathBuf::new();
    for run in 0..runs {
        db = dir.join(format!("fts{run}.sqlite"));
        let sql = std::fs::File::open(&files.sql).ok()?;
        times.push(timed(Command::new("sqlite3").arg(&db).stdin(sql))?);
        if run + 1 < runs {
            let _ = std::fs::remove_file(&db);
        }
    }
    let (p50, _) = p50_p95(times);
    table.row(
        "bulk import, peer",
        String::new(),
        "sqlite3 FTS5, one transaction",
        format!("{:.0}/s ({:.2} s)", n as f64 / (p50 / 1e3), p50 / 1e3),
        String::new(),
        "SPEC: FTS5 82k/s",
    );
    Some(db)
}

/// tantivy-py indexing the same text (its own timer, in-process, after reading the file).
pub fn tantivy_import(table: &mut Table, dir: &Path, files: &Files, n: usize) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/tantivy_peer.py");
    let index = dir.join("tantivy");
    let _ = std::fs::create_dir_all(&index);
    let out = Command::new("python3")
        .arg(&script)
        .arg(&files.tsv)
        .arg(&index)
        .stderr(Stdio::null())
        .output();
    let figure = out.ok().filter(|o| o.status.success()).and_then(|o| {
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let mut it = text.split_whitespace();
        let docs: f64 = it.next()?.parse().ok()?;
        let secs: f64 = it.next()?.parse().ok()?;
        Some((docs, secs))
    });
    match figure {
        Some((docs, secs)) => table.row(
            "bulk import, peer",
            String::new(),
            "tantivy-py index + commit (in-process)",
            format!("{:.0}/s ({secs:.2} s, {docs} docs)", n as f64 / secs),
            String::new(),
            "SPEC: tantivy 195k/s",
        ),
        None => println!("| bulk import | | tantivy-py | peer missing | | |"),
    }
    let _ = std::fs::remove_dir_all(&index);
}
