//! Updating a searcher after a write without reading the whole store again: the
//! memories a write changed are read from the new snapshot, every other memory is
//! copied from the old columns, and what depends on the whole collection (relationship
//! counts, the time order, BM25 statistics, browse orders) is derived again, so the
//! result is the very state a fresh [`Searcher::load`] of the new snapshot would hold.

use crate::index::haystacks::{ChunkCursor, HAYSTACKS, Haystacks, Text};
use crate::index::{IndexEntry, RecordView, SEARCH_DOCS};
use crate::model::FEEL_COUNT;
use crate::search::corpus::{Arena, ByteArena, Column, Corpus, Offsets};
use crate::search::searcher::{Searcher, corrupt, storage};
use crate::store::tables::{MEMORIES, decode_doc};
use crate::store::{StoreReader, StoreResult};
use std::collections::HashSet;
use std::sync::OnceLock;

/// One changed memory as it is stored now: its document number, stored bytes,
/// encoded search record, haystacks and term section (empty unless the corpus holds
/// terms).
struct Fresh {
    doc: u32,
    raw: Vec<u8>,
    record: Vec<u8>,
    text: Haystacks,
    terms: Vec<u8>,
}

impl Searcher {
    /// The searcher of `reader`'s snapshot, given that only the memories `changed`
    /// (by id: edited, linked, unlinked, added or purged) differ from the snapshot this
    /// searcher was built from. Answers exactly as [`Searcher::load`] (or
    /// [`Searcher::open`], if this one was opened) of `reader` would; the caches that
    /// depend on the whole collection start empty again (see [`Searcher::warm`]).
    pub fn apply(&self, reader: StoreReader, changed: &[String]) -> StoreResult<Searcher> {
        let changed: HashSet<&str> = changed.iter().map(String::as_str).collect();
        let keeps_raw = !self.reads_snapshot();
        let old = &self.corpus;
        let fresh = read_changed(&reader, &changed, keeps_raw, old.holds_terms)?;
        // The changed memories as they are now, numbering new names after the old ones.
        let mut new = if old.holds_terms {
            Corpus::new()
        } else {
            Corpus::without_terms()
        };
        new.type_names = old.type_names.clone();
        new.module_names = old.module_names.clone();
        new.tag_names = old.tag_names.clone();
        for f in &fresh {
            let view = RecordView::parse(&f.record).ok_or_else(|| corrupt(&reader, f.doc))?;
            let text = f.text.text().ok_or_else(|| corrupt(&reader, f.doc))?;
            new.push(
                f.doc,
                keeps_raw.then_some(f.raw.as_slice()),
                &view,
                text,
                &f.terms,
            );
        }
        new.letters();
        let pieces = pieces(old, &new, &changed);
        let n = old.len() - changed.len().min(old.len()) + new.len();
        let mut corpus = splice(&pieces, n, keeps_raw, old.holds_terms);
        corpus.type_names = std::mem::take(&mut new.type_names);
        corpus.module_names = std::mem::take(&mut new.module_names);
        corpus.tag_names = std::mem::take(&mut new.tag_names);
        corpus.finish();
        let path = reader.path().to_path_buf();
        Ok(Searcher::with(
            corpus,
            (!keeps_raw).then_some(reader),
            &path,
        ))
    }
}

/// A run of consecutive slots `from..to` of one corpus.
struct Piece<'a> {
    corpus: &'a Corpus,
    from: usize,
    to: usize,
}

/// The new slot order in runs: the old slots that did not change and the changed
/// memories as they are now, merged by document number (the order a load reads them).
fn pieces<'a>(old: &'a Corpus, new: &'a Corpus, changed: &HashSet<&str>) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    let mut push = |corpus: &'a Corpus, from: usize, to: usize| {
        if from < to {
            out.push(Piece { corpus, from, to });
        }
    };
    let mut run_start = 0;
    let mut next_new = 0;
    for slot in 0..old.len() {
        let doc = old.docs[slot];
        let gone = changed.contains(old.ids.get(slot));
        let before = new.docs[next_new..].partition_point(|&d| d < doc);
        if gone || before > 0 {
            push(old, run_start, slot);
            push(new, next_new, next_new + before);
            next_new += before;
            run_start = if gone { slot + 1 } else { slot };
        }
    }
    push(old, run_start, old.len());
    push(new, next_new, new.len());
    out
}

/// Copies one column of every piece, run by run.
fn column<T: Clone>(pieces: &[Piece<'_>], n: usize, col: impl Fn(&Corpus) -> &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(n);
    for p in pieces {
        out.extend_from_slice(&col(p.corpus)[p.from..p.to]);
    }
    out
}

/// Copies a sparse column.
fn sparse(pieces: &[Piece<'_>], col: impl Fn(&Corpus) -> &Column) -> Column {
    let mut out = Column::default();
    let mut slot = 0;
    for p in pieces {
        out.append(slot, col(p.corpus), p.from, p.to);
        slot += p.to - p.from;
    }
    out
}

/// Copies a list per slot stored flat with start offsets: slot `s` holds
/// `flat[starts.part(s)]`.
fn lists<T: Clone>(
    pieces: &[Piece<'_>],
    n: usize,
    part: impl Fn(&Corpus) -> (&[T], &Offsets),
) -> (Vec<T>, Offsets) {
    let total = pieces
        .iter()
        .map(|p| {
            let (_, s) = part(p.corpus);
            s.get(p.to) - s.get(p.from)
        })
        .sum();
    let mut flat = Vec::with_capacity(total);
    let mut starts = Offsets::with_capacity(n);
    for p in pieces {
        let (f, s) = part(p.corpus);
        let (lo, hi) = (s.get(p.from), s.get(p.to));
        let base = flat.len();
        flat.extend_from_slice(&f[lo..hi]);
        for i in p.from + 1..=p.to {
            starts.push(s.get(i) - lo + base);
        }
    }
    (flat, starts)
}

fn bytes(pieces: &[Piece<'_>], n: usize, arena: impl Fn(&Corpus) -> &ByteArena) -> ByteArena {
    let (bytes, starts) = lists(pieces, n, |c| {
        let a = arena(c);
        (a.bytes.as_slice(), &a.starts)
    });
    ByteArena { bytes, starts }
}

fn strings(pieces: &[Piece<'_>], n: usize, arena: impl Fn(&Corpus) -> &Arena) -> Arena {
    let range = |p: &Piece<'_>| {
        let a = arena(p.corpus);
        a.starts.get(p.from)..a.starts.get(p.to)
    };
    let total = pieces.iter().map(|p| range(p).len()).sum();
    let mut text = String::with_capacity(total);
    let mut starts = Offsets::with_capacity(n);
    for p in pieces {
        let a = arena(p.corpus);
        let lo = a.starts.get(p.from);
        // whole strings, copied end to end as `&str`: nothing to check again
        let base = text.len();
        text.push_str(&a.text[range(p)]);
        for i in p.from + 1..=p.to {
            starts.push(a.starts.get(i) - lo + base);
        }
    }
    Arena { text, starts }
}

/// The corpus of the pieces in order, before `finish`.
fn splice(pieces: &[Piece<'_>], n: usize, keeps_raw: bool, holds_terms: bool) -> Corpus {
    let (tags, tag_starts) = lists(pieces, n, |c| (c.tags.as_slice(), &c.tag_starts));
    // Targets: slot `s` holds target strings `target_starts.part(s)`.
    let (target_starts, targets) = {
        let mut targets = Arena::default();
        let mut starts = Offsets::with_capacity(n);
        for p in pieces {
            let c = p.corpus;
            let (lo, hi) = (c.target_starts.get(p.from), c.target_starts.get(p.to));
            let base = targets.starts.len() - 1;
            for k in lo..hi {
                targets.push(c.targets.get(k));
            }
            for i in p.from + 1..=p.to {
                starts.push(c.target_starts.get(i) - lo + base);
            }
        }
        (starts, targets)
    };
    Corpus {
        docs: column(pieces, n, |c| &c.docs),
        ids: strings(pieces, n, |c| &c.ids),
        raw: if keeps_raw {
            bytes(pieces, n, |c| &c.raw)
        } else {
            ByteArena::default()
        },
        literal: bytes(pieces, n, |c| &c.literal),
        fuzzy: strings(pieces, n, |c| &c.fuzzy),
        created: column(pieces, n, |c| &c.created),
        updated: column(pieces, n, |c| &c.updated),
        types: column(pieces, n, |c| &c.types),
        scope: column(pieces, n, |c| &c.scope),
        status: column(pieces, n, |c| &c.status),
        module: column(pieces, n, |c| &c.module),
        tags,
        tag_starts,
        deleted: column(pieces, n, |c| &c.deleted),
        weight: sparse(pieces, |c| &c.weight),
        trust: sparse(pieces, |c| &c.trust),
        confidence: sparse(pieces, |c| &c.confidence),
        trust_level: sparse(pieces, |c| &c.trust_level),
        read_count: column(pieces, n, |c| &c.read_count),
        rating_sum: column(pieces, n, |c| &c.rating_sum),
        rating_count: column(pieces, n, |c| &c.rating_count),
        rem_visits: sparse(pieces, |c| &c.rem_visits),
        feel: (0..FEEL_COUNT)
            .map(|i| sparse(pieces, |c| &c.feel[i]))
            .collect(),
        lengths: column(pieces, n, |c| &c.lengths),
        terms: if holds_terms {
            bytes(pieces, n, |c| &c.terms)
        } else {
            ByteArena::default()
        },
        holds_terms,
        letters: match pieces
            .iter()
            .map(|p| p.corpus.letters.get().map(|l| &l[p.from..p.to]))
            .collect::<Option<Vec<_>>>()
        {
            Some(parts) => parts.concat().into(),
            None => OnceLock::new(),
        },
        targets,
        target_starts,
        ..Corpus::default()
    }
}

/// The changed memories still in the store, by document number, each with its stored
/// bytes (when the searcher keeps a copy), its search record and its haystacks (both
/// rebuilt from the memory when missing or outdated), and its term section when the
/// corpus holds terms.
fn read_changed(
    reader: &StoreReader,
    changed: &HashSet<&str>,
    keeps_raw: bool,
    holds_terms: bool,
) -> StoreResult<Vec<Fresh>> {
    let txn = reader.txn();
    let memories = txn.open_table(MEMORIES).map_err(|e| storage(reader, e))?;
    // the terms are in no stored table: a corpus that holds them builds each changed
    // memory's whole entry from the memory, so it reads neither records nor haystacks
    let records = (!holds_terms)
        .then(|| txn.open_table(SEARCH_DOCS).ok())
        .flatten();
    let haystacks = (!holds_terms)
        .then(|| txn.open_table(HAYSTACKS).ok())
        .flatten();
    let mut texts = haystacks.as_ref().map(ChunkCursor::new);
    let mut docs = Vec::with_capacity(changed.len());
    for id in changed {
        // a purged memory has no number any more
        if let Some(doc) = reader.doc_of(id)? {
            docs.push(doc);
        }
    }
    docs.sort_unstable();
    let mut out = Vec::with_capacity(docs.len());
    for doc in docs {
        let raw = memories
            .get(doc)
            .map_err(|e| storage(reader, e))?
            .ok_or_else(|| corrupt(reader, doc))?
            .value()
            .to_vec();
        let stored = match &records {
            Some(t) => t
                .get(doc)
                .map_err(|e| storage(reader, e))?
                .map(|r| r.value().open(&doc).map(<[u8]>::to_vec))
                .transpose()
                .map_err(|e| storage(reader, e))?
                .filter(|r| RecordView::parse(r).is_some()),
            None => None,
        };
        let text = match texts.as_mut() {
            Some(t) => t
                .text(doc)
                .map_err(|e| storage(reader, e))?
                .map(Text::owned),
            None => None,
        };
        let (record, text, terms) = match stored.zip(text) {
            Some((record, text)) => (record, text, Vec::new()),
            None => {
                let memory = decode_doc(reader.path(), doc, &raw)?;
                let entry = IndexEntry::of(&memory);
                let terms = entry.term_section().to_vec();
                (entry.record().to_vec(), entry.text().owned(), terms)
            }
        };
        out.push(Fresh {
            doc,
            raw: if keeps_raw { raw } else { Vec::new() },
            record,
            text,
            terms,
        });
    }
    Ok(out)
}
