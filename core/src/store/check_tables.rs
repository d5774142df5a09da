//! The memlens half of `memlens check`: what the store's own tables must agree on.
//!
//! Every memory is decoded (its checksum checked) and its index entry computed afresh,
//! exactly as a write computes it; every stored table is then held against those:
//! - `IDS`: each id names the document whose memory has that id, and each memory's id
//!   is there, naming it; the next document number is above every stored one;
//! - the backlinks: one row (target, source) for each relationship, no other row;
//! - the search records and haystacks, byte for byte per document; the facts per
//!   document; the postings as the set of (term, document, frequency) they hold,
//!   whatever their blocks, and the vocabulary holding each of their terms; the totals
//!   BM25 reads.
//!
//! Postings are compared by an order-free digest (a sum of one 64-bit hash per
//! posting, and a count), so the check needs no copy of the index in memory.

use super::check::{Area, CheckReport, REBUILD, SET_ASIDE};
use super::links::{COUNT_SOURCE, read_count};
use super::tables::{BACKLINKS, DAMAGED, IDS, KEY_NEXT_DOC, MEMORIES, META, decode, is_summed};
use crate::index::facts::{self, FACTS, Fact, Totals};
use crate::index::haystacks::{self, ChunkCursor, FUZZY_TEXT, LITERAL_TEXT};
use crate::index::postings::{self, POSTINGS};
use crate::index::record::section_terms;
use crate::index::vocabulary::{self, VOCABULARY};
use crate::index::{IndexEntry, SEARCH_DOCS};
use redb::{ReadTransaction, ReadableTable, ReadableTableMetadata, TableError};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{DefaultHasher, Hash, Hasher};

/// Problems of one kind listed one by one up to this many; the rest are counted.
const LISTED: usize = 20;

/// What the memories say each index table must hold, per document.
struct Expected {
    /// Hash of the search record and hash of the haystacks, and the facts row.
    docs: HashMap<u32, (u64, u64, Fact)>,
    /// Order-free digest of every posting.
    postings: Digest,
    /// The totals of the facts.
    totals: Totals,
}

/// An order-free digest of a set of items: how many, and the sum of their hashes.
#[derive(Debug, Default, PartialEq, Eq, Clone, Copy)]
struct Digest {
    count: u64,
    sum: u64,
}

impl Digest {
    fn add(&mut self, item: impl Hash) {
        self.count += 1;
        self.sum = self.sum.wrapping_add(hash(item));
    }
}

fn hash(item: impl Hash) -> u64 {
    let mut h = DefaultHasher::new();
    item.hash(&mut h);
    h.finish()
}

/// Counts problems of one kind, listing the first [`LISTED`].
struct Tally<'r> {
    report: &'r mut CheckReport,
    area: Area,
    fix: &'static str,
    seen: usize,
    what: &'static str,
}

impl<'r> Tally<'r> {
    fn new(report: &'r mut CheckReport, area: Area, what: &'static str, fix: &'static str) -> Self {
        Tally {
            report,
            area,
            fix,
            seen: 0,
            what,
        }
    }

    fn add(&mut self, problem: impl FnOnce() -> String) {
        self.seen += 1;
        if self.seen <= LISTED {
            self.report.add(self.area, problem(), self.fix);
        }
    }
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        if self.seen > LISTED {
            let more = self.seen - LISTED;
            self.report.add(
                self.area,
                format!("{more} more {} like these", self.what),
                self.fix,
            );
        }
    }
}

/// Checks the memlens tables of the snapshot `txn` of the store at `path`.
pub(super) fn check(txn: &ReadTransaction, report: &mut CheckReport) -> Result<(), redb::Error> {
    if let Some(damaged) = optional(txn.open_table(DAMAGED))? {
        report.set_aside = damaged.len()?;
    }
    let memories = txn.open_table(MEMORIES)?;
    report.memories = Some(memories.len()?);
    // id -> doc of each readable memory, and the backlinks its relationships need
    let mut ids_of: HashMap<String, u32> = HashMap::new();
    let mut wanted_links: BTreeSet<(String, String)> = BTreeSet::new();
    let mut expected = Expected {
        docs: HashMap::new(),
        postings: Digest::default(),
        totals: Totals::default(),
    };
    let mut damaged_docs = 0usize;
    let mut last_doc = None;
    {
        let mut bad = Tally::new(report, Area::Memory, "damaged memories", SET_ASIDE);
        for row in memories.iter()? {
            let (doc, raw) = row?;
            let (doc, raw) = (doc.value(), raw.value());
            last_doc = Some(doc);
            let memory = match decode(raw) {
                Ok(m) => m,
                Err(damage) => {
                    damaged_docs += 1;
                    bad.add(|| super::tables::damage_detail(doc, raw, damage));
                    continue;
                }
            };
            if !is_summed(raw) {
                bad.add(|| {
                    format!(
                        "memory `{}` (record {doc}) is stored without its checksum",
                        memory.id
                    )
                });
            }
            if let Some(first) = ids_of.insert(memory.id.clone(), doc) {
                bad.add(|| {
                    format!(
                        "memory `{}` is stored twice (records {first} and {doc})",
                        memory.id
                    )
                });
            }
            for rel in &memory.relationships {
                wanted_links.insert((rel.target.clone(), memory.id.clone()));
            }
            let entry = IndexEntry::of(&memory);
            for (term, tf) in section_terms(entry.term_section()) {
                expected.postings.add((term, doc, tf));
            }
            let fact = entry.fact();
            count_total(&mut expected.totals, &fact);
            expected
                .docs
                .insert(doc, (hash(entry.record()), hash(text_of(&entry)), fact));
        }
    }
    check_ids(txn, report, &ids_of, last_doc)?;
    check_backlinks(txn, report, &wanted_links)?;
    if damaged_docs > 0 {
        report.add(
            Area::Index,
            format!(
                "the indexes were not compared with the memories: {damaged_docs} cannot be read"
            ),
            SET_ASIDE,
        );
        return Ok(());
    }
    check_index(txn, report, &expected)
}

/// The table, or `None` when the store has none.
fn optional<T>(table: Result<T, TableError>) -> Result<Option<T>, redb::Error> {
    match table {
        Ok(t) => Ok(Some(t)),
        Err(TableError::TableDoesNotExist(_)) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Both haystacks of an entry, as one value to hash.
fn text_of(entry: &IndexEntry) -> (&[u8], &str) {
    let t = entry.text();
    (t.literal, t.fuzzy)
}

/// Adds a memory's facts to the totals as a write does (session recaps left out).
fn count_total(t: &mut Totals, fact: &Fact) {
    if fact.session_recap {
        return;
    }
    if fact.deleted {
        t.deleted += 1;
        t.deleted_length += u64::from(fact.length);
    } else {
        t.live += 1;
        t.live_length += u64::from(fact.length);
    }
}

fn check_ids(
    txn: &ReadTransaction,
    report: &mut CheckReport,
    ids_of: &HashMap<String, u32>,
    last_doc: Option<u32>,
) -> Result<(), redb::Error> {
    let ids = txn.open_table(IDS)?;
    let mut t = Tally::new(report, Area::Ids, "id problems", REBUILD);
    let mut listed = 0usize;
    for row in ids.iter()? {
        let (id, doc) = row?;
        let (id, doc) = (id.value(), doc.value());
        listed += 1;
        match ids_of.get(id) {
            Some(&d) if d == doc => {}
            Some(&d) => {
                t.add(|| format!("id `{id}` names record {doc}, but its memory is record {d}"))
            }
            None => t.add(|| {
                format!("id `{id}` names record {doc}, which holds no readable memory of that id")
            }),
        }
    }
    if listed != ids_of.len() {
        for (id, doc) in ids_of {
            if ids.get(id.as_str())?.is_none() {
                t.add(|| format!("memory `{id}` (record {doc}) is missing from the ids"));
            }
        }
    }
    drop(t);
    let meta = txn.open_table(META)?;
    let next = meta
        .get(KEY_NEXT_DOC)?
        .and_then(|v| <[u8; 4]>::try_from(v.value()).ok())
        .map(u32::from_le_bytes);
    let needed = last_doc.map_or(0, |d| d.saturating_add(1));
    if next.is_none_or(|n| n < needed) {
        report.add(
            Area::Ids,
            format!(
                "the next record number is {next:?}, but record {} is taken",
                needed.saturating_sub(1)
            ),
            REBUILD,
        );
    }
    Ok(())
}

fn check_backlinks(
    txn: &ReadTransaction,
    report: &mut CheckReport,
    wanted: &BTreeSet<(String, String)>,
) -> Result<(), redb::Error> {
    let table = txn.open_table(BACKLINKS)?;
    let mut t = Tally::new(report, Area::Backlinks, "backlink problems", REBUILD);
    let mut stored = 0usize;
    // per target: what its count row says, and the rows found
    let mut counts: BTreeMap<String, (Option<u64>, u64)> = BTreeMap::new();
    for row in table.iter()? {
        let (key, sealed) = row?;
        let (target, source) = key.value();
        if source == COUNT_SOURCE {
            match read_count(target, sealed.value()) {
                Ok(n) => counts.entry(target.to_string()).or_default().0 = Some(n),
                Err(_) => t.add(|| format!("the backlink count of `{target}` fails its checksum")),
            }
            continue;
        }
        stored += 1;
        counts.entry(target.to_string()).or_default().1 += 1;
        if sealed.value().open(&(target, source)).is_err() {
            t.add(|| format!("the backlink row of `{source}` to `{target}` fails its checksum"));
            continue;
        }
        if !wanted.contains(&(target.to_string(), source.to_string())) {
            t.add(|| {
                format!(
                    "a backlink says `{source}` links to `{target}`, but its relationships do not"
                )
            });
        }
    }
    for (target, (said, found)) in &counts {
        if said.is_some_and(|n| n != *found) || (said.is_none() && *found > 0) {
            t.add(|| {
                format!(
                    "the backlink count of `{target}` says {}, but {found} rows are stored",
                    said.unwrap_or(0)
                )
            });
        }
    }
    if stored != wanted.len() {
        for (target, source) in wanted {
            if table.get((target.as_str(), source.as_str()))?.is_none() {
                t.add(|| format!("`{source}` links to `{target}`, but the backlink is missing (`{target}` does not show it)"));
            }
        }
    }
    Ok(())
}

fn check_index(
    txn: &ReadTransaction,
    report: &mut CheckReport,
    expected: &Expected,
) -> Result<(), redb::Error> {
    let mut t = Tally::new(report, Area::Index, "index problems", REBUILD);
    // search records
    let mut seen = 0usize;
    if let Some(records) = optional(txn.open_table(SEARCH_DOCS))? {
        for row in records.iter()? {
            let (doc, record) = row?;
            let doc = doc.value();
            seen += 1;
            let Ok(record) = record.value().open(&doc) else {
                t.add(|| format!("the search record of record {doc} fails its checksum"));
                continue;
            };
            match expected.docs.get(&doc) {
                Some((want, _, _)) if *want == hash(record) => {}
                Some(_) => {
                    t.add(|| format!("the search record of record {doc} differs from its memory"))
                }
                None => {
                    t.add(|| format!("a search record for record {doc}, which holds no memory"))
                }
            }
        }
    }
    if seen != expected.docs.len() {
        let n = expected.docs.len().abs_diff(seen);
        t.add(|| format!("{n} memories lack a search record"));
    }
    // haystacks: each literal one with the fuzzy one of its document, then the fuzzy
    // ones counted
    let mut seen = 0usize;
    let mut fuzzy_seen = 0usize;
    let mut bad_chunk = None;
    let literal = optional(txn.open_table(LITERAL_TEXT))?;
    let fuzzy = optional(txn.open_table(FUZZY_TEXT))?;
    if let (Some(literal), Some(fuzzy)) = (literal, fuzzy) {
        let mut fuzzy_of = ChunkCursor::new(&fuzzy);
        let walked = haystacks::for_each(&literal, |first, chunk| {
            for slot in 0..chunk.len() {
                let literal = chunk.get(slot);
                if literal.is_empty() {
                    continue;
                }
                let doc = first + slot as u32;
                seen += 1;
                let fuzzy = match fuzzy_of.get(doc) {
                    Ok(fuzzy) => fuzzy.and_then(|f| std::str::from_utf8(f).ok()),
                    Err(e) => {
                        bad_chunk.get_or_insert(e.to_string());
                        None
                    }
                };
                let got = fuzzy.map(|fuzzy| hash((literal, fuzzy)));
                match expected.docs.get(&doc) {
                    Some((_, want, _)) if Some(*want) == got => {}
                    Some(_) => {
                        t.add(|| format!("the search text of record {doc} differs from its memory"))
                    }
                    None => {
                        t.add(|| format!("search text for record {doc}, which holds no memory"))
                    }
                }
            }
        });
        if let Err(e) = walked {
            bad_chunk = Some(e.to_string());
        }
        let counted = haystacks::for_each(&fuzzy, |_, chunk| {
            fuzzy_seen += (0..chunk.len())
                .filter(|&s| !chunk.get(s).is_empty())
                .count();
        });
        if let Err(e) = counted {
            bad_chunk = Some(e.to_string());
        }
    }
    if let Some(e) = bad_chunk {
        t.add(|| format!("the search text cannot be read: {e}"));
    } else if seen != expected.docs.len() {
        let n = expected.docs.len().abs_diff(seen);
        t.add(|| format!("{n} memories lack their search text"));
    } else if fuzzy_seen != expected.docs.len() {
        let n = expected.docs.len().abs_diff(fuzzy_seen);
        t.add(|| format!("{n} memories lack their fuzzy search text"));
    }
    // facts
    let mut seen = 0usize;
    let mut totals = Totals::default();
    if let Some(table) = optional(txn.open_table(FACTS))? {
        let walked = facts::for_each(&table, |doc, fact| {
            seen += 1;
            count_total(&mut totals, &fact);
            match expected.docs.get(&doc) {
                Some((_, _, want)) if *want == fact => {}
                Some(_) => t.add(|| format!("the facts of record {doc} differ from its memory")),
                None => t.add(|| format!("facts for record {doc}, which holds no memory")),
            }
        });
        if let Err(e) = walked {
            t.add(|| format!("the facts cannot be read: {e}"));
        }
    }
    if seen != expected.docs.len() {
        let n = expected.docs.len().abs_diff(seen);
        t.add(|| format!("{n} memories lack their facts"));
    }
    match Totals::read(&txn.open_table(META)?) {
        Err(e) => t.add(|| format!("the stored totals cannot be read: {e}")),
        Ok(stored_totals) if stored_totals.unwrap_or_default() != expected.totals => {
            t.add(|| {
            format!(
                "the stored totals (live, deleted and their lengths) are {stored_totals:?}, the memories make {:?}",
                expected.totals
            )
        });
        }
        Ok(_) => {}
    }
    // postings
    let mut digest = Digest::default();
    let mut undecodable = 0usize;
    let mut terms: Vec<String> = Vec::new();
    if let Some(table) = optional(txn.open_table(POSTINGS))? {
        let mut block = Vec::new();
        for row in table.iter()? {
            let (key, value) = row?;
            let key = key.value();
            let (Some(term), Some(start)) = (postings::key_term(key), postings::key_doc(key))
            else {
                undecodable += 1;
                continue;
            };
            if terms.last().is_none_or(|last| last != term) {
                terms.push(term.to_string());
            }
            block.clear();
            let Ok(value) = value.value().open(&key) else {
                undecodable += 1;
                continue;
            };
            if postings::decode_into(start, value, &mut block).is_none() {
                undecodable += 1;
                continue;
            }
            for &(doc, tf) in &block {
                digest.add((term.as_bytes(), doc, tf));
            }
        }
    }
    if undecodable > 0 {
        t.add(|| format!("{undecodable} blocks of the inverted index cannot be decoded"));
    }
    check_vocabulary(txn, &terms, &mut t)?;
    if digest != expected.postings {
        t.add(|| {
            format!(
                "the inverted index holds {} postings that do not match the {} the memories make",
                digest.count, expected.postings.count
            )
        });
    }
    Ok(())
}

/// The vocabulary holds every term of the inverted index (`terms`, ascending).
fn check_vocabulary(
    txn: &ReadTransaction,
    terms: &[String],
    t: &mut Tally<'_>,
) -> Result<(), redb::Error> {
    let Some(table) = optional(txn.open_table(VOCABULARY))? else {
        if !terms.is_empty() {
            t.add(|| "the vocabulary of the inverted index is missing".to_string());
        }
        return Ok(());
    };
    match vocabulary::all(&table) {
        Err(e) => t.add(|| format!("the vocabulary cannot be read: {e}")),
        Ok(held) => {
            let missing = terms
                .iter()
                .filter(|term| held.binary_search(term).is_err())
                .count();
            if missing > 0 {
                t.add(|| format!("the vocabulary lacks {missing} terms of the inverted index"));
            }
        }
    }
    Ok(())
}
