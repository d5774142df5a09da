//! Writes a generated corpus to stdout: canonical JSONL (for `memlens import`) or one
//! line of plain text per memory (for line-based peers such as fzf and grep).
//!
//! `cargo run --release --example gen_corpus -- --size N --seed S [--format jsonl|lines] [--body-bytes B] > file`

use memlens::corpus::{CorpusSpec, generate, plain_line, sources};
use std::io::{BufWriter, Write};

fn main() {
    let mut spec = CorpusSpec::default();
    let mut lines = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next();
        let number = || value.as_deref().and_then(|v| v.parse::<u64>().ok());
        match (arg.as_str(), number()) {
            ("--size", Some(n)) => spec.size = n as usize,
            ("--seed", Some(s)) => spec.seed = s,
            ("--body-bytes", Some(b)) => spec.body_bytes_target = b as usize,
            ("--format", _) if value.as_deref() == Some("lines") => lines = true,
            ("--format", _) if value.as_deref() == Some("jsonl") => lines = false,
            _ => {
                eprintln!(
                    "usage: gen_corpus --size N --seed S [--format jsonl|lines] [--body-bytes B]"
                );
                std::process::exit(2);
            }
        }
    }
    for s in sources() {
        eprintln!("source: {s}");
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 20, stdout.lock());
    for m in generate(spec) {
        let line = if lines {
            plain_line(&m)
        } else {
            m.to_json_line()
        };
        if writeln!(out, "{line}").is_err() {
            std::process::exit(1);
        }
    }
    if out.flush().is_err() {
        std::process::exit(1);
    }
}
