//! The corpus of a request read from the persisted index: only the columns the
//! request's filters, mode and the filter panel read, from the facts, the per-field
//! columns ([`crate::index::columns`], relationship_count among them), with no text (the engines
//! read the haystack chunks, [`super::stored_text`]) and no terms (BM25 reads the
//! postings). The same filter, engine, order and page code as the loaded searcher
//! then runs over it, so both answer alike by construction.

use crate::index::RecordView;
use crate::index::SEARCH_DOCS;
use crate::index::columns::{self, COLUMNS, Field, NONE, Values};
use crate::index::facts::{self, FACTS};
use crate::model::{Composite, Scope, Status};
use crate::search::Stop;
use crate::search::column::Column;
use crate::search::corpus::{Corpus, Fixed, NO_MODULE};
use crate::search::fuzzy::Ranking;
use crate::search::order::{sort_field, time_ranks as time_ranks_of};
use crate::search::request::{BrowseMode, Filters, NumericField};
use crate::search::searcher::storage;
use crate::store::{StoreReader, StoreResult};
use foldhash::HashSet;
use std::ops::ControlFlow;

/// What a request reads beside the facts (documents, created_at, deleted, lengths),
/// the types and the statuses, which every filter reads.
#[derive(Debug, Default, Clone)]
pub(crate) struct Needs {
    fields: HashSet<Field>,
    /// Whether the engine reads every memory's time rank (fuzzy keeping its best `k`
    /// ranks by it as it scans); the orders do without, reading the ids of tied
    /// memories instead.
    time_ranks: bool,
}

impl Needs {
    /// Adds what a numeric field's values are computed from.
    pub(crate) fn numeric(&mut self, field: NumericField) {
        let add = |f: &mut HashSet<Field>, x| {
            f.insert(x);
        };
        match field {
            NumericField::Feel(i) => add(&mut self.fields, Field::Feel(i)),
            NumericField::Composite(c) => add(&mut self.fields, Field::Composite(c.index())),
            NumericField::Weight => add(&mut self.fields, Field::Weight),
            NumericField::Trust => add(&mut self.fields, Field::Trust),
            NumericField::Confidence => add(&mut self.fields, Field::Confidence),
            NumericField::RemVisits => add(&mut self.fields, Field::RemVisits),
            NumericField::TrustLevel => add(&mut self.fields, Field::TrustLevel),
            NumericField::RatingBayesian => {
                add(&mut self.fields, Field::RatingSum);
                add(&mut self.fields, Field::RatingCount);
            }
            NumericField::RatingCount => add(&mut self.fields, Field::RatingCount),
            NumericField::RatingSum => add(&mut self.fields, Field::RatingSum),
            NumericField::ReadCount => add(&mut self.fields, Field::ReadCount),
            NumericField::UpdatedAt => add(&mut self.fields, Field::UpdatedAt),
            NumericField::RelationshipCount => add(&mut self.fields, Field::Links),
            NumericField::CreatedAt => {}
        }
    }

    /// What `filters` read.
    pub(crate) fn filters(&mut self, f: &Filters) {
        // the default filters' session recaps are told by the facts
        if !f.types.is_empty() || !f.exclude_types.is_empty() {
            self.fields.insert(Field::Type);
        }
        if f.exclude_rejected || !f.statuses.is_empty() {
            self.fields.insert(Field::Status);
        }
        if !f.scopes.is_empty() {
            self.fields.insert(Field::Scope);
        }
        if !f.modules.is_empty() {
            self.fields.insert(Field::Module);
        }
        if !f.tags.is_empty() {
            self.fields.insert(Field::Tags);
        }
        if f.has_relationships.is_some() {
            self.fields.insert(Field::Links);
        }
        let ranges = [
            (NumericField::Weight, f.weight),
            (NumericField::Trust, f.trust),
            (NumericField::TrustLevel, f.trust_level),
            (NumericField::RelationshipCount, f.relationship_count),
        ];
        for (field, r) in ranges {
            if !r.is_open() {
                self.numeric(field);
            }
        }
        if f.rating_min.is_some() {
            self.numeric(NumericField::RatingBayesian);
        }
        for (i, r) in f.feel.iter().enumerate() {
            if !r.is_open() {
                self.numeric(NumericField::Feel(i));
            }
        }
        for (c, r) in Composite::ALL.iter().zip(&f.composites) {
            if !r.is_open() {
                self.numeric(NumericField::Composite(*c));
            }
        }
    }

    /// What a browse mode orders by. One match over the modes, so a new mode names
    /// what it reads here.
    pub(crate) fn mode(&mut self, mode: BrowseMode) {
        match mode {
            BrowseMode::Discovery => self.numeric(NumericField::RatingBayesian),
            other => {
                if let Some(field) = sort_field(other) {
                    self.numeric(field);
                }
            }
        }
    }

    /// What the engine of `req` reads beside the haystacks.
    pub(crate) fn engine(&mut self, req: &crate::search::SearchRequest) {
        let upto = req.offset.saturating_add(req.limit);
        if req.engine == crate::search::Engine::Fuzzy
            && !req.query.trim().is_empty()
            && Ranking::of(req, upto).kept().is_some()
        {
            self.time_ranks = true;
        }
    }

    /// The names of the filter panel's choices (types, tags, modules).
    pub(crate) fn facets(&mut self) {
        self.fields.insert(Field::Type);
        self.fields.insert(Field::Tags);
        self.fields.insert(Field::Module);
    }
}

/// The slot of every document of the facts, walked alongside the stored chunks of one
/// column: calls `f(slot, chunk values, position in chunk, first slot of the chunk)`
/// for every slot in order, a chunk that is not stored reading as the field's default.
fn walk(
    reader: &StoreReader,
    table: &redb::ReadOnlyTable<(&'static str, u32), crate::schema::sealed::Sealed>,
    docs: &Fixed<u32>,
    field: Field,
    stop: Stop<'_>,
    f: impl FnMut(usize, &Values, usize, bool),
) -> StoreResult<bool> {
    let sparse = docs.len() < SPARSE_BELOW;
    let chunks = |each: &mut dyn FnMut(u32, &Values) -> ControlFlow<()>| {
        if !sparse {
            return columns::for_each(table, field, |chunk, values| each(chunk, values));
        }
        // a few memories: only the chunks that hold them
        let mut last = None;
        for &doc in docs.iter() {
            let chunk = doc / columns::CHUNK_DOCS;
            if last.replace(chunk) != Some(chunk)
                && let Some(values) = columns::get(table, field, chunk)?
                && each(chunk, &values).is_break()
            {
                break;
            }
        }
        Ok(())
    };
    walk_chunks(reader, docs, &columns::empty(field), chunks, stop, f)
}

/// Below this many memories, a corpus reads each column's chunks that hold them one by
/// one instead of walking every stored chunk. Small in debug builds, so that the tests'
/// small collections take both ways.
const SPARSE_BELOW: usize = if cfg!(debug_assertions) { 8 } else { 4096 };

/// [`walk`] over chunks of any kind that `chunks` reads, `empty` standing for a chunk
/// not stored; false when `stop` said so before a chunk (then not every slot was
/// given its value).
fn walk_chunks<V>(
    reader: &StoreReader,
    docs: &Fixed<u32>,
    empty: &V,
    chunks: impl FnOnce(&mut dyn FnMut(u32, &V) -> ControlFlow<()>) -> Result<(), redb::StorageError>,
    stop: Stop<'_>,
    mut f: impl FnMut(usize, &V, usize, bool),
) -> StoreResult<bool> {
    let mut slot = 0;
    let per = columns::CHUNK_DOCS;
    let mut stopped = false;
    chunks(&mut |chunk, values| {
        if stop() {
            stopped = true;
            return ControlFlow::Break(());
        }
        while slot < docs.len() && docs[slot] / per < chunk {
            f(slot, empty, (docs[slot] % per) as usize, true);
            slot += 1;
        }
        let mut first = true;
        while slot < docs.len() && docs[slot] / per == chunk {
            f(slot, values, (docs[slot] % per) as usize, first);
            first = false;
            slot += 1;
        }
        ControlFlow::Continue(())
    })
    .map_err(|e| storage(reader, e))?;
    if stopped {
        return Ok(false);
    }
    while slot < docs.len() {
        f(slot, empty, (docs[slot] % per) as usize, true);
        slot += 1;
    }
    Ok(true)
}

/// Reads the corpus `needs` asks for; `None` when the persisted index is not current
/// or does not agree with itself (the caller loads the store instead).
pub(crate) fn load(reader: &StoreReader, needs: &Needs) -> StoreResult<Option<Corpus>> {
    load_among(reader, needs, None)
}

/// [`load`] of the memories stored under `docs` (ascending) only: what a BM25 query
/// reads when its postings name every memory it can find. The corpus holds no tags
/// (`None` when `needs` asks for them).
pub(crate) fn load_docs(
    reader: &StoreReader,
    needs: &Needs,
    docs: &[u32],
) -> StoreResult<Option<Corpus>> {
    if needs.fields.contains(&Field::Tags) {
        return Ok(None);
    }
    load_among(reader, needs, Some(docs))
}

fn load_among(
    reader: &StoreReader,
    needs: &Needs,
    only: Option<&[u32]>,
) -> StoreResult<Option<Corpus>> {
    if !reader.index_is_current()? {
        return Ok(None);
    }
    let mut c = Corpus::without_terms();
    c.stored_text = true;
    let facts_table = reader.table(FACTS)?;
    match only {
        None => read_all_facts(reader, &facts_table, &mut c)?,
        Some(docs) => {
            let facts = facts::get_many(&facts_table, docs).map_err(|e| storage(reader, e))?;
            let mut run = FactRun::new();
            let present = docs.iter().zip(facts).filter_map(|(&d, f)| Some((d, f?)));
            run.add(&mut c, present);
            run.join(&mut c);
        }
    }
    let fields: Vec<Field> = needs.fields.iter().copied().collect();
    if !read_fields(reader, &mut c, fields, &crate::search::never)? {
        return Ok(None);
    }
    if needs.time_ranks {
        c.time_rank = time_ranks(reader, &c)?;
    }
    Ok(Some(c))
}

/// Reads the columns of `fields` for every document of `c` into it, on both cores
/// (every other field each) from [`PARALLEL_FIELDS`] memories on; false when a stored
/// chunk does not agree with the facts (the caller loads the store instead) or when
/// `stop` said so between two chunks. `c` gains the fields only when all were read.
fn read_fields(
    reader: &StoreReader,
    c: &mut Corpus,
    mut fields: Vec<Field>,
    stop: Stop<'_>,
) -> StoreResult<bool> {
    fields.sort_by_key(|f| f.name());
    fields.dedup();
    let docs = std::mem::take(&mut c.docs);
    let even: Vec<Field> = fields.iter().copied().step_by(2).collect();
    let odd: Vec<Field> = fields.iter().copied().skip(1).step_by(2).collect();
    let read = |group: &[Field]| -> StoreResult<(Corpus, bool)> {
        let table = reader.table(COLUMNS)?;
        let mut part = Corpus::without_terms();
        let mut whole = true;
        for &field in group {
            whole &= match field {
                Field::Tags => fill_tags(reader, &table, &docs, stop, &mut part)?,
                _ => fill(reader, &table, &docs, field, stop, &mut part)?,
            };
            if !whole {
                break;
            }
        }
        Ok((part, whole))
    };
    let apart = fields.len() > 1 && docs.len() >= PARALLEL_FIELDS;
    let (first, second) = crate::commit::both(apart, || read(&odd), || read(&even));
    c.docs = docs;
    let ((mut first, first_whole), (mut second, second_whole)) = (first?, second?);
    if !(first_whole && second_whole) {
        return Ok(false);
    }
    for &field in &odd {
        take_field(c, &mut first, field);
    }
    for &field in &even {
        take_field(c, &mut second, field);
    }
    Ok(true)
}

/// Adds to a corpus read for [`Needs`] `read` what `more` needs beside it (the fields
/// not read yet, the time ranks); false as [`read_fields`] (when stopped, `c` and
/// `read` are as they were). The corpus then answers
/// every request either needs, exactly as one read for it alone.
pub(crate) fn extend(
    reader: &StoreReader,
    c: &mut Corpus,
    read: &mut Needs,
    more: &Needs,
    stop: Stop<'_>,
) -> StoreResult<bool> {
    let missing: Vec<Field> = more
        .fields
        .iter()
        .filter(|f| !read.fields.contains(f))
        .copied()
        .collect();
    if !missing.is_empty() {
        if !read_fields(reader, c, missing.clone(), stop)? {
            return Ok(false);
        }
        read.fields.extend(missing);
    }
    if more.time_ranks && !read.time_ranks {
        c.time_rank = time_ranks(reader, c)?;
        read.time_ranks = true;
    }
    Ok(true)
}

/// The facts of every document into `c`; from [`PARALLEL_FACT_CHUNKS`] chunks on, the
/// second half of the chunks is read on the other core and appended.
fn read_all_facts(
    reader: &StoreReader,
    table: &redb::ReadOnlyTable<u32, crate::schema::sealed::Sealed>,
    c: &mut Corpus,
) -> StoreResult<()> {
    let chunks = redb::ReadableTable::last(table)
        .map_err(|e| storage(reader, e))?
        .map_or(0, |(last, _)| last.value() + 1);
    if chunks < PARALLEL_FACT_CHUNKS {
        return push_facts(c, |f| facts::each_chunk_in(table, .., f))
            .map_err(|e| storage(reader, e));
    }
    // the second half starts on a part's edge, so that when every document of the first
    // half holds a memory its parts are shared on the append, not copied
    let per_part = (crate::search::parts::PART_SLOTS / facts::CHUNK_DOCS as usize).max(1) as u32;
    let half = chunks / 2 / per_part * per_part;
    let (tail, head) = crate::commit::both(
        true,
        || {
            let mut tail = Corpus::without_terms();
            let table = reader.table(FACTS)?;
            push_facts(&mut tail, |f| facts::each_chunk_in(&table, half.., f))
                .map_err(|e| storage(reader, e))?;
            Ok::<_, crate::store::StoreError>(tail)
        },
        || push_facts(c, |f| facts::each_chunk_in(table, ..half, f)),
    );
    head.map_err(|e| storage(reader, e))?;
    append_facts(c, &tail?);
    Ok(())
}

/// Facts gathered before they join a corpus's columns a chunk at a time: adding each
/// fact to the five columns one by one took a sixth of a whole request's time at 1M.
struct FactRun {
    len: usize,
    docs: [u32; RUN],
    created: [i64; RUN],
    deleted: [bool; RUN],
    recap: [bool; RUN],
    lengths: [u32; RUN],
}

/// Facts a [`FactRun`] holds: a stored chunk's.
const RUN: usize = facts::CHUNK_DOCS as usize;

impl FactRun {
    fn new() -> Box<FactRun> {
        Box::new(FactRun {
            len: 0,
            docs: [0; RUN],
            created: [0; RUN],
            deleted: [false; RUN],
            recap: [false; RUN],
            lengths: [0; RUN],
        })
    }

    /// Adds the facts of document `doc`, and the whole run to `c` once it is full.
    #[inline]
    fn push(&mut self, c: &mut Corpus, doc: u32, fact: facts::Fact) {
        let at = self.len;
        self.docs[at] = doc;
        self.created[at] = fact.created_at;
        self.deleted[at] = fact.deleted;
        self.recap[at] = fact.session_recap;
        self.lengths[at] = fact.length;
        self.len += 1;
        if self.len == RUN {
            self.join(c);
        }
    }

    /// Adds the facts of the documents in `facts` (document, fact), in order.
    fn add(&mut self, c: &mut Corpus, facts: impl Iterator<Item = (u32, facts::Fact)>) {
        for (doc, fact) in facts {
            self.push(c, doc, fact);
        }
    }

    /// Adds the facts gathered to `c`, in order: the columns [`read_all_facts`] joins.
    fn join(&mut self, c: &mut Corpus) {
        let n = self.len;
        c.docs.extend_from_slice(&self.docs[..n]);
        c.created.extend_from_slice(&self.created[..n]);
        c.deleted.extend_from_slice(&self.deleted[..n]);
        c.recap.extend_from_slice(&self.recap[..n]);
        c.lengths.extend_from_slice(&self.lengths[..n]);
        self.len = 0;
    }
}

/// Adds the facts of the chunks `each` reads to `c`, in the order read.
fn push_facts<E>(
    c: &mut Corpus,
    each: impl FnOnce(&mut dyn FnMut(facts::ChunkFacts<'_>)) -> Result<(), E>,
) -> Result<(), E> {
    let mut run = FactRun::new();
    each(&mut |chunk| run.add(c, chunk.present()))?;
    run.join(c);
    Ok(())
}

/// Adds the facts [`push_facts`] put in `tail` after those of `c`.
fn append_facts(c: &mut Corpus, tail: &Corpus) {
    c.docs.append(&tail.docs);
    c.created.append(&tail.created);
    c.deleted.append(&tail.deleted);
    c.recap.append(&tail.recap);
    c.lengths.append(&tail.lengths);
}

/// Facts chunks (of [`facts::CHUNK_DOCS`] documents) from which a corpus reads them on
/// both cores.
const PARALLEL_FACT_CHUNKS: u32 = if cfg!(debug_assertions) { 2 } else { 16 };

/// Memories from which a corpus reads its fields on both cores.
const PARALLEL_FIELDS: usize = if cfg!(debug_assertions) { 2 } else { 16_384 };

/// Moves the values of `field` from `part` (which read them) into `c`.
fn take_field(c: &mut Corpus, part: &mut Corpus, field: Field) {
    use std::mem::take;
    match field {
        Field::Type => {
            c.types = take(&mut part.types);
            c.type_names = take(&mut part.type_names);
        }
        Field::Module => {
            c.module = take(&mut part.module);
            c.module_names = take(&mut part.module_names);
        }
        Field::Tags => {
            c.tags = take(&mut part.tags);
            c.tag_starts = take(&mut part.tag_starts);
            c.tag_names = take(&mut part.tag_names);
        }
        Field::Scope => c.scope = take(&mut part.scope),
        Field::Status => c.status = take(&mut part.status),
        Field::Weight => c.weight = take(&mut part.weight),
        Field::Trust => c.trust = take(&mut part.trust),
        Field::Confidence => c.confidence = take(&mut part.confidence),
        Field::RemVisits => c.rem_visits = take(&mut part.rem_visits),
        Field::TrustLevel => c.trust_level = take(&mut part.trust_level),
        Field::Feel(i) => c.feel[i] = take(&mut part.feel[i]),
        Field::Composite(i) => {
            if let Some(column) = part.composites.get_mut().and_then(|v| v.get_mut(i)) {
                let column = take(column);
                if c.composites.get().is_none() {
                    let _ = c
                        .composites
                        .set(vec![Column::default(); Composite::ALL.len()]);
                }
                if let Some(slot) = c.composites.get_mut().and_then(|v| v.get_mut(i)) {
                    *slot = column;
                }
            }
        }
        Field::UpdatedAt => c.updated = take(&mut part.updated),
        Field::ReadCount => c.read_count = take(&mut part.read_count),
        Field::RatingSum => c.rating_sum = take(&mut part.rating_sum),
        Field::RatingCount => c.rating_count = take(&mut part.rating_count),
        Field::Links => c.relationship_count = take(&mut part.relationship_count),
    }
}

/// Fills the corpus's tags, reading each chunk's lists flat (no list per memory).
fn fill_tags(
    reader: &StoreReader,
    table: &redb::ReadOnlyTable<(&'static str, u32), crate::schema::sealed::Sealed>,
    docs: &Fixed<u32>,
    stop: Stop<'_>,
    c: &mut Corpus,
) -> StoreResult<bool> {
    let chunks = |each: &mut dyn FnMut(u32, &columns::ListChunk) -> ControlFlow<()>| {
        columns::for_each_list(table, Field::Tags, |chunk, lists| each(chunk, lists))
    };
    let mut numbers: Vec<u32> = Vec::new();
    let empty = columns::ListChunk::default();
    walk_chunks(reader, docs, &empty, chunks, stop, |_, chunk, at, fresh| {
        if fresh {
            numbers = chunk.dict.0.iter().map(|n| c.tag_names.intern(n)).collect();
        }
        c.tags
            .extend(chunk.lists.of(at).iter().map(|&n| numbers[n as usize]));
        c.tag_starts.push(c.tags.len());
    })
}

/// Fills the corpus column of `field`; false when a stored value contradicts the
/// facts (a present memory without a type).
fn fill(
    reader: &StoreReader,
    table: &redb::ReadOnlyTable<(&'static str, u32), crate::schema::sealed::Sealed>,
    docs: &Fixed<u32>,
    field: Field,
    stop: Stop<'_>,
    c: &mut Corpus,
) -> StoreResult<bool> {
    let mut whole = true;
    let mut numbers: Vec<u32> = Vec::new();
    let walked = walk(
        reader,
        table,
        docs,
        field,
        stop,
        |slot, values, at, fresh| match (field, values) {
            (Field::Type | Field::Module, Values::Names(dict, v)) => {
                let names = if field == Field::Type {
                    &mut c.type_names
                } else {
                    &mut c.module_names
                };
                if fresh {
                    numbers = dict.0.iter().map(|n| names.intern(n)).collect();
                }
                let n = match v[at] {
                    NONE => NO_MODULE,
                    n => numbers[n as usize],
                };
                if field == Field::Type {
                    whole &= n != NO_MODULE;
                    c.types.push(n);
                } else {
                    c.module.push(n);
                }
            }
            (Field::Scope, Values::Codes(v)) => match Scope::ALL.get(v[at] as usize) {
                Some(s) => c.scope.push(*s),
                None => whole = false,
            },
            (Field::Status, Values::Codes(v)) => match Status::ALL.get(v[at] as usize) {
                Some(s) => c.status.push(*s),
                None => whole = false,
            },
            (_, Values::Numbers(v)) => {
                let column = match field {
                    Field::Weight => &mut c.weight,
                    Field::Trust => &mut c.trust,
                    Field::Confidence => &mut c.confidence,
                    Field::RemVisits => &mut c.rem_visits,
                    Field::TrustLevel => &mut c.trust_level,
                    Field::Feel(i) => &mut c.feel[i],
                    Field::Composite(i) => {
                        if c.composites.get().is_none() {
                            let _ = c
                                .composites
                                .set(vec![Column::default(); Composite::ALL.len()]);
                        }
                        match c.composites.get_mut().and_then(|v| v.get_mut(i)) {
                            Some(column) => column,
                            None => return,
                        }
                    }
                    _ => return,
                };
                column.push_opt(slot, v[at]);
            }
            (Field::UpdatedAt, Values::Whole(v)) => c.updated.push(v[at]),
            (_, Values::Whole(v)) => {
                let n = u32::try_from(v[at]).unwrap_or(u32::MAX);
                match field {
                    Field::ReadCount => c.read_count.push(n),
                    Field::RatingSum => c.rating_sum.push(n),
                    Field::RatingCount => c.rating_count.push(n),
                    Field::Links => c.relationship_count.push(n),
                    _ => {}
                }
            }
            _ => whole = false,
        },
    )?;
    Ok(walked && whole)
}

/// The relationship counts of the memories stored under `docs` (in any order), read
/// from the persisted column, each chunk once: what a page of hits shows when the
/// corpus was read without them.
pub(crate) fn link_counts(reader: &StoreReader, docs: &[u32]) -> StoreResult<Vec<u32>> {
    let table = reader.table(COLUMNS)?;
    let per = columns::CHUNK_DOCS;
    let mut by_doc: Vec<usize> = (0..docs.len()).collect();
    by_doc.sort_unstable_by_key(|&i| docs[i]);
    let mut counts = vec![0; docs.len()];
    let mut held: Option<(u32, Values)> = None;
    for i in by_doc {
        let chunk = docs[i] / per;
        if held.as_ref().is_none_or(|(c, _)| *c != chunk) {
            let values = columns::get(&table, Field::Links, chunk)
                .map_err(|e| storage(reader, e))?
                .unwrap_or_else(|| columns::empty(Field::Links));
            held = Some((chunk, values));
        }
        if let Some((_, Values::Whole(v))) = &held {
            let n = v.get((docs[i] % per) as usize).copied().unwrap_or(0);
            counts[i] = u32::try_from(n).unwrap_or(u32::MAX);
        }
    }
    Ok(counts)
}

/// Every slot's position in the order created_at desc, id asc. Ids are read (from the
/// search records) only for memories created at the same instant as another.
fn time_ranks(reader: &StoreReader, c: &Corpus) -> StoreResult<Vec<u32>> {
    let records = reader.table(SEARCH_DOCS)?;
    time_ranks_of(&c.created, |tied| by_id_in(reader, &records, c, tied))
}

/// Sorts `slots` by the ids of their memories, ascending (read from the search
/// records, or the memory when a record is missing).
pub(crate) fn sort_by_id(reader: &StoreReader, c: &Corpus, slots: &mut [u32]) -> StoreResult<()> {
    by_id_in(reader, &reader.table(SEARCH_DOCS)?, c, slots)
}

/// [`sort_by_id`] with the search records open.
fn by_id_in(
    reader: &StoreReader,
    records: &redb::ReadOnlyTable<u32, crate::index::sealed::Sealed>,
    c: &Corpus,
    slots: &mut [u32],
) -> StoreResult<()> {
    let mut named: Vec<(String, u32)> = Vec::with_capacity(slots.len());
    for &slot in slots.iter() {
        let doc = c.docs[slot as usize];
        let id = match records.get(doc).map_err(|e| storage(reader, e))? {
            Some(bytes) => {
                let payload = bytes
                    .value()
                    .open(&doc)
                    .map_err(|e| storage(reader, redb::StorageError::from(e)))?;
                RecordView::parse(payload).map(|r| r.id.to_string())
            }
            None => None,
        };
        let id = match id {
            Some(id) => id,
            None => reader
                .get_doc(doc)?
                .map(|m| m.id)
                .ok_or_else(|| crate::store::StoreError::corrupt_record(reader.path(), doc))?,
        };
        named.push((id, slot));
    }
    named.sort_unstable();
    for (place, (_, slot)) in slots.iter_mut().zip(named) {
        *place = slot;
    }
    Ok(())
}
