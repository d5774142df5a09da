//! Linking and unlinking two memories. Links are undirected: a relationship is stored on
//! one side only and the store's reverse edges show it on the other.

use super::apply::{Pending, existing, kind_or_default};
use super::error::{CurateError, CurateResult};
use crate::model::{Memory, Relationship};
use crate::store::StoreWriter;

/// Position of the first relationship `from` holds to `to`.
pub(super) fn held(from: &Memory, to: &str) -> Option<usize> {
    from.relationships.iter().position(|r| r.target == to)
}

/// Links `a` to `b` with `kind` (see [`super::Change::Link`]).
pub(super) fn link(
    w: &mut StoreWriter,
    pending: &mut Pending,
    a: &str,
    b: &str,
    kind: &str,
) -> CurateResult<()> {
    if a == b {
        return Err(CurateError::SelfLink(a.to_string()));
    }
    let given = !kind.trim().is_empty();
    let kind = kind_or_default(kind);
    if kind.chars().any(char::is_control) {
        return Err(CurateError::BadValue {
            field: "kind".into(),
            value: kind.escape_debug().to_string(),
            reason: "contains a control character".into(),
        });
    }
    let ma = existing(w, a)?;
    let mb = existing(w, b)?;
    // no kind given: a link already there stays as it is
    let same_kind = |from: &Memory, to: &str| {
        from.relationships
            .iter()
            .any(|r| r.target == to && (r.kind == kind || !given))
    };
    if same_kind(&ma, b) || same_kind(&mb, a) {
        pending.unchanged.push(a.to_string());
        return Ok(());
    }
    // An existing link keeps the side that holds it and takes the new kind.
    let (holder, i) = match (held(&ma, b), held(&mb, a)) {
        (Some(i), _) => (ma, Some(i)),
        (None, Some(i)) => (mb, Some(i)),
        (None, None) => (ma, None),
    };
    let mut after = holder.clone();
    match i {
        Some(i) => after.relationships[i].kind = kind.to_string(),
        None => after.relationships.push(Relationship {
            target: b.to_string(),
            kind: kind.to_string(),
            strength: None,
        }),
    }
    pending.save(w, holder, after)
}

/// Removes every relationship between `a` and `b` on either side. Either memory may be
/// missing from the store (a dangling relationship can be removed), but not both.
pub(super) fn unlink(
    w: &mut StoreWriter,
    pending: &mut Pending,
    a: &str,
    b: &str,
) -> CurateResult<()> {
    if a == b {
        return Err(CurateError::SelfLink(a.to_string()));
    }
    let ma = w.get(a)?;
    let mb = w.get(b)?;
    let mut changes = Vec::new();
    for (from, to) in [(&ma, b), (&mb, a)] {
        if let Some(m) = from
            && held(m, to).is_some()
        {
            let mut after = m.clone();
            after.relationships.retain(|r| r.target != to);
            changes.push((m.clone(), after));
        }
    }
    if changes.is_empty() {
        return Err(match (ma, mb) {
            (None, _) => CurateError::UnknownId(a.to_string()),
            (_, None) => CurateError::UnknownId(b.to_string()),
            _ => CurateError::NotLinked {
                a: a.to_string(),
                b: b.to_string(),
            },
        });
    }
    for (before, after) in changes {
        pending.save(w, before, after)?;
    }
    Ok(())
}
