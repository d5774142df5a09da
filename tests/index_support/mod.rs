//! The index a store must hold, counted by brute force from its memories with the
//! tokenizer and haystacks of SPEC §3.2 written out plainly, and the persisted index
//! read back block by block and chunk by chunk with its invariants checked: the two
//! must be equal.

use crate::search_support::{bm25_tokens, fields, fuzzy_haystack};
use memlens::index::facts::{self, CHUNK_DOCS, FACTS, Fact, Totals};
use memlens::index::haystacks::{self, FUZZY_TEXT, LITERAL_TEXT};
use memlens::index::postings::{self, MAX_BLOCK, POSTINGS, Posting};
use memlens::index::{SEARCH_DOCS, SearchRecord};
use memlens::model::Memory;
use memlens::store::Store;
use memlens::store::tables::META;
use redb::ReadableTable;
use std::collections::{BTreeMap, BTreeSet};

/// The tokens of a memory's document: id, title, type, module, tags, body.
pub fn document_tokens(m: &Memory) -> Vec<String> {
    let mut out = Vec::new();
    out.extend(bm25_tokens(&m.id));
    if let Some(title) = &m.title {
        out.extend(bm25_tokens(title));
    }
    out.extend(bm25_tokens(&m.memory_type));
    if let Some(module) = &m.module {
        out.extend(bm25_tokens(module));
    }
    for tag in &m.tags {
        out.extend(bm25_tokens(tag));
    }
    out.extend(bm25_tokens(&m.body));
    out
}

/// SPEC §3.2's literal haystack: the lowercased id, title, type, module, each tag and
/// body (the fields a memory has), joined by `\n`.
pub fn literal_haystack(m: &Memory) -> String {
    let lowered: Vec<String> = fields(m).iter().map(|f| f.to_lowercase()).collect();
    lowered.join("\n")
}

/// The literal and fuzzy haystacks of one document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stacks {
    /// The literal haystack.
    pub literal: String,
    /// The fuzzy haystack.
    pub fuzzy: String,
}

impl Stacks {
    /// The haystacks SPEC §3.2 gives a memory.
    pub fn of(m: &Memory) -> Stacks {
        Stacks {
            literal: literal_haystack(m),
            fuzzy: fuzzy_haystack(m),
        }
    }

    /// True when both haystacks are empty (a document without a memory).
    pub fn is_empty(&self) -> bool {
        self.literal.is_empty() && self.fuzzy.is_empty()
    }
}

/// What the index of a store must hold, counted from its memories.
#[derive(Debug, Default, PartialEq)]
pub struct IndexContents {
    /// Term → (document, frequency), by document.
    pub postings: BTreeMap<String, Vec<Posting>>,
    /// Every stored document with its facts, by document.
    pub facts: Vec<(u32, Fact)>,
    /// Document → the id and document length (number of tokens) of its search record.
    pub records: BTreeMap<u32, (String, u32)>,
    /// Document → its haystacks in the two haystacks tables. Counted: every stored
    /// document. Read back: every slot of every stored chunk of either table, with or
    /// without a memory.
    pub haystacks: BTreeMap<u32, Stacks>,
    /// The stored chunks of the literal and of the fuzzy haystacks: first document →
    /// how many documents it holds. Read back only (which chunks hold which documents
    /// depends on the order of the writes; see [`assert_index_exact`] for what they
    /// must satisfy).
    pub haystack_chunks: [BTreeMap<u32, usize>; 2],
}

/// Counts the index of the snapshot's memories by brute force, checking on the way
/// that every memory's id leads back to its document.
pub fn brute_force(store: &Store) -> IndexContents {
    let reader = store.read().expect("read");
    let mut by_doc = Vec::new();
    reader
        .for_each(|doc, m| by_doc.push((doc, m)))
        .expect("memories");
    let mut index = IndexContents::default();
    for (doc, m) in by_doc {
        assert_eq!(reader.doc_of(&m.id).expect("ids"), Some(doc), "id {}", m.id);
        let tokens = document_tokens(&m);
        let mut counts: BTreeMap<String, u32> = BTreeMap::new();
        for t in &tokens {
            *counts.entry(t.clone()).or_insert(0) += 1;
        }
        for (term, tf) in &counts {
            index
                .postings
                .entry(term.clone())
                .or_default()
                .push((doc, *tf));
        }
        index
            .records
            .insert(doc, (m.id.clone(), tokens.len() as u32));
        index.haystacks.insert(doc, Stacks::of(&m));
        index.facts.push((
            doc,
            Fact {
                deleted: m.deleted_at.is_some(),
                session_recap: m.memory_type == "session_recap",
                length: tokens.len() as u32,
                created_at: m.created_at.0,
            },
        ));
    }
    // `for_each` walks documents in order, so every posting list is sorted already;
    // sorting again keeps the oracle independent of that.
    for list in index.postings.values_mut() {
        list.sort_unstable();
    }
    index.facts.sort_by_key(|f| f.0);
    index
}

/// Reads the persisted index of the snapshot, asserting the block and chunk
/// invariants on the way; returns it with each term's number of blocks.
pub fn persisted(store: &Store) -> (IndexContents, BTreeMap<String, usize>) {
    let reader = store.read().expect("read");
    assert!(
        reader.index_is_current().expect("meta"),
        "the index marker is missing"
    );
    let mut index = IndexContents::default();
    let mut blocks: BTreeMap<String, usize> = BTreeMap::new();
    let table = reader.table(POSTINGS).expect("postings table");
    for entry in table.iter().expect("iter") {
        let (key, value) = entry.expect("entry");
        let term = postings::key_term(key.value()).expect("block key names a term");
        let first = postings::key_doc(key.value()).expect("block key names a document");
        let mut block = Vec::new();
        assert!(
            postings::decode_into(
                first,
                value.value().open(&key.value()).expect("sealed"),
                &mut block
            )
            .is_some(),
            "block ({term}, {first}) does not decode"
        );
        assert!(!block.is_empty(), "block ({term}, {first}) is empty");
        assert!(
            block.len() <= MAX_BLOCK,
            "block ({term}, {first}) holds {} postings",
            block.len()
        );
        assert_eq!(block[0].0, first, "block ({term}, {first}) is keyed wrong");
        assert!(
            block.iter().all(|p| p.1 > 0),
            "block ({term}, {first}) has a zero frequency"
        );
        let list = index.postings.entry(term.to_string()).or_default();
        if let Some(last) = list.last() {
            assert!(
                last.0 < first,
                "block ({term}, {first}) starts at or before the previous block's end {}",
                last.0
            );
        }
        assert!(
            block.windows(2).all(|w| w[0].0 < w[1].0),
            "block ({term}, {first}) is not strictly increasing: {block:?}"
        );
        list.extend(block);
        *blocks.entry(term.to_string()).or_insert(0) += 1;
    }
    let facts_table = reader.table(FACTS).expect("facts table");
    facts::for_each(&facts_table, |doc, fact| index.facts.push((doc, fact))).expect("facts");
    // a chunk is stored exactly when one of its documents holds a memory
    let chunks: BTreeSet<u32> = facts_table
        .iter()
        .expect("iter")
        .map(|e| e.expect("entry").0.value())
        .collect();
    let wanted: BTreeSet<u32> = index.facts.iter().map(|f| f.0 / CHUNK_DOCS).collect();
    assert_eq!(chunks, wanted, "facts chunks");
    let records = reader.table(SEARCH_DOCS).expect("search docs");
    for entry in records.iter().expect("iter") {
        let (doc, bytes) = entry.expect("entry");
        let record = SearchRecord::decode(bytes.value().open(&doc.value()).expect("sealed"))
            .unwrap_or_else(|| panic!("search record {} does not decode", doc.value()));
        index
            .records
            .insert(doc.value(), (record.id, record.length));
    }
    for (kind, (table, which)) in [(LITERAL_TEXT, "literal"), (FUZZY_TEXT, "fuzzy")]
        .into_iter()
        .enumerate()
    {
        let table = reader.table(table).expect("haystacks table");
        haystacks::for_each(&table, |first, c| {
            index.haystack_chunks[kind].insert(first, c.len());
            for slot in 0..c.len() {
                let doc = first + slot as u32;
                let text = String::from_utf8(c.get(slot).to_vec()).unwrap_or_else(|_| {
                    panic!("the {which} haystack of document {doc} is not UTF-8")
                });
                let stacks = index.haystacks.entry(doc).or_default();
                match kind {
                    0 => stacks.literal = text,
                    _ => stacks.fuzzy = text,
                }
            }
        })
        .expect("haystacks");
    }
    (index, blocks)
}

/// Asserts the stored haystacks chunks (first document → documents held) do not
/// overlap, that each holds a memory, and that every memory's document (the keys of
/// `memories`) lies in one.
fn assert_chunks(chunks: &BTreeMap<u32, usize>, memories: &BTreeMap<u32, Stacks>, context: &str) {
    let mut end = 0u64;
    for (&first, &len) in chunks {
        assert!(
            u64::from(first) >= end,
            "{context}: haystacks chunks stored: the chunk at document {first} overlaps the one before"
        );
        end = u64::from(first) + len as u64;
        let last = u32::try_from(end - 1).unwrap_or(u32::MAX);
        assert!(
            memories.range(first..=last).next().is_some(),
            "{context}: haystacks chunks stored: the chunk at document {first} holds no memory"
        );
    }
    for &doc in memories.keys() {
        let holder = chunks.range(..=doc).next_back();
        assert!(
            holder.is_some_and(|(&first, &len)| ((doc - first) as usize) < len),
            "{context}: haystacks chunks stored: document {doc} holds a memory but lies in no chunk"
        );
    }
}

/// Asserts `got` holds `want`'s haystacks for every document of `want`, and empty ones
/// for any other document.
fn assert_stacks(
    got: &BTreeMap<u32, Stacks>,
    want: &BTreeMap<u32, Stacks>,
    what: &str,
    context: &str,
) {
    for (doc, w) in want {
        let g = got.get(doc);
        assert_eq!(
            g.map(|g| &g.literal),
            Some(&w.literal),
            "{context}: literal haystack of document {doc} in {what}"
        );
        assert_eq!(
            g.map(|g| &g.fuzzy),
            Some(&w.fuzzy),
            "{context}: fuzzy haystack of document {doc} in {what}"
        );
    }
    for (doc, g) in got {
        assert!(
            want.contains_key(doc) || g.is_empty(),
            "{context}: document {doc} holds no memory but has haystacks in {what}: {g:?}"
        );
    }
}

/// Asserts the persisted index equals the brute-force one; returns the block counts.
pub fn assert_index_exact(store: &Store, context: &str) -> BTreeMap<String, usize> {
    let want = brute_force(store);
    let (got, blocks) = persisted(store);
    let extra: Vec<&String> = got
        .postings
        .keys()
        .filter(|t| !want.postings.contains_key(*t))
        .collect();
    assert!(
        extra.is_empty(),
        "{context}: terms not in any memory: {extra:?}"
    );
    for (term, list) in &want.postings {
        assert_eq!(
            got.postings.get(term),
            Some(list),
            "{context}: postings of `{term}`"
        );
    }
    assert_eq!(got.facts, want.facts, "{context}: facts");
    assert_vocabulary(store, want.postings.keys(), context);
    assert_totals(store, &want, context);
    // one record per stored memory, and none for another document
    assert_eq!(got.records, want.records, "{context}: search records");
    for (chunks, which) in got.haystack_chunks.iter().zip(["literal", "fuzzy"]) {
        assert_chunks(chunks, &want.haystacks, &format!("{context}: {which}"));
    }
    assert_stacks(
        &got.haystacks,
        &want.haystacks,
        "the haystacks tables",
        context,
    );
    blocks
}

/// Asserts the vocabulary holds every one of `terms` (each term the memories make),
/// ascending and once each.
fn assert_vocabulary<'t>(store: &Store, terms: impl Iterator<Item = &'t String>, context: &str) {
    let reader = store.read().expect("read");
    let table = reader
        .table(memlens::index::vocabulary::VOCABULARY)
        .expect("vocabulary");
    let held = memlens::index::vocabulary::all(&table).expect("vocabulary read");
    assert!(
        held.windows(2).all(|w| w[0] < w[1]),
        "{context}: vocabulary out of order"
    );
    let missing: Vec<&String> = terms.filter(|t| held.binary_search(t).is_err()).collect();
    assert!(
        missing.is_empty(),
        "{context}: vocabulary lacks {missing:?}"
    );
}

/// Asserts the stored totals (BM25's N and summed lengths under the default filters)
/// equal those counted from the brute-force facts: session recaps left out, live and
/// soft-deleted apart.
fn assert_totals(store: &Store, want: &IndexContents, context: &str) {
    let mut expected = Totals::default();
    for (_, f) in want.facts.iter().filter(|(_, f)| !f.session_recap) {
        if f.deleted {
            expected.deleted += 1;
            expected.deleted_length += u64::from(f.length);
        } else {
            expected.live += 1;
            expected.live_length += u64::from(f.length);
        }
    }
    let reader = store.read().expect("read");
    let meta = reader.table(META).expect("meta");
    let stored = Totals::read(&meta).expect("totals").unwrap_or_default();
    assert_eq!(stored, expected, "{context}: facts totals");
}

/// Asserts the store holds exactly `model` (by id).
pub fn assert_holds(store: &Store, model: &BTreeMap<String, Memory>, context: &str) {
    let stored: BTreeMap<String, Memory> = store
        .read()
        .expect("read")
        .memories()
        .expect("memories")
        .into_iter()
        .map(|m| (m.id.clone(), m))
        .collect();
    assert_eq!(&stored, model, "{context}: stored memories");
    // every id names a stored memory: none is left behind by a purge
    let reader = store.read().expect("read");
    let ids = reader
        .table(memlens::store::tables::IDS)
        .expect("ids table");
    let listed: Vec<String> = ids
        .iter()
        .expect("ids")
        .map(|row| row.expect("id").0.value().to_string())
        .collect();
    let expected: Vec<String> = model.keys().cloned().collect();
    assert_eq!(listed, expected, "{context}: ids");
}
