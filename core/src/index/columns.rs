//! Persisted per-field columns: for every field a filter, a browse mode or the filter
//! panel reads (type, scope, status, module, tags, the scores, the counts, updated_at),
//! the values of [`CHUNK_DOCS`] consecutive documents in one stored value, keyed by the
//! field's name and the chunk. A request that filters on `feel_humor` reads that field's
//! chunks alone (about 2 KiB per thousand memories), so `memlens search` answers any
//! filter or mode without loading the store. created_at, deleted and the BM25 length
//! are in the facts ([`super::facts`]); relationship counts come from the backlinks.
//!
//! Every stored value goes through [`encode`] and [`decode`], the one pair to wrap
//! should values carry a checksum.

use super::record::RecordView;
use super::sealed::{Sealed, SealedBuf};
use crate::codec::code_of;
use crate::model::{Composite, FEEL_DIMS, Scope, Status};
use redb::{ReadableTable, StorageError, Table, TableDefinition};
use std::ops::ControlFlow;

/// (field name, chunk number = document / [`CHUNK_DOCS`]) → the chunk's values.
pub const COLUMNS: TableDefinition<(&str, u32), Sealed> = TableDefinition::new("columns");

/// Documents per chunk (as in the facts).
pub const CHUNK_DOCS: u32 = super::facts::CHUNK_DOCS;
const N: usize = CHUNK_DOCS as usize;

/// A field kept in a column.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Field {
    /// The memory's type.
    Type,
    /// Its scope.
    Scope,
    /// Its status.
    Status,
    /// Its module.
    Module,
    /// Its tags.
    Tags,
    /// weight.
    Weight,
    /// trust.
    Trust,
    /// confidence.
    Confidence,
    /// updated_at, nanoseconds.
    UpdatedAt,
    /// read_count.
    ReadCount,
    /// rating_sum.
    RatingSum,
    /// rating_count.
    RatingCount,
    /// rem_visits.
    RemVisits,
    /// remember-core's confidentiality level, 1–5.
    TrustLevel,
    /// One `feel_*` dimension, by index into `FEEL_DIMS`.
    Feel(usize),
    /// relationship_count: kept by [`super::link_counts`] at each commit, not from the
    /// memory's own record (the memories at the other ends change it).
    Links,
    /// One composite of the `feel_*` scores, by index into `Composite::ALL`: derived,
    /// kept so that an order or filter by it reads one column instead of 29.
    Composite(usize),
}

/// How a field's values are kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Numbers,
    Whole,
    Codes,
    Names,
    Lists,
}

impl Field {
    /// Every field kept in a column.
    pub fn all() -> impl Iterator<Item = Field> {
        [
            Field::Type,
            Field::Scope,
            Field::Status,
            Field::Module,
            Field::Tags,
            Field::Weight,
            Field::Trust,
            Field::Confidence,
            Field::UpdatedAt,
            Field::ReadCount,
            Field::RatingSum,
            Field::RatingCount,
            Field::RemVisits,
            Field::TrustLevel,
            Field::Links,
        ]
        .into_iter()
        .chain((0..FEEL_DIMS.len()).map(Field::Feel))
        .chain((0..Composite::ALL.len()).map(Field::Composite))
    }

    /// The name its chunks are stored under.
    pub fn name(self) -> &'static str {
        match self {
            Field::Type => "type",
            Field::Scope => "scope",
            Field::Status => "status",
            Field::Module => "module",
            Field::Tags => "tags",
            Field::Weight => "weight",
            Field::Trust => "trust",
            Field::Confidence => "confidence",
            Field::UpdatedAt => "updated_at",
            Field::ReadCount => "read_count",
            Field::RatingSum => "rating_sum",
            Field::RatingCount => "rating_count",
            Field::RemVisits => "rem_visits",
            Field::TrustLevel => "trust_level",
            Field::Links => "relationship_count",
            Field::Feel(i) => FEEL_DIMS.get(i).map_or("feel_?", |d| d.field),
            Field::Composite(i) => Composite::ALL.get(i).map_or("composite_?", |c| c.field()),
        }
    }

    fn kind(self) -> Kind {
        match self {
            Field::Type | Field::Module => Kind::Names,
            Field::Tags => Kind::Lists,
            Field::Scope | Field::Status => Kind::Codes,
            Field::UpdatedAt
            | Field::ReadCount
            | Field::RatingSum
            | Field::RatingCount
            | Field::Links => Kind::Whole,
            Field::Weight
            | Field::Trust
            | Field::Confidence
            | Field::RemVisits
            | Field::TrustLevel
            | Field::Feel(_)
            | Field::Composite(_) => Kind::Numbers,
        }
    }

    /// An empty chunk of this field.
    fn empty(self) -> Values {
        match self.kind() {
            Kind::Numbers => Values::Numbers(vec![None; N]),
            Kind::Whole => Values::Whole(vec![0; N]),
            Kind::Codes => Values::Codes(vec![0; N]),
            Kind::Names => Values::Names(Dict::default(), vec![NONE; N]),
            Kind::Lists => Values::Lists(Dict::default(), vec![Vec::new(); N]),
        }
    }
}

/// The chunk of `field` that is not stored: every document holds the default.
pub fn empty(field: Field) -> Values {
    field.empty()
}

/// "No name" in a chunk of names.
pub const NONE: u16 = u16::MAX;

/// The distinct names of one chunk; a document holds their positions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dict(pub Vec<String>);

impl Dict {
    fn number(&mut self, name: &str) -> u16 {
        if let Some(i) = self.0.iter().position(|n| n == name) {
            return i as u16;
        }
        self.0.push(name.to_string());
        (self.0.len() - 1) as u16
    }
}

/// One chunk of one field, indexed by document % [`CHUNK_DOCS`].
#[derive(Debug, Clone, PartialEq)]
pub enum Values {
    /// An optional score per document.
    Numbers(Vec<Option<f64>>),
    /// A whole number per document.
    Whole(Vec<i64>),
    /// An enum's code per document.
    Codes(Vec<u8>),
    /// A name per document ([`NONE`] when absent), as positions in the dictionary.
    Names(Dict, Vec<u16>),
    /// A list of names per document.
    Lists(Dict, Vec<Vec<u16>>),
}

impl Values {
    /// True when no document of the chunk holds anything but the default (such a
    /// chunk is not stored).
    fn is_default(&self) -> bool {
        match self {
            Values::Numbers(v) => v.iter().all(Option::is_none),
            Values::Whole(v) => v.iter().all(|&x| x == 0),
            Values::Codes(v) => v.iter().all(|&x| x == 0),
            Values::Names(_, v) => v.iter().all(|&x| x == NONE),
            Values::Lists(_, v) => v.iter().all(Vec::is_empty),
        }
    }

    /// Sets document `at` to what `from` (a chunk of the same field) holds there.
    fn copy_slot(&mut self, from: &Values, at: usize) {
        match (self, from) {
            (Values::Numbers(v), Values::Numbers(f)) => v[at] = f[at],
            (Values::Whole(v), Values::Whole(f)) => v[at] = f[at],
            (Values::Codes(v), Values::Codes(f)) => v[at] = f[at],
            (Values::Names(dict, v), Values::Names(fd, f)) => {
                v[at] = match f[at] {
                    NONE => NONE,
                    n => dict.number(&fd.0[n as usize]),
                };
            }
            (Values::Lists(dict, v), Values::Lists(fd, f)) => {
                v[at] = f[at]
                    .iter()
                    .map(|&n| dict.number(&fd.0[n as usize]))
                    .collect();
            }
            _ => {} // one field's chunks are always of one kind
        }
    }

    /// Sets document `at` of the chunk to what `r` holds of `field`; true when it
    /// changed.
    fn set(&mut self, field: Field, at: usize, r: Option<&RecordView<'_>>) -> bool {
        match self {
            Values::Numbers(v) => {
                let new = r.and_then(|r| match field {
                    Field::Weight => Some(r.weight),
                    Field::Trust => Some(r.trust),
                    Field::Confidence => r.confidence,
                    Field::RemVisits => r.rem_visits.map(f64::from),
                    Field::TrustLevel => r.trust_level.map(f64::from),
                    Field::Feel(i) => r.feel.get(i).copied().flatten(),
                    Field::Composite(i) => Composite::ALL.get(i)?.compute(&r.feel),
                    _ => None,
                });
                let same = v[at].map(f64::to_bits) == new.map(f64::to_bits);
                v[at] = new;
                !same
            }
            Values::Whole(_) if field == Field::Links => false,
            Values::Whole(v) => {
                let new = r.map_or(0, |r| match field {
                    Field::UpdatedAt => r.updated_at,
                    Field::ReadCount => i64::from(r.read_count),
                    Field::RatingSum => i64::from(r.rating_sum),
                    Field::RatingCount => i64::from(r.rating_count),
                    _ => 0,
                });
                std::mem::replace(&mut v[at], new) != new
            }
            Values::Codes(v) => {
                let new = r.map_or(0, |r| match field {
                    Field::Scope => code_of(Scope::ALL, &r.scope),
                    Field::Status => code_of(Status::ALL, &r.status),
                    _ => 0,
                });
                std::mem::replace(&mut v[at], new) != new
            }
            Values::Names(dict, v) => {
                let name = r.and_then(|r| match field {
                    Field::Type => Some(r.memory_type),
                    Field::Module => r.module,
                    _ => None,
                });
                let new = name.map_or(NONE, |n| dict.number(n));
                std::mem::replace(&mut v[at], new) != new
            }
            Values::Lists(dict, v) => {
                let new: Vec<u16> = r
                    .map(|r| r.tags.iter().map(|t| dict.number(t)).collect())
                    .unwrap_or_default();
                let changed = v[at] != new;
                v[at] = new;
                changed
            }
        }
    }
}

/// The columns of the documents new to the store in one chunk, filled as each
/// document is added from the record it was just given (an import adds most of a
/// store this way), so the flush neither reads those records back nor parses them again.
#[derive(Debug)]
pub(crate) struct NewChunk {
    chunk: u32,
    /// One chunk of values per field, in [`Field::all`]'s order.
    values: Vec<Values>,
    /// The documents added, ascending.
    docs: Vec<u32>,
}

/// Notes the columns of `doc`, new to the store, from its record `r` in `chunks`
/// (documents come in ascending order).
pub(crate) fn add_new(chunks: &mut Vec<NewChunk>, doc: u32, r: &RecordView<'_>) {
    let chunk = doc / CHUNK_DOCS;
    if chunks.last().is_none_or(|c| c.chunk != chunk) {
        chunks.push(NewChunk {
            chunk,
            values: Field::all().map(Field::empty).collect(),
            docs: Vec::new(),
        });
    }
    let Some(last) = chunks.last_mut() else {
        return;
    };
    let at = (doc % CHUNK_DOCS) as usize;
    for (field, values) in Field::all().zip(&mut last.values) {
        values.set(field, at, Some(r));
    }
    last.docs.push(doc);
}

/// Writes the columns of the new documents in `chunks`, over what the stored chunks
/// hold of their other documents.
pub(crate) fn write_new(
    columns: &mut Table<'_, (&'static str, u32), Sealed>,
    chunks: Vec<NewChunk>,
) -> Result<(), StorageError> {
    for new in chunks {
        for (field, values) in Field::all().zip(new.values) {
            let merged = match get(columns, field, new.chunk)? {
                None => values,
                Some(mut stored) => {
                    for &doc in &new.docs {
                        stored.copy_slot(&values, (doc % CHUNK_DOCS) as usize);
                    }
                    stored
                }
            };
            put(columns, field, new.chunk, &merged)?;
        }
    }
    Ok(())
}

/// Stores `values` as the chunk `chunk` of `field` (removes it when every document
/// holds the default).
pub(crate) fn put(
    columns: &mut Table<'_, (&'static str, u32), Sealed>,
    field: Field,
    chunk: u32,
    values: &Values,
) -> Result<(), StorageError> {
    let key = (field.name(), chunk);
    if values.is_default() {
        columns.remove(key)?;
    } else {
        columns.insert(key, SealedBuf::new(&key, &encode(values)).value())?;
    }
    Ok(())
}

/// `v` in thousandths, when that gives back exactly `v`.
fn thousandths(v: f64) -> Option<i16> {
    let q = (v * 1000.0).round();
    if !(f64::from(i16::MIN) < q && q <= f64::from(i16::MAX)) {
        return None;
    }
    let q = q as i16;
    ((f64::from(q) / 1000.0).to_bits() == v.to_bits()).then_some(q)
}

fn put_dict(w: &mut Vec<u8>, dict: &Dict) {
    w.extend((dict.0.len() as u16).to_le_bytes());
    for name in &dict.0 {
        let bytes = &name.as_bytes()[..name.len().min(u16::MAX as usize)];
        w.extend((bytes.len() as u16).to_le_bytes());
        w.extend(bytes);
    }
}

/// Keeps only the names some document uses, renumbering the documents' positions.
fn compact(dict: &Dict, used: impl Iterator<Item = u16>) -> (Dict, Vec<u16>) {
    let mut map = vec![NONE; dict.0.len()];
    let mut out = Dict::default();
    for n in used {
        if let Some(slot) = map.get_mut(n as usize)
            && *slot == NONE
        {
            *slot = out.0.len() as u16;
            out.0.push(dict.0[n as usize].clone());
        }
    }
    (out, map)
}

/// The stored form of a chunk: a tag byte, then the values.
pub fn encode(values: &Values) -> Vec<u8> {
    let mut w = Vec::new();
    match values {
        Values::Numbers(v) => {
            let short: Option<Vec<i16>> = v
                .iter()
                .map(|x| match x {
                    None => Some(i16::MIN),
                    Some(x) => thousandths(*x),
                })
                .collect();
            match short {
                Some(short) => {
                    w.push(0);
                    short.iter().for_each(|q| w.extend(q.to_le_bytes()));
                }
                None => {
                    w.push(1);
                    for bits in v.chunks(8) {
                        w.push(
                            bits.iter()
                                .enumerate()
                                .fold(0u8, |b, (i, x)| b | (u8::from(x.is_some()) << i)),
                        );
                    }
                    v.iter()
                        .for_each(|x| w.extend(x.unwrap_or(0.0).to_le_bytes()));
                }
            }
        }
        Values::Whole(v) => {
            if v.iter().all(|&x| u32::try_from(x).is_ok()) {
                w.push(2);
                v.iter().for_each(|&x| w.extend((x as u32).to_le_bytes()));
            } else {
                w.push(3);
                v.iter().for_each(|&x| w.extend(x.to_le_bytes()));
            }
        }
        Values::Codes(v) => {
            w.push(4);
            w.extend(v);
        }
        Values::Names(dict, v) => {
            let (dict, map) = compact(dict, v.iter().copied().filter(|&n| n != NONE));
            w.push(5);
            put_dict(&mut w, &dict);
            for &n in v {
                let n = map.get(n as usize).copied().unwrap_or(NONE);
                w.extend(n.to_le_bytes());
            }
        }
        Values::Lists(dict, v) => {
            let (dict, map) = compact(dict, v.iter().flatten().copied());
            w.push(6);
            put_dict(&mut w, &dict);
            for list in v {
                w.extend((list.len() as u16).to_le_bytes());
                for &n in list {
                    w.extend(map[n as usize].to_le_bytes());
                }
            }
        }
    }
    w
}

/// Reads bytes in order, failing softly on damaged or truncated values.
struct Bytes<'a>(&'a [u8]);

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, rest) = (self.0.get(..n)?, self.0.get(n..)?);
        self.0 = rest;
        Some(head)
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn dict(&mut self) -> Option<Dict> {
        let n = self.u16()?;
        let mut out = Vec::with_capacity(n as usize);
        for _ in 0..n {
            let len = self.u16()? as usize;
            out.push(std::str::from_utf8(self.take(len)?).ok()?.to_string());
        }
        Some(Dict(out))
    }
}

/// A stored chunk read back; `None` when it is damaged.
pub fn decode(bytes: &[u8]) -> Option<Values> {
    let mut r = Bytes(bytes);
    let tag = r.take(1)?[0];
    let values = match tag {
        0 => Values::Numbers(
            r.take(2 * N)?
                .chunks_exact(2)
                .map(|b| {
                    let q = i16::from_le_bytes([b[0], b[1]]);
                    (q != i16::MIN).then(|| f64::from(q) / 1000.0)
                })
                .collect(),
        ),
        1 => {
            let bits = r.take(N / 8)?;
            let vals = r.take(8 * N)?;
            Values::Numbers(
                vals.chunks_exact(8)
                    .enumerate()
                    .map(|(i, b)| {
                        let present = bits[i / 8] >> (i % 8) & 1 == 1;
                        present.then(|| f64::from_le_bytes(b.try_into().unwrap_or_default()))
                    })
                    .collect(),
            )
        }
        2 => Values::Whole(
            r.take(4 * N)?
                .chunks_exact(4)
                .map(|b| i64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect(),
        ),
        3 => Values::Whole(
            r.take(8 * N)?
                .chunks_exact(8)
                .map(|b| i64::from_le_bytes(b.try_into().unwrap_or_default()))
                .collect(),
        ),
        4 => Values::Codes(r.take(N)?.to_vec()),
        5 => {
            let dict = r.dict()?;
            let v: Vec<u16> = (0..N).map(|_| r.u16()).collect::<Option<_>>()?;
            let known = |&n: &u16| n == NONE || (n as usize) < dict.0.len();
            v.iter().all(known).then_some(())?;
            Values::Names(dict, v)
        }
        6 => {
            let chunk = lists(&mut r)?;
            let nested = (0..N).map(|i| chunk.lists.of(i).to_vec()).collect();
            Values::Lists(chunk.dict, nested)
        }
        _ => return None,
    };
    r.0.is_empty().then_some(values)
}

/// A chunk's lists of names held flat: document `i`'s names are
/// `names[starts[i]..starts[i + 1]]` (no allocation per document).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FlatLists {
    starts: Vec<u32>,
    names: Vec<u16>,
}

impl FlatLists {
    /// The names of document `i` of the chunk, as positions in its dictionary.
    pub fn of(&self, i: usize) -> &[u16] {
        match (self.starts.get(i), self.starts.get(i + 1)) {
            (Some(&lo), Some(&hi)) => &self.names[lo as usize..hi as usize],
            _ => &[],
        }
    }
}

/// A stored chunk of a list column, read flat.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ListChunk {
    /// The names the lists refer to.
    pub dict: Dict,
    /// Each document's list.
    pub lists: FlatLists,
}

/// The dictionary and lists of a stored list chunk, after its tag; `None` when damaged.
fn lists(r: &mut Bytes<'_>) -> Option<ListChunk> {
    let dict = r.dict()?;
    let mut flat = FlatLists {
        starts: Vec::with_capacity(N + 1),
        names: Vec::new(),
    };
    flat.starts.push(0);
    for _ in 0..N {
        let len = r.u16()?;
        for _ in 0..len {
            let n = r.u16()?;
            ((n as usize) < dict.0.len()).then_some(())?;
            flat.names.push(n);
        }
        flat.starts.push(flat.names.len() as u32);
    }
    Some(ListChunk { dict, lists: flat })
}

/// Calls `f(chunk, its lists)` for every stored chunk of the list column
/// `field` (the tags), in chunk order, without a list per document, until `f` breaks.
pub fn for_each_list<T: ReadableTable<(&'static str, u32), Sealed>>(
    table: &T,
    field: Field,
    mut f: impl FnMut(u32, &ListChunk) -> ControlFlow<()>,
) -> Result<(), StorageError> {
    let name = field.name();
    for entry in table.range((name, 0)..=(name, u32::MAX))? {
        let (key, bytes) = entry?;
        let chunk = key.value().1;
        let payload = bytes.value().open(&(name, chunk))?;
        let mut r = Bytes(payload);
        let read = match r.take(1) {
            Some([6]) => lists(&mut r).filter(|_| r.0.is_empty()),
            _ => None,
        };
        if f(chunk, &read.ok_or_else(|| damaged(field, chunk))?).is_break() {
            break;
        }
    }
    Ok(())
}

fn damaged(field: Field, chunk: u32) -> StorageError {
    StorageError::Corrupted(format!("column {} chunk {chunk} is damaged", field.name()))
}

/// The stored chunk of `field`, or `None` when none is stored (every document holds
/// the default); a damaged one is an error.
pub fn get<T: ReadableTable<(&'static str, u32), Sealed>>(
    table: &T,
    field: Field,
    chunk: u32,
) -> Result<Option<Values>, StorageError> {
    match table.get((field.name(), chunk))? {
        None => Ok(None),
        Some(v) => decode(v.value().open(&(field.name(), chunk))?)
            .filter(|d| std::mem::discriminant(d) == std::mem::discriminant(&field.empty()))
            .map(Some)
            .ok_or_else(|| damaged(field, chunk)),
    }
}

/// Calls `f` with every stored chunk of `field`, in chunk order, until `f` breaks.
pub fn for_each<T: ReadableTable<(&'static str, u32), Sealed>>(
    table: &T,
    field: Field,
    mut f: impl FnMut(u32, &Values) -> ControlFlow<()>,
) -> Result<(), StorageError> {
    let name = field.name();
    for entry in table.range((name, 0)..=(name, u32::MAX))? {
        let (key, bytes) = entry?;
        let chunk = key.value().1;
        let values = decode(bytes.value().open(&(name, chunk))?)
            .filter(|d| std::mem::discriminant(d) == std::mem::discriminant(&field.empty()))
            .ok_or_else(|| damaged(field, chunk))?;
        if f(chunk, &values).is_break() {
            break;
        }
    }
    Ok(())
}

/// Brings the columns of `docs` (ascending, distinct) up to date with their search
/// records as `records` now holds them (a document without one holds nothing). A
/// chunk is rewritten only when one of its values changed.
pub(crate) fn apply(
    columns: &mut Table<'_, (&'static str, u32), Sealed>,
    records: &impl ReadableTable<u32, Sealed>,
    docs: &[u32],
) -> Result<(), StorageError> {
    let mut i = 0;
    while i < docs.len() {
        let chunk = docs[i] / CHUNK_DOCS;
        let mut end = i;
        while end < docs.len() && docs[end] / CHUNK_DOCS == chunk {
            end += 1;
        }
        let part = &docs[i..end];
        let stored: Vec<Option<redb::AccessGuard<'_, Sealed>>> = if part.len() > 64 {
            let lo = chunk * CHUNK_DOCS;
            let mut all: Vec<Option<redb::AccessGuard<'_, Sealed>>> =
                part.iter().map(|_| None).collect();
            for entry in records.range(lo..=lo + (CHUNK_DOCS - 1))? {
                let (doc, bytes) = entry?;
                if let Ok(at) = part.binary_search(&doc.value()) {
                    all[at] = Some(bytes);
                }
            }
            all
        } else {
            part.iter()
                .map(|&d| records.get(d))
                .collect::<Result<_, _>>()?
        };
        let mut views: Vec<Option<RecordView<'_>>> = Vec::with_capacity(part.len());
        for (&doc, b) in part.iter().zip(&stored) {
            views.push(match b {
                Some(b) => RecordView::parse(b.value().open(&doc)?),
                None => None,
            });
        }
        for field in Field::all() {
            let mut values = get(columns, field, chunk)?.unwrap_or_else(|| field.empty());
            let mut changed = false;
            for (&doc, view) in part.iter().zip(&views) {
                changed |= values.set(field, (doc % CHUNK_DOCS) as usize, view.as_ref());
            }
            if !changed {
                continue;
            }
            put(columns, field, chunk, &values)?;
        }
        i = end;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_chunk_reads_back() {
        let mut nums = vec![None; N];
        nums[3] = Some(0.25);
        nums[7] = Some(-1.0);
        let mut odd = nums.clone();
        odd[9] = Some(1.0 / 3.0);
        let mut whole = vec![0i64; N];
        whole[1] = 5;
        let mut big = whole.clone();
        big[2] = -7_000_000_000_000;
        let mut names = vec![NONE; N];
        names[4] = 0;
        let mut lists = vec![Vec::new(); N];
        lists[5] = vec![0, 1];
        for v in [
            Values::Numbers(nums),
            Values::Numbers(odd),
            Values::Whole(whole),
            Values::Whole(big),
            Values::Codes(vec![2; N]),
            Values::Names(Dict(vec!["decision".into()]), names),
            Values::Lists(Dict(vec!["a".into(), "b".into()]), lists),
        ] {
            assert_eq!(decode(&encode(&v)), Some(v.clone()));
            let bytes = encode(&v);
            assert_eq!(decode(&bytes[..bytes.len() - 1]), None);
        }
    }

    #[test]
    fn unused_names_are_left_out() {
        let mut v = vec![NONE; N];
        v[0] = 1;
        let stored = encode(&Values::Names(Dict(vec!["x".into(), "y".into()]), v));
        let Some(Values::Names(dict, v)) = decode(&stored) else {
            panic!("names expected");
        };
        assert_eq!(dict.0, vec!["y".to_string()]);
        assert_eq!(v[0], 0);
    }
}
