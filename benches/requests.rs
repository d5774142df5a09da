//! `memlens search` with a filter, a browse mode, an order, an offset or a long page,
//! each as a whole process beside `sqlite3` holding the same records (SPEC §6: at most
//! 150 ms at 1M, no slower than SQLite, under 64 MiB). SQLite gets one table with a
//! B-tree index on every filtered or sorted column, a table of (memory, tag) pairs
//! indexed by tag, and FTS5 over title and body for the text rows. The fuzzy rows are
//! also run beside `fzf --filter` on the fuzzy haystack lines (the same text memlens
//! matches, in the time order), which does their work where FTS5's prefix does not.
//!
//! Run: `MEMLENS_BENCH_N=100000 cargo bench --bench requests` (1000000 for 1M);
//! `MEMLENS_BENCH_RUNS` repetitions per row (default 5). Each process runs under
//! `/usr/bin/time -f %M` for its peak resident memory; a row gives the medians.
//! `MEMLENS_BENCH_ROWS=T` runs only the rows named with `T` (`keys`: the keys pressed
//! while the index loads, in process; `browser`: the same keys in the real browser, in a
//! pty; `MEMLENS_BENCH_PRESS_AT_MS=T` presses each key no earlier than T ms after the
//! browser started, `MEMLENS_BENCH_EACH=1` prints every press,
//! `MEMLENS_BENCH_KEYS=T` presses only the keys whose rows are named with `T`).
//! `MEMLENS_BENCH_PAUSE_MS=T` waits T ms before each measured request, as a person's
//! commands come seconds apart.
//! `MEMLENS_BENCH_DIR=D` keeps the corpus and both stores in `D` and reuses them.

#[path = "scale_support/browser_keys.rs"]
mod browser_keys;
// the pty session's other readings (bytes, memory, fzf's counter) serve `scale`
#[allow(dead_code)]
#[path = "scale_support/pty.rs"]
mod pty;

use memlens::collection::{Collection, LocalCollection};
use memlens::corpus::{CorpusSpec, generate};
use memlens::model::Composite;
use memlens::model::derived::bayesian_rating;
use memlens::search::plan;
use memlens::search::{BrowseMode, Engine, Filters, Range, SearchRequest};
use std::collections::HashMap;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

const MEMLENS: &str = env!("CARGO_BIN_EXE_memlens");

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Runs a command under `/usr/bin/time`: wall time and peak resident KiB.
fn run(program: &str, args: &[String]) -> Option<(Duration, u64)> {
    let started = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M"])
        .arg(program)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .ok()?;
    let elapsed = started.elapsed();
    if !out.status.success() {
        eprintln!(
            "{program} {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let kib = stderr.lines().last()?.trim().parse().ok()?;
    Some((elapsed, kib))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Runs each command `runs` times, alternated, after one unmeasured run of each (the
/// page cache warm for all); per command, the median wall time in ms and the median
/// peak resident MiB. With `MEMLENS_BENCH_PAUSE_MS=T`, each measured run comes T ms
/// after the one before, as a person's commands come (an idle machine may hand out its
/// memory differently from one that just freed it).
fn measure(commands: &[(String, Vec<String>)], runs: usize) -> Vec<(f64, f64)> {
    for (program, args) in commands {
        let _ = run(program, args);
    }
    let pause = Duration::from_millis(env_usize("MEMLENS_BENCH_PAUSE_MS", 0) as u64);
    let mut samples = vec![(Vec::new(), Vec::new()); commands.len()];
    for _ in 0..runs {
        for ((program, args), (times, peaks)) in commands.iter().zip(&mut samples) {
            std::thread::sleep(pause);
            if let Some((t, kib)) = run(program, args) {
                times.push(t.as_secs_f64() * 1e3);
                peaks.push(kib as f64 / 1024.0);
            }
        }
    }
    samples
        .into_iter()
        .map(|(times, peaks)| (median(times), median(peaks)))
        .collect()
}

/// The corpus both stores hold: `n` memories, the same for the same `n`.
fn corpus_of(n: usize) -> CorpusSpec {
    CorpusSpec {
        seed: 2026,
        size: n,
        body_bytes_target: 200,
    }
}

/// Writes the fuzzy haystack of every memory the default filters keep (not deleted, not
/// a session recap), one a line, in the time order (created_at descending, then id):
/// the input of fzf, the fuzzy rows' second peer.
fn write_fuzzy_lines(path: &Path, n: usize) {
    let mut kept: Vec<_> = generate(corpus_of(n))
        .filter(|m| m.deleted_at.is_none() && m.memory_type != "session_recap")
        .collect();
    kept.sort_by(|a, b| {
        b.created_at
            .cmp(&a.created_at)
            .then_with(|| a.id.cmp(&b.id))
    });
    let mut out = BufWriter::new(std::fs::File::create(path).expect("fuzzy lines"));
    for m in &kept {
        let line = memlens::index::tokenize::fuzzy_haystack(m).replace('\n', " ");
        writeln!(out, "{line}").expect("write");
    }
    out.into_inner().expect("flush").sync_all().expect("sync");
}

/// Loads the fuzzy haystack lines into `fuzzy.sqlite` beside them: table `f`, one row a
/// line, `pos` its place in the time order.
fn write_fuzzy_sqlite(lines: &Path, db: &Path) {
    let sql_path = db.with_extension("sql");
    let mut sql = BufWriter::new(std::fs::File::create(&sql_path).expect("fuzzy sql"));
    writeln!(
        sql,
        "PRAGMA journal_mode=OFF; BEGIN; CREATE TABLE f(pos INTEGER PRIMARY KEY, hay TEXT);"
    )
    .expect("write");
    let text = std::fs::read_to_string(lines).expect("fuzzy lines");
    for line in text.lines() {
        writeln!(
            sql,
            "INSERT INTO f(hay) VALUES('{}');",
            line.replace('\'', "''")
        )
        .expect("write");
    }
    writeln!(sql, "COMMIT;").expect("write");
    sql.into_inner().expect("flush");
    let _ = std::fs::remove_file(db);
    let load = Command::new("sqlite3")
        .arg(db)
        .stdin(std::fs::File::open(&sql_path).expect("fuzzy sql"))
        .stdout(Stdio::null())
        .status()
        .expect("sqlite3");
    assert!(load.success(), "sqlite3 load of the fuzzy lines failed");
    let _ = std::fs::remove_file(&sql_path);
}

/// Writes the corpus as JSONL (for `memlens import`) and as SQL (for `sqlite3`); returns
/// the most common tag and the first memory's created_at year.
fn write_corpus(dir: &Path, n: usize) -> String {
    let mut jsonl = BufWriter::new(std::fs::File::create(dir.join("m.jsonl")).expect("jsonl"));
    let mut sql = BufWriter::new(std::fs::File::create(dir.join("m.sql")).expect("sql"));
    let memories: Vec<_> = generate(corpus_of(n)).collect();
    // relationship_count: distinct other stored memories linked either way
    let doc_of: HashMap<&str, usize> = memories
        .iter()
        .enumerate()
        .map(|(i, m)| (m.id.as_str(), i))
        .collect();
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for (a, m) in memories.iter().enumerate() {
        for r in &m.relationships {
            if let Some(&b) = doc_of.get(r.target.as_str())
                && a != b
            {
                edges.push((a.min(b), a.max(b)));
            }
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut links = vec![0u32; n];
    for (a, b) in edges {
        links[a] += 1;
        links[b] += 1;
    }
    writeln!(
        sql,
        "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;
CREATE TABLE m(doc INTEGER PRIMARY KEY, id TEXT, title TEXT, body TEXT, type TEXT,
  status TEXT, scope TEXT, deleted INTEGER, weight REAL, feel_humor REAL, created_at INTEGER,
  rating_bayesian REAL, rating_count INTEGER, relationship_count INTEGER,
  total_significance REAL);
CREATE TABLE tags(doc INTEGER, tag TEXT);
CREATE VIRTUAL TABLE t USING fts5(title, body);
BEGIN;"
    )
    .expect("write");
    let mut tag_counts: HashMap<String, usize> = HashMap::new();
    let humor = memlens::model::feel_index("humor").expect("feel_humor");
    let q = |s: &str| s.replace('\'', "''");
    let num = |v: Option<f64>| v.map_or("NULL".to_string(), |v| v.to_string());
    for (doc, m) in memories.iter().enumerate() {
        writeln!(jsonl, "{}", m.to_json_line()).expect("write");
        let title = m.title.as_deref().unwrap_or("");
        writeln!(
            sql,
            "INSERT INTO m VALUES({doc},'{}','{}','{}','{}','{}','{}',{},{},{},{},{},{},{},{});",
            q(&m.id),
            q(title),
            q(&m.body),
            q(&m.memory_type),
            m.status.as_str(),
            m.scope.as_str(),
            u8::from(m.deleted_at.is_some()),
            m.weight,
            num(m.feel[humor]),
            m.created_at.0,
            bayesian_rating(m.rating_sum, m.rating_count),
            m.rating_count,
            links[doc],
            num(Composite::TotalSignificance.compute(&m.feel)),
        )
        .expect("write");
        writeln!(
            sql,
            "INSERT INTO t(rowid,title,body) VALUES({doc},'{}','{}');",
            q(title),
            q(&m.body)
        )
        .expect("write");
        for tag in &m.tags {
            *tag_counts.entry(tag.clone()).or_default() += 1;
            writeln!(sql, "INSERT INTO tags VALUES({doc},'{}');", q(tag)).expect("write");
        }
    }
    writeln!(sql, "COMMIT;").expect("write");
    for col in [
        "type",
        "status",
        "deleted",
        "weight",
        "feel_humor",
        "created_at",
        "rating_bayesian",
        "rating_count",
        "relationship_count",
        "total_significance",
    ] {
        writeln!(sql, "CREATE INDEX m_{col} ON m({col});").expect("write");
    }
    writeln!(sql, "CREATE INDEX tags_tag ON tags(tag, doc);").expect("write");
    for w in [jsonl, sql] {
        w.into_inner().expect("flush").sync_all().expect("sync");
    }
    tag_counts
        .into_iter()
        .max_by_key(|(t, c)| (*c, std::cmp::Reverse(t.clone())))
        .map(|(t, _)| t)
        .unwrap_or_default()
}

/// One row: `memlens search` flags and the SQL that does the same work.
struct Row {
    name: String,
    flags: Vec<String>,
    sql: String,
    /// For a fuzzy row, the fzf pipeline that does the same work on the fuzzy haystack
    /// lines (`LINES`, in the time order): the first 50 matches in input order, or the
    /// worst 50 by score.
    fzf: Option<String>,
    /// For a fuzzy row, SQL doing the same work on the same lines in SQLite (table `f`
    /// of `fuzzy.sqlite`, `pos` the time order): a subsequence is a `LIKE` pattern with
    /// `%` between the letters, and every match is counted as memlens counts them.
    same_in_sqlite: Option<String>,
}

fn rows(tag: &str) -> Vec<Row> {
    let live = "deleted = 0 AND type <> 'session_recap'";
    let page = |order: &str, tail: &str| {
        format!(
            "SELECT id, title, type, status, created_at FROM m WHERE {live}{tail} ORDER BY {order} LIMIT 50"
        )
    };
    let row = |name: &str, flags: &str, sql: String| Row {
        name: name.to_string(),
        flags: flags.split_whitespace().map(str::to_string).collect(),
        sql,
        fzf: None,
        same_in_sqlite: None,
    };
    let fuzzy = |name: &str, flags: &str, sql: String, fzf: &str| Row {
        fzf: Some(fzf.to_string()),
        ..row(name, flags, sql)
    };
    // water as a subsequence, case aside (LIKE folds ASCII case, as skim does for a
    // lowercase query): the total of matches, then the first 50 in the time order
    let like = "hay LIKE '%w%a%t%e%r%'";
    let by_time_in_sqlite = format!(
        "SELECT count(*) FROM f WHERE {like}; SELECT pos, hay FROM f WHERE {like} ORDER BY pos LIMIT 50"
    );
    // 2024-07-01 .. 2024-09-30 UTC in nanoseconds
    let (from, to) = (1_719_792_000_000_000_000i64, 1_727_740_799_999_999_999i64);
    let text = |m: &str, order: &str| {
        format!(
            "SELECT m.id, m.title, m.created_at FROM t JOIN m ON m.doc = t.rowid WHERE t MATCH '{m}' AND m.{live} ORDER BY {order} LIMIT 50",
            live = live.replace(" AND ", " AND m.")
        )
    };
    vec![
        row(
            "filter type=decision",
            "--filter type=decision",
            page("created_at DESC", " AND type = 'decision'"),
        ),
        row(
            "filter status=validated",
            "--filter status=validated",
            page("created_at DESC", " AND status = 'validated'"),
        ),
        row(
            &format!("filter tag={tag}"),
            &format!("--filter tag={tag}"),
            format!(
                "SELECT m.id, m.title, m.created_at FROM tags JOIN m ON m.doc = tags.doc WHERE tags.tag = '{tag}' AND m.{} ORDER BY m.created_at DESC LIMIT 50",
                live.replace(" AND ", " AND m.")
            ),
        ),
        row(
            "filter weight=0.8..1",
            "--filter weight=0.8..1",
            page("created_at DESC", " AND weight BETWEEN 0.8 AND 1"),
        ),
        row(
            "filter feel_humor=0.5..1",
            "--filter feel_humor=0.5..1",
            page("created_at DESC", " AND feel_humor BETWEEN 0.5 AND 1"),
        ),
        row(
            "filter created_at=2024-07-01..2024-09-30",
            "--filter created_at=2024-07-01..2024-09-30",
            page(
                "created_at DESC",
                &format!(" AND created_at BETWEEN {from} AND {to}"),
            ),
        ),
        row("mode time", "--mode time", page("created_at DESC", "")),
        row(
            "mode density",
            "--mode density",
            page("relationship_count DESC, created_at DESC", ""),
        ),
        row(
            "mode rating",
            "--mode rating",
            page("rating_bayesian DESC, created_at DESC", ""),
        ),
        row(
            "mode discovery",
            "--mode discovery",
            format!(
                "SELECT * FROM (SELECT id FROM m WHERE {live} AND rating_count >= 5 ORDER BY rating_bayesian DESC, created_at DESC LIMIT 40) UNION ALL SELECT * FROM (SELECT id FROM m WHERE {live} AND rating_count < 5 ORDER BY created_at DESC LIMIT 10)"
            ),
        ),
        row(
            "mode property feel_humor",
            "--mode property --sort-field feel_humor",
            page("feel_humor IS NULL, feel_humor DESC, created_at DESC", ""),
        ),
        row(
            "mode significance",
            "--mode significance",
            page(
                "total_significance IS NULL, total_significance DESC, created_at DESC",
                "",
            ),
        ),
        row(
            "literal water --mode time",
            "--mode time water",
            text("water", "m.created_at DESC"),
        ),
        row(
            "bm25 water --mode time",
            "--engine bm25 --mode time water",
            text("water", "m.created_at DESC"),
        ),
        Row {
            same_in_sqlite: Some(by_time_in_sqlite),
            ..fuzzy(
                "fuzzy water --mode time",
                "--engine fuzzy --mode time water",
                text("wat*", "m.created_at DESC"),
                "fzf --filter water --no-sort < LINES | head -50",
            )
        },
        row(
            "literal water --order asc",
            "--order asc water",
            text("water", "rank DESC"),
        ),
        row(
            "bm25 water --order asc",
            "--engine bm25 --order asc water",
            text("water", "rank DESC"),
        ),
        fuzzy(
            "fuzzy water --order asc",
            "--engine fuzzy --order asc water",
            text("wat*", "rank DESC"),
            "fzf --filter water < LINES | tail -50",
        ),
        row(
            "--offset 100000",
            "--offset 100000",
            format!(
                "SELECT id, title, created_at FROM m WHERE {live} ORDER BY created_at DESC LIMIT 50 OFFSET 100000"
            ),
        ),
        row(
            "--limit 10000",
            "--limit 10000",
            format!(
                "SELECT id, title, created_at FROM m WHERE {live} ORDER BY created_at DESC LIMIT 10000"
            ),
        ),
    ]
}

/// Writes the corpus, imports it into memlens and loads it into SQLite; returns the tag
/// the tag row filters on.
fn prepare(dir: &Path, n: usize) -> String {
    // the rows' queries (water, the tag) are chosen for the corpus drawn from fortunes
    // and WordNet: without them the corpus is another text and the rows measure misses
    let sources = memlens::corpus::sources();
    for s in &sources {
        println!("source: {s}");
    }
    let has = |name: &str| sources.iter().any(|s| s.starts_with(name));
    assert!(
        has("fortunes") && has("wordnet"),
        "the corpus needs fortunes and WordNet: apt-get install fortunes wordnet-base"
    );
    let started = Instant::now();
    let tag = write_corpus(dir, n);
    println!(
        "corpus of {n} written in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    let import = Command::new(MEMLENS)
        .arg("--db")
        .arg(dir.join("m.redb"))
        .args(["import", "--format", "jsonl"])
        .arg(dir.join("m.jsonl"))
        .stdout(Stdio::null())
        .status()
        .expect("memlens import");
    assert!(import.success(), "memlens import failed");
    let sql = std::fs::File::open(dir.join("m.sql")).expect("sql");
    let load = Command::new("sqlite3")
        .arg(dir.join("m.sqlite"))
        .stdin(sql)
        .stdout(Stdio::null())
        .status()
        .expect("sqlite3 (apt-get install sqlite3)");
    assert!(load.success(), "sqlite3 load failed");
    tag
}

fn main() {
    let n = env_usize("MEMLENS_BENCH_N", 100_000);
    let runs = env_usize("MEMLENS_BENCH_RUNS", 5);
    // MEMLENS_BENCH_DIR keeps the stores there and reuses them on the next run
    let kept = std::env::var_os("MEMLENS_BENCH_DIR").map(std::path::PathBuf::from);
    let temp = tempfile::tempdir().expect("temp dir");
    let dir = kept.as_deref().unwrap_or(temp.path());
    std::fs::create_dir_all(dir).expect("bench dir");
    let store = dir.join("m.redb");
    let db = dir.join("m.sqlite");
    let started = Instant::now();
    let tag = match std::fs::read_to_string(dir.join("tag")) {
        Ok(tag) if store.exists() && db.exists() => {
            println!("stores of {n} memories reused from {}", dir.display());
            tag
        }
        _ => {
            let _ = (std::fs::remove_file(&store), std::fs::remove_file(&db));
            let tag = prepare(dir, n);
            std::fs::write(dir.join("tag"), &tag).expect("tag");
            tag
        }
    };
    println!("stores ready in {:.1} s", started.elapsed().as_secs_f64());
    let store_arg = store.to_string_lossy().to_string();
    let db_arg = db.to_string_lossy().to_string();
    println!(
        "\n| request ({n} memories) | memlens ms | SQLite ms | ratio | memlens peak MiB | SQLite peak MiB |"
    );
    println!("|---|---|---|---|---|---|");
    // MEMLENS_BENCH_ROWS=text runs only the rows whose name holds `text` ("keys": only
    // the keys pressed during the load)
    let only = std::env::var("MEMLENS_BENCH_ROWS").unwrap_or_default();
    let fuzzy_lines = dir.join("fuzzy.txt");
    if !fuzzy_lines.exists() {
        write_fuzzy_lines(&fuzzy_lines, n);
    }
    let fuzzy_db = dir.join("fuzzy.sqlite");
    if !fuzzy_db.exists() {
        write_fuzzy_sqlite(&fuzzy_lines, &fuzzy_db);
    }
    let mut beside_fzf = Vec::new();
    for row in rows(&tag).into_iter().filter(|r| r.name.contains(&only)) {
        let mut args = vec!["--db".to_string(), store_arg.clone(), "search".into()];
        args.extend(row.flags.iter().cloned());
        let mut commands = vec![
            (MEMLENS.to_string(), args),
            ("sqlite3".to_string(), vec![db_arg.clone(), row.sql.clone()]),
        ];
        if let Some(fzf) = &row.fzf {
            let line = fzf.replace("LINES", &fuzzy_lines.to_string_lossy());
            commands.push(("sh".to_string(), vec!["-c".to_string(), line]));
        }
        if let Some(sql) = &row.same_in_sqlite {
            let db = fuzzy_db.to_string_lossy().to_string();
            commands.push(("sqlite3".to_string(), vec![db, sql.clone()]));
        }
        let m = measure(&commands, runs);
        println!(
            "| {} | {:.0} | {:.0} | ×{:.2} | {:.0} | {:.0} |",
            row.name,
            m[0].0,
            m[1].0,
            m[0].0 / m[1].0,
            m[0].1,
            m[1].1
        );
        if let Some(fzf) = m.get(2) {
            beside_fzf.push((
                row.name,
                m[0],
                *fzf,
                m.get(3).copied(),
                row.fzf.unwrap_or_default(),
            ));
        }
    }
    if !beside_fzf.is_empty() {
        println!(
            "\n| fuzzy request ({n} memories) | memlens ms | fzf ms | ratio | memlens peak MiB | fzf peak MiB | fzf command | SQLite subsequence `LIKE` ms | ratio | SQLite peak MiB |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for (name, mine, theirs, like, command) in beside_fzf {
            let like = match like {
                Some((ms, mib)) => format!("{ms:.0} | ×{:.2} | {mib:.0}", mine.0 / ms),
                None => "— | | ".to_string(),
            };
            println!(
                "| {name} | {:.0} | {:.0} | ×{:.2} | {:.0} | {:.0} | `{command}` | {like} |",
                mine.0,
                theirs.0,
                mine.0 / theirs.0,
                mine.1,
                theirs.1
            );
        }
    }
    if only.is_empty() || only == "keys" {
        during_the_load(&store, runs);
    }
    if only.is_empty() || only == "browser" {
        browser_keys::in_the_browser(MEMLENS, &store, runs.max(5));
    }
}

/// The browser's request before any key: its first page of 200 memories.
fn browser_page() -> SearchRequest {
    SearchRequest {
        limit: 200,
        ..SearchRequest::default()
    }
}

/// What the browser does with a key pressed while its index loads: the planner answers
/// from the persisted index (in process, as the worker calls it), for a tab switch, a
/// slider step and an engine change: once on a fresh snapshot ("no load"), and once
/// through a collection whose load is running, after the screens before the key were
/// answered as the browser answers them (its first screen, then the slider's last step
/// or the query typed).
fn during_the_load(store: &Path, runs: usize) {
    let reader = || {
        memlens::store::Store::snapshot(store)
            .expect("snapshot")
            .expect("store")
    };
    let mut humor = Filters::default();
    let at = memlens::model::feel_index("humor").expect("feel_humor");
    humor.feel[at] = Range {
        min: Some(0.5),
        max: None,
    };
    let mut step = humor.clone();
    step.feel[at] = Range {
        min: Some(0.55),
        max: None,
    };
    let tab = |mode| SearchRequest {
        mode,
        ..browser_page()
    };
    let query = |engine| SearchRequest {
        query: "water".into(),
        engine,
        ..browser_page()
    };
    // each key with the screens answered before it, as the browser answers them: its
    // first screen, then whatever led to the screen the key is pressed on
    let first = browser_page();
    let cases: Vec<(&str, Vec<SearchRequest>, SearchRequest)> = vec![
        (
            "tab switch → Density",
            vec![first.clone()],
            tab(BrowseMode::Density),
        ),
        (
            "tab switch → Rating",
            vec![first.clone()],
            tab(BrowseMode::Rating),
        ),
        (
            "tab switch → Discovery",
            vec![first.clone()],
            tab(BrowseMode::Discovery),
        ),
        (
            "slider step feel_humor 0.50 → 0.55",
            vec![
                first.clone(),
                SearchRequest {
                    filters: humor,
                    ..browser_page()
                },
            ],
            SearchRequest {
                filters: step,
                ..browser_page()
            },
        ),
        (
            "engine change → bm25 (water)",
            vec![first.clone(), query(Engine::Literal)],
            query(Engine::Bm25),
        ),
        (
            "engine change → fuzzy (water)",
            vec![first.clone(), query(Engine::Literal)],
            query(Engine::Fuzzy),
        ),
    ];
    println!(
        "\n| key pressed while the index loads (in process) | no load: median ms | max ms | load running: median ms | max ms | answers during the load |"
    );
    println!("|---|---|---|---|---|---|");
    for (name, before, req) in cases {
        let mut quiet = Vec::new();
        for _ in 0..runs.max(3) {
            let r = reader();
            let started = Instant::now();
            let answer = plan::from_stored(&r, &req).expect("search");
            quiet.push(started.elapsed().as_secs_f64() * 1e3);
            assert!(answer.is_some(), "the persisted index answers {name}");
        }
        // as the browser meets it: the collection's load running on its own thread
        let (mut busy, mut during) = (Vec::new(), 0);
        for _ in 0..runs.max(3) {
            let collection = Arc::new(LocalCollection::open(store).expect("collection"));
            let load = collection.load_in_background();
            let opened = Instant::now();
            for screen in &before {
                collection.search(screen).expect("a screen before the key");
            }
            let delay = Duration::from_millis(env_usize("MEMLENS_BENCH_LOAD_DELAY_MS", 300) as u64);
            std::thread::sleep(delay.saturating_sub(opened.elapsed()));
            let started = Instant::now();
            collection.search(&req).expect("search");
            busy.push(started.elapsed().as_secs_f64() * 1e3);
            during += usize::from(!collection.is_loaded());
            load.join().expect("load").expect("loaded");
        }
        let max = |t: &[f64]| t.iter().copied().fold(0.0, f64::max);
        let (q, b) = (max(&quiet), max(&busy));
        let runs = busy.len();
        println!(
            "| {name} | {:.1} | {q:.1} | {:.1} | {b:.1} | {during} of {runs} |",
            median(quiet),
            median(busy)
        );
    }
}
