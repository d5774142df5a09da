//! Undo records: the exact before- and after-image of every memory a change touched,
//! and putting the before-images back in one transaction when nothing changed since.

use super::apply::Applied;
use super::error::{CurateError, CurateResult};
use crate::model::Memory;
use crate::store::Store;

/// One memory a change touched: how it was before and after (`None` = not in the store).
#[derive(Debug, Clone, PartialEq)]
pub struct UndoEntry {
    /// The memory's id.
    pub id: String,
    /// The record before the change; `None` when the change created it.
    pub before: Option<Memory>,
    /// The record the change left; `None` when the change purged it.
    pub after: Option<Memory>,
}

/// Fields every change moves on its own, never named as changed by it.
const BOOKKEEPING: [&str; 2] = ["updated_at", "curated"];

impl UndoEntry {
    /// Names of the stored fields that differ between before and after (an `extra` key
    /// by its own name), the bookkeeping of every change (`updated_at`, `curated`) left
    /// out; `["purged"]` or `["created"]` when the
    /// memory appeared or disappeared.
    pub fn changed_fields(&self) -> Vec<String> {
        let (before, after) = match (&self.before, &self.after) {
            (Some(b), Some(a)) => (b.to_json(), a.to_json()),
            (Some(_), None) => return vec!["purged".into()],
            (None, _) => return vec!["created".into()],
        };
        let mut fields: Vec<String> = after
            .iter()
            .filter(|(k, v)| {
                !BOOKKEEPING.contains(&k.as_str()) && before.get(k.as_str()) != Some(v)
            })
            .map(|(k, _)| k.clone())
            .collect();
        fields.extend(
            before
                .keys()
                .filter(|k| !BOOKKEEPING.contains(&k.as_str()) && !after.contains_key(k.as_str()))
                .cloned(),
        );
        fields
    }
}

/// Everything needed to take one applied change back.
#[derive(Debug, Clone, PartialEq)]
pub struct Undo {
    /// What the change did, e.g. `approve 3 memories`.
    pub description: String,
    /// The memories it changed, in the order it changed them.
    pub entries: Vec<UndoEntry>,
}

/// The record as it is now matches the after-image, ignoring tracked reads (a read is
/// not an edit and must not block an undo).
fn unchanged_since(now: Option<&Memory>, after: Option<&Memory>) -> bool {
    match (now, after) {
        (None, None) => true,
        (Some(now), Some(after)) => {
            let mut now = now.clone();
            now.read_count = after.read_count;
            now.last_read_at = after.last_read_at;
            &now == after
        }
        _ => false,
    }
}

/// Puts back the exact before-images of `undo` in one durable transaction: edited
/// memories get every old field back (including `updated_at`), purged ones return,
/// created links disappear. Reads tracked since are kept. Refuses with
/// [`CurateError::Conflict`], writing nothing, when any memory changed since.
///
/// Returns the change it made, whose own undo record redoes the original change.
pub fn undo(store: &Store, undo: &Undo) -> CurateResult<Applied> {
    let mut w = store.write()?;
    let mut redo = Vec::with_capacity(undo.entries.len());
    for entry in undo.entries.iter().rev() {
        let current = w.get(&entry.id)?;
        if !unchanged_since(current.as_ref(), entry.after.as_ref()) {
            return Err(CurateError::Conflict {
                action: "undo",
                description: undo.description.clone(),
                id: entry.id.clone(),
            });
        }
        let restored = entry.before.clone().map(|mut m| {
            // reads tracked since the change stay, on top of the before-image's (a merge
            // changes the count itself; every other change leaves it as it was)
            if let (Some(c), Some(a)) = (&current, &entry.after) {
                let since = c.read_count.saturating_sub(a.read_count);
                m.read_count = m.read_count.saturating_add(since);
                if c.last_read_at != a.last_read_at {
                    m.last_read_at = c.last_read_at;
                }
            }
            m
        });
        match &restored {
            Some(m) => {
                w.put(m)?;
            }
            None => {
                w.purge(&entry.id)?;
            }
        }
        redo.push(UndoEntry {
            id: entry.id.clone(),
            before: current,
            after: restored,
        });
    }
    if !redo.is_empty() {
        w.commit()?;
    }
    Ok(Applied {
        undo: Undo {
            description: undo.description.clone(),
            entries: redo,
        },
        unchanged: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Status, Timestamp};

    #[test]
    fn the_bookkeeping_of_a_change_is_not_named_among_its_fields() {
        let before = Memory::new("a", "text", Timestamp(1));
        let mut after = before.clone();
        after.status = Status::Validated;
        after.updated_at = Timestamp(2);
        after.curated.status = true;
        let entry = UndoEntry {
            id: "a".into(),
            before: Some(before),
            after: Some(after),
        };
        assert_eq!(entry.changed_fields(), ["status"]);
    }
}
