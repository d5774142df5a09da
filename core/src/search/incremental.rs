//! Updating a searcher after a write without reading the whole store again: the
//! memories a write changed are read from the new snapshot, every other memory is
//! taken from the old columns (the text and score columns share their untouched parts
//! with the old searcher instead of copying them), and what depends on the whole
//! collection is brought up to date: the relationship counts of the memories a write
//! could have touched are read from the store, and the changed memories are moved
//! within the time order. A purge renumbers the slots after it, so the whole
//! collection's values are derived again then. Either way the result is the very state
//! a fresh [`Searcher::load`] of the new snapshot would hold.

use crate::index::haystacks::{FUZZY_TEXT, Haystacks, LITERAL_TEXT, Text, TextCursor};
use crate::index::{IndexEntry, RecordView, SEARCH_DOCS};
use crate::model::FEEL_COUNT;
use crate::search::corpus::{Corpus, Fixed, Offsets};
use crate::search::parts::Slotted;
use crate::search::searcher::{Searcher, corrupt, storage};
use crate::store::tables::{MEMORIES, decode_doc};
use crate::store::{StoreReader, StoreResult};
use foldhash::HashSet;
use std::cmp::Ordering;
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
        let (fresh, purged) = read_changed(&reader, &changed, keeps_raw, old.holds_terms)?;
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
        if old.composites.get().is_some() {
            new.composite_columns();
        }
        // a memory purged and added again under its id has a new number: the count
        // of memories tells
        let kept = match purged {
            false => replaced_slots(old, &new)
                .filter(|gone| reader_len(&reader) == Some(old.len() - gone.len() + new.len())),
            true => None,
        };
        let renumbered = kept.is_none();
        let gone = kept.unwrap_or_else(|| {
            (0..old.len())
                .filter(|&slot| changed.contains(old.ids.get(slot)))
                .collect()
        });
        let inserted: Vec<usize> = new
            .docs
            .iter()
            .map(|&doc| old.docs.partition_point(|&d| d < doc))
            .collect();
        let pieces = pieces(old, &new, &gone, &inserted);
        let n = old.len() - gone.len() + new.len();
        let mut corpus = splice(&pieces, n, keeps_raw, old.holds_terms);
        corpus.type_names = std::mem::take(&mut new.type_names);
        corpus.module_names = std::mem::take(&mut new.module_names);
        corpus.tag_names = std::mem::take(&mut new.tag_names);
        // slots keep their numbers unless a purge removed one
        let retest = if renumbered {
            corpus.finish();
            None
        } else {
            // the edited memories first (at their old slots), then the new ones after
            // every old slot, both in document order
            let added = old.len()..old.len() + new.len() - gone.len();
            let moved: Vec<usize> = gone.iter().copied().chain(added).collect();
            let (counts, recounted) = recount(&reader, old, &corpus, &gone, &moved)?;
            corpus.relationship_count = counts;
            corpus.time_rank = moved_in_time(old, &corpus, &moved);
            // a relationship filter may keep a memory whose count changed
            Some([moved, recounted].concat())
        };
        let path = reader.path().to_path_buf();
        let searcher = Searcher::with(corpus, (!keeps_raw).then_some(reader), &path);
        if let Some(retest) = retest {
            searcher.carry_from(self, &retest);
        }
        Ok(searcher)
    }
}

/// The old slots of the memories in `new` that were there before, ascending, when
/// every one of them keeps its document number (always, short of a purge) and every
/// other memory of `new` is numbered after all of `old`; `None` otherwise.
fn replaced_slots(old: &Corpus, new: &Corpus) -> Option<Vec<usize>> {
    let last = old.docs.last().copied();
    let mut gone = Vec::new();
    for slot in 0..new.len() {
        let doc = new.docs[slot];
        match old.docs.binary_search(&doc) {
            Ok(at) if old.ids.get(at) == new.ids.get(slot) => gone.push(at),
            Err(_) if last.is_none_or(|l| doc > l) => {}
            _ => return None,
        }
    }
    Some(gone)
}

/// How many memories the snapshot holds, if that can be read.
fn reader_len(reader: &StoreReader) -> Option<usize> {
    reader.len().ok().and_then(|n| usize::try_from(n).ok())
}

/// A run of consecutive slots `from..to` of one corpus.
struct Piece<'a> {
    corpus: &'a Corpus,
    from: usize,
    to: usize,
}

/// The new slot order in runs: the old slots but the `gone` ones (ascending), and the
/// changed memories as they are now, memory `i` of `new` before old slot
/// `inserted[i]` (ascending): the order of document numbers a load reads them in.
fn pieces<'a>(
    old: &'a Corpus,
    new: &'a Corpus,
    gone: &[usize],
    inserted: &[usize],
) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    let mut push = |corpus: &'a Corpus, from: usize, to: usize| {
        if from < to {
            out.push(Piece { corpus, from, to });
        }
    };
    let (mut at, mut g, mut i) = (0, 0, 0);
    loop {
        let next = [gone.get(g), inserted.get(i)]
            .into_iter()
            .flatten()
            .min()
            .map_or(old.len(), |&slot| slot.min(old.len()));
        push(old, at, next);
        at = next;
        if inserted.get(i) == Some(&at) {
            let j = i + inserted[i..].iter().take_while(|&&s| s == at).count();
            push(new, i, j);
            i = j;
        } else if gone.get(g) == Some(&at) {
            (at, g) = (at + 1, g + 1);
        } else {
            break;
        }
    }
    out
}

/// Takes one slot-indexed store from every piece, run by run, sharing whole parts.
fn runs<T: Slotted>(pieces: &[Piece<'_>], of: impl Fn(&Corpus) -> &T) -> T {
    let mut out = T::default();
    let mut slot = 0;
    for p in pieces {
        out.append(slot, of(p.corpus), p.from, p.to);
        slot += p.to - p.from;
    }
    out
}

/// Copies the tags, a list per slot stored flat with start offsets.
fn tags(pieces: &[Piece<'_>], n: usize) -> (Vec<u32>, Offsets) {
    let total = pieces
        .iter()
        .map(|p| p.corpus.tag_starts.get(p.to) - p.corpus.tag_starts.get(p.from))
        .sum();
    let mut flat = Vec::with_capacity(total);
    let mut starts = Offsets::with_capacity(n);
    for p in pieces {
        let s = &p.corpus.tag_starts;
        let (lo, hi) = (s.get(p.from), s.get(p.to));
        let base = flat.len();
        flat.extend_from_slice(&p.corpus.tags[lo..hi]);
        for i in p.from + 1..=p.to {
            starts.push(s.get(i) - lo + base);
        }
    }
    (flat, starts)
}

/// A per-slot value computed on first need, taken from every piece when each has it.
fn carried<T: Clone>(
    pieces: &[Piece<'_>],
    lock: impl Fn(&Corpus) -> &OnceLock<Vec<T>>,
) -> OnceLock<Vec<T>> {
    match pieces
        .iter()
        .map(|p| lock(p.corpus).get().map(|v| &v[p.from..p.to]))
        .collect::<Option<Vec<_>>>()
    {
        Some(parts) => parts.concat().into(),
        None => OnceLock::new(),
    }
}

/// The corpus of the pieces in order, without the values derived from the whole
/// collection (relationship counts and time ranks).
fn splice(pieces: &[Piece<'_>], n: usize, keeps_raw: bool, holds_terms: bool) -> Corpus {
    let (tags, tag_starts) = tags(pieces, n);
    let composites = match pieces.iter().all(|p| p.corpus.composites.get().is_some()) {
        true => (0..3)
            .map(|i| runs(pieces, |c| &c.composite_columns()[i]))
            .collect::<Vec<_>>()
            .into(),
        false => OnceLock::new(),
    };
    Corpus {
        docs: runs(pieces, |c| &c.docs),
        ids: runs(pieces, |c| &c.ids),
        raw: match keeps_raw {
            true => runs(pieces, |c| &c.raw),
            false => Default::default(),
        },
        literal: runs(pieces, |c| &c.literal),
        fuzzy: runs(pieces, |c| &c.fuzzy),
        created: runs(pieces, |c| &c.created),
        updated: runs(pieces, |c| &c.updated),
        types: runs(pieces, |c| &c.types),
        scope: runs(pieces, |c| &c.scope),
        status: runs(pieces, |c| &c.status),
        module: runs(pieces, |c| &c.module),
        tags,
        tag_starts,
        deleted: runs(pieces, |c| &c.deleted),
        recap: runs(pieces, |c| &c.recap),
        weight: runs(pieces, |c| &c.weight),
        trust: runs(pieces, |c| &c.trust),
        confidence: runs(pieces, |c| &c.confidence),
        trust_level: runs(pieces, |c| &c.trust_level),
        read_count: runs(pieces, |c| &c.read_count),
        rating_sum: runs(pieces, |c| &c.rating_sum),
        rating_count: runs(pieces, |c| &c.rating_count),
        rem_visits: runs(pieces, |c| &c.rem_visits),
        feel: (0..FEEL_COUNT)
            .map(|i| runs(pieces, |c| &c.feel[i]))
            .collect(),
        composites,
        lengths: runs(pieces, |c| &c.lengths),
        terms: match holds_terms {
            true => runs(pieces, |c| &c.terms),
            false => Default::default(),
        },
        holds_terms,
        letters: carried(pieces, |c| &c.letters),
        targets: runs(pieces, |c| &c.targets),
        ..Corpus::default()
    }
}

/// The relationship counts of `corpus`, whose slots kept their numbers (the changed
/// memories of the old corpus at slots `gone`, now at `moved`): the old counts, with
/// every memory a changed one links to (before or after the write) or is linked from
/// counted again in the store; also the slots counted again. Nothing else can have
/// changed: a count changes only with the links at either end and with a memory at the
/// other end appearing.
fn recount(
    reader: &StoreReader,
    old: &Corpus,
    corpus: &Corpus,
    gone: &[usize],
    moved: &[usize],
) -> StoreResult<(Fixed<u32>, Vec<usize>)> {
    let mut counts = old.relationship_count.clone();
    while counts.len() < corpus.len() {
        counts.push(0);
    }
    let mut recounted = Vec::new();
    let mut touched: HashSet<&str> = HashSet::default();
    for &slot in gone {
        touched.extend(old.targets_of(slot));
    }
    let mut linked_from = Vec::new();
    for &slot in moved {
        let id = corpus.ids.get(slot);
        touched.insert(id);
        touched.extend(corpus.targets_of(slot));
        linked_from.extend(reader.linked_from(id)?);
    }
    touched.extend(linked_from.iter().map(String::as_str));
    for id in touched {
        let Some(doc) = reader.doc_of(id)? else {
            continue;
        };
        let Some(memory) = reader.get_doc(doc)? else {
            continue;
        };
        if let Ok(slot) = corpus.docs.binary_search(&doc) {
            counts.set(slot, reader.relationship_count(&memory)?);
            recounted.push(slot);
        }
    }
    Ok((counts, recounted))
}

/// The time ranks of `corpus`, whose slots kept their numbers: the old time order
/// without the changed memories, merged with the changed memories (at slots `moved`)
/// in their order: created_at descending, then id.
fn moved_in_time(old: &Corpus, corpus: &Corpus, moved: &[usize]) -> Vec<u32> {
    let before = |a: u32, b: u32| -> Ordering {
        let (a, b) = (a as usize, b as usize);
        corpus.created[b]
            .cmp(&corpus.created[a])
            .then_with(|| corpus.ids.get(a).cmp(corpus.ids.get(b)))
    };
    let mut is_moved = vec![false; corpus.len()];
    let mut fresh: Vec<u32> = moved.iter().map(|&s| s as u32).collect();
    for &s in moved {
        is_moved[s] = true;
    }
    fresh.sort_unstable_by(|&a, &b| before(a, b));
    let mut order = vec![0u32; old.len()];
    for (slot, &rank) in old.time_rank.iter().enumerate() {
        order[rank as usize] = slot as u32;
    }
    let mut merged = Vec::with_capacity(corpus.len());
    let mut fresh = fresh.into_iter().peekable();
    for slot in order.into_iter().filter(|&s| !is_moved[s as usize]) {
        while let Some(&f) = fresh.peek()
            && before(f, slot) == Ordering::Less
        {
            merged.push(f);
            fresh.next();
        }
        merged.push(slot);
    }
    merged.extend(fresh);
    super::order::ranks(&merged)
}

/// The changed memories still in the store, by document number (and whether some
/// changed memory is no longer there: purged), each with its stored
/// bytes (when the searcher keeps a copy), its search record and its haystacks (both
/// rebuilt from the memory when missing or outdated), and its term section when the
/// corpus holds terms.
fn read_changed(
    reader: &StoreReader,
    changed: &HashSet<&str>,
    keeps_raw: bool,
    holds_terms: bool,
) -> StoreResult<(Vec<Fresh>, bool)> {
    let memories = reader.table(MEMORIES)?;
    // the terms are in no stored table: a corpus that holds them builds each changed
    // memory's whole entry from the memory, so it reads neither records nor haystacks
    let records = (!holds_terms)
        .then(|| reader.table(SEARCH_DOCS).ok())
        .flatten();
    let haystacks = (!holds_terms)
        .then(|| {
            Some((
                reader.table(LITERAL_TEXT).ok()?,
                reader.table(FUZZY_TEXT).ok()?,
            ))
        })
        .flatten();
    let mut texts = haystacks
        .as_ref()
        .map(|(literal, fuzzy)| TextCursor::new(literal, fuzzy));
    let mut docs = Vec::with_capacity(changed.len());
    let mut purged = false;
    for id in changed {
        // a purged memory has no number any more
        match reader.doc_of(id)? {
            Some(doc) => docs.push(doc),
            None => purged = true,
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
    Ok((out, purged))
}
