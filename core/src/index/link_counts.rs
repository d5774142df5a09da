//! `relationship_count` kept in the columns ([`Field::Links`]), so that the density tab
//! and a relationship filter read one column instead of every backlink.
//!
//! A memory's count is the number of other stored memories it is linked with, either
//! way, each counted once (as `Corpus::finish` counts it). It changes when the memory's
//! own links change, when a memory linking to it or linked from it changes its links,
//! and when a memory at the other end of a link is added or purged. The writer notes
//! those memories ([`LinkCountChanges`]) and [`refresh`] recounts them at the commit,
//! after the backlinks and the new ids are written; a change that touches many memories
//! (an import) recounts them all in one pass over the backlinks ([`refresh_all`]).

use super::SEARCH_DOCS;
use super::columns::{self, CHUNK_DOCS, COLUMNS, Field, Values};
use super::record::RecordView;
use super::sealed::Sealed;
use crate::schema::tables::{BACKLINKS, IDS};
use redb::{ReadableTable, StorageError, Table, WriteTransaction};

/// Beyond this many memories noted, the commit recounts every memory.
const RECOUNT_ALL_AT: usize = 20_000;

/// The memories whose count one write transaction may have changed.
#[derive(Debug, Default)]
pub struct LinkCountChanges {
    /// Memories at either end of a link added or removed, or that were rewritten.
    touched: Vec<String>,
    /// Memories added or purged: every memory linking to them is recounted too.
    appeared: Vec<String>,
    /// More than [`RECOUNT_ALL_AT`] were noted: every memory is recounted.
    all: bool,
}

impl LinkCountChanges {
    /// Notes that a link between `a` and `b` was added or removed.
    pub fn link(&mut self, a: &str, b: &str) {
        self.touch(a);
        self.touch(b);
    }

    /// Notes that `id` was added to the store or purged from it.
    pub fn appeared(&mut self, id: &str) {
        if self.full() {
            return;
        }
        self.appeared.push(id.to_string());
    }

    fn touch(&mut self, id: &str) {
        if self.full() {
            return;
        }
        self.touched.push(id.to_string());
    }

    fn full(&mut self) -> bool {
        if !self.all && self.touched.len() + self.appeared.len() >= RECOUNT_ALL_AT {
            self.all = true;
            self.touched = Vec::new();
            self.appeared = Vec::new();
        }
        self.all
    }

    /// True when nothing was noted.
    pub fn is_empty(&self) -> bool {
        !self.all && self.touched.is_empty() && self.appeared.is_empty()
    }
}

/// Recounts the memories `changes` noted, in `txn` as it now stands.
pub fn refresh(txn: &WriteTransaction, mut changes: LinkCountChanges) -> Result<(), redb::Error> {
    if changes.is_empty() {
        return Ok(());
    }
    if changes.all {
        return refresh_all(txn);
    }
    let backlinks = txn.open_table(BACKLINKS)?;
    let ids = txn.open_table(IDS)?;
    let records = txn.open_table(SEARCH_DOCS)?;
    let mut affected = std::mem::take(&mut changes.touched);
    for id in changes.appeared {
        affected.extend(sources(&backlinks, &id)?);
        affected.push(id);
    }
    affected.sort_unstable();
    affected.dedup();
    let mut counts: Vec<(u32, i64)> = Vec::with_capacity(affected.len());
    for id in &affected {
        let Some(doc) = ids.get(id.as_str())?.map(|d| d.value()) else {
            continue; // purged
        };
        let mut others: Vec<String> = sources(&backlinks, id)?;
        if let Some(bytes) = records.get(doc)? {
            let bytes = bytes.value();
            let record = bytes.open(&doc)?;
            if let Some(view) = RecordView::parse(record) {
                others.extend(view.targets.iter().map(str::to_string));
            }
        }
        others.sort_unstable();
        others.dedup();
        let mut count = 0;
        for other in &others {
            if other != id && ids.get(other.as_str())?.is_some() {
                count += 1;
            }
        }
        counts.push((doc, count));
    }
    drop((backlinks, ids, records));
    counts.sort_unstable();
    let mut table = txn.open_table(COLUMNS)?;
    write(&mut table, &counts)
}

/// The memories that link to `target` (its backlink rows; the count row, whose source
/// is empty, is not one).
fn sources(
    backlinks: &impl ReadableTable<(&'static str, &'static str), Sealed>,
    target: &str,
) -> Result<Vec<String>, StorageError> {
    let mut out = Vec::new();
    for row in backlinks.range((target, "")..)? {
        let (key, _) = row?;
        let (t, source) = key.value();
        if t != target {
            break;
        }
        if !source.is_empty() {
            out.push(source.to_string());
        }
    }
    Ok(out)
}

/// Recounts every memory of the store (after an import or a rebuild).
pub fn refresh_all(txn: &WriteTransaction) -> Result<(), redb::Error> {
    let (docs, counts) = {
        let backlinks = match txn.open_table(BACKLINKS) {
            Ok(table) => table,
            // a store of an older schema, whose backlinks are not sealed rows yet: the
            // schema's upgrade recounts once it has moved them
            Err(redb::TableError::TableTypeMismatch { .. }) => return Ok(()),
            Err(e) => return Err(e.into()),
        };
        let ids = txn.open_table(IDS)?;
        let mut docs: Vec<u32> = Vec::new();
        for row in ids.iter()? {
            docs.push(row?.1.value());
        }
        docs.sort_unstable();
        let counts = counts_of(&backlinks, &ids, &docs)?;
        (docs, counts)
    };
    let counts: Vec<(u32, i64)> = docs
        .iter()
        .zip(counts)
        .map(|(&d, c)| (d, i64::from(c)))
        .collect();
    let mut table = txn.open_table(COLUMNS)?;
    // documents no longer stored hold nothing: every chunk is written anew
    let name = Field::Links.name();
    table.retain_in((name, 0)..=(name, u32::MAX), |_, _| false)?;
    write(&mut table, &counts)
}

/// `relationship_count` of every document of `docs` (ascending), from the backlinks:
/// each row (target, source) is a link between two distinct memories when both are
/// stored, counted once per pair whichever way it was made.
fn counts_of(
    backlinks: &impl ReadableTable<(&'static str, &'static str), Sealed>,
    ids: &impl ReadableTable<&'static str, u32>,
    docs: &[u32],
) -> Result<Vec<u32>, StorageError> {
    let doc_of =
        |id: &str| -> Result<Option<u32>, StorageError> { Ok(ids.get(id)?.map(|d| d.value())) };
    let mut edges: Vec<(u32, u32)> = Vec::new();
    let mut target_doc: Option<(String, Option<u32>)> = None;
    for row in backlinks.iter()? {
        let (key, _) = row?;
        let (target, source) = key.value();
        if target == source || source.is_empty() {
            continue;
        }
        // rows come grouped by target: one lookup per target
        let a = match &target_doc {
            Some((t, d)) if t == target => *d,
            _ => {
                let d = doc_of(target)?;
                target_doc = Some((target.to_string(), d));
                d
            }
        };
        if let (Some(a), Some(b)) = (a, doc_of(source)?) {
            edges.push((a.min(b), a.max(b)));
        }
    }
    edges.sort_unstable();
    edges.dedup();
    let mut counts = vec![0u32; docs.len()];
    for (a, b) in edges {
        for doc in [a, b] {
            if let Ok(slot) = docs.binary_search(&doc) {
                counts[slot] += 1;
            }
        }
    }
    Ok(counts)
}

/// Writes `counts` ((document, count), ascending by document) into the column, a
/// chunk at a time, leaving the chunks' other documents as they are.
fn write(
    table: &mut Table<'_, (&'static str, u32), Sealed>,
    counts: &[(u32, i64)],
) -> Result<(), redb::Error> {
    for part in counts.chunk_by(|a, b| a.0 / CHUNK_DOCS == b.0 / CHUNK_DOCS) {
        let chunk = part[0].0 / CHUNK_DOCS;
        let mut values = columns::get(table, Field::Links, chunk)?
            .unwrap_or_else(|| columns::empty(Field::Links));
        let Values::Whole(v) = &mut values else {
            continue; // one field's chunks are always of one kind
        };
        let mut changed = false;
        for &(doc, count) in part {
            let at = (doc % CHUNK_DOCS) as usize;
            changed |= std::mem::replace(&mut v[at], count) != count;
        }
        if changed {
            columns::put(table, Field::Links, chunk, &values)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Rng;
    use crate::model::{Memory, Relationship, Timestamp};
    use crate::store::Store;
    use std::collections::{BTreeMap, BTreeSet};

    /// Every stored memory's count by the definition: the other stored memories it
    /// links to or that link to it.
    fn by_definition(memories: &BTreeMap<String, Memory>) -> BTreeMap<String, i64> {
        let mut others: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        for m in memories.values() {
            others.entry(&m.id).or_default();
            for r in &m.relationships {
                if r.target != m.id && memories.contains_key(&r.target) {
                    others.entry(&m.id).or_default().insert(&r.target);
                    others.entry(&r.target).or_default().insert(&m.id);
                }
            }
        }
        others
            .into_iter()
            .map(|(id, o)| (id.to_string(), o.len() as i64))
            .collect()
    }

    fn stored_counts(store: &Store) -> BTreeMap<String, i64> {
        let reader = store.read().expect("read");
        let table = reader.table(COLUMNS).expect("columns");
        let ids = reader.table(IDS).expect("ids");
        let mut out = BTreeMap::new();
        for row in ids.iter().expect("ids") {
            let (id, doc) = row.expect("row");
            let doc = doc.value();
            let values = columns::get(&table, Field::Links, doc / CHUNK_DOCS)
                .expect("chunk")
                .unwrap_or_else(|| columns::empty(Field::Links));
            let Values::Whole(v) = values else {
                panic!("a whole-number column")
            };
            out.insert(id.value().to_string(), v[(doc % CHUNK_DOCS) as usize]);
        }
        out
    }

    #[test]
    fn counts_kept_at_each_commit_and_recounted_all_agree_with_the_definition() {
        let dir = tempfile::tempdir().expect("dir");
        let store = Store::open(&dir.path().join("t.redb")).expect("open");
        let mut rng = Rng(7);
        let mut memories: BTreeMap<String, Memory> = BTreeMap::new();
        let at = Timestamp(1_700_000_000_000_000_000);
        for round in 0..40 {
            let mut w = store.write().expect("write");
            for _ in 0..1 + rng.below(4) {
                let id = format!("m{}", rng.below(30));
                if rng.below(6) == 0 && memories.contains_key(&id) {
                    w.purge(&id).expect("purge");
                    memories.remove(&id);
                    continue;
                }
                let mut m = Memory::new(id.clone(), format!("body {round}"), at);
                // links to memories stored or not, both ways, twice to one
                m.relationships = (0..rng.below(4))
                    .map(|_| format!("m{}", rng.below(34)))
                    .filter(|t| *t != id)
                    .map(|target| Relationship {
                        target,
                        kind: "related".into(),
                        strength: None,
                    })
                    .collect();
                w.put(&m).expect("put");
                memories.insert(id, m);
            }
            w.commit().expect("commit");
            assert_eq!(
                stored_counts(&store),
                by_definition(&memories),
                "round {round}"
            );
        }
        let w = store.write().expect("write");
        refresh_all(w.txn().expect("txn")).expect("recount");
        w.commit().expect("commit");
        assert_eq!(stored_counts(&store), by_definition(&memories), "recounted");
    }
}
