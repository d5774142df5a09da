//! The persisted inverted index, facts and haystacks of a store are exactly what a
//! brute-force count over its stored memories gives: after random transactions
//! (committed or dropped), after block splits, after imports, and after a rebuild on
//! open.

mod exchange_support;
mod index_support;
mod search_support;

use exchange_support::{options, temp_store};
use index_support::{IndexContents, assert_holds, assert_index_exact, brute_force};
use memlens::exchange::{ExchangeError, Format, ImportSource, OnConflict, import};
use memlens::index::facts::FACTS;
use memlens::index::haystacks::{self, Chunk, FUZZY_TEXT, LITERAL_TEXT, TextCursor};
use memlens::index::postings::{self, MAX_BLOCK, POSTINGS, Posting};
use memlens::index::sealed::{SealedBuf, SealedBytes};
use memlens::index::{KEY_INDEX, SEARCH_DOCS, SearchRecord, index_is_current};
use memlens::model::{Memory, Timestamp};
use memlens::store::tables::META;
use memlens::store::{Prepared, Store, StoreWriter};
use proptest::prelude::*;
use proptest::sample::Index;
use redb::{ReadableDatabase, ReadableTable, TableHandle};
use std::collections::BTreeMap;
use std::path::Path;

// ---------------------------------------------------------------------------------
// Random collections and transactions.

/// Words with unicode case mappings, digits, underscores, one-letter words, words
/// that lowercase alike, and punctuation that is no part of a token.
const WORDS: &[&str] = &[
    "alpha",
    "Alpha",
    "Straße",
    "STRASSE",
    "ÉCOLE",
    "école",
    "ΣΑΣ",
    "naïve",
    "日本語",
    "İ",
    "42",
    "7",
    "x1",
    "a",
    "B",
    "é",
    "_",
    "__",
    "snake_case",
    "foo-bar",
    "x.y",
    "!!",
    "end.",
    "(b)",
];
const SEPARATORS: &[&str] = &[" ", " ", "\n", ", ", "-", "…"];
const TYPES: &[&str] = &["note", "session_recap", "decision", "gotcha", "x", "type_2"];
const MODULES: &[&str] = &["store", "Index_v2", "ü", "a b", "über-Modul"];
const TAGS: &[&str] = &["rust", "DB", "ü", "c++", "two words", "x", "snake_case"];
/// created_at values, with collisions and one before 1970.
const CREATED: &[i64] = &[
    0,
    1_700_000_000_000_000_000,
    1_700_000_000_000_000_001,
    1_750_000_000_123_000_000,
    -1_000_000_000,
];
/// Id slots: prefixes make some ids tokens, others (`q.3`, `é-1`) none.
const ID_PREFIXES: &[&str] = &["m", "Mem_", "é-", "q."];
const POOL: usize = 12;

fn id(slot: usize) -> String {
    format!("{}{slot}", ID_PREFIXES[slot % ID_PREFIXES.len()])
}

fn text(words: &[(usize, usize)]) -> String {
    let mut out = String::new();
    for (i, &(w, s)) in words.iter().enumerate() {
        if i > 0 {
            out.push_str(SEPARATORS[s % SEPARATORS.len()]);
        }
        out.push_str(WORDS[w % WORDS.len()]);
    }
    out
}

fn words(max: usize) -> impl Strategy<Value = Vec<(usize, usize)>> {
    prop::collection::vec((0..WORDS.len(), 0..SEPARATORS.len()), 1..max)
}

/// Everything about a memory the index sees.
#[derive(Debug, Clone)]
struct Content {
    title: Option<Vec<(usize, usize)>>,
    body: Vec<(usize, usize)>,
    ty: usize,
    module: Option<usize>,
    tags: Vec<usize>,
    created: usize,
    deleted: bool,
}

fn content() -> impl Strategy<Value = Content> {
    (
        prop::option::of(words(4)),
        words(9),
        0..TYPES.len(),
        prop::option::of(0..MODULES.len()),
        prop::collection::vec(0..TAGS.len(), 0..3),
        0..CREATED.len(),
        prop::bool::weighted(0.3),
    )
        .prop_map(
            |(title, body, ty, module, tags, created, deleted)| Content {
                title,
                body,
                ty,
                module,
                tags,
                created,
                deleted,
            },
        )
}

fn memory(id: String, c: &Content) -> Memory {
    let created = Timestamp(CREATED[c.created]);
    let mut m = Memory::new(id, text(&c.body), created);
    m.title = c.title.as_deref().map(text);
    m.memory_type = TYPES[c.ty].to_string();
    m.module = c.module.map(|i| MODULES[i].to_string());
    m.tags = c.tags.iter().map(|&t| TAGS[t].to_string()).collect();
    m.deleted_at = c.deleted.then_some(Timestamp(created.0 + 5));
    m.normalise();
    m
}

/// One field of a stored memory changed.
#[derive(Debug, Clone)]
enum Tweak {
    Body(Vec<(usize, usize)>),
    Title(Option<Vec<(usize, usize)>>),
    Tags(Vec<usize>),
    Type(usize),
    ToggleDeleted,
    Module(Option<usize>),
    Created(usize),
}

fn tweak() -> impl Strategy<Value = Tweak> {
    prop_oneof![
        3 => words(9).prop_map(Tweak::Body),
        1 => prop::option::of(words(4)).prop_map(Tweak::Title),
        1 => prop::collection::vec(0..TAGS.len(), 0..3).prop_map(Tweak::Tags),
        1 => (0..TYPES.len()).prop_map(Tweak::Type),
        2 => Just(Tweak::ToggleDeleted),
        1 => prop::option::of(0..MODULES.len()).prop_map(Tweak::Module),
        1 => (0..CREATED.len()).prop_map(Tweak::Created),
    ]
}

fn tweaked(mut m: Memory, t: &Tweak) -> Memory {
    match t {
        Tweak::Body(w) => m.body = text(w),
        Tweak::Title(w) => m.title = w.as_deref().map(text),
        Tweak::Tags(tags) => m.tags = tags.iter().map(|&t| TAGS[t].to_string()).collect(),
        Tweak::Type(ty) => m.memory_type = TYPES[*ty].to_string(),
        Tweak::ToggleDeleted => {
            m.deleted_at = match m.deleted_at {
                Some(_) => None,
                None => Some(Timestamp(m.created_at.0 + 9)),
            }
        }
        Tweak::Module(i) => m.module = i.map(|i| MODULES[i].to_string()),
        Tweak::Created(c) => m.created_at = Timestamp(CREATED[*c]),
    }
    m.normalise();
    m
}

/// One write inside a transaction.
#[derive(Debug, Clone)]
enum Op {
    /// Put this content under an id slot (new, or replacing what is there).
    Put(usize, Content),
    /// Put a changed version of a memory the transaction sees.
    Change(Index, Tweak),
    /// Purge a memory the transaction sees.
    Purge(Index),
    /// Put two versions under the same id, one after the other.
    PutTwice(usize, Box<(Content, Content)>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0..POOL, content()).prop_map(|(s, c)| Op::Put(s, c)),
        4 => (any::<Index>(), tweak()).prop_map(|(i, t)| Op::Change(i, t)),
        2 => any::<Index>().prop_map(Op::Purge),
        1 => (0..POOL, content(), content()).prop_map(|(s, a, b)| Op::PutTwice(s, Box::new((a, b)))),
    ]
}

/// A transaction: its writes, whether it commits, whether it goes through one bulk
/// writer or the writer's own `put` / `purge`, and whether the bulk writer stores a
/// memory new to the store as an import does (appended at the tables' end).
#[derive(Debug, Clone)]
struct Txn {
    ops: Vec<Op>,
    commit: bool,
    bulk: bool,
    new_first: bool,
}

fn txn() -> impl Strategy<Value = Txn> {
    (
        prop::collection::vec(op(), 1..=4),
        prop::bool::weighted(0.75),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(ops, commit, bulk, new_first)| Txn {
            ops,
            commit,
            bulk,
            new_first,
        })
}

/// The writes an op makes, given what the transaction sees (`seen`, updated): puts
/// of whole memories and purges by id.
enum Write {
    Put(Box<Memory>),
    Purge(String),
}

fn plan(op: &Op, seen: &mut BTreeMap<String, Memory>) -> Vec<Write> {
    let pick = |i: &Index, seen: &BTreeMap<String, Memory>| {
        if seen.is_empty() {
            None
        } else {
            seen.keys().nth(i.index(seen.len())).cloned()
        }
    };
    let writes = match op {
        Op::Put(slot, c) => vec![Write::Put(Box::new(memory(id(*slot), c)))],
        Op::PutTwice(slot, pair) => vec![
            Write::Put(Box::new(memory(id(*slot), &pair.0))),
            Write::Put(Box::new(memory(id(*slot), &pair.1))),
        ],
        Op::Change(i, t) => match pick(i, seen) {
            Some(key) => vec![Write::Put(Box::new(tweaked(seen[&key].clone(), t)))],
            None => Vec::new(),
        },
        Op::Purge(i) => pick(i, seen).map(Write::Purge).into_iter().collect(),
    };
    for w in &writes {
        match w {
            Write::Put(m) => {
                seen.insert(m.id.clone(), (**m).clone());
            }
            Write::Purge(id) => {
                seen.remove(id);
            }
        }
    }
    writes
}

fn write_one(w: &mut StoreWriter, write: &Write) {
    match write {
        Write::Put(m) => {
            w.put(m).expect("put");
        }
        Write::Purge(id) => {
            w.purge(id).expect("purge");
        }
    }
}

/// Runs a transaction against the store and the model.
fn run(store: &Store, model: &mut BTreeMap<String, Memory>, t: &Txn) {
    let mut seen = model.clone();
    let writes: Vec<Write> = t.ops.iter().flat_map(|op| plan(op, &mut seen)).collect();
    let mut w = store.write().expect("write");
    if t.bulk {
        let mut bulk = w.bulk().expect("bulk");
        for (i, write) in writes.iter().enumerate() {
            match write {
                Write::Put(m) if t.new_first => {
                    // an import's reader computes the index entry, or leaves it to the writer
                    let prepared = if i % 2 == 0 {
                        Prepared::new((**m).clone())
                    } else {
                        Prepared::without_entry((**m).clone())
                    };
                    if bulk.insert_if_new(&prepared).expect("insert").is_err() {
                        bulk.put(m).expect("put");
                    }
                }
                Write::Put(m) => {
                    bulk.put(m).expect("put");
                }
                Write::Purge(id) => {
                    bulk.purge(id).expect("purge");
                }
            }
        }
    } else {
        for write in &writes {
            write_one(&mut w, write);
        }
    }
    // the transaction reads its own writes, stored or still waiting to be appended
    for (id, m) in &seen {
        assert_eq!(w.get(id).expect("get").as_ref(), Some(m), "{id} in {t:?}");
    }
    if t.commit {
        w.commit().expect("commit");
        *model = seen;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn the_persisted_index_is_the_brute_force_index_after_random_transactions(
        initial in prop::collection::vec((0..POOL, content()), 0..10),
        txns in prop::collection::vec(txn(), 1..8),
    ) {
        let (_dir, store) = temp_store();
        assert_index_exact(&store, "new store");
        let mut model = BTreeMap::new();
        let first = Txn {
            ops: initial.into_iter().map(|(s, c)| Op::Put(s, c)).collect(),
            commit: true,
            bulk: true,
            new_first: true,
        };
        run(&store, &mut model, &first);
        assert_holds(&store, &model, "initial");
        assert_index_exact(&store, "initial");
        for (n, t) in txns.iter().enumerate() {
            run(&store, &mut model, t);
            let context = format!("after transaction {n} {t:?}");
            assert_holds(&store, &model, &context);
            assert_index_exact(&store, &context);
        }
    }
}

/// The body of split-test memory `i` in a given state (0 = not stored).
fn split_memory(i: usize, state: u8) -> Option<Memory> {
    let body = match state {
        1 => "shared",
        2 => "shared Shared",
        3 => "other",
        _ => return None,
    };
    let created = Timestamp(1_700_000_000_000_000_000 + (i % 5) as i64);
    Some(Memory::new(format!("s{i}"), body, created))
}

/// Applies `(memory, state)` changes in one transaction, updating `model`.
fn apply_states(store: &Store, model: &mut BTreeMap<String, Memory>, changes: &[(usize, u8)]) {
    let mut w = store.write().expect("write");
    for &(i, state) in changes {
        match split_memory(i, state) {
            Some(m) => {
                w.put(&m).expect("put");
                model.insert(m.id.clone(), m);
            }
            None => {
                if model.remove(&format!("s{i}")).is_some() {
                    w.purge(&format!("s{i}")).expect("purge");
                }
            }
        }
    }
    w.commit().expect("commit");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn random_edits_across_split_blocks_keep_the_index_exact(
        initial in prop::collection::vec(0..4u8, 300..800),
        txns in prop::collection::vec(
            prop::collection::vec((0..900usize, 0..4u8), 1..400),
            1..4,
        ),
    ) {
        let (_dir, store) = temp_store();
        let mut model = BTreeMap::new();
        let first: Vec<(usize, u8)> = initial.into_iter().enumerate().collect();
        apply_states(&store, &mut model, &first);
        assert_index_exact(&store, "initial");
        for (n, changes) in txns.iter().enumerate() {
            apply_states(&store, &mut model, changes);
            let context = format!("after transaction {n}");
            assert_holds(&store, &model, &context);
            assert_index_exact(&store, &context);
        }
    }
}

// ---------------------------------------------------------------------------------
// Deterministic stores.

/// Memory `i` of the large collections: the common word `shared` (twice when
/// `twice`), a word shared with every tenth memory, and a word of its own.
fn numbered(i: usize, twice: bool) -> Memory {
    let mut body = format!("shared group{} own{i} Straße", i % 10);
    if twice {
        body.push_str(" SHARED");
    }
    let mut m = Memory::new(
        format!("n{i:04}"),
        body,
        Timestamp(1_700_000_000_000_000_000 + (i % 37) as i64),
    );
    if i.is_multiple_of(11) {
        m.memory_type = "session_recap".into();
    }
    if i.is_multiple_of(13) {
        m.deleted_at = Some(Timestamp(1_800_000_000_000_000_000));
    }
    m
}

fn put_all(store: &Store, memories: impl IntoIterator<Item = Memory>) {
    let mut w = store.write().expect("write");
    for m in memories {
        w.put(&m).expect("put");
    }
    w.commit().expect("commit");
}

/// Puts 700 memories in five transactions, then overwrites and purges scattered ones
/// (some losing the common word, some changing its frequency) and adds more.
fn split_store(store: &Store) {
    for part in 0..5 {
        put_all(
            store,
            (part * 140..(part + 1) * 140).map(|i| numbered(i, false)),
        );
        assert_index_exact(store, &format!("after part {part}"));
    }
}

#[test]
fn blocks_split_and_stay_exact_under_scattered_overwrites_and_purges() {
    let (_dir, store) = temp_store();
    split_store(&store);
    let blocks = assert_index_exact(&store, "700 memories");
    assert!(
        blocks["shared"] > 1,
        "the common term never split: {blocks:?}"
    );
    assert_eq!(blocks["straße"], blocks["shared"]);
    // Lose the common word in every third memory, double it in every fifth.
    let mut w = store.write().expect("write");
    for i in (0..700usize).filter(|i| i.is_multiple_of(3) || i.is_multiple_of(5)) {
        let mut m = numbered(i, i.is_multiple_of(5));
        if i.is_multiple_of(3) {
            m.body = m.body.replace("shared", "other");
        }
        w.put(&m).expect("put");
    }
    w.commit().expect("commit");
    assert_index_exact(&store, "after overwrites");
    // Purge a run at the start, one in the middle, every seventh and the last one.
    let mut w = store.write().expect("write");
    let purged = |i: &usize| *i < 130 || (300..420).contains(i) || i.is_multiple_of(7) || *i == 699;
    for i in (0..700).filter(purged) {
        w.purge(&format!("n{i:04}")).expect("purge");
    }
    w.commit().expect("commit");
    assert_index_exact(&store, "after purges");
    // New memories past the end, and a purged id put back under a new document.
    put_all(
        &store,
        (700..1100)
            .map(|i| numbered(i, true))
            .chain([numbered(5, true)]),
    );
    let blocks = assert_index_exact(&store, "after additions");
    assert!(blocks["shared"] > 1);
    // Purge everything that holds the common word: the term leaves the table.
    let holding: Vec<String> = store
        .read()
        .expect("read")
        .memories()
        .expect("memories")
        .into_iter()
        .filter(|m| m.body.contains("shared"))
        .map(|m| m.id)
        .collect();
    assert!(holding.len() > 2 * MAX_BLOCK);
    let mut w = store.write().expect("write");
    for id in &holding {
        w.purge(id).expect("purge");
    }
    w.commit().expect("commit");
    let blocks = assert_index_exact(&store, "after purging the common word");
    assert!(
        blocks.contains_key("shared"),
        "`SHARED` is still in some memories"
    );
    let mut w = store.write().expect("write");
    for m in store.read().expect("read").memories().expect("memories") {
        w.purge(&m.id).expect("purge");
    }
    w.commit().expect("commit");
    let blocks = assert_index_exact(&store, "after purging everything");
    assert!(blocks.is_empty(), "terms left: {blocks:?}");
}

// ---------------------------------------------------------------------------------
// Haystacks.

/// The stored (literal, fuzzy) haystacks of memory `id`, read from their chunks.
fn stored_haystacks(store: &Store, id: &str) -> (String, String) {
    let reader = store.read().expect("read");
    let doc = reader.doc_of(id).expect("ids").expect("stored");
    let literal = reader.table(LITERAL_TEXT).expect("literal haystacks");
    let fuzzy = reader.table(FUZZY_TEXT).expect("fuzzy haystacks");
    let mut texts = TextCursor::new(&literal, &fuzzy);
    let text = texts
        .text(doc)
        .expect("chunks")
        .unwrap_or_else(|| panic!("document {doc} lies in no chunk"));
    let literal = String::from_utf8(text.literal.to_vec()).expect("UTF-8");
    (literal, text.fuzzy.to_string())
}

/// The first documents of the stored haystacks chunks, the same in both tables (as
/// they are when every chunk is cut by its number of documents).
fn haystack_chunks(store: &Store) -> Vec<u32> {
    let reader = store.read().expect("read");
    let [literal, fuzzy] = [LITERAL_TEXT, FUZZY_TEXT].map(|table| {
        let table = reader.table(table).expect("haystacks");
        table
            .iter()
            .expect("iter")
            .map(|e| e.expect("entry").0.value())
            .collect::<Vec<u32>>()
    });
    assert_eq!(literal, fuzzy, "the two tables' chunks");
    literal
}

#[test]
fn haystacks_cut_the_headline_skip_blank_lines_and_lowercase_every_field() {
    let (_dir, store) = temp_store();
    let at = Timestamp(1_700_000_000_000_000_000);
    // a 270-character title of two- and one-byte characters, fields to lowercase
    let mut a = Memory::new("Edge-A", "Body ΣΑΣ Text", at);
    a.title = Some(format!("{}{}", "é".repeat(150), "Ab".repeat(60)));
    a.memory_type = "decision".into();
    a.module = Some("Über".into());
    a.tags = vec!["Tag_One".into(), "ΣΑΣ".into()];
    // no title: the headline is the first line that is not blank, trimmed
    let b = Memory::new("edge-b", "\n   \n\t  First line of B  \nsecond line", at);
    // a first line of 210 characters, 200 of them kept
    let long_line = format!("{}{}", "x".repeat(10), "日本".repeat(100));
    let d = Memory::new("edge-d", format!("{long_line}\nrest"), at);
    // stored as the program's writers store them: normalised
    let mut memories = [a.clone(), b, d];
    for m in &mut memories {
        m.normalise();
    }
    put_all(&store, memories);
    assert_index_exact(&store, "edge cases");

    let literal_a = format!(
        "edge-a\n{}{}\ndecision\nüber\ntag_one\nσας\nbody σας text",
        "é".repeat(150),
        "ab".repeat(60)
    );
    let fuzzy_a = format!("{}{} Tag_One ΣΑΣ Edge-A", "é".repeat(150), "Ab".repeat(25));
    assert_eq!(stored_haystacks(&store, "Edge-A"), (literal_a, fuzzy_a));
    assert_eq!(
        stored_haystacks(&store, "edge-b"),
        (
            "edge-b\nnote\n\n   \n\t  first line of b  \nsecond line".to_string(),
            "First line of B edge-b".to_string()
        )
    );
    let fuzzy_d = format!("{}{} edge-d", "x".repeat(10), "日本".repeat(95));
    assert_eq!(stored_haystacks(&store, "edge-d").1, fuzzy_d);

    // without its title, A's headline is its body's first line
    a.title = None;
    put_all(&store, [a]);
    assert_index_exact(&store, "after removing a title");
    assert_eq!(
        stored_haystacks(&store, "Edge-A"),
        (
            "edge-a\ndecision\nüber\ntag_one\nσας\nbody σας text".to_string(),
            "Body ΣΑΣ Text Tag_One ΣΑΣ Edge-A".to_string()
        )
    );
    let mut w = store.write().expect("write");
    w.purge("edge-b").expect("purge");
    w.commit().expect("commit");
    assert_index_exact(&store, "after a purge");
}

#[test]
fn a_haystacks_chunk_whose_memories_are_all_purged_is_removed() {
    let (_dir, store) = temp_store();
    // these memories are small: a chunk holds as many as it may
    let per_chunk = haystacks::MAX_SLOTS;
    let at = |k: usize| (k * per_chunk) as u32;
    put_all(&store, (0..3 * per_chunk).map(|i| numbered(i, false)));
    assert_eq!(haystack_chunks(&store), [at(0), at(1), at(2)]);
    // purge every memory of the middle chunk, found by its document
    let middle: Vec<String> = {
        let reader = store.read().expect("read");
        let mut ids = Vec::new();
        reader
            .for_each(|doc, m| {
                if doc as usize / per_chunk == 1 {
                    ids.push(m.id)
                }
            })
            .expect("memories");
        ids
    };
    assert_eq!(middle.len(), per_chunk);
    let mut w = store.write().expect("write");
    for id in &middle[..per_chunk / 2] {
        w.purge(id).expect("purge");
    }
    w.commit().expect("commit");
    assert_index_exact(&store, "half of the middle chunk purged");
    assert_eq!(haystack_chunks(&store), [at(0), at(1), at(2)]);
    let mut w = store.write().expect("write");
    for id in &middle[per_chunk / 2..] {
        w.purge(id).expect("purge");
    }
    w.commit().expect("commit");
    assert_index_exact(&store, "the middle chunk purged");
    assert_eq!(haystack_chunks(&store), [at(0), at(2)]);
    // put back, they take new documents after the last one
    let mut w = store.write().expect("write");
    for id in &middle {
        let i: usize = id[1..].parse().expect("numbered id");
        w.put(&numbered(i, true)).expect("put");
    }
    w.commit().expect("commit");
    assert_index_exact(&store, "the middle chunk's memories put back");
    assert_eq!(haystack_chunks(&store), [at(0), at(2), at(3)]);
}

// ---------------------------------------------------------------------------------
// Imports.

/// Writes `memories` as a canonical JSONL file and returns its path.
fn jsonl_file(dir: &Path, name: &str, memories: &[Memory]) -> std::path::PathBuf {
    let mut text = Vec::new();
    for m in memories {
        memlens::exchange::json_line::write_json_line(m, &mut text);
        text.push(b'\n');
    }
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write file");
    path
}

fn import_file(
    store: &Store,
    path: &Path,
    on_conflict: OnConflict,
) -> Result<memlens::exchange::ImportSummary, ExchangeError> {
    let source = ImportSource::Path(path.to_path_buf(), Some(Format::Jsonl));
    import(store, &[source], &options(on_conflict))
}

/// Generated memories of realistic length, ids `mem-…`.
fn generated(seed: u64, size: usize) -> Vec<Memory> {
    memlens::corpus::generate(memlens::corpus::CorpusSpec {
        seed,
        size,
        body_bytes_target: 200,
    })
    .collect()
}

/// Asserts every id's stored backlinks are the memories of `model` that link to it.
fn assert_backlinks(store: &Store, model: &BTreeMap<String, Memory>, context: &str) {
    let mut expected: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for m in model.values() {
        for rel in &m.relationships {
            expected.entry(&rel.target).or_default().push(m.id.clone());
        }
    }
    let reader = store.read().expect("read");
    let mut links = 0;
    for (target, mut sources) in expected {
        sources.sort();
        sources.dedup();
        let mut stored = reader.linked_from(target).expect("backlinks");
        stored.sort();
        assert_eq!(stored, sources, "{context}: backlinks of {target}");
        links += sources.len();
    }
    // a memory no one links to has none
    for id in model.keys().take(50) {
        let linked = model
            .values()
            .any(|m| m.relationships.iter().any(|r| &r.target == id));
        if !linked {
            assert!(
                reader.linked_from(id).expect("backlinks").is_empty(),
                "{context}: {id}"
            );
        }
    }
    assert!(
        links > 1_000,
        "{context}: only {links} links, too few to test the commit's second thread"
    );
}

#[test]
fn an_import_large_enough_to_write_its_index_on_two_threads_stays_exact() {
    // 4,000 memories make well over 100,000 postings changes: the flush writes the
    // postings on one thread and the facts and haystacks on another.
    let (dir, store) = temp_store();
    let mut model: BTreeMap<String, Memory> = BTreeMap::new();
    let first = generated(11, 4_000);
    let path = jsonl_file(dir.path(), "first.jsonl", &first);
    let summary = import_file(&store, &path, OnConflict::Fail).expect("import");
    assert_eq!(summary.added, 4_000);
    model.extend(first.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the large import");
    assert_index_exact(&store, "after the large import");
    assert_backlinks(&store, &model, "after the large import");

    // Overwrite half of them with other generated text, and add as many new ones; the
    // first 300 keep their links with a new body (each link removed, then put back).
    let kept: Vec<Memory> = model
        .values()
        .take(300)
        .map(|m| {
            let mut m = m.clone();
            m.body = format!("{} (rewritten)", m.body);
            m
        })
        .collect();
    assert!(kept.iter().filter(|m| !m.relationships.is_empty()).count() > 20);
    let mut second: Vec<Memory> = generated(12, 6_000).into_iter().skip(2_000).collect();
    second.extend(kept);
    let path = jsonl_file(dir.path(), "second.jsonl", &second);
    let summary = import_file(&store, &path, OnConflict::Overwrite).expect("import");
    assert_eq!((summary.added, summary.replaced), (2_000, 2_300));
    model.extend(second.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the large overwrite");
    assert_index_exact(&store, "after the large overwrite");
    assert_backlinks(&store, &model, "after the large overwrite");
}

#[test]
fn an_import_whose_haystacks_are_written_before_its_commit_stays_exact() {
    // Some 11 MB of haystacks, nearly three times the 4 MiB after which an import writes the
    // haystacks it has gathered into their chunks and goes on: each write ends in a
    // chunk that the next one reopens and fills.
    let (dir, store) = temp_store();
    let mut model: BTreeMap<String, Memory> = BTreeMap::new();
    let long = |i: usize, words: &str| {
        let mut m = numbered(i, false);
        m.body = format!("{} {}", m.body, words.repeat(500));
        m
    };
    let first: Vec<Memory> = (0..1_000)
        .map(|i| long(i, &format!("w{} ", i % 97).repeat(6)))
        .collect();
    let text: usize = first.iter().map(|m| m.body.len()).sum();
    assert!(text > 10_000_000, "only {text} bytes of haystacks");
    let path = jsonl_file(dir.path(), "long.jsonl", &first);
    let summary = import_file(&store, &path, OnConflict::Fail).expect("import");
    assert_eq!(summary.added, 1_000);
    model.extend(first.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the long import");
    assert_index_exact(&store, "after the long import");

    // every third one rewritten, shorter or longer, among as many new ones
    let second: Vec<Memory> = (0..2_000)
        .filter(|i| i % 3 == 0 || *i >= 1_000)
        .map(|i| {
            long(
                i,
                if i % 2 == 0 {
                    "x "
                } else {
                    "longer words here "
                },
            )
        })
        .collect();
    let path = jsonl_file(dir.path(), "second.jsonl", &second);
    let summary = import_file(&store, &path, OnConflict::Overwrite).expect("import");
    assert_eq!((summary.added, summary.replaced), (1_000, 334));
    model.extend(second.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the long overwrite");
    assert_index_exact(&store, "after the long overwrite");
}

#[test]
fn imports_keep_the_index_exact_and_failed_imports_change_nothing() {
    let (dir, store) = temp_store();
    let mut model: BTreeMap<String, Memory> = BTreeMap::new();
    let existing: Vec<Memory> = (0..100).map(|i| numbered(i, false)).collect();
    put_all(&store, existing.iter().cloned());
    model.extend(existing.into_iter().map(|m| (m.id.clone(), m)));
    // 600 new memories in one run: the common term's blocks split during the import.
    let fresh: Vec<Memory> = (100..700)
        .map(|i| numbered(i, i.is_multiple_of(4)))
        .collect();
    let path = jsonl_file(dir.path(), "fresh.jsonl", &fresh);
    let summary = import_file(&store, &path, OnConflict::Fail).expect("import");
    assert_eq!(summary.added, 600);
    model.extend(fresh.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the first import");
    let blocks = assert_index_exact(&store, "after the first import");
    assert!(blocks["shared"] > 1);

    // Overwrite: scattered stored ids change content, type and deletion; new ids too.
    let changed: Vec<Memory> = (0..700)
        .step_by(9)
        .map(|i| {
            let mut m = numbered(i, false);
            m.body = format!("rewritten ÉCOLE {i} naïve_word");
            m.title = Some(format!("Title {i}"));
            m.memory_type = if i.is_multiple_of(2) {
                "session_recap"
            } else {
                "note"
            }
            .into();
            m.deleted_at = i
                .is_multiple_of(4)
                .then_some(Timestamp(1_900_000_000_000_000_000));
            m.tags = vec!["imported".into(), "Tag_X".into()];
            m
        })
        .chain((700..760).map(|i| numbered(i, true)))
        .collect();
    let path = jsonl_file(dir.path(), "overwrite.jsonl", &changed);
    let summary = import_file(&store, &path, OnConflict::Overwrite).expect("import");
    assert_eq!((summary.added, summary.replaced), (60, 78));
    model.extend(changed.iter().map(|m| (m.id.clone(), m.clone())));
    assert_holds(&store, &model, "after the overwrite");
    assert_index_exact(&store, "after the overwrite");

    // Skip: stored ids keep their memories, new ones are added.
    let mut skipped: Vec<Memory> = (0..50).map(|i| numbered(i, true)).collect();
    for m in &mut skipped {
        m.body = "should not be stored".into();
    }
    let new_one = numbered(800, false);
    skipped.push(new_one.clone());
    let path = jsonl_file(dir.path(), "skip.jsonl", &skipped);
    let summary = import_file(&store, &path, OnConflict::Skip).expect("import");
    assert_eq!((summary.added, summary.skipped), (1, 50));
    model.insert(new_one.id.clone(), new_one);
    assert_holds(&store, &model, "after the skipping import");
    assert_index_exact(&store, "after the skipping import");

    // A conflict under `fail`, and a duplicate within one file: nothing is written,
    // though the run wrote (then dropped) index changes for the records before them.
    let mut conflicting: Vec<Memory> = (900..1000).map(|i| numbered(i, true)).collect();
    conflicting.push(numbered(3, true));
    let path = jsonl_file(dir.path(), "conflict.jsonl", &conflicting);
    assert!(import_file(&store, &path, OnConflict::Fail).is_err());
    let mut duplicated: Vec<Memory> = (900..1000).map(|i| numbered(i, true)).collect();
    duplicated.push(numbered(950, false));
    let path = jsonl_file(dir.path(), "duplicate.jsonl", &duplicated);
    assert!(import_file(&store, &path, OnConflict::Overwrite).is_err());
    assert_holds(&store, &model, "after the failed imports");
    assert_index_exact(&store, "after the failed imports");
}

// ---------------------------------------------------------------------------------
// Rebuilding on open.

/// Changes the closed store file with raw redb: `f` gets a write transaction.
fn with_raw_db(path: &Path, f: impl FnOnce(&redb::WriteTransaction)) {
    let db = redb::Database::create(path).expect("raw open");
    let txn = db.begin_write().expect("begin");
    f(&txn);
    txn.commit().expect("commit");
}

/// Whether the closed store file has a postings, facts or haystack table, and whether
/// it has the current index marker.
fn has_index(path: &Path) -> (bool, bool) {
    let db = redb::Database::create(path).expect("raw open");
    let txn = db.begin_read().expect("read");
    let tables: Vec<String> = txn
        .list_tables()
        .expect("tables")
        .map(|t| t.name().to_string())
        .collect();
    let has_tables = tables.iter().any(|t| {
        [
            "postings",
            "facts",
            "haystacks",
            "literal_text",
            "fuzzy_text",
        ]
        .contains(&t.as_str())
    });
    (has_tables, index_is_current(&txn).expect("meta"))
}

/// A store with sparse documents and split blocks, closed; returns its file.
/// The path of a closed store (see `split_store`) and what its index holds.
fn closed_store(dir: &Path) -> (std::path::PathBuf, IndexContents) {
    let path = dir.join("store.redb");
    let store = Store::open(&path).expect("open");
    split_store(&store);
    let mut w = store.write().expect("write");
    for i in (0..700).step_by(4) {
        w.purge(&format!("n{i:04}")).expect("purge");
    }
    w.commit().expect("commit");
    assert_index_exact(&store, "before closing");
    let memories = brute_force(&store);
    (path, memories)
}

#[test]
fn a_store_without_postings_facts_haystacks_or_marker_is_rebuilt_exactly_on_open() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, before) = closed_store(dir.path());
    with_raw_db(&path, |txn| {
        assert!(txn.delete_table(POSTINGS).expect("delete postings"));
        assert!(txn.delete_table(FACTS).expect("delete facts"));
        assert!(txn.delete_table(LITERAL_TEXT).expect("delete haystacks"));
        assert!(txn.delete_table(FUZZY_TEXT).expect("delete haystacks"));
        let mut meta = txn.open_table(META).expect("meta");
        assert!(meta.remove(KEY_INDEX).expect("remove").is_some());
    });
    assert_eq!(
        has_index(&path),
        (false, false),
        "the index was not removed"
    );
    let store = Store::open(&path).expect("reopen");
    let blocks = assert_index_exact(&store, "after the rebuild");
    assert!(blocks["shared"] > 1);
    assert_eq!(brute_force(&store), before, "the memories changed");
    drop(store);
    assert_eq!(has_index(&path), (true, true));
}

#[test]
fn a_store_larger_than_a_rebuild_batch_is_rebuilt_exactly() {
    // 20,000 memories: the rebuild decodes them in two batches, the first (16,384) on
    // every core
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("store.redb");
    let before = {
        let store = Store::open(&path).expect("open");
        let memories = generated(13, 20_000);
        let file = jsonl_file(dir.path(), "m.jsonl", &memories);
        import_file(&store, &file, OnConflict::Fail).expect("import");
        brute_force(&store)
    };
    with_raw_db(&path, |txn| {
        txn.open_table(META)
            .expect("meta")
            .insert(KEY_INDEX, 4u32.to_le_bytes().as_slice())
            .expect("insert");
    });
    assert!(!has_index(&path).1, "version 4 taken for the current index");
    let store = Store::open(&path).expect("reopen");
    assert_index_exact(&store, "after rebuilding 20,000 memories");
    assert_eq!(brute_force(&store), before, "the memories changed");
}

#[test]
fn a_damaged_search_record_and_an_orphan_are_repaired_by_the_rebuild() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, before) = closed_store(dir.path());
    let damaged = Store::open(&path)
        .expect("open")
        .read()
        .expect("read")
        .doc_of("n0301")
        .expect("ids")
        .expect("stored");
    let orphan = 50_000u32;
    with_raw_db(&path, |txn| {
        let mut records = txn.open_table(SEARCH_DOCS).expect("records");
        assert!(
            records
                .insert(damaged, SealedBytes::from_sealed(&b"\x01garbage"[..]))
                .expect("insert")
                .is_some()
        );
        assert!(
            records
                .insert(orphan, SealedBytes::from_sealed(&b"\xffmore"[..]))
                .expect("insert")
                .is_none()
        );
        drop(records);
        assert!(txn.delete_table(LITERAL_TEXT).expect("delete haystacks"));
        assert!(txn.delete_table(FUZZY_TEXT).expect("delete haystacks"));
        let mut meta = txn.open_table(META).expect("meta");
        meta.remove(KEY_INDEX).expect("remove");
    });
    let store = Store::open(&path).expect("reopen");
    assert_index_exact(&store, "after the rebuild");
    assert_eq!(brute_force(&store), before);
    let reader = store.read().expect("read");
    let records = reader.table(SEARCH_DOCS).expect("records");
    assert!(records.get(orphan).expect("get").is_none(), "orphan kept");
    let stored = records.get(damaged).expect("get").expect("kept");
    let record =
        SearchRecord::decode(stored.value().open(&damaged).expect("sealed")).expect("repaired");
    assert_eq!(record.id, "n0301");
}

#[test]
fn a_store_of_index_version_1_gains_its_haystacks_on_open() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, before) = closed_store(dir.path());
    // what a store written before the haystacks table existed holds
    with_raw_db(&path, |txn| {
        assert!(txn.delete_table(LITERAL_TEXT).expect("delete haystacks"));
        assert!(txn.delete_table(FUZZY_TEXT).expect("delete haystacks"));
        let mut meta = txn.open_table(META).expect("meta");
        let old = meta
            .insert(KEY_INDEX, 1u32.to_le_bytes().as_slice())
            .expect("insert");
        assert!(old.is_some(), "the store had no index marker");
    });
    assert!(!has_index(&path).1, "version 1 taken for the current index");
    let store = Store::open(&path).expect("reopen");
    assert_index_exact(&store, "after opening a version 1 store");
    assert_eq!(brute_force(&store), before, "the memories changed");
}

#[test]
fn a_store_of_an_older_index_version_has_its_search_records_rewritten_on_open() {
    // index version 3 stored term lengths and frequencies in four bytes each (record
    // version 1); version 4 kept the haystacks in every record too (record version 2);
    // version 5 kept each memory's terms in its record (record version 3); version 6
    // every score in eight bytes (record version 4). This build reads none of these
    // records.
    for (index_version, record_version) in [(3u32, 1u8), (4, 2), (5, 3), (6, 4)] {
        older_records_are_rewritten(index_version, record_version);
    }
}

fn older_records_are_rewritten(index_version: u32, record_version: u8) {
    let context = format!("after opening a version {index_version} store");
    let dir = tempfile::tempdir().expect("dir");
    let (path, before) = closed_store(dir.path());
    let mut old_records = 0;
    with_raw_db(&path, |txn| {
        let mut records = txn.open_table(SEARCH_DOCS).expect("records");
        let docs: Vec<u32> = records
            .iter()
            .expect("iter")
            .map(|e| e.expect("entry").0.value())
            .collect();
        for doc in docs {
            let mut bytes = records
                .get(doc)
                .expect("get")
                .expect("record")
                .value()
                .open(&doc)
                .expect("sealed")
                .to_vec();
            bytes[0] = record_version;
            records
                .insert(doc, SealedBuf::new(&doc, &bytes).value())
                .expect("insert");
            old_records += 1;
        }
        txn.open_table(META)
            .expect("meta")
            .insert(KEY_INDEX, index_version.to_le_bytes().as_slice())
            .expect("insert");
    });
    assert!(old_records > 0);
    assert!(
        !has_index(&path).1,
        "{context}: taken for the current index"
    );
    let store = Store::open(&path).expect("reopen");
    let reader = store.read().expect("read");
    assert!(
        reader.index_is_current().expect("meta"),
        "{context}: no rebuild on open"
    );
    let records = reader.table(SEARCH_DOCS).expect("records");
    for entry in records.iter().expect("iter") {
        let (doc, bytes) = entry.expect("entry");
        assert!(
            SearchRecord::decode(bytes.value().open(&doc.value()).expect("sealed")).is_some(),
            "{context}: record {} left in the old form",
            doc.value()
        );
    }
    drop(records);
    drop(reader);
    assert_index_exact(&store, &context);
    assert_eq!(
        brute_force(&store),
        before,
        "{context}: the memories changed"
    );
}

#[test]
fn a_damaged_search_record_under_a_current_index_is_healed_by_the_next_write() {
    let dir = tempfile::tempdir().expect("dir");
    let (path, _) = closed_store(dir.path());
    let docs = {
        let store = Store::open(&path).expect("open");
        let reader = store.read().expect("read");
        ["n0301", "n0302"].map(|id| reader.doc_of(id).expect("ids").expect("stored"))
    };
    with_raw_db(&path, |txn| {
        let mut records = txn.open_table(SEARCH_DOCS).expect("records");
        for doc in docs {
            records
                .insert(doc, SealedBytes::from_sealed(&b"\x01garbage"[..]))
                .expect("insert");
        }
    });
    let store = Store::open(&path).expect("reopen");
    let mut w = store.write().expect("write");
    let mut changed = numbered(301, false);
    changed.body = "entirely new words".into();
    w.put(&changed).expect("put");
    w.purge("n0302").expect("purge");
    w.commit().expect("commit");
    assert_index_exact(&store, "after writing the damaged ones");
}

// ---------------------------------------------------------------------------------
// The checker itself: every kind of damage to the index is noticed.

/// The postings of one block of `term` in a closed store file: (first doc, postings).
fn raw_blocks(txn: &redb::WriteTransaction, term: &str) -> Vec<(u32, Vec<Posting>)> {
    let table = txn.open_table(POSTINGS).expect("postings");
    let mut out = Vec::new();
    let (low, high) = (postings::key(term, 0), postings::key(term, u32::MAX));
    for entry in table
        .range(low.as_slice()..=high.as_slice())
        .expect("range")
    {
        let (key, value) = entry.expect("entry");
        let first = postings::key_doc(key.value()).expect("key");
        let mut block = Vec::new();
        let value = value.value().open(&key.value()).expect("sealed");
        postings::decode_into(first, value, &mut block).expect("decode");
        out.push((first, block));
    }
    out
}

fn replace_blocks(txn: &redb::WriteTransaction, term: &str, blocks: &[(u32, Vec<Posting>)]) {
    let old = raw_blocks(txn, term);
    let mut table = txn.open_table(POSTINGS).expect("postings");
    for (first, _) in old {
        table
            .remove(postings::key(term, first).as_slice())
            .expect("remove");
    }
    for (start, block) in blocks {
        let bytes = postings::encode(*start, block);
        let key = postings::key(term, *start);
        table
            .insert(
                key.as_slice(),
                SealedBuf::new(&key.as_slice(), &bytes).value(),
            )
            .expect("insert");
    }
}

/// A table of haystacks chunks.
type TextTable = redb::TableDefinition<'static, u32, memlens::index::sealed::Sealed>;

/// The first document of the first (or, with `last`, the last) chunk of `table` in a
/// closed store file.
fn chunk_key(txn: &redb::WriteTransaction, table: TextTable, last: bool) -> u32 {
    let table = txn.open_table(table).expect("haystacks");
    let mut keys = table
        .iter()
        .expect("iter")
        .map(|e| e.expect("entry").0.value());
    let key = if last { keys.next_back() } else { keys.next() };
    key.expect("chunk stored")
}

/// The first document and the haystack of every slot of the first (or last) chunk of
/// `table` in a closed store file.
fn raw_chunk(txn: &redb::WriteTransaction, table: TextTable, last: bool) -> (u32, Vec<Vec<u8>>) {
    let first = chunk_key(txn, table, last);
    let table = txn.open_table(table).expect("haystacks");
    let bytes = table.get(first).expect("get").expect("chunk stored");
    let c = Chunk::parse(bytes.value().open(&first).expect("sealed")).expect("chunk parses");
    let docs = (0..c.len()).map(|s| c.get(s).to_vec()).collect();
    (first, docs)
}

fn put_chunk(txn: &redb::WriteTransaction, table: TextTable, first: u32, docs: &[Vec<u8>]) {
    let mut table = txn.open_table(table).expect("haystacks");
    let slots: Vec<&[u8]> = docs.iter().map(Vec::as_slice).collect();
    table
        .insert(
            first,
            SealedBuf::new(&first, &haystacks::encode(&slots)).value(),
        )
        .expect("insert");
}

/// The first slot of `docs` whose document holds a memory (`true`) or holds none.
fn slot_where(docs: &[Vec<u8>], holds_memory: bool) -> usize {
    docs.iter()
        .position(|h| h.is_empty() != holds_memory)
        .expect("such a slot")
}

/// The text of a caught panic.
fn panic_text(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else {
        String::new()
    }
}

#[test]
fn the_checker_notices_every_kind_of_damage() {
    let dir = tempfile::tempdir().expect("dir");
    let (original, _) = closed_store(dir.path());
    type Damage = fn(&redb::WriteTransaction);
    // each damage with the words of the assertion meant to catch it
    let damages: [(&str, &[&str], Damage); 15] = [
        ("a frequency off by one", &["postings of `group3`"], |txn| {
            let mut blocks = raw_blocks(txn, "group3");
            blocks[0].1[0].1 += 1;
            replace_blocks(txn, "group3", &blocks);
        }),
        ("a posting missing", &["postings of `shared`"], |txn| {
            let mut blocks = raw_blocks(txn, "shared");
            blocks[1].1.pop();
            replace_blocks(txn, "shared", &blocks);
        }),
        ("a term in no memory", &["terms not in any memory"], |txn| {
            replace_blocks(txn, "zz_absent", &[(1, vec![(1, 1)])]);
        }),
        ("an empty block", &["(group4, 650) is empty"], |txn| {
            let mut blocks = raw_blocks(txn, "group4");
            blocks.push((650, Vec::new()));
            replace_blocks(txn, "group4", &blocks);
        }),
        (
            "a block keyed before its first document",
            &["is keyed wrong"],
            |txn| {
                let mut blocks = raw_blocks(txn, "shared");
                blocks[1].0 -= 1;
                replace_blocks(txn, "shared", &blocks);
            },
        ),
        ("a block too large", &[") holds "], |txn| {
            let all: Vec<Posting> = raw_blocks(txn, "shared")
                .into_iter()
                .flat_map(|b| b.1)
                .collect();
            assert!(all.len() > MAX_BLOCK);
            replace_blocks(txn, "shared", &[(all[0].0, all)]);
        }),
        (
            "blocks out of order",
            &["starts at or before the previous block's end"],
            |txn| {
                let mut blocks = raw_blocks(txn, "shared");
                let moved = blocks[0].1.remove(0);
                blocks[0].0 = blocks[0].1[0].0;
                blocks[1].1.insert(0, moved);
                blocks[1].1.sort_unstable();
                blocks[1].0 = blocks[1].1[0].0;
                replace_blocks(txn, "shared", &blocks);
            },
        ),
        ("a facts chunk missing", &[": facts\n"], |txn| {
            let mut facts = txn.open_table(FACTS).expect("facts");
            facts.remove(0).expect("remove").expect("chunk 0 stored");
        }),
        (
            "a wrong literal text",
            &["literal haystack of document", "in the haystacks tables"],
            |txn| {
                let (first, mut docs) = raw_chunk(txn, LITERAL_TEXT, false);
                let s = slot_where(&docs, true);
                docs[s].extend_from_slice(b" extra");
                put_chunk(txn, LITERAL_TEXT, first, &docs);
            },
        ),
        (
            "a wrong fuzzy text",
            &["fuzzy haystack of document", "in the haystacks tables"],
            |txn| {
                let (first, mut docs) = raw_chunk(txn, FUZZY_TEXT, true);
                let s = slot_where(&docs, true);
                docs[s].insert(0, b'z');
                put_chunk(txn, FUZZY_TEXT, first, &docs);
            },
        ),
        (
            "text where no memory is",
            &["holds no memory but has haystacks in the haystacks tables"],
            |txn| {
                let (first, mut docs) = raw_chunk(txn, FUZZY_TEXT, false);
                let s = slot_where(&docs, false);
                docs[s] = b"ghost".to_vec();
                put_chunk(txn, FUZZY_TEXT, first, &docs);
            },
        ),
        (
            "a haystacks chunk missing",
            &["literal: haystacks chunks stored"],
            |txn| {
                let first = chunk_key(txn, LITERAL_TEXT, true);
                let mut table = txn.open_table(LITERAL_TEXT).expect("haystacks");
                table.remove(first).expect("remove").expect("chunk stored");
            },
        ),
        (
            "a fuzzy chunk missing",
            &["fuzzy: haystacks chunks stored"],
            |txn| {
                let first = chunk_key(txn, FUZZY_TEXT, false);
                let mut table = txn.open_table(FUZZY_TEXT).expect("haystacks");
                table.remove(first).expect("remove").expect("chunk stored");
            },
        ),
        (
            "a haystacks chunk of empty slots",
            &["haystacks chunks stored"],
            |txn| {
                let (last, docs) = raw_chunk(txn, LITERAL_TEXT, true);
                let end = last + docs.len() as u32;
                put_chunk(txn, LITERAL_TEXT, end + 10, &vec![Vec::new(); 8]);
            },
        ),
        (
            "an undecodable haystacks chunk",
            &["haystacks chunk at document", "cannot be decoded"],
            |txn| {
                let first = chunk_key(txn, LITERAL_TEXT, false);
                let mut table = txn.open_table(LITERAL_TEXT).expect("haystacks");
                let mut bytes = table
                    .get(first)
                    .expect("get")
                    .expect("stored")
                    .value()
                    .open(&first)
                    .expect("sealed")
                    .to_vec();
                bytes.pop();
                table
                    .insert(first, SealedBuf::new(&first, &bytes).value())
                    .expect("insert");
            },
        ),
    ];
    for (name, words, damage) in damages {
        // the damage's name must not itself say what the assertion says
        assert!(words.iter().all(|w| !name.contains(w)), "{name}");
        let path = dir.path().join("damaged.redb");
        std::fs::copy(&original, &path).expect("copy");
        with_raw_db(&path, damage);
        let store = Store::open(&path).expect("open");
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            assert_index_exact(&store, name);
        }));
        let payload = caught.expect_err(&format!("not noticed: {name}"));
        let text = panic_text(payload.as_ref());
        assert!(
            words.iter().all(|w| text.contains(w)),
            "{name} was caught by another assertion than {words:?}: {text}"
        );
    }
    // the undamaged copy passes, so each failure above is the damage's
    let path = dir.path().join("undamaged.redb");
    std::fs::copy(&original, &path).expect("copy");
    assert_index_exact(&Store::open(&path).expect("open"), "undamaged copy");
}

/// `numbered(i, twice)` linking to two other memories, one of them perhaps never stored.
fn linked(i: usize, twice: bool) -> Memory {
    let mut m = numbered(i, twice);
    m.relationships = [(i * 7 + 1) % 1_300, i + 5_000]
        .into_iter()
        .filter(|&target| target != i)
        .map(|target| memlens::model::Relationship {
            target: format!("n{target:04}"),
            kind: "related".into(),
            strength: None,
        })
        .collect();
    m
}

/// Imports a JSONL file in steps of `step_bytes`.
fn import_in_steps(
    store: &Store,
    path: &Path,
    on_conflict: OnConflict,
    step_bytes: usize,
) -> Result<memlens::exchange::ImportSummary, ExchangeError> {
    let source = ImportSource::Path(path.to_path_buf(), Some(Format::Jsonl));
    let options = memlens::exchange::ImportOptions {
        step_bytes,
        ..options(on_conflict)
    };
    import(store, &[source], &options)
}

#[test]
fn an_import_in_steps_stays_exact_and_a_failed_one_is_undone_with_its_steps() {
    let (dir, store) = temp_store();
    // steps are taken by a store this process holds alone, as `memlens import` opens it
    let file = store.path().to_path_buf();
    drop(store);
    let store = Store::open_for_import(&file, &|_| {}).unwrap();
    let mut model: BTreeMap<String, Memory> = BTreeMap::new();
    let existing: Vec<Memory> = (0..100).map(|i| linked(i, false)).collect();
    put_all(&store, existing.iter().cloned());
    model.extend(existing.into_iter().map(|m| (m.id.clone(), m)));

    // 900 new memories in steps of 20 kB: a step after each batch the reader hands over
    // (256 memories), each committed before the next one writes
    let fresh: Vec<Memory> = (100..1_000).map(|i| linked(i, i % 4 == 0)).collect();
    let path = jsonl_file(dir.path(), "fresh.jsonl", &fresh);
    let summary = import_in_steps(&store, &path, OnConflict::Fail, 20_000).expect("import");
    assert_eq!(summary.added, 900);
    assert!(summary.steps >= 3, "only {} steps", summary.steps);
    model.extend(fresh.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the import in steps");
    assert_index_exact(&store, "after the import in steps");
    assert_backlinks(&store, &model, "after the import in steps");
    let before = exchange_support::export_all(&store);

    // every other memory overwritten and 200 new ones, with a bad last line: the run
    // takes the steps the same run without that line takes (below), then is undone
    let next: Vec<Memory> = (0..1_400).step_by(2).map(|i| linked(i, true)).collect();
    let good = jsonl_file(dir.path(), "next.jsonl", &next);
    let mut text = std::fs::read_to_string(&good).expect("read");
    text.push_str("{\"id\":\"n9999\",\"body\":\"too heavy\",\"weight\":2}\n");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, text).expect("write");
    let failed = import_in_steps(&store, &bad, OnConflict::Overwrite, 20_000);
    assert!(
        matches!(failed, Err(ExchangeError::Invalid { .. })),
        "{failed:?}"
    );
    assert!(
        exchange_support::export_all(&store) == before,
        "the failed import left changes behind"
    );
    assert_holds(&store, &model, "after the failed import");
    assert_index_exact(&store, "after the failed import");
    assert_backlinks(&store, &model, "after the failed import");

    let summary = import_in_steps(&store, &good, OnConflict::Overwrite, 20_000).expect("import");
    assert_eq!((summary.added, summary.replaced), (200, 500));
    assert!(summary.steps >= 3, "only {} steps", summary.steps);
    model.extend(next.into_iter().map(|m| (m.id.clone(), m)));
    assert_holds(&store, &model, "after the overwrite in steps");
    assert_index_exact(&store, "after the overwrite in steps");
    assert_backlinks(&store, &model, "after the overwrite in steps");

    // the same store imported in one step holds the same
    let (_other_dir, other) = temp_store();
    put_all(&other, (0..100).map(|i| linked(i, false)));
    let once = import_in_steps(&other, &path, OnConflict::Fail, usize::MAX).expect("import");
    assert_eq!(once.steps, 0);
    import_in_steps(&other, &good, OnConflict::Overwrite, usize::MAX).expect("import");
    assert!(
        exchange_support::export_all(&other) == exchange_support::export_all(&store),
        "steps changed what is stored"
    );
}
