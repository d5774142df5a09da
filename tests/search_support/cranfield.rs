//! The Cranfield collection as memlens memories, its queries and graded judgements, the
//! ranking measures, and a bridge to the Python BM25 reference (fed memlens's tokens).
#![allow(dead_code)]

use memlens::index::tokenize::{for_each_field, query_tokens, tokens};
use memlens::model::{Memory, Timestamp};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where the collection lives, relative to the project root.
pub const DIR: &str = "../shared/fixtures/cranfield";

/// The parsed collection.
pub struct Cranfield {
    /// `(id, title, text)` per document, id = the `.I` number.
    pub docs: Vec<(String, String, String)>,
    /// Query texts; query number = position + 1.
    pub queries: Vec<String>,
    /// Query number → doc id → gain (grade 1 → 4 … 4 → 1; −1 → 0).
    pub qrels: HashMap<usize, HashMap<String, u32>>,
}

/// `.X` sections of a SMART-format file: (id, section letter → text).
fn sections(text: &str) -> Vec<(String, HashMap<char, String>)> {
    let mut out: Vec<(String, HashMap<char, String>)> = Vec::new();
    let mut current: Option<char> = None;
    for line in text.lines() {
        if let Some(id) = line.strip_prefix(".I ") {
            out.push((id.trim().to_string(), HashMap::new()));
            current = None;
        } else if line.len() == 2 && line.starts_with('.') {
            current = line.chars().nth(1);
        } else if let (Some(c), Some(last)) = (current, out.last_mut()) {
            let s = last.1.entry(c).or_default();
            if !s.is_empty() {
                s.push('\n');
            }
            s.push_str(line);
        }
    }
    out
}

/// Reads the collection; `None` when it is absent.
pub fn load(dir: &Path) -> Option<Cranfield> {
    let docs_text = std::fs::read_to_string(dir.join("cran.all.1400")).ok()?;
    let query_text = std::fs::read_to_string(dir.join("cran.qry")).ok()?;
    let qrels_text = std::fs::read_to_string(dir.join("cranqrel")).ok()?;
    let docs = sections(&docs_text)
        .into_iter()
        .map(|(id, mut s)| {
            let title = s.remove(&'T').unwrap_or_default();
            let title = title.split_whitespace().collect::<Vec<_>>().join(" ");
            (id, title, s.remove(&'W').unwrap_or_default())
        })
        .collect();
    let queries = sections(&query_text)
        .into_iter()
        .map(|(_, mut s)| s.remove(&'W').unwrap_or_default())
        .collect();
    let mut qrels: HashMap<usize, HashMap<String, u32>> = HashMap::new();
    for line in qrels_text.lines() {
        let parts: Vec<&str> = line.split_whitespace().collect();
        if let [q, doc, grade, ..] = parts[..]
            && let (Ok(q), Ok(grade)) = (q.parse::<usize>(), grade.parse::<i32>())
        {
            let gain = if (1..=4).contains(&grade) {
                (5 - grade) as u32
            } else {
                0
            };
            qrels.entry(q).or_default().insert(doc.to_string(), gain);
        }
    }
    Some(Cranfield {
        docs,
        queries,
        qrels,
    })
}

/// The documents as memories: title as title, title + text as body, one created_at.
/// A memory must have a body, so the documents with neither title nor text are left out
/// (of the reference's collection too, which is built from these memories).
pub fn memories(c: &Cranfield) -> Vec<Memory> {
    c.docs
        .iter()
        .filter(|(_, title, text)| !title.trim().is_empty() || !text.trim().is_empty())
        .map(|(id, title, text)| {
            let body = format!("{title}\n{text}");
            let mut m = Memory::new(id.clone(), body, Timestamp(1_600_000_000_000_000_000));
            m.title = (!title.is_empty()).then(|| title.clone());
            m
        })
        .collect()
}

/// Mean nDCG@10 and recall@100 of `rankings` (query number → doc ids, best first).
pub fn measures(c: &Cranfield, rankings: &HashMap<usize, Vec<String>>) -> (f64, f64, usize) {
    let (mut ndcg, mut recall, mut n) = (0.0, 0.0, 0usize);
    for (q, ranking) in rankings {
        let Some(gains) = c.qrels.get(q) else {
            continue;
        };
        let relevant: Vec<&String> = gains
            .iter()
            .filter(|(_, g)| **g > 0)
            .map(|(d, _)| d)
            .collect();
        if relevant.is_empty() {
            continue;
        }
        let dcg: f64 = ranking
            .iter()
            .take(10)
            .enumerate()
            .map(|(i, d)| f64::from(*gains.get(d).unwrap_or(&0)) / ((i + 2) as f64).log2())
            .sum();
        let mut ideal: Vec<u32> = gains.values().copied().filter(|g| *g > 0).collect();
        ideal.sort_unstable_by(|a, b| b.cmp(a));
        let idcg: f64 = ideal
            .iter()
            .take(10)
            .enumerate()
            .map(|(i, g)| f64::from(*g) / ((i + 2) as f64).log2())
            .sum();
        ndcg += dcg / idcg;
        let top: Vec<&String> = ranking.iter().take(100).collect();
        recall +=
            relevant.iter().filter(|d| top.contains(d)).count() as f64 / relevant.len() as f64;
        n += 1;
    }
    (ndcg / n as f64, recall / n as f64, n)
}

/// Writes memlens's tokens of every memory and query for the reference script;
/// returns (docs file, queries file).
pub fn write_tokens(dir: &Path, memories: &[Memory], queries: &[String]) -> (PathBuf, PathBuf) {
    let docs_path = dir.join("docs.jsonl");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&docs_path).expect("docs file"));
    for m in memories {
        let mut toks = Vec::new();
        for_each_field(m, |field| toks.extend(tokens(field)));
        let line = serde_json::json!({"id": m.id, "tokens": toks});
        writeln!(f, "{line}").expect("write docs");
    }
    f.flush().expect("flush docs");
    let queries_path = dir.join("queries.jsonl");
    let mut f =
        std::io::BufWriter::new(std::fs::File::create(&queries_path).expect("queries file"));
    for (i, q) in queries.iter().enumerate() {
        let line = serde_json::json!({"qid": i + 1, "tokens": query_tokens(q)});
        writeln!(f, "{line}").expect("write queries");
    }
    f.flush().expect("flush queries");
    (docs_path, queries_path)
}

/// What the reference script answered.
pub struct Reference {
    /// Query number → doc id → score.
    pub scores: HashMap<usize, HashMap<String, f64>>,
    /// What it printed (its own figures, which implementation it used).
    pub printed: String,
}

/// Runs `scripts/bm25_reference.py`; `None` (with the reason) when python3 is missing
/// or the script fails.
pub fn run_reference(
    dir: &Path,
    docs: &Path,
    queries: &Path,
    qrels: Option<&Path>,
) -> Result<Reference, String> {
    let out = dir.join("scores.jsonl");
    let mut cmd = Command::new("python3");
    cmd.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/bm25_reference.py"
    ))
    .arg("--docs")
    .arg(docs)
    .arg("--queries")
    .arg(queries)
    .arg("--out")
    .arg(&out);
    if let Some(q) = qrels {
        cmd.arg("--qrels").arg(q);
    }
    let output = cmd
        .output()
        .map_err(|e| format!("python3 not available ({e})"))?;
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stderr),
        String::from_utf8_lossy(&output.stdout)
    );
    if !output.status.success() {
        return Err(format!("reference script failed: {printed}"));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    let mut scores = HashMap::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let qid = v["qid"].as_u64().ok_or("qid")? as usize;
        let map: HashMap<String, f64> = v["scores"]
            .as_object()
            .ok_or("scores")?
            .iter()
            .filter_map(|(k, s)| s.as_f64().map(|s| (k.clone(), s)))
            .collect();
        scores.insert(qid, map);
    }
    Ok(Reference { scores, printed })
}
