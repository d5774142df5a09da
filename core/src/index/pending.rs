//! Index changes gathered during one write transaction and written at its commit:
//! a transaction that stores many memories (an import) touches each term's blocks and
//! each facts chunk once, not once per memory.

use super::IndexEntry;
use super::SEARCH_DOCS;
use super::added_postings::AddedPostings;
use super::columns::{self, COLUMNS};
use super::facts::{self, FACTS, Fact, TotalsChange};
use super::haystack_writes::apply_text;
use super::haystacks::{FUZZY_TEXT, LITERAL_TEXT, Text};
use super::postings_flush::write_postings;
use super::record::{RecordView, section_terms};
use super::sealed::Sealed;
use super::term_names::TermNames;
use super::terms::TermIds;
use crate::commit::{both, last_per_key};
use crate::schema::appends::Appends;
use redb::{StorageError, Table, WriteTransaction};

/// The postings and facts changes of one write transaction, not yet written.
#[derive(Debug, Default)]
pub struct PendingIndex {
    /// The number of every term changed so far.
    ids: TermIds,
    /// The terms by number.
    names: TermNames,
    /// The postings of documents new to the store.
    added: AddedPostings,
    /// (term number, document, new frequency; 0 = removed) of every other change, in
    /// the order they happened: one flat log, so recording a change is a lookup and a
    /// push. A document's changes here all come after its postings in `added`.
    log: Vec<(u32, u32, u32)>,
    /// (document, new fact; `None` = removed), in the order they happened.
    facts: Vec<(u32, Option<Fact>)>,
    /// The new haystacks of every document whose haystacks changed.
    text: ChangedText,
    /// The change to the facts totals.
    totals: TotalsChange,
    /// Every document whose search record was written or removed, in the order they
    /// happened: their columns are brought up to date from the records at the flush.
    columns: Vec<u32>,
    /// The records of memories new to the store, not yet in `SEARCH_DOCS`.
    pub(super) records: Appends,
    /// The columns of the memories new to the store, by chunk.
    new_columns: Vec<columns::NewChunk>,
}

/// What the postings and facts hold of one memory: its term section and facts row
/// (see [`IndexEntry::indexed`]).
#[derive(Debug, Clone, Copy)]
pub struct Indexed<'a> {
    /// Its distinct terms with their frequencies, sorted (a term section).
    pub terms: &'a [u8],
    /// Its facts row.
    pub fact: Fact,
}

/// How many terms ahead of its lookup a term's slot is asked for.
const PREFETCH_AHEAD: usize = 8;

/// The terms of a term section with their frequencies (sorted by term).
fn terms(section: &[u8]) -> impl Iterator<Item = (&str, u32)> {
    section_terms(section).filter_map(|(t, tf)| std::str::from_utf8(t).ok().map(|t| (t, tf)))
}

impl PendingIndex {
    /// True when nothing is waiting to be written.
    pub fn is_empty(&self) -> bool {
        self.log.is_empty()
            && self.added.is_empty()
            && self.facts.is_empty()
            && self.text.docs.is_empty()
            && self.records.is_empty()
            && self.columns.is_empty()
            && self.new_columns.is_empty()
    }

    /// The number of `term` (UTF-8), named when it is new.
    fn term_number(&mut self, term: &[u8]) -> u32 {
        let id = self.ids.intern(term);
        if id as usize == self.names.len() {
            self.names.push(term);
        }
        id
    }

    /// Records `term`'s new frequency in `doc`; `term` is UTF-8.
    fn edit(&mut self, term: &[u8], doc: u32, tf: u32) {
        let id = self.term_number(term);
        self.log.push((id, doc, tf));
    }

    /// Records that `doc`, new to the store, holds `term` `tf` times.
    fn posting(&mut self, term: &[u8], doc: u32, tf: u32) {
        let id = self.term_number(term);
        if !self.added.push(doc, id, tf) {
            self.log.push((id, doc, tf));
        }
    }

    /// Records a document new to the store from its freshly built [`IndexEntry`] (no
    /// stored record to parse and check).
    pub fn add_new(&mut self, doc: u32, entry: &IndexEntry) {
        self.add(doc, entry.term_section(), entry.fact(), Some(entry.text()));
        match RecordView::parse(entry.record()) {
            Some(view) => columns::add_new(&mut self.new_columns, doc, &view),
            // never for a record just built; read back at the flush as any other
            None => self.columns.push(doc),
        }
    }

    /// Writes the columns of the new documents' chunks that no later document can
    /// join (all but the last), so they wait in memory one chunk at a time.
    pub fn write_full_columns(
        &mut self,
        table: &mut Table<'_, (&'static str, u32), Sealed>,
    ) -> Result<(), StorageError> {
        if self.new_columns.len() < 2 {
            return Ok(());
        }
        let last = self.new_columns.len() - 1;
        let full: Vec<columns::NewChunk> = self.new_columns.drain(..last).collect();
        columns::write_new(table, full)
    }

    /// Records a document new to the store: the terms of its term section (read
    /// once, each term's slot asked for a few terms ahead of its lookup), its facts
    /// row, and its haystacks when given.
    fn add(&mut self, doc: u32, section: &[u8], fact: Fact, text: Option<Text<'_>>) {
        let mut ahead = section_terms(section);
        let mut window = [(&[][..], 0u32); PREFETCH_AHEAD];
        let mut filled = 0;
        for (slot, term) in window.iter_mut().zip(ahead.by_ref()) {
            self.ids.prefetch(term.0);
            *slot = term;
            filled += 1;
        }
        let mut at = 0;
        while filled > 0 {
            let (term, tf) = window[at];
            match ahead.next() {
                Some(next) => {
                    self.ids.prefetch(next.0);
                    window[at] = next;
                }
                None => filled -= 1,
            }
            at = (at + 1) % PREFETCH_AHEAD;
            self.posting(term, doc, tf);
        }
        self.totals.count(&fact, 1);
        self.facts.push((doc, Some(fact)));
        if text.is_some() {
            self.text.push(doc, text);
        }
    }

    /// Records that `doc` changed from `old` to `new` (`None` = absent). `text` is
    /// the new document's haystacks when they differ from the stored ones (always, for
    /// a document new to the store); when `new` is `None` its haystacks are removed.
    pub fn change(
        &mut self,
        doc: u32,
        old: Option<Indexed<'_>>,
        new: Option<Indexed<'_>>,
        text: Option<Text<'_>>,
    ) {
        if let (None, Some(new)) = (old, new) {
            self.add(doc, new.terms, new.fact, text);
            self.columns.push(doc);
            return;
        }
        self.columns.push(doc);
        let mut old_terms = old.map(|o| terms(o.terms)).into_iter().flatten().peekable();
        let mut new_terms = new.map(|n| terms(n.terms)).into_iter().flatten().peekable();
        loop {
            match (old_terms.peek().copied(), new_terms.peek().copied()) {
                (None, None) => break,
                (Some((o, otf)), Some((n, ntf))) if o == n => {
                    if otf != ntf {
                        self.edit(n.as_bytes(), doc, ntf);
                    }
                    old_terms.next();
                    new_terms.next();
                }
                (Some((o, _)), Some((n, _))) if o < n => {
                    self.edit(o.as_bytes(), doc, 0);
                    old_terms.next();
                }
                (Some((o, _)), None) => {
                    self.edit(o.as_bytes(), doc, 0);
                    old_terms.next();
                }
                (_, Some((n, ntf))) => {
                    self.edit(n.as_bytes(), doc, ntf);
                    new_terms.next();
                }
            }
        }
        match (new, text) {
            (None, _) => self.text.push(doc, None),
            (Some(_), Some(text)) => self.text.push(doc, Some(text)),
            (Some(_), None) => {}
        }
        let fact = new.map(|n| n.fact);
        let old_fact = old.map(|o| o.fact);
        if let Some(f) = &old_fact {
            self.totals.count(f, -1);
        }
        if let Some(f) = &fact {
            self.totals.count(f, 1);
        }
        if old.is_none() || fact != old_fact {
            self.facts.push((doc, fact));
        }
    }

    /// True when the haystacks gathered hold [`TEXT_BATCH`] bytes or more: time to
    /// [write them](Self::write_text) before the commit.
    pub(super) fn text_is_full(&self) -> bool {
        self.text.text.len() >= TEXT_BATCH
    }

    /// Writes the haystacks gathered so far into their chunks in `literal` and
    /// `fuzzy` and forgets them, keeping their buffer for the next ones.
    pub(super) fn write_text(
        &mut self,
        literal: &mut Table<'_, u32, Sealed>,
        fuzzy: &mut Table<'_, u32, Sealed>,
    ) -> Result<(), StorageError> {
        apply_text(literal, fuzzy, &self.text.changes())?;
        self.text.docs.clear();
        self.text.text.clear();
        Ok(())
    }

    /// Writes every gathered change into the index tables of `txn` and forgets them.
    /// A large change (an import) writes the postings on a second thread while this
    /// one writes the facts and haystacks: redb lets the tables of one transaction be
    /// written from several threads.
    pub fn flush(&mut self, txn: &WriteTransaction) -> Result<(), redb::Error> {
        if self.is_empty() {
            return Ok(());
        }
        let log = std::mem::take(&mut self.log);
        let added = std::mem::take(&mut self.added);
        let names = std::mem::take(&mut self.names);
        self.ids = TermIds::default();
        let facts = std::mem::take(&mut self.facts);
        let text = std::mem::take(&mut self.text);
        let totals = std::mem::take(&mut self.totals);
        let mut columns = std::mem::take(&mut self.columns);
        let new_columns = std::mem::take(&mut self.new_columns);
        let records = &mut self.records;
        let apart = added.len() + log.len() + text.docs.len() >= PARALLEL_FLUSH;
        let (postings, rest) = both(
            apart,
            || write_postings(txn, &added, &log, &names),
            || {
                records.write_into(txn, SEARCH_DOCS)?;
                write_facts_and_haystacks(txn, facts, totals, text)?;
                columns.sort_unstable();
                columns.dedup();
                let mut table = txn.open_table(COLUMNS)?;
                // the new documents first: a change to one of them after it was added
                // is in `columns` and read back after
                columns::write_new(&mut table, new_columns)?;
                columns::apply(&mut table, &txn.open_table(SEARCH_DOCS)?, &columns)?;
                Ok(())
            },
        );
        postings.and(rest)
    }
}

/// Changes (log entries and changed documents) from which a flush uses two threads.
const PARALLEL_FLUSH: usize = 100_000;

/// Bytes of haystacks gathered from which they are written before the commit: an
/// import's haystacks go into their chunks as it goes, through the same buffer, instead
/// of all waiting in fresh memory (some 340 MB for a million memories) for the commit.
const TEXT_BATCH: usize = 4 << 20;

/// Writes the facts changes, the totals and the haystack chunks of every document
/// whose haystacks changed.
fn write_facts_and_haystacks(
    txn: &WriteTransaction,
    mut facts: Vec<(u32, Option<Fact>)>,
    mut totals: TotalsChange,
    mut text: ChangedText,
) -> Result<(), redb::Error> {
    last_per_key(&mut facts);
    facts::apply(&mut txn.open_table(FACTS)?, &facts)?;
    totals.write(txn)?;
    apply_text(
        &mut txn.open_table(LITERAL_TEXT)?,
        &mut txn.open_table(FUZZY_TEXT)?,
        &text.changes(),
    )?;
    Ok(())
}

/// Where a document's literal haystack starts, where it ends and its fuzzy haystack
/// starts, and where that ends, in [`ChangedText::text`].
type TextRanges = (usize, usize, usize);

/// The new haystacks of the documents whose haystacks changed in a transaction, kept
/// back to back until the flush writes their chunks (instead of reading a million
/// search records back at the end of an import).
#[derive(Debug, Default)]
struct ChangedText {
    /// (document, the ranges of `text` holding its literal and fuzzy haystacks, or
    /// `None` when it no longer holds a memory), in the order they changed.
    docs: Vec<(u32, Option<TextRanges>)>,
    text: Vec<u8>,
}

impl ChangedText {
    /// Records `new` as the haystacks of `doc` (`None`: it holds nothing).
    fn push(&mut self, doc: u32, new: Option<Text<'_>>) {
        let ranges = new.map(|t| {
            let start = self.text.len();
            self.text.extend_from_slice(t.literal);
            let middle = self.text.len();
            self.text.extend_from_slice(t.fuzzy.as_bytes());
            (start, middle, self.text.len())
        });
        self.docs.push((doc, ranges));
    }

    /// Each changed document's last haystacks, by document (`None`: it holds nothing).
    fn changes(&mut self) -> Vec<(u32, Option<Text<'_>>)> {
        last_per_key(&mut self.docs);
        let text = &self.text;
        self.docs
            .iter()
            .map(|&(doc, ranges)| {
                let t = ranges.map(|(a, b, c)| Text {
                    literal: &text[a..b],
                    // pushed from a `str`
                    fuzzy: std::str::from_utf8(&text[b..c]).unwrap_or_default(),
                });
                (doc, t)
            })
            .collect()
    }
}
