//! Near-duplicate detection measured on a labelled set: real memories (the hivelore
//! fixtures, the demo collection, fortunes, the Cranfield abstracts), near-duplicates
//! made from them by edits of known size, mixed with generated filler into a store of
//! `MEMLENS_BENCH_N` memories (default 100k). Prints precision and recall per edit
//! kind for MinHash LSH (`memlens review duplicates`, through the store) and, up to
//! 200k memories, for the reference — the exact Jaccard index of every pair of texts —
//! with the time each takes to find all candidates.
//!
//! Run: `scripts/duplicates_bench.sh` (installs fortunes when missing), or
//! `MEMLENS_BENCH_N=1000000 cargo bench --bench duplicates`.

use memlens::corpus::Rng;
use memlens::model::{Memory, Timestamp};
use memlens::review::duplicates::{DEFAULT_THRESHOLD, all_pairs};
use memlens::review::shingles::{normalized, words};
use memlens::review::{Queue, Review, ReviewOptions};
use memlens::store::Store;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

const FIXTURES: &str = "/work/shared/fixtures";
const FORTUNES: &str = "/usr/share/games/fortunes";
/// Sources edited into near-duplicates, per edit kind.
const PER_KIND: usize = 400;

/// The edits, with their size.
const KINDS: [&str; 6] = [
    "swap 1 word pair",
    "swap 3 word pairs",
    "swap 6 word pairs",
    "sentences reordered",
    "paragraph added",
    "half rewritten",
];

fn real_texts() -> Vec<String> {
    let mut texts = Vec::new();
    let hive = Path::new(FIXTURES).join("hivelore/memories");
    if let Ok(dir) = std::fs::read_dir(&hive) {
        let mut files: Vec<_> = dir.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for f in files {
            if let Ok(text) = std::fs::read_to_string(&f) {
                let body = text.split("\n---\n").nth(1).unwrap_or(&text);
                texts.push(body.trim().to_string());
            }
        }
    }
    if let Ok(demo) =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.jsonl"))
    {
        for line in demo.lines() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(line)
                && let Some(b) = v.get("body").and_then(|b| b.as_str())
            {
                texts.push(b.to_string());
            }
        }
    }
    if let Ok(cran) = std::fs::read_to_string(Path::new(FIXTURES).join("cranfield/cran.all.1400")) {
        for doc in cran.split("\n.I ") {
            if let Some(w) = doc.split("\n.W\n").nth(1) {
                texts.push(w.trim().to_string());
            }
        }
    }
    if let Ok(dir) = std::fs::read_dir(FORTUNES) {
        let mut files: Vec<_> = dir
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_none() && p.is_file())
            .collect();
        files.sort();
        for f in files {
            if let Ok(text) = std::fs::read_to_string(&f) {
                texts.extend(text.split("\n%\n").map(|t| t.trim().to_string()));
            }
        }
    }
    // one copy of each text, and only texts long enough to edit
    let mut seen = HashSet::new();
    texts.retain(|t| t.split_whitespace().count() >= 12 && seen.insert(normalized(t)));
    texts
}

fn swap_words(text: &str, pairs: usize, rng: &mut Rng) -> String {
    let mut words: Vec<&str> = text.split(' ').collect();
    for _ in 0..pairs {
        let i = rng.below(words.len() - 1);
        words.swap(i, i + 1);
    }
    words.join(" ")
}

fn reorder_sentences(text: &str) -> Option<String> {
    let sentences: Vec<&str> = text
        .split_inclusive(['.', '!', '?'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    (sentences.len() >= 2).then(|| {
        let mut s = sentences.clone();
        s.rotate_left(1);
        s.join(" ")
    })
}

fn edit(kind: usize, text: &str, other: &str, rng: &mut Rng) -> Option<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    Some(match kind {
        0 => swap_words(&flat, 1, rng),
        1 => swap_words(&flat, 3, rng),
        2 => swap_words(&flat, 6, rng),
        3 => reorder_sentences(text)?,
        4 => format!("{text}\n\n{}", other.split("\n\n").next().unwrap_or(other)),
        _ => {
            let words: Vec<&str> = flat.split(' ').collect();
            let half = words.len() / 2;
            let tail: Vec<&str> = other.split_whitespace().take(words.len() - half).collect();
            format!("{} {}", words[..half].join(" "), tail.join(" "))
        }
    })
}

fn filler(vocab: &[&str], rng: &mut Rng) -> String {
    let n = 20 + rng.below(40);
    (0..n)
        .map(|_| vocab[rng.below(vocab.len())])
        .collect::<Vec<_>>()
        .join(" ")
}

struct Set {
    ids: Vec<String>,
    texts: Vec<String>,
    /// The real texts each entry was made from (its own index for real ones; an added
    /// paragraph or a rewritten half comes from a second one).
    origin: Vec<Vec<usize>>,
    /// Edit kind of each edited entry.
    kind: HashMap<usize, usize>,
}

fn build(n: usize) -> Set {
    let real = real_texts();
    let mut rng = Rng(2026);
    let mut set = Set {
        ids: Vec::new(),
        texts: Vec::new(),
        origin: Vec::new(),
        kind: HashMap::new(),
    };
    for (i, t) in real.iter().enumerate() {
        set.ids.push(format!("real-{i:06}"));
        set.texts.push(t.clone());
        set.origin.push(vec![i]);
    }
    for kind in 0..KINDS.len() {
        let mut made = 0;
        while made < PER_KIND {
            let src = rng.below(real.len());
            let second = rng.below(real.len());
            let other = &real[second];
            let Some(text) = edit(kind, &real[src], other, &mut rng) else {
                continue;
            };
            if normalized(&text) == normalized(&real[src]) {
                continue;
            }
            set.kind.insert(set.texts.len(), kind);
            set.ids.push(format!("edit-{kind}-{made:04}"));
            set.texts.push(text);
            set.origin.push(if kind >= 4 {
                vec![src, second]
            } else {
                vec![src]
            });
            made += 1;
        }
    }
    // Words as the shingles see them: a whitespace token such as one fortune's list of
    // 79 patch names joined by dots would put ~77 shared shingles in every filler
    // that drew it, making near-duplicates the labels cannot explain.
    let mut vocab: Vec<String> = real.iter().flat_map(|t| words(t)).collect();
    vocab.sort_unstable();
    vocab.dedup();
    let vocab: Vec<&str> = vocab.iter().map(String::as_str).collect();
    let mut i = 0;
    while set.texts.len() < n {
        set.ids.push(format!("fill-{i:07}"));
        set.texts.push(filler(&vocab, &mut rng));
        set.origin.push(Vec::new());
        i += 1;
    }
    println!(
        "{} memories: {} real texts, {} edited copies ({PER_KIND} per edit kind), {} generated filler",
        set.texts.len(),
        real.len(),
        set.kind.len(),
        i
    );
    set
}

/// Pairs by index, each (low, high).
type Pairs = HashSet<(usize, usize)>;

fn report(set: &Set, name: &str, found: &Pairs, natural: &Pairs) {
    // a found pair is right when both come from the same real text, or from two real
    // texts that are themselves near-duplicates
    let right = |(a, b): &(usize, usize)| {
        set.origin[*a].iter().any(|x| {
            set.origin[*b]
                .iter()
                .any(|y| x == y || natural.contains(&(*x.min(y), *x.max(y))))
        })
    };
    let correct = found.iter().filter(|p| right(p)).count();
    print!(
        "| {name} | {} | {:.3} |",
        found.len(),
        correct as f64 / found.len().max(1) as f64
    );
    for kind in 0..KINDS.len() {
        let labelled: Vec<(usize, usize)> = set
            .kind
            .iter()
            .filter(|(_, k)| **k == kind)
            .filter_map(|(e, _)| set.origin[*e].first().map(|s| (*s.min(e), *s.max(e))))
            .collect();
        let hit = labelled.iter().filter(|p| found.contains(p)).count();
        print!(" {:.3} |", hit as f64 / labelled.len().max(1) as f64);
    }
    println!();
    unexplained(set, found.iter().filter(|p| !right(p)));
}

/// The pairs the labels do not explain, counted by what the two memories are (a real
/// text, an edited copy by its edit kind, generated filler), with one example of each.
fn unexplained<'a>(set: &Set, pairs: impl Iterator<Item = &'a (usize, usize)>) {
    let what = |i: usize| match set.kind.get(&i) {
        Some(k) => format!("edited ({})", KINDS[*k]),
        None if set.origin[i].is_empty() => "filler".to_string(),
        None => "real".to_string(),
    };
    let mut by: std::collections::BTreeMap<(String, String), (usize, (usize, usize))> =
        Default::default();
    for &(a, b) in pairs {
        let (x, y) = (what(a), what(b));
        let key = if x <= y { (x, y) } else { (y, x) };
        by.entry(key).or_insert((0, (a, b))).0 += 1;
    }
    for ((x, y), (count, (a, b))) in by {
        let head = |i: usize| set.texts[i].chars().take(70).collect::<String>();
        println!(
            "  unexplained {x} – {y}: {count}; e.g. {:?} / {:?}",
            head(a),
            head(b)
        );
    }
}

fn main() {
    let n: usize = std::env::var("MEMLENS_BENCH_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let set = build(n);
    let real_count = set.ids.iter().filter(|id| id.starts_with("real-")).count();
    let natural: Pairs = all_pairs(&set.texts[..real_count], DEFAULT_THRESHOLD)
        .into_iter()
        .map(|p| (p.a as usize, p.b as usize))
        .collect();
    println!(
        "{} pairs of the real texts are near-duplicates already",
        natural.len()
    );

    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("temporary directory");
    let store = Store::open(&dir.path().join("duplicates.redb")).expect("open");
    {
        let at = Timestamp::parse("2026-01-01T00:00:00Z").expect("time");
        let mut w = store.write().expect("write");
        for (id, text) in set.ids.iter().zip(&set.texts) {
            let mut m = Memory::new(id.clone(), text.clone(), at);
            m.normalise();
            w.put(&m).expect("put");
        }
        w.commit().expect("commit");
    }
    let index_of: HashMap<&str, usize> = set
        .ids
        .iter()
        .enumerate()
        .map(|(i, id)| (id.as_str(), i))
        .collect();
    let reader = store.read().expect("read");
    let options = ReviewOptions::at(Timestamp::now());
    let mut lsh_times = Vec::new();
    let mut found = Pairs::new();
    for _ in 0..3 {
        let started = Instant::now();
        let review = Review::of(&reader, &options, &[Queue::Duplicates]).expect("review");
        lsh_times.push(started.elapsed().as_secs_f64());
        found = review
            .entries(Queue::Duplicates)
            .iter()
            .filter_map(|e| {
                let a = index_of[e.id.as_str()];
                let b = index_of[e.other.as_ref()?.1.as_str()];
                Some((a.min(b), a.max(b)))
            })
            .collect();
    }
    lsh_times.sort_by(f64::total_cmp);
    print!("\n| method | pairs found | precision |");
    for k in KINDS {
        print!(" recall: {k} |");
    }
    println!("\n|---|---|---|{}", "---|".repeat(KINDS.len()));
    report(&set, "MinHash LSH, 24 bands × 3 (store)", &found, &natural);
    let mut reference_time = None;
    if n <= 200_000 {
        let started = Instant::now();
        let reference: Pairs = all_pairs(&set.texts, DEFAULT_THRESHOLD)
            .into_iter()
            .map(|p| (p.a as usize, p.b as usize))
            .collect();
        reference_time = Some(started.elapsed().as_secs_f64());
        report(
            &set,
            "exact Jaccard, all pairs (in memory)",
            &reference,
            &natural,
        );
        let missed = reference.difference(&found).count();
        println!(
            "\nLSH finds {} of the reference's {} pairs ({:.3}); {} it lists are not in the reference",
            reference.len() - missed,
            reference.len(),
            (reference.len() - missed) as f64 / reference.len().max(1) as f64,
            found.difference(&reference).count()
        );
    }
    println!(
        "\ntime to find all candidates at {n}: LSH through the store (read every memory, \
summarise, bucket, verify) median {:.2} s of 3 (min {:.2}, max {:.2})",
        lsh_times[1], lsh_times[0], lsh_times[2]
    );
    if let Some(t) = reference_time {
        println!(
            "exact all-pairs Jaccard (inverted index of shingles, texts in memory): {t:.2} s; ratio reference / LSH {:.1}×",
            t / lsh_times[1]
        );
    }
    after_a_write(&store, &set);
}

/// The queues after a person's or an agent's write: kept current from the change log
/// (`Review::update`, what the browser and the agents' server do) against listing every
/// queue anew (what they did before), medians of 5 writes.
fn after_a_write(store: &Store, set: &Set) {
    use memlens::store::Since;
    let now = Timestamp::now();
    let options = ReviewOptions::at(now);
    let reader = store.read().expect("read");
    let started = Instant::now();
    let mut review = Review::of(&reader, &options, &Queue::ALL).expect("review");
    let first = started.elapsed().as_secs_f64();
    let mut held = reader.change_number().expect("number");
    drop(reader);
    let (mut updates, mut anew) = (Vec::new(), Vec::new());
    for round in 0..5 {
        // an agent rewrites one memory: a near-duplicate of a real one
        let id = &set.ids[(round * 7919) % set.ids.len()];
        let mut w = store.write().expect("write");
        let mut m = w.get(id).expect("get").expect("present");
        m.body.push_str(" (revised)");
        m.normalise();
        w.put(&m).expect("put");
        w.commit().expect("commit");
        let reader = store.read().expect("read");
        let Since::Ids(ids) = reader.changes_since(held).expect("since") else {
            panic!("one memory changed");
        };
        let started = Instant::now();
        review.update(&reader, &ids).expect("update");
        updates.push(started.elapsed().as_secs_f64());
        held = reader.change_number().expect("number");
        let started = Instant::now();
        let fresh = Review::of(&reader, &options, &Queue::ALL).expect("review");
        anew.push(started.elapsed().as_secs_f64());
        for q in Queue::ALL {
            assert_eq!(review.entries(q), fresh.entries(q), "{q} after the write");
        }
    }
    updates.sort_by(f64::total_cmp);
    anew.sort_by(f64::total_cmp);
    println!(
        "\nevery queue at {}: listed {first:.2} s; after one memory is written, kept current \
from the change log median {:.1} ms of 5 (max {:.1}) against listed anew {:.2} s: {:.0}× faster",
        set.ids.len(),
        updates[2] * 1000.0,
        updates[4] * 1000.0,
        anew[2],
        anew[2] / updates[2]
    );
}
