//! `--on-conflict update`: a re-import of a changed source takes what the source owns
//! and keeps what the person did in memlens.
//!
//! From the source: the text (title, body), type, scope, module, weight, trust,
//! confidence, confidentiality level, every score, `rem_visits`, `source`, its
//! `updated_at`, and the fields it keeps in `extra`. Kept from the store: `created_at`;
//! a status that differs from the source's (approved, rejected, …) and a soft
//! deletion the source does not have; the ratings given in memlens (their raters
//! are added to the source's aggregate again); the links and merges made in memlens
//! beside the source's own; tags added in memlens after the source's; the `extra`
//! keys only the store has (who validated, why rejected); the larger read count and
//! the later read. Each kept thing is named, per memory, in the import's report.

use crate::model::Memory;

/// The memory a re-import of `incoming` over `stored` leaves, and what it kept of
/// `stored`, as short phrases for the report (`status validated`, `2 ratings`, …).
pub fn update_from_source(stored: &Memory, incoming: &Memory) -> (Memory, Vec<String>) {
    let mut m = incoming.clone();
    let mut kept = Vec::new();
    m.created_at = stored.created_at;
    if stored.status != incoming.status {
        m.status = stored.status;
        kept.push(format!("status {}", stored.status));
    }
    if stored.deleted_at.is_some() && incoming.deleted_at.is_none() {
        m.deleted_at = stored.deleted_at;
        m.deleted_reason.clone_from(&stored.deleted_reason);
        kept.push("its deletion".into());
    }
    if !stored.ratings.is_empty() {
        let sum: u32 = stored.ratings.iter().map(|r| u32::from(r.value)).sum();
        let own = stored.ratings.len() as u32;
        // the source's aggregate, then memlens's raters on top (none of them twice)
        let from_source = m.ratings.len() as u32;
        let source_sum: u32 = m.ratings.iter().map(|r| u32::from(r.value)).sum();
        m.rating_sum = m.rating_sum.saturating_sub(source_sum).saturating_add(sum);
        m.rating_count = m
            .rating_count
            .saturating_sub(from_source)
            .saturating_add(own);
        m.ratings.clone_from(&stored.ratings);
        kept.push(plural(stored.ratings.len(), "rating"));
    }
    let mut links = 0;
    for rel in &stored.relationships {
        let known = m
            .relationships
            .iter()
            .any(|r| r.target == rel.target && r.kind == rel.kind);
        if !known && rel.target != m.id {
            m.relationships.push(rel.clone());
            links += 1;
        }
    }
    if links > 0 {
        kept.push(plural(links, "link"));
    }
    let added: Vec<&String> = stored
        .tags
        .iter()
        .filter(|t| !incoming.tags.contains(t))
        .collect();
    if !added.is_empty() {
        m.tags.extend(added.iter().map(|t| (*t).clone()));
        let names: Vec<&str> = added.iter().map(|t| t.as_str()).collect();
        kept.push(format!("tags {}", names.join(", ")));
    }
    for (k, v) in &stored.extra {
        if !m.extra.contains_key(k) {
            m.extra.insert(k.clone(), v.clone());
            kept.push(k.clone());
        }
    }
    if stored.read_count > m.read_count {
        m.read_count = stored.read_count;
    }
    if stored.last_read_at > m.last_read_at {
        m.last_read_at = stored.last_read_at;
    }
    if m.updated_at < m.created_at {
        m.updated_at = m.created_at;
    }
    (m, kept)
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Rating, Relationship, Status, Timestamp};

    #[test]
    fn the_source_owns_the_text_and_scores_and_the_person_keeps_their_work() {
        let mut stored = Memory::new("a", "old text", Timestamp(1));
        stored.status = Status::Validated;
        stored.tags = vec!["src".into(), "mine".into()];
        stored.ratings = vec![Rating {
            rater: "ann".into(),
            value: 5,
        }];
        (stored.rating_sum, stored.rating_count) = (9, 2); // 4 imported + ann's 5
        stored.relationships = vec![Relationship {
            target: "b".into(),
            kind: "merged".into(),
            strength: None,
        }];
        stored.extra.insert("validated_by".into(), "human".into());
        stored.feel[0] = Some(0.1);
        let mut incoming = Memory::new("a", "new text", Timestamp(5));
        incoming.tags = vec!["src".into()];
        (incoming.rating_sum, incoming.rating_count) = (8, 2); // the source's new aggregate
        incoming.feel[0] = Some(0.9);
        let (m, kept) = update_from_source(&stored, &incoming);
        assert_eq!(m.body, "new text");
        assert_eq!(m.feel[0], Some(0.9));
        assert_eq!(m.created_at, Timestamp(1));
        assert_eq!(m.updated_at, Timestamp(5));
        assert_eq!(m.status, Status::Validated);
        assert_eq!((m.rating_sum, m.rating_count), (13, 3));
        assert_eq!(m.tags, ["src", "mine"]);
        assert_eq!(m.relationships.len(), 1);
        assert_eq!(m.extra["validated_by"], "human");
        assert_eq!(
            kept,
            [
                "status validated",
                "1 rating",
                "1 link",
                "tags mine",
                "validated_by"
            ]
        );
        assert!(m.validate().is_empty(), "{:?}", m.validate());
    }
}
