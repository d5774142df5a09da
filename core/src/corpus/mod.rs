//! Seeded, reproducible collections of realistic memories of any size, for benchmarks
//! and tests: bodies drawn from real text on the machine, metadata with the shapes real
//! collections have (a few common types and tags, most memories unrated, links to
//! earlier memories, `feel_*` scores on most).

mod text;

use crate::model::{FEEL_DIMS, Memory, Relationship, Scope, Status, Timestamp};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CorpusSpec {
    /// The seed: the same seed and the same text sources give the same memories.
    pub seed: u64,
    /// How many memories.
    pub size: usize,
    /// The mean body length in bytes (bodies vary from half to one and a half of it).
    pub body_bytes_target: usize,
}

impl Default for CorpusSpec {
    fn default() -> Self {
        CorpusSpec {
            seed: 2026,
            size: 100_000,
            body_bytes_target: 200,
        }
    }
}

/// The text sources the corpus is drawn from on this machine, one line each.
pub fn sources() -> Vec<String> {
    text::pool().used.clone()
}

/// The memories of `spec`, generated one at a time (1M never has to be held at once).
pub fn generate(spec: CorpusSpec) -> Corpus {
    Corpus::new(spec)
}

/// One memory as a single line of plain text (title, then body), for line-based peers.
pub fn plain_line(m: &Memory) -> String {
    let mut line = String::with_capacity(m.body.len() + 40);
    if let Some(t) = &m.title {
        line.push_str(t);
        line.push_str(" — ");
    }
    line.push_str(&m.body);
    line.replace(['\n', '\r'], " ")
}

/// splitmix64: small, fast, the same on every platform (also used by the benchmarks to
/// pick memories reproducibly).
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }
    /// A beta-like value in 0–1 (Kumaraswamy(a, b)), rounded to three decimals.
    fn beta(&mut self, a: f64, b: f64) -> f64 {
        let u = self.unit();
        let x = (1.0 - (1.0 - u).powf(1.0 / b)).powf(1.0 / a);
        (x.clamp(0.0, 1.0) * 1000.0).round() / 1000.0
    }
    /// An index drawn by the given weights.
    fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        let mut r = self.below(total as usize) as u32;
        for (i, w) in weights.iter().enumerate() {
            if r < *w {
                return i;
            }
            r -= w;
        }
        weights.len() - 1
    }
}

/// Types with their weights: notes and the hivelore kinds common, recaps a few %.
const TYPES: [(&str, u32); 13] = [
    ("note", 20),
    ("decision", 12),
    ("gotcha", 12),
    ("convention", 10),
    ("todo", 8),
    ("architecture", 6),
    ("event", 6),
    ("glossary", 5),
    ("skill", 5),
    ("attempt", 5),
    ("person", 4),
    ("journal", 4),
    ("session_recap", 3),
];
const SCOPES: [(Scope, u32); 4] = [
    (Scope::Personal, 40),
    (Scope::Team, 30),
    (Scope::Module, 20),
    (Scope::Shared, 10),
];
const STATUSES: [(Status, u32); 6] = [
    (Status::Draft, 35),
    (Status::Proposed, 20),
    (Status::Validated, 30),
    (Status::Deprecated, 5),
    (Status::Stale, 6),
    (Status::Rejected, 4),
];
const MODULES: [&str; 8] = [
    "ledger", "payouts", "webhooks", "search", "billing", "auth", "ingest", "reports",
];
const KINDS: [(&str, u32); 5] = [
    ("related", 60),
    ("depends_on", 15),
    ("supersedes", 10),
    ("example_of", 10),
    ("contradicts", 5),
];
/// Size of the tag vocabulary, drawn Zipf-like (exponent ~1.1).
const TAG_VOCABULARY: usize = 600;
/// The first memory's creation time: 2024-01-01T00:00:00Z.
const EPOCH_NS: i64 = 1_704_067_200_000_000_000;
/// Memories are spread over about two years.
const SPAN_NS: i64 = 730 * 86_400 * 1_000_000_000;

/// The generator; an iterator of `Memory`.
#[derive(Debug, Clone)]
pub struct Corpus {
    spec: CorpusSpec,
    rng: Rng,
    next_index: usize,
    /// Cumulative Zipf weights over the tag vocabulary.
    tag_cdf: Vec<f64>,
}

impl Corpus {
    fn new(spec: CorpusSpec) -> Corpus {
        let words = text::pool().words.len().min(TAG_VOCABULARY);
        let mut acc = 0.0;
        let tag_cdf = (0..words)
            .map(|k| {
                acc += 1.0 / ((k + 1) as f64).powf(1.1);
                acc
            })
            .collect();
        Corpus {
            spec,
            rng: Rng(spec.seed ^ 0x6d65_6d6c_656e_7321),
            next_index: 0,
            tag_cdf,
        }
    }

    /// The id of the memory at `index`.
    pub fn id_of(index: usize) -> String {
        format!("mem-{index:07}")
    }

    fn tag(&mut self) -> String {
        let total = self.tag_cdf.last().copied().unwrap_or(0.0);
        let r = self.rng.unit() * total;
        let k = self.tag_cdf.partition_point(|c| *c < r);
        text::pool()
            .words
            .get(k.min(self.tag_cdf.len().saturating_sub(1)))
            .cloned()
            .unwrap_or_else(|| "misc".into())
    }

    fn body(&mut self) -> String {
        let frags = &text::pool().fragments;
        let target = self.spec.body_bytes_target.max(1);
        let len = target / 2 + self.rng.below(target + 1);
        let mut body = String::with_capacity(len + 80);
        while body.len() < len {
            if !body.is_empty() {
                body.push(if self.rng.chance(0.15) { '\n' } else { ' ' });
            }
            body.push_str(&frags[self.rng.below(frags.len())]);
        }
        if body.len() > len {
            // Cut at the last space before the length, on a char boundary.
            let mut cut = len;
            while !body.is_char_boundary(cut) {
                cut -= 1;
            }
            if let Some(space) = body[..cut].rfind(' ').filter(|s| *s > len / 2) {
                cut = space;
            }
            body.truncate(cut);
        }
        let trimmed = body.trim_end();
        if trimmed.is_empty() {
            "(empty)".into()
        } else {
            trimmed.to_string()
        }
    }

    fn title(&mut self) -> String {
        let frags = &text::pool().fragments;
        let words: Vec<&str> = frags[self.rng.below(frags.len())]
            .split_whitespace()
            .take(3 + self.rng.below(6))
            .collect();
        words
            .join(" ")
            .trim_end_matches([',', ';', ':'])
            .to_string()
    }

    fn memory(&mut self, i: usize) -> Memory {
        let rng = &mut self.rng;
        let step = SPAN_NS / self.spec.size.max(1) as i64;
        let created = EPOCH_NS + step * i as i64 + (rng.unit() * step as f64) as i64;
        let mut m = Memory::new(Self::id_of(i), String::new(), Timestamp(created));
        m.memory_type = TYPES[rng.weighted(&TYPES.map(|t| t.1))].0.into();
        m.scope = SCOPES[rng.weighted(&SCOPES.map(|s| s.1))].0;
        if m.scope == Scope::Module || rng.chance(0.1) {
            m.module = Some(MODULES[rng.below(MODULES.len())].into());
        }
        m.status = STATUSES[rng.weighted(&STATUSES.map(|s| s.1))].0;
        m.weight = rng.beta(2.0, 2.0);
        m.trust = rng.beta(3.0, 2.0);
        if rng.chance(0.4) {
            m.confidence = Some(rng.beta(4.0, 2.0));
        }
        if rng.chance(0.25) {
            let r = rng.below(4) + 1;
            m.rating_count = if r == 4 {
                5 + rng.below(20) as u32
            } else {
                r as u32
            };
            let mean = 1.0 + 4.0 * rng.beta(3.0, 2.0);
            let sum = (mean * f64::from(m.rating_count)).round() as u32;
            m.rating_sum = sum.clamp(m.rating_count, 5 * m.rating_count);
        }
        if rng.chance(0.6) {
            m.read_count = 1 + (rng.unit().powi(3) * 60.0) as u32;
            let later = (rng.unit() * (EPOCH_NS + SPAN_NS - created) as f64) as i64;
            m.last_read_at = Some(Timestamp(created + later));
        }
        m.updated_at = Timestamp(created + (rng.unit().powi(4) * 30.0 * 86_400e9) as i64);
        if rng.chance(0.1) {
            m.rem_visits = Some(rng.below(12) as u32);
        }
        if i > 0 && rng.chance(0.3) {
            for _ in 0..1 + rng.below(3) {
                // Mostly recent neighbours, sometimes anything earlier.
                let back = if rng.chance(0.7) {
                    1 + rng.below(50.min(i))
                } else {
                    1 + rng.below(i)
                };
                let target = Self::id_of(i - back);
                if m.relationships.iter().all(|r| r.target != target) {
                    m.relationships.push(Relationship {
                        target,
                        kind: KINDS[rng.weighted(&KINDS.map(|k| k.1))].0.into(),
                        strength: rng.chance(0.5).then(|| rng.beta(2.0, 2.0)),
                    });
                }
            }
        }
        if rng.chance(0.7) {
            // The 29 dimensions of the first version only (the two `functional_` twins
            // of valence and coherence tension came later), so that a seed still makes
            // the corpus it always made.
            for (d, dim) in FEEL_DIMS.iter().enumerate().take(29) {
                if !rng.chance(0.6) {
                    continue;
                }
                m.feel[d] = Some(match dim.name {
                    "valence" if dim.in_layer1() => {
                        ((rng.beta(2.5, 2.0) * 2.0 - 1.0) * 1000.0).round() / 1000.0
                    }
                    "trauma" | "shame" | "guilt" | "disgust" | "contempt" | "fear"
                    | "vulnerability" | "embarrassment" => rng.beta(1.2, 6.0),
                    "coherence_tension" | "arousal" | "dominance" => rng.beta(2.0, 2.0),
                    _ => rng.beta(1.6, 3.0),
                });
            }
        }
        if rng.chance(0.02) {
            let later = (rng.unit() * 90.0 * 86_400e9) as i64;
            m.deleted_at = Some(Timestamp(m.updated_at.0 + later));
            m.deleted_reason = rng.chance(0.5).then(|| "superseded".to_string());
        }
        let tags = (rng.unit().powi(2) * 6.0) as usize;
        m.tags = (0..tags).map(|_| self.tag()).collect();
        if self.rng.chance(0.8) {
            m.title = Some(self.title());
        }
        m.body = self.body();
        m.normalise();
        m
    }
}

impl Iterator for Corpus {
    type Item = Memory;

    fn next(&mut self) -> Option<Memory> {
        if self.next_index >= self.spec.size {
            return None;
        }
        let i = self.next_index;
        self.next_index += 1;
        Some(self.memory(i))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.spec.size - self.next_index;
        (left, Some(left))
    }
}

impl ExactSizeIterator for Corpus {}

#[cfg(test)]
mod tests;
