//! Search latency at 100k memories (SPEC §6) beside the named peers on the same text:
//! `grep -F` on the literal haystacks, SQLite FTS5 through the sqlite3 CLI, `fzf
//! --filter` on the fuzzy haystacks. Prints medians, p95 and ratios; nothing here is
//! asserted.
//!
//! `cargo bench --bench search` (set MEMLENS_BENCH_N for another size). Peers missing
//! from the machine are skipped with a note; `scripts/bench_peers.sh` installs them.

use memlens::model::{FEEL_COUNT, Memory, Relationship, Timestamp};
use memlens::search::{BrowseMode, Engine, Filters, NumericField, Range, SearchRequest, Searcher};
use memlens::store::Store;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Roughly Zipfian index into `n` items.
    fn zipf(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((n as f64).powf(u) - 1.0) as usize % n
    }
    fn unit(&mut self) -> f64 {
        (self.below(21) as f64) / 20.0
    }
}

fn vocabulary() -> Vec<String> {
    let words: Vec<String> = std::fs::read_to_string("/usr/share/dict/words")
        .unwrap_or_default()
        .lines()
        .filter(|w| (3..=10).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase()))
        .map(str::to_string)
        .collect();
    if words.len() > 5000 {
        return words;
    }
    let syl = [
        "ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zen", "qua", "dex", "ber",
    ];
    (0..20_000)
        .map(|i| {
            let mut w = String::new();
            let mut k = i + 7;
            for _ in 0..(2 + i % 3) {
                w.push_str(syl[k % syl.len()]);
                k /= syl.len();
            }
            w
        })
        .collect()
}

fn sentence(rng: &mut Rng, vocab: &[String], bytes: usize) -> String {
    let mut s = String::new();
    while s.len() < bytes {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&vocab[rng.zipf(vocab.len())]);
    }
    s
}

fn generate(n: usize, vocab: &[String]) -> Vec<Memory> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let types = [
        "note",
        "decision",
        "gotcha",
        "convention",
        "skill",
        "session_recap",
    ];
    let tags: Vec<&String> = vocab.iter().step_by(997).take(40).collect();
    (0..n)
        .map(|i| {
            let at = Timestamp(
                1_735_689_600_000_000_000 + (rng.below(365 * 86_400) as i64) * 1_000_000_000,
            );
            let mut m = Memory::new(format!("mem-{i:07}"), sentence(&mut rng, vocab, 200), at);
            if rng.below(2) == 0 {
                m.title = Some(sentence(&mut rng, vocab, 30));
            }
            m.memory_type = types[rng.below(types.len())].to_string();
            m.tags = (0..rng.below(4))
                .map(|_| tags[rng.below(tags.len())].clone())
                .collect();
            m.normalise();
            m.weight = rng.unit();
            if rng.below(2) == 0 {
                for k in 0..FEEL_COUNT {
                    m.feel[k] = Some(rng.unit());
                }
            }
            m.rating_count = rng.below(9) as u32;
            m.rating_sum = m.rating_count * (1 + rng.below(5) as u32);
            if rng.below(10) == 0 && i > 0 {
                m.relationships.push(Relationship {
                    target: format!("mem-{:07}", rng.below(i)),
                    kind: "related".into(),
                    strength: None,
                });
            }
            m
        })
        .collect()
}

fn stats(mut d: Vec<Duration>) -> (f64, f64) {
    d.sort();
    let ms = |x: Duration| x.as_secs_f64() * 1e3;
    if d.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let p95 = d[((d.len() as f64 * 0.95).ceil() as usize).clamp(1, d.len()) - 1];
    (ms(d[d.len() / 2]), ms(p95))
}

fn time_requests(s: &Searcher, reqs: &[SearchRequest]) -> Vec<Duration> {
    reqs.iter()
        .map(|r| {
            let t = Instant::now();
            let resp = s.search(r);
            std::hint::black_box(resp.total);
            t.elapsed()
        })
        .collect()
}

fn time_command(mut cmd: Command, stdin: Option<&Path>) -> Option<Duration> {
    if let Some(p) = stdin {
        cmd.stdin(std::fs::File::open(p).ok()?);
    }
    // output goes to a pipe this process drains, as in a shell pipeline: GNU grep stops
    // at the first match when its output is /dev/null
    cmd.stdout(Stdio::piped()).stderr(Stdio::null());
    let t = Instant::now();
    let out = cmd.output().ok()?;
    let e = t.elapsed();
    std::hint::black_box(out.stdout.len());
    (out.status.success() || out.status.code() == Some(1)).then_some(e)
}

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn keystrokes(words: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for w in words {
        for end in 1..=w.len() {
            out.push(w[..end].to_string());
        }
    }
    out
}

fn row(name: &str, ours: (f64, f64), peer: Option<(&str, (f64, f64))>) {
    match peer {
        Some((p, theirs)) => println!(
            "{name:<34} {:>8.2} {:>8.2}   {p:<14} {:>8.2} {:>8.2}   {:>6.1}x",
            ours.0,
            ours.1,
            theirs.0,
            theirs.1,
            theirs.0 / ours.0
        ),
        None => println!("{name:<34} {:>8.2} {:>8.2}", ours.0, ours.1),
    }
}

fn main() {
    let n: usize = std::env::var("MEMLENS_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let vocab = vocabulary();
    let memories = generate(n, &vocab);
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(&dir.path().join("bench.redb")).expect("store");
    let t = Instant::now();
    let mut w = store.write().expect("write");
    for m in &memories {
        w.put(m).expect("put");
    }
    w.commit().expect("commit");
    let import = t.elapsed();
    let t = Instant::now();
    let searcher = Searcher::load(&store.read().expect("read")).expect("load");
    let load = t.elapsed();
    println!(
        "{n} memories: stored one put() at a time in one transaction (setup; the import row is in benches/scale.rs) {:.0}/s ({:.2} s), searcher load {:.1} ms",
        n as f64 / import.as_secs_f64(),
        import.as_secs_f64(),
        load.as_secs_f64() * 1e3
    );

    // the peers search what memlens searches, one memory per line: grep the literal
    // haystacks (lowercased, fields apart), fzf the fuzzy ones
    let (lines, fuzzy_lines) = (dir.path().join("literal.txt"), dir.path().join("fuzzy.txt"));
    write_haystacks(&memories, &lines, &fuzzy_lines);
    let fts = dir.path().join("fts.db");
    let sqlite = have("sqlite3");
    if sqlite {
        let sql = dir.path().join("load.sql");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&sql).expect("sql"));
        writeln!(f, "CREATE VIRTUAL TABLE docs USING fts5(body);\nBEGIN;").unwrap();
        for m in &memories {
            let text = format!(
                "{} {} {} {} {}",
                m.id,
                m.title.as_deref().unwrap_or(""),
                m.memory_type,
                m.tags.join(" "),
                m.body
            );
            writeln!(
                f,
                "INSERT INTO docs(body) VALUES('{}');",
                text.replace('\'', "''")
            )
            .unwrap();
        }
        writeln!(f, "COMMIT;").unwrap();
        drop(f);
        let mut cmd = Command::new("sqlite3");
        cmd.arg(&fts);
        time_command(cmd, Some(&sql));
    }

    let picks: Vec<&str> = (0..6)
        .map(|i| vocab[(i * 37 + 11) % 300].as_str())
        .collect();
    let rare: Vec<&str> = (0..4)
        .map(|i| vocab[vocab.len() / 2 + i * 101].as_str())
        .collect();
    let mut typed = keystrokes(&picks[..3]);
    typed.extend(keystrokes(&rare[..2]));
    typed.push(format!("{} {}", picks[0], picks[1]));
    typed.push(format!("{} {}", picks[2], rare[0]));
    let request = |q: &str, engine: Engine| SearchRequest {
        query: q.to_string(),
        engine,
        ..SearchRequest::default()
    };

    println!();
    println!(
        "{:<34} {:>8} {:>8}   {:<14} {:>8} {:>8}   {:>7}",
        "measure (ms)", "median", "p95", "peer", "median", "p95", "ratio"
    );
    // literal, per keystroke
    let reqs: Vec<SearchRequest> = typed.iter().map(|q| request(q, Engine::Literal)).collect();
    let ours = stats(time_requests(&searcher, &reqs));
    let grep = stats(
        typed
            .iter()
            .filter_map(|q| {
                let mut c = Command::new("grep");
                c.args(["-F", "-c", q.to_lowercase().as_str()]).arg(&lines);
                time_command(c, None)
            })
            .collect(),
    );
    row("literal, per keystroke", ours, Some(("grep -F", grep)));

    // bm25 top-k
    let bm25_queries: Vec<String> = picks
        .iter()
        .chain(&rare)
        .map(|w| w.to_string())
        .chain([
            format!("{} {}", picks[0], rare[1]),
            format!("{} {} {}", picks[1], picks[2], picks[3]),
        ])
        .collect();
    let reqs: Vec<SearchRequest> = bm25_queries
        .iter()
        .map(|q| request(q, Engine::Bm25))
        .collect();
    let cold = stats(time_requests(&searcher, &reqs));
    row("bm25 top-50, before warm()", cold, None);
    let t = Instant::now();
    searcher.warm();
    println!(
        "{:<34} {:>8.2}",
        "warm() (index, composites, time order)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let ours = stats(time_requests(&searcher, &reqs));
    // the browser's searcher: opened on the store, BM25 on the persisted postings
    let t = Instant::now();
    let opened = Searcher::open(store.read().expect("read")).expect("open");
    println!(
        "{:<34} {:>8.2}",
        "Searcher::open (as the browser)",
        t.elapsed().as_secs_f64() * 1e3
    );
    let persisted = stats(time_requests(&opened, &reqs));
    row("bm25 top-50, persisted postings", persisted, None);
    drop(opened);
    if sqlite {
        let fts_times: Vec<Duration> = bm25_queries
            .iter()
            .filter_map(|q| {
                let mut c = Command::new("sqlite3");
                c.arg(&fts).arg(format!(
                    "SELECT rowid FROM docs WHERE docs MATCH '{}' ORDER BY rank LIMIT 50;",
                    q.split_whitespace().collect::<Vec<_>>().join(" OR ")
                ));
                time_command(c, None)
            })
            .collect();
        row(
            "bm25 top-50",
            ours,
            Some(("sqlite3 FTS5", stats(fts_times))),
        );
    } else {
        row("bm25 top-50 (sqlite3 missing)", ours, None);
    }

    // fuzzy: first screen of fresh queries, then growing by one char
    let fresh: Vec<String> = picks
        .iter()
        .chain(&rare)
        .map(|w| w[..1].to_string())
        .collect();
    let grown = keystrokes(&[picks[3], rare[2], "mem-00042"]);
    let fzf = have("fzf");
    for (name, qs) in [
        ("fuzzy, fresh query (1st char)", &fresh),
        ("fuzzy, query grown by a char", &grown),
    ] {
        let reqs: Vec<SearchRequest> = qs.iter().map(|q| request(q, Engine::Fuzzy)).collect();
        let ours = stats(time_requests(&searcher, &reqs));
        if fzf {
            let theirs: Vec<Duration> = qs
                .iter()
                .filter_map(|q| {
                    let mut c = Command::new("fzf");
                    c.args(["--filter", q.as_str()]);
                    time_command(c, Some(&fuzzy_lines))
                })
                .collect();
            row(name, ours, Some(("fzf --filter", stats(theirs))));
        } else {
            row(&format!("{name} (fzf missing)"), ours, None);
        }
    }

    // progressive search: time to the first screen (best of the newest 2048 scanned)
    for (name, engine, qs) in [
        ("fuzzy first screen (progressive)", Engine::Fuzzy, &fresh),
        (
            "literal first screen (progressive)",
            Engine::Literal,
            &fresh,
        ),
    ] {
        let times: Vec<Duration> = qs
            .iter()
            .map(|q| {
                let req = request(q, engine);
                let t = Instant::now();
                let mut first = None;
                let done = searcher.search_progressive(&req, 2048, &mut |_| {
                    first.get_or_insert_with(|| t.elapsed());
                    true
                });
                std::hint::black_box(done);
                first.unwrap_or_else(|| t.elapsed())
            })
            .collect();
        row(name, stats(times), None);
    }

    // browse mode switch and slider steps (no query)
    let modes = [
        BrowseMode::Time,
        BrowseMode::Density,
        BrowseMode::Rating,
        BrowseMode::Discovery,
        BrowseMode::Significance,
        BrowseMode::Property(NumericField::Feel(3)),
        BrowseMode::Property(NumericField::Weight),
    ];
    let reqs: Vec<SearchRequest> = modes
        .iter()
        .map(|&mode| SearchRequest {
            mode,
            ..SearchRequest::default()
        })
        .collect();
    row(
        "mode switch, first visit",
        stats(time_requests(&searcher, &reqs)),
        None,
    );
    row(
        "mode switch, again",
        stats(time_requests(&searcher, &reqs)),
        None,
    );
    let reqs: Vec<SearchRequest> = (0..10)
        .map(|k| {
            let mut filters = Filters::default();
            filters.feel[3] = Range {
                min: Some(k as f64 * 0.05),
                max: None,
            };
            SearchRequest {
                filters,
                mode: BrowseMode::Rating,
                ..SearchRequest::default()
            }
        })
        .collect();
    row(
        "slider step (feel_humor min)",
        stats(time_requests(&searcher, &reqs)),
        None,
    );
    let hist: Vec<Duration> = (0..10)
        .map(|k| {
            let mut filters = Filters::default();
            filters.weight.min = Some(k as f64 * 0.05);
            let t = Instant::now();
            std::hint::black_box(searcher.histogram(&filters, NumericField::Feel(3), 40));
            t.elapsed()
        })
        .collect();
    row("slider histogram (40 bins)", stats(hist), None);
    println!();
    println!(
        "peers run as processes (start-up and reading their file included); memlens runs in-process"
    );
    drop(searcher);
    drop(store);
    whole_process(
        &dir.path().join("bench.redb"),
        (&lines, &fuzzy_lines),
        sqlite.then_some(fts.as_path()),
        &picks,
    );
}

/// Writes each memory's literal haystack (its fields joined by a tab instead of a line
/// break, so one memory is one line; a query word holds no whitespace, so it matches
/// within one field either way) to `literal` and its fuzzy haystack to `fuzzy`, one
/// memory per line: the text memlens's literal and fuzzy engines search.
fn write_haystacks(memories: &[memlens::model::Memory], literal: &Path, fuzzy: &Path) {
    use memlens::index::tokenize::{fuzzy_haystack, literal_haystack};
    let create = |p: &Path| std::io::BufWriter::new(std::fs::File::create(p).expect("haystacks"));
    let (mut l, mut f) = (create(literal), create(fuzzy));
    for m in memories {
        writeln!(l, "{}", literal_haystack(m).replace('\n', "\t")).expect("write");
        writeln!(f, "{}", fuzzy_haystack(m)).expect("write");
    }
}

/// `memlens search` as a whole process (open, search, print 50) beside the peers'
/// one-shot commands on the same text: `haystacks` are the literal and the fuzzy
/// haystack files.
fn whole_process(db: &Path, haystacks: (&Path, &Path), fts: Option<&Path>, picks: &[&str]) {
    let (lines, fuzzy_lines) = haystacks;
    println!();
    println!(
        "whole process (open, search, print 50), over {} queries:",
        picks.len()
    );
    let memlens = env!("CARGO_BIN_EXE_memlens");
    let run = |engine: &str| {
        stats(
            picks
                .iter()
                .filter_map(|q| {
                    let mut c = Command::new(memlens);
                    c.arg("--db")
                        .arg(db)
                        .args(["search", "--engine", engine, "--limit", "50", q]);
                    time_command(c, None)
                })
                .collect(),
        )
    };
    let shell = |script: String| {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        time_command(c, None)
    };
    let grep = stats(
        picks
            .iter()
            .filter_map(|q| {
                let q = q.to_lowercase();
                shell(format!("grep -F '{q}' '{}' | wc -l", lines.display()))
            })
            .collect(),
    );
    row(
        "memlens search (literal)",
        run("literal"),
        Some(("grep | wc -l", grep)),
    );
    if let Some(fts) = fts {
        let theirs = stats(
            picks
                .iter()
                .filter_map(|q| {
                    let mut c = Command::new("sqlite3");
                    c.arg(fts).arg(format!(
                        "SELECT rowid FROM docs WHERE docs MATCH '{q}' ORDER BY rank LIMIT 50;"
                    ));
                    time_command(c, None)
                })
                .collect(),
        );
        row(
            "memlens search --engine bm25",
            run("bm25"),
            Some(("sqlite3 FTS5", theirs)),
        );
    }
    if have("fzf") {
        let theirs = stats(
            picks
                .iter()
                .filter_map(|q| {
                    shell(format!(
                        "fzf --filter '{q}' < '{}' | head -50",
                        fuzzy_lines.display()
                    ))
                })
                .collect(),
        );
        row(
            "memlens search --engine fuzzy",
            run("fuzzy"),
            Some(("fzf --filter", theirs)),
        );
    }
}
