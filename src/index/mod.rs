//! What makes search fast: index tables kept in the same write transaction as the
//! memories they describe, so they are never stale, even after a crash.
//!
//! Four tables, all written by [`IndexWriter`] in the transaction that writes the
//! memory:
//! - `SEARCH_DOCS`: one [`SearchRecord`] per memory (its terms with frequencies and
//!   the fields filters and browse modes read), from which the in-memory searcher
//!   builds its columns without parsing any memory's JSON;
//! - [`postings::POSTINGS`]: the inverted index, each term's documents with their
//!   frequencies in blocks of consecutive documents;
//! - [`facts::FACTS`]: per document, what the default filters and BM25's statistics
//!   need (deleted, session recap, length, created_at), packed in chunks;
//! - [`haystacks::HAYSTACKS`]: the literal and fuzzy haystacks, packed in chunks, for
//!   literal and fuzzy queries that read only the text they search, and for the
//!   searcher's own copy of that text (the records do not repeat it).
//!
//! Postings, facts and haystack changes are gathered in a [`PendingIndex`] and written when the
//! transaction commits, so an import touches each term's blocks once, while a single
//! curation write rewrites one small block per changed term. A store written before the
//! postings existed has them rebuilt once when it is opened ([`rebuild`]).

pub mod facts;
pub mod haystacks;
mod pending;
pub mod postings;
mod prepare;
mod rebuild;
pub mod record;
mod terms;
pub mod tokenize;

use haystacks::{Haystacks, Text};
pub use pending::PendingIndex;
pub use rebuild::{INDEX_VERSION, KEY_INDEX, index_is_current, rebuild};
pub use record::{RecordView, SearchRecord};
pub(crate) use terms::TermIds;

use crate::model::Memory;
use redb::{Table, TableDefinition, WriteTransaction};

/// Document number → encoded [`SearchRecord`].
pub const SEARCH_DOCS: TableDefinition<u32, &[u8]> = TableDefinition::new("search_docs");

/// Creates the index tables of a new store.
pub fn create_tables(txn: &WriteTransaction) -> Result<(), redb::Error> {
    txn.open_table(SEARCH_DOCS)?;
    txn.open_table(postings::POSTINGS)?;
    txn.open_table(facts::FACTS)?;
    txn.open_table(haystacks::HAYSTACKS)?;
    Ok(())
}

/// The stored bytes of a memory's search record.
pub fn record_bytes(m: &Memory) -> Vec<u8> {
    let mut w = Vec::with_capacity(m.body.len() * 2 + 256);
    prepare::encode_record(m, &mut w);
    w
}

/// What the index stores of one memory, computed together so that a reader thread
/// can prepare it before the write: its search record and its literal and fuzzy
/// haystacks, back to back in one buffer.
#[derive(Debug)]
pub struct IndexEntry {
    bytes: Vec<u8>,
    /// Where the record's terms start, and the document's length.
    terms: prepare::TermSection,
    /// Where the record ends and the literal haystack starts.
    record_end: usize,
    /// Where the literal haystack ends and the fuzzy one starts.
    literal_end: usize,
    /// The memory's facts row.
    fact: facts::Fact,
}

impl IndexEntry {
    /// The index entry of a memory.
    pub fn of(m: &Memory) -> IndexEntry {
        let mut bytes = Vec::with_capacity(m.body.len() * 3 + 512);
        let terms = prepare::encode_record(m, &mut bytes);
        let record_end = bytes.len();
        prepare::literal_into(m, &mut bytes);
        let literal_end = bytes.len();
        prepare::fuzzy_into(m, &mut bytes);
        IndexEntry {
            bytes,
            terms,
            record_end,
            literal_end,
            fact: facts::Fact::of_memory(m, terms.length),
        }
    }

    /// The record's term section: its distinct terms with their frequencies, sorted
    /// (read it with [`record::section_terms`]).
    pub fn term_section(&self) -> &[u8] {
        &self.bytes[self.terms.at..self.record_end]
    }

    /// The memory's facts row.
    pub fn fact(&self) -> facts::Fact {
        self.fact
    }

    /// The search record's stored bytes.
    pub fn record(&self) -> &[u8] {
        &self.bytes[..self.record_end]
    }

    /// The haystacks.
    pub fn text(&self) -> Text<'_> {
        Text {
            literal: &self.bytes[self.record_end..self.literal_end],
            // built from whole strings
            fuzzy: std::str::from_utf8(&self.bytes[self.literal_end..]).unwrap_or_default(),
        }
    }
}

/// The index tables held open for many changes in one write transaction (opening a
/// redb table per change costs about as much as the insert itself). Postings and facts
/// changes wait in a [`PendingIndex`] that the store writes at commit.
pub struct IndexWriter<'w> {
    docs: Table<'w, u32, &'static [u8]>,
    pending: &'w mut PendingIndex,
}

impl<'w> IndexWriter<'w> {
    /// Opens the index tables of `txn`; postings and facts changes go to `pending`.
    pub fn open(
        txn: &'w WriteTransaction,
        pending: &'w mut PendingIndex,
    ) -> Result<IndexWriter<'w>, redb::Error> {
        Ok(IndexWriter {
            docs: txn.open_table(SEARCH_DOCS)?,
            pending,
        })
    }

    /// Brings the indexes up to date for one document: `old` is what was stored under
    /// `doc` before (if anything), `new` what is stored now (`None` when purged).
    pub fn change(
        &mut self,
        doc: u32,
        old: Option<&Memory>,
        new: Option<&Memory>,
    ) -> Result<(), redb::Error> {
        match new {
            Some(m) => self.put_entry(doc, &IndexEntry::of(m), old),
            None => {
                self.write_appended()?;
                let before = self.docs.remove(doc)?.map(|g| g.value().to_vec());
                self.note(doc, before.as_deref(), old, None, None);
                Ok(())
            }
        }
    }

    /// Stores a memory under `doc` given its [`IndexEntry`] (prepared elsewhere); the
    /// same as [`change`](Self::change) with that memory as `new`. `old` is the memory
    /// stored there before: its haystacks are compared with the new ones (a chunk is
    /// rewritten only when they differ), and its record stands in for a stored one
    /// that is unreadable.
    pub fn put_entry(
        &mut self,
        doc: u32,
        entry: &IndexEntry,
        old: Option<&Memory>,
    ) -> Result<(), redb::Error> {
        self.write_appended()?;
        let before = self
            .docs
            .insert(doc, entry.record())?
            .map(|g| g.value().to_vec());
        let old_text = old.map(Haystacks::of);
        let text = entry.text();
        let changed = old_text.as_ref().and_then(Haystacks::text) != Some(text);
        let text = changed.then_some(text);
        self.note(doc, before.as_deref(), old, Some(entry.record()), text);
        Ok(())
    }

    /// Stores the entry of a memory new to the store under `doc`, a number above every
    /// stored one: its record waits to be appended to the records table, with the
    /// records of the memories stored after it.
    pub fn append_entry(&mut self, doc: u32, entry: &IndexEntry) -> Result<(), redb::Error> {
        self.pending.records.push(doc, entry.record());
        if self.pending.records.is_full() {
            self.write_appended()?;
        }
        self.pending.add_new(doc, entry);
        Ok(())
    }

    /// Writes the records waiting to be appended (before any other change to the
    /// table, which could otherwise come before them).
    fn write_appended(&mut self) -> Result<(), redb::Error> {
        self.pending.records.write(&mut self.docs)
    }

    /// Hands the change of `doc` from the stored record `before` to `after` (with its
    /// haystacks `text` when they changed) to the pending postings and facts.
    fn note(
        &mut self,
        doc: u32,
        before: Option<&[u8]>,
        old: Option<&Memory>,
        after: Option<&[u8]>,
        text: Option<Text<'_>>,
    ) {
        let rebuilt;
        let before = match (before.and_then(RecordView::parse), old) {
            (Some(view), _) => Some(view),
            (None, Some(m)) => {
                rebuilt = record_bytes(m);
                RecordView::parse(&rebuilt)
            }
            (None, None) => None,
        };
        let after = after.and_then(RecordView::parse);
        self.pending
            .change(doc, before.as_ref(), after.as_ref(), text);
    }
}
