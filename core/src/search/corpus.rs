//! The in-memory search state: one slot per memory, with columns for every field that
//! filters and browse modes read, the haystacks, and BM25 postings.

use crate::index::RecordView;
use crate::index::TermIds;
use crate::index::haystacks::Text;
use crate::index::record::section_terms;
use crate::model::derived::bayesian_rating;
use crate::model::{Composite, FEEL_COUNT, Scope, Status, Timestamp};
pub(crate) use crate::search::arena::{ByteArena, PREFETCH_AHEAD, TextArena};
pub(crate) use crate::search::column::Column;
use crate::search::engine::in_parts;
pub(crate) use crate::search::fixed::Fixed;
pub(crate) use crate::search::offsets::Offsets;
use crate::search::request::NumericField;
use foldhash::HashMap;
use std::sync::OnceLock;

/// Interned names (types, modules, tags) with their numbers.
#[derive(Debug, Default, Clone)]
pub(crate) struct Names {
    pub numbers: HashMap<Box<str>, u32>,
}

impl Names {
    pub(crate) fn intern(&mut self, name: &str) -> u32 {
        if let Some(&n) = self.numbers.get(name) {
            return n;
        }
        let n = self.numbers.len() as u32;
        self.numbers.insert(name.into(), n);
        n
    }
    /// The number of a name, if any memory has it.
    pub fn number(&self, name: &str) -> Option<u32> {
        self.numbers.get(name).copied()
    }
}

/// BM25 postings of every term: term `t` occurs in `slots[starts[t]..starts[t + 1]]`
/// (ascending) with the frequencies at the same positions of `tfs`.
#[derive(Debug, Default)]
pub(crate) struct Postings {
    pub terms: TermIds,
    pub starts: Vec<usize>,
    pub slots: Vec<u32>,
    pub tfs: Vec<u32>,
}

impl Postings {
    /// The slots and frequencies of a term.
    pub fn get(&self, term: &str) -> Option<(&[u32], &[u32])> {
        let t = self.terms.get(term.as_bytes())? as usize;
        let range = self.starts[t]..self.starts[t + 1];
        Some((&self.slots[range.clone()], &self.tfs[range]))
    }
}

/// The columns of every loaded memory, indexed by slot.
#[derive(Debug, Default)]
pub(crate) struct Corpus {
    pub docs: Fixed<u32>,
    pub ids: TextArena,
    pub raw: ByteArena,
    pub literal: ByteArena,
    pub fuzzy: TextArena,
    pub created: Fixed<i64>,
    pub updated: Fixed<i64>,
    pub types: Fixed<u32>,
    pub type_names: Names,
    pub scope: Fixed<Scope>,
    pub status: Fixed<Status>,
    pub module: Fixed<u32>,
    pub module_names: Names,
    pub tags: Vec<u32>,
    pub tag_starts: Offsets,
    pub tag_names: Names,
    pub deleted: Fixed<bool>,
    /// Whether each memory is a session recap (which the default filters hide): from
    /// the facts, so that a corpus read for the default filters needs no type column.
    pub recap: Fixed<bool>,
    pub weight: Column,
    pub trust: Column,
    pub confidence: Column,
    pub trust_level: Column,
    pub read_count: Fixed<u32>,
    pub rating_sum: Fixed<u32>,
    pub rating_count: Fixed<u32>,
    pub rem_visits: Column,
    pub feel: Vec<Column>,
    /// The three composites, computed from the `feel` columns on first need.
    pub composites: OnceLock<Vec<Column>>,
    /// Per slot, the letters a–z its literal haystack holds (bit 0 = `a`), computed by
    /// `finish` (or carried over by an update): a one-letter word is answered without
    /// reading any text.
    pub letters: OnceLock<Vec<u32>>,
    pub relationship_count: Fixed<u32>,
    pub lengths: Fixed<u32>,
    /// Each slot's stored term section (terms with frequencies), for BM25 by scanning;
    /// empty when `holds_terms` is false.
    pub terms: ByteArena,
    /// False when BM25 reads the persisted postings of the searcher's snapshot instead
    /// of terms held here (a searcher opened on a store whose index is current).
    pub holds_terms: bool,
    /// BM25's N and summed length of the filtered set when the corpus holds only some
    /// of it (the memories a query's postings name), taken from the stored totals.
    pub(crate) bm25_totals: Option<(u64, u64)>,
    /// For a corpus read for one literal query whose words the postings answer: the
    /// documents holding each word (`literal_postings::word_docs`), so the engine does
    /// not read them again.
    pub(crate) literal_word_docs: Option<Vec<Vec<u32>>>,
    /// True when the literal and fuzzy haystacks are not held here but read from the
    /// haystack chunks of the searcher's snapshot (a corpus the planner read from the
    /// persisted index for one request).
    pub stored_text: bool,
    /// The inverted index, built from `terms` on first need (see `Searcher::warm`).
    pub postings: OnceLock<Postings>,
    /// Slot → position in the order created_at desc, id asc (every tie-break).
    pub time_rank: Vec<u32>,
    /// Every slot's relationship targets, one line each (ids hold no control
    /// character), kept so an update can recount links.
    pub targets: TextArena,
}

/// "No module" in the module column.
pub(crate) const NO_MODULE: u32 = u32::MAX;

impl Corpus {
    /// An empty corpus ready for `push`.
    pub fn new() -> Corpus {
        Corpus {
            feel: (0..FEEL_COUNT).map(|_| Column::default()).collect(),
            holds_terms: true,
            ..Corpus::default()
        }
    }

    /// An empty corpus that keeps no terms (BM25 reads persisted postings).
    pub fn without_terms() -> Corpus {
        Corpus {
            holds_terms: false,
            ..Corpus::new()
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Adds one memory: its document number, stored bytes, search record, haystacks
    /// and term section. `raw` is the stored memory when the searcher keeps its own
    /// copy of them; `terms` is read only by a corpus that holds terms.
    pub fn push(
        &mut self,
        doc: u32,
        raw: Option<&[u8]>,
        rec: &RecordView<'_>,
        text: Text<'_>,
        terms: &[u8],
    ) {
        let slot = self.docs.len();
        self.docs.push(doc);
        if let Some(raw) = raw {
            self.raw.push(raw);
        }
        self.ids.push(rec.id);
        self.literal.push(text.literal);
        self.fuzzy.push(text.fuzzy);
        self.created.push(rec.created_at);
        self.updated.push(rec.updated_at);
        let t = self.type_names.intern(rec.memory_type);
        self.types.push(t);
        self.recap
            .push(rec.memory_type == crate::model::SESSION_RECAP);
        self.scope.push(rec.scope);
        self.status.push(rec.status);
        let module = match rec.module {
            Some(m) => self.module_names.intern(m),
            None => NO_MODULE,
        };
        self.module.push(module);
        for tag in rec.tags.iter() {
            let n = self.tag_names.intern(tag);
            self.tags.push(n);
        }
        self.tag_starts.push(self.tags.len());
        self.deleted.push(rec.deleted);
        self.weight.push(slot, rec.weight);
        self.trust.push(slot, rec.trust);
        self.confidence.push_opt(slot, rec.confidence);
        self.trust_level
            .push_opt(slot, rec.trust_level.map(f64::from));
        self.read_count.push(rec.read_count);
        self.rating_sum.push(rec.rating_sum);
        self.rating_count.push(rec.rating_count);
        self.rem_visits
            .push_opt(slot, rec.rem_visits.map(f64::from));
        for (i, v) in rec.feel.iter().enumerate() {
            self.feel[i].push_opt(slot, *v);
        }
        self.lengths.push(rec.length);
        if self.holds_terms {
            self.terms.push(terms);
        }
        self.targets.push_lines(rec.targets.iter());
    }

    /// The relationship targets of a slot.
    pub fn targets_of(&self, slot: usize) -> impl Iterator<Item = &str> {
        self.targets.get(slot).split('\n').filter(|t| !t.is_empty())
    }

    /// The tags of a slot, as tag numbers.
    pub fn tags_of(&self, slot: usize) -> &[u32] {
        &self.tags[self.tag_starts.part(slot)]
    }

    /// The terms of a slot with their frequencies (none when the corpus holds no
    /// terms).
    pub fn terms_of(&self, slot: usize) -> impl Iterator<Item = (&[u8], u32)> {
        let section = if self.holds_terms {
            self.terms.get(slot)
        } else {
            &[]
        };
        section_terms(section)
    }

    /// The inverted index, building it on first call (counting sort by term).
    pub fn postings(&self) -> &Postings {
        self.postings.get_or_init(|| {
            let mut ids = TermIds::default();
            let mut doc_terms: Vec<(u32, u32)> = Vec::new();
            let mut doc_starts = vec![0usize];
            for slot in 0..self.len() {
                for (term, tf) in self.terms_of(slot) {
                    doc_terms.push((ids.intern(term), tf));
                }
                doc_starts.push(doc_terms.len());
            }
            let count = ids.len();
            let mut starts = vec![0usize; count + 1];
            for &(t, _) in &doc_terms {
                starts[t as usize + 1] += 1;
            }
            for i in 0..count {
                starts[i + 1] += starts[i];
            }
            let mut fill = starts.clone();
            let mut slots = vec![0u32; doc_terms.len()];
            let mut tfs = vec![0u32; doc_terms.len()];
            for slot in 0..self.len() {
                for &(t, tf) in &doc_terms[doc_starts[slot]..doc_starts[slot + 1]] {
                    let at = &mut fill[t as usize];
                    slots[*at] = slot as u32;
                    tfs[*at] = tf;
                    *at += 1;
                }
            }
            Postings {
                terms: ids,
                starts,
                slots,
                tfs,
            }
        })
    }

    /// Derives what depends on the whole collection: relationship counts and time
    /// ranks.
    pub fn finish(&mut self) {
        let n = self.len();
        let mut slot_of: HashMap<&str, u32> = HashMap::default();
        slot_of.reserve(n);
        for i in 0..n {
            slot_of.insert(self.ids.get(i), i as u32);
        }
        let mut edges: Vec<(u32, u32)> = Vec::new();
        for a in 0..n {
            for target in self.targets_of(a) {
                if let Some(&b) = slot_of.get(target)
                    && b as usize != a
                {
                    let a = a as u32;
                    edges.push((a.min(b), a.max(b)));
                }
            }
        }
        edges.sort_unstable();
        edges.dedup();
        let mut counts = vec![0u32; n];
        for (a, b) in edges {
            counts[a as usize] += 1;
            counts[b as usize] += 1;
        }
        drop(slot_of);
        self.relationship_count = counts.into_iter().collect();
        let ids = &self.ids;
        let Ok(ranks) = super::order::time_ranks(&self.created, |tied| {
            tied.sort_unstable_by(|&a, &b| ids.get(a as usize).cmp(ids.get(b as usize)));
            Ok::<(), std::convert::Infallible>(())
        });
        self.time_rank = ranks;
        // kept ready: a one-letter word must not wait for every haystack to be read
        self.letters();
    }

    /// [`Corpus::letters`], computing it on first call (on all cores).
    pub(crate) fn letters(&self) -> &[u32] {
        self.letters.get_or_init(|| {
            in_parts(self.len(), |range| {
                range
                    .map(|slot| letter_set(self.literal.get(slot)))
                    .collect()
            })
        })
    }

    /// The composite columns, computed from the `feel` columns on first call.
    pub(crate) fn composite_columns(&self) -> &[Column] {
        self.composites.get_or_init(|| {
            let n = self.len();
            let mut out: Vec<Column> = (0..3).map(|_| Column::default()).collect();
            if self.feel.iter().all(Column::is_empty) {
                return out;
            }
            let mut feel = [None; FEEL_COUNT];
            for slot in 0..n {
                for (i, col) in self.feel.iter().enumerate() {
                    feel[i] = col.get(slot);
                }
                for (col, c) in out.iter_mut().zip(Composite::ALL) {
                    col.push_opt(slot, c.compute(&feel));
                }
            }
            out
        })
    }

    /// The column a numeric field is kept in, when it is one.
    pub(crate) fn column(&self, field: NumericField) -> Option<&Column> {
        match field {
            NumericField::Feel(i) => self.feel.get(i),
            NumericField::Composite(c) => self.composite_columns().get(c.index()),
            NumericField::Weight => Some(&self.weight),
            NumericField::Trust => Some(&self.trust),
            NumericField::Confidence => Some(&self.confidence),
            NumericField::TrustLevel => Some(&self.trust_level),
            NumericField::RemVisits => Some(&self.rem_visits),
            _ => None,
        }
    }

    /// The whole numbers a numeric field is kept as, when it is one every memory has.
    pub(crate) fn counts(&self, field: NumericField) -> Option<&Fixed<u32>> {
        match field {
            NumericField::RatingCount => Some(&self.rating_count),
            NumericField::RatingSum => Some(&self.rating_sum),
            NumericField::RelationshipCount => Some(&self.relationship_count),
            NumericField::ReadCount => Some(&self.read_count),
            _ => None,
        }
    }

    /// The value of a numeric field for a slot, computed exactly as
    /// [`NumericField::value`] computes it from a memory.
    pub fn value(&self, slot: usize, field: NumericField) -> Option<f64> {
        if let Some(column) = self.column(field) {
            return column.get(slot);
        }
        if let Some(counts) = self.counts(field) {
            return Some(f64::from(counts[slot]));
        }
        match field {
            NumericField::RatingBayesian => Some(bayesian_rating(
                self.rating_sum[slot],
                self.rating_count[slot],
            )),
            NumericField::CreatedAt => Some(Timestamp(self.created[slot]).as_secs_f64()),
            NumericField::UpdatedAt => Some(Timestamp(self.updated[slot]).as_secs_f64()),
            // kept in a column or as whole numbers: answered above
            _ => None,
        }
    }
}

/// The letters a–z that `text` holds, as bits (bit 0 = `a`).
fn letter_set(text: &[u8]) -> u32 {
    text.iter().fold(0, |set, &b| {
        if b.is_ascii_lowercase() {
            set | 1 << (b - b'a')
        } else {
            set
        }
    })
}

/// The bit of [`letter_set`] that stands for `word`, when it is one letter a–z.
pub(crate) fn letter_bit(word: &str) -> Option<u32> {
    match word.as_bytes() {
        [b] if b.is_ascii_lowercase() => Some(1 << (b - b'a')),
        _ => None,
    }
}
