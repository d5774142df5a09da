//! What makes search fast: index tables kept in the same write transaction as the
//! memories they describe, so they are never stale, even after a crash.
//!
//! Six tables, all written by [`IndexWriter`] in the transaction that writes the
//! memory:
//! - `SEARCH_DOCS`: one [`SearchRecord`] per memory (the fields filters and browse
//!   modes read, and its BM25 length), from which the in-memory searcher builds its
//!   columns without decoding any memory;
//! - [`postings::POSTINGS`]: the inverted index, each term's documents with their
//!   frequencies in blocks of consecutive documents;
//! - [`facts::FACTS`]: per document, what the default filters and BM25's statistics
//!   need (deleted, session recap, length, created_at), packed in chunks;
//! - [`haystacks::LITERAL_TEXT`] and [`haystacks::FUZZY_TEXT`]: the literal and the
//!   fuzzy haystacks, each packed in chunks, for literal and fuzzy queries that read
//!   only the text they search, and for the searcher's own copy of that text (the
//!   records do not repeat it);
//! - [`columns::COLUMNS`]: per field, the values of every filtered or sorted field in
//!   chunks of consecutive documents, brought up to date from the records at the flush,
//!   so a request reads only the fields it filters or sorts by;
//! - [`vocabulary::VOCABULARY`]: every BM25 term, sorted in chunks, so a literal query
//!   word finds the terms that contain it (and, through their postings, its memories).
//!
//! Postings, facts and haystack changes are gathered in a [`PendingIndex`] and written when the
//! transaction commits, so an import touches each term's blocks once, while a single
//! curation write rewrites one small block per changed term. (Haystacks, the bulk of
//! an import's text, are also written every few MiB on the way, so that they do not all
//! wait in memory.) A store written before the postings existed has them rebuilt once
//! when it is opened ([`rebuild`]).

mod added_postings;
pub mod columns;
pub mod facts;
mod haystack_writes;
pub mod haystacks;
pub mod link_counts;
mod pending;
pub mod postings;
mod postings_flush;
mod prepare;
mod rebuild;
pub mod record;
pub use crate::schema::sealed;
mod term_names;
mod terms;
pub mod tokenize;
pub mod vocabulary;

use haystacks::Text;
pub use pending::{Indexed, PendingIndex};
pub(crate) use rebuild::each_memory_indexed;
pub use rebuild::{INDEX_VERSION, KEY_INDEX, index_is_current, rebuild};
pub use record::{RecordView, SearchRecord};
pub(crate) use terms::TermIds;

use crate::model::Memory;
use redb::{Table, TableDefinition, WriteTransaction};
use sealed::{Sealed, SealedBuf};

/// Document number → encoded [`SearchRecord`].
pub const SEARCH_DOCS: TableDefinition<u32, Sealed> = TableDefinition::new("search_docs");

/// Creates the index tables of a new store.
pub fn create_tables(txn: &WriteTransaction) -> Result<(), redb::Error> {
    txn.open_table(SEARCH_DOCS)?;
    txn.open_table(postings::POSTINGS)?;
    txn.open_table(facts::FACTS)?;
    txn.open_table(haystacks::LITERAL_TEXT)?;
    txn.open_table(haystacks::FUZZY_TEXT)?;
    txn.open_table(columns::COLUMNS)?;
    txn.open_table(vocabulary::VOCABULARY)?;
    Ok(())
}

/// What the index stores of one memory, computed together so that a reader thread
/// can prepare it before the write: its search record, its term section (for the
/// postings) and its literal and fuzzy haystacks, back to back in one buffer.
#[derive(Debug)]
pub struct IndexEntry {
    bytes: Vec<u8>,
    /// Where the record ends and its terms start, and the document's length.
    terms: prepare::TermSection,
    /// Where the terms end and the literal haystack starts.
    terms_end: usize,
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
        let terms_end = bytes.len();
        prepare::literal_into(m, &mut bytes);
        let literal_end = bytes.len();
        prepare::fuzzy_into(m, &mut bytes);
        IndexEntry {
            bytes,
            terms,
            terms_end,
            literal_end,
            fact: facts::Fact::of_memory(m, terms.length),
        }
    }

    /// The memory's term section: its distinct terms with their frequencies, sorted
    /// (read it with [`record::section_terms`]).
    pub fn term_section(&self) -> &[u8] {
        &self.bytes[self.terms.at..self.terms_end]
    }

    /// The memory's facts row.
    pub fn fact(&self) -> facts::Fact {
        self.fact
    }

    /// What the postings and facts hold of the memory.
    pub fn indexed(&self) -> Indexed<'_> {
        Indexed {
            terms: self.term_section(),
            fact: self.fact,
        }
    }

    /// The bytes the entry holds: about what the index writes of the memory.
    pub fn size(&self) -> usize {
        self.bytes.len()
    }

    /// The search record's stored bytes.
    pub fn record(&self) -> &[u8] {
        &self.bytes[..self.terms.at]
    }

    /// The haystacks.
    pub fn text(&self) -> Text<'_> {
        Text {
            literal: &self.bytes[self.terms_end..self.literal_end],
            // built from whole strings
            fuzzy: std::str::from_utf8(&self.bytes[self.literal_end..]).unwrap_or_default(),
        }
    }
}

/// The index tables held open for many changes in one write transaction (opening a
/// redb table per change costs about as much as the insert itself). Postings and facts
/// changes wait in a [`PendingIndex`] that the store writes at commit.
pub struct IndexWriter<'w> {
    docs: Table<'w, u32, Sealed>,
    literal_text: Table<'w, u32, Sealed>,
    fuzzy_text: Table<'w, u32, Sealed>,
    columns: Table<'w, (&'static str, u32), Sealed>,
    pending: &'w mut PendingIndex,
    /// The record being written, sealed.
    sealed: SealedBuf,
}

impl<'w> IndexWriter<'w> {
    /// Opens the index tables of `txn`; postings and facts changes go to `pending`.
    pub fn open(
        txn: &'w WriteTransaction,
        pending: &'w mut PendingIndex,
    ) -> Result<IndexWriter<'w>, redb::Error> {
        Ok(IndexWriter {
            docs: txn.open_table(SEARCH_DOCS)?,
            literal_text: txn.open_table(haystacks::LITERAL_TEXT)?,
            fuzzy_text: txn.open_table(haystacks::FUZZY_TEXT)?,
            columns: txn.open_table(columns::COLUMNS)?,
            pending,
            sealed: SealedBuf::default(),
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
                self.docs.remove(doc)?;
                let before = old.map(IndexEntry::of);
                self.pending
                    .change(doc, before.as_ref().map(IndexEntry::indexed), None, None);
                self.write_text_when_full()
            }
        }
    }

    /// Stores a memory under `doc` given its [`IndexEntry`] (prepared elsewhere); the
    /// same as [`change`](Self::change) with that memory as `new`. `old` is the memory
    /// stored there before: the postings lose the terms it had and the new one lacks,
    /// and its haystacks are compared with the new ones (a chunk is rewritten only when
    /// they differ).
    pub fn put_entry(
        &mut self,
        doc: u32,
        entry: &IndexEntry,
        old: Option<&Memory>,
    ) -> Result<(), redb::Error> {
        self.write_appended()?;
        self.docs
            .insert(doc, self.sealed.seal(&doc, entry.record()))?;
        let before = old.map(IndexEntry::of);
        let text = entry.text();
        let changed = before.as_ref().map(IndexEntry::text) != Some(text);
        self.pending.change(
            doc,
            before.as_ref().map(IndexEntry::indexed),
            Some(entry.indexed()),
            changed.then_some(text),
        );
        self.write_text_when_full()
    }

    /// Stores the entry of a memory new to the store under `doc`, a number above every
    /// stored one: its record waits to be appended to the records table, with the
    /// records of the memories stored after it.
    pub fn append_entry(&mut self, doc: u32, entry: &IndexEntry) -> Result<(), redb::Error> {
        self.pending.records.push_sealed(doc, entry.record());
        if self.pending.records.is_full() {
            self.write_appended()?;
        }
        self.pending.add_new(doc, entry);
        self.pending.write_full_columns(&mut self.columns)?;
        self.write_text_when_full()
    }

    /// Writes the haystacks gathered so far once they are many.
    fn write_text_when_full(&mut self) -> Result<(), redb::Error> {
        if self.pending.text_is_full() {
            self.pending
                .write_text(&mut self.literal_text, &mut self.fuzzy_text)?;
        }
        Ok(())
    }

    /// Writes the records waiting to be appended (before any other change to the
    /// table, which could otherwise come before them).
    fn write_appended(&mut self) -> Result<(), redb::Error> {
        self.pending.records.write(&mut self.docs)
    }
}
