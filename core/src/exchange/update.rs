//! `--on-conflict update`: a re-import of a changed source takes what the source owns
//! and keeps what the person did in memlens.
//!
//! From the source: the text (title, body), type, scope, module, weight, trust,
//! confidence, confidentiality level, every score, `rem_visits`, `source`, its
//! `updated_at`, its status and tags, and the fields it keeps in `extra`. Kept from the
//! store: `created_at`; the status when it was set in memlens (approve, reject,
//! supersede, `set status`: [`crate::model::Curated`]), with who validated it and why
//! it was rejected; the title and body when they were written in memlens (an edit, a
//! merge); a soft deletion the source does not have; the ratings given in
//! memlens (their raters are added to the source's aggregate again); the links made
//! in memlens (link, merge, supersede, a kind changed) beside the source's own, and
//! the source's links removed in memlens stay removed (a link the source itself
//! dropped goes); the tags added in memlens, and the
//! source's tags removed in memlens stay removed; the pairs marked "not a duplicate";
//! the larger read count and the later read. Each kept thing is named, per memory, in
//! the import's report.

use crate::curate::edit::{NOT_DUPLICATE_OF, STATUS_KEYS};
use crate::model::Memory;
use crate::words::plural;

/// The memory a re-import of `incoming` over `stored` leaves, and what it kept of
/// `stored`, as short phrases for the report (`status validated`, `2 ratings`, …).
pub fn update_from_source(stored: &Memory, incoming: &Memory) -> (Memory, Vec<String>) {
    let mut m = incoming.clone();
    let mut kept = Vec::new();
    m.created_at = stored.created_at;
    m.curated = stored.curated.clone();
    if stored.curated.status {
        let keys_differ = STATUS_KEYS
            .iter()
            .any(|k| stored.extra.get(*k) != incoming.extra.get(*k));
        if stored.status != incoming.status || keys_differ {
            m.status = stored.status;
            for key in STATUS_KEYS {
                match stored.extra.get(key) {
                    Some(v) => m.extra.insert(key.into(), v.clone()),
                    None => m.extra.remove(key),
                };
            }
            kept.push(format!("status {}", stored.status));
        }
    }
    if stored.curated.text && (stored.title != incoming.title || stored.body != incoming.body) {
        m.title.clone_from(&stored.title);
        m.body.clone_from(&stored.body);
        kept.push("its text".into());
    }
    if stored.deleted_at.is_some() && incoming.deleted_at.is_none() {
        m.deleted_at = stored.deleted_at;
        m.deleted_reason.clone_from(&stored.deleted_reason);
        kept.push("its deletion".into());
    }
    // the aggregate the merged memories brought, on top of the source's
    let (merged_sum, merged_count) = stored.curated.ratings_merged;
    if merged_count > 0 {
        m.rating_sum = m.rating_sum.saturating_add(merged_sum);
        m.rating_count = m.rating_count.saturating_add(merged_count);
        kept.push(format!(
            "{} of merged memories",
            plural(merged_count as usize, "rating")
        ));
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
    // the source's links, but those removed or made (or given another kind) in
    // memlens, which stay as memlens has them; a link the source dropped goes
    let marks = &stored.curated;
    m.relationships = marks.links_over(&incoming.relationships, &stored.relationships);
    m.relationships.retain(|r| r.target != m.id);
    let made = (stored.relationships.iter())
        .filter(|r| marks.links_added.contains(&r.target))
        .filter(|r| !incoming.relationships.contains(r))
        .count();
    if made > 0 {
        kept.push(plural(made, "link"));
    }
    let unlinked = (incoming.relationships.iter())
        .filter(|r| marks.links_removed.contains(&r.target))
        .count();
    if unlinked > 0 {
        kept.push(format!("{} removed", plural(unlinked, "link")));
    }
    m.tags = stored.curated.tags_over(&incoming.tags);
    let added: Vec<&str> = (stored.curated.tags_added.iter())
        .filter(|t| !incoming.tags.contains(t))
        .map(String::as_str)
        .collect();
    if !added.is_empty() {
        kept.push(format!("tags {}", added.join(", ")));
    }
    let removed: Vec<&str> = (stored.curated.tags_removed.iter())
        .filter(|t| incoming.tags.contains(t))
        .map(String::as_str)
        .collect();
    if !removed.is_empty() {
        kept.push(format!("tags {} removed", removed.join(", ")));
    }
    if let Some(v) = stored.extra.get(NOT_DUPLICATE_OF)
        && m.extra.get(NOT_DUPLICATE_OF) != Some(v)
    {
        m.extra.insert(NOT_DUPLICATE_OF.into(), v.clone());
        kept.push(NOT_DUPLICATE_OF.into());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Curated, Rating, Relationship, Status, Timestamp};

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
        stored.curated = Curated {
            status: true,
            text: false,
            tags_added: vec!["mine".into()],
            tags_removed: Vec::new(),
            links_added: vec!["b".into()],
            links_removed: Vec::new(),
            ..Curated::default()
        };
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
            ["status validated", "1 rating", "1 link", "tags mine",]
        );
        assert_eq!(
            m.curated, stored.curated,
            "the marks stay for the next import"
        );
        assert!(m.validate().is_empty(), "{:?}", m.validate());
    }

    /// The source's word on its links, but for the links changed in memlens: a link
    /// made or given another kind in memlens stays as it is, one removed in memlens
    /// stays removed, and one the source dropped (that memlens did not make) goes.
    #[test]
    fn links_follow_the_source_but_for_those_changed_in_memlens() {
        let link = |target: &str, kind: &str| Relationship {
            target: target.into(),
            kind: kind.into(),
            strength: None,
        };
        let mut stored = Memory::new("a", "text", Timestamp(1));
        // f came from the source; b's kind was changed and d made in memlens; c was
        // removed in memlens
        stored.relationships = vec![
            link("f", "related"),
            link("b", "supersedes"),
            link("d", "related"),
        ];
        stored.curated = Curated {
            links_added: vec!["b".into(), "d".into()],
            links_removed: vec!["c".into()],
            ..Curated::default()
        };
        let mut incoming = Memory::new("a", "text", Timestamp(2));
        // the source dropped f, still has b and c, and added e
        incoming.relationships = vec![
            link("b", "related"),
            link("c", "supports"),
            link("e", "related"),
        ];
        let (m, kept) = update_from_source(&stored, &incoming);
        assert_eq!(
            m.relationships,
            vec![
                link("e", "related"),
                link("b", "supersedes"),
                link("d", "related")
            ]
        );
        assert_eq!(kept, ["2 links", "1 link removed"]);
        assert_eq!(m.curated, stored.curated);
    }

    /// The rating aggregate merged memories brought is added to the source's again.
    #[test]
    fn ratings_a_merge_brought_stay_on_top_of_the_sources() {
        let mut stored = Memory::new("a", "text", Timestamp(1));
        (stored.rating_sum, stored.rating_count) = (13, 4); // 4/2 of the source, 9/2 merged
        stored.curated.ratings_merged = (9, 2);
        let mut incoming = Memory::new("a", "text", Timestamp(2));
        (incoming.rating_sum, incoming.rating_count) = (5, 1); // the source's new aggregate
        let (m, kept) = update_from_source(&stored, &incoming);
        assert_eq!((m.rating_sum, m.rating_count), (14, 3));
        assert_eq!(kept, ["2 ratings of merged memories"]);
    }

    #[test]
    fn what_the_source_changed_wins_where_the_person_did_nothing() {
        let mut stored = Memory::new("a", "text", Timestamp(1));
        stored.status = Status::Proposed;
        stored.tags = vec!["keep".into(), "mine".into()];
        stored.curated.tags_added = vec!["mine".into()];
        stored.curated.tags_removed = vec!["noise".into()];
        stored.extra.insert("validated_by".into(), "agent".into());
        let mut incoming = Memory::new("a", "text", Timestamp(5));
        incoming.status = Status::Deprecated; // the source's own decision
        incoming.tags = vec!["keep".into(), "noise".into(), "new".into()];
        incoming
            .extra
            .insert("stale_reason".into(), "replaced upstream".into());
        let (m, kept) = update_from_source(&stored, &incoming);
        assert_eq!(m.status, Status::Deprecated);
        assert_eq!(m.extra.get("validated_by"), None, "the source dropped it");
        assert_eq!(m.extra["stale_reason"], "replaced upstream");
        assert_eq!(m.tags, ["keep", "new", "mine"]);
        assert_eq!(kept, ["tags mine", "tags noise removed"]);
    }

    #[test]
    fn text_written_in_memlens_stays_and_the_sources_text_wins_otherwise() {
        let mut stored = Memory::new("a", "merged: both bodies", Timestamp(1));
        stored.title = Some("Kept title".into());
        stored.curated.text = true;
        let mut incoming = Memory::new("a", "the source's body", Timestamp(5));
        incoming.title = None;
        let (m, kept) = update_from_source(&stored, &incoming);
        assert_eq!(
            (m.title.as_deref(), m.body.as_str()),
            (Some("Kept title"), "merged: both bodies")
        );
        assert_eq!(kept, ["its text"]);
        assert!(m.curated.text, "the mark stays for the next import");
        // the source saying the same: nothing to report
        let same = Memory {
            title: stored.title.clone(),
            ..Memory::new("a", "merged: both bodies", Timestamp(5))
        };
        assert!(update_from_source(&stored, &same).1.is_empty());
        // not written in memlens: the source's text
        stored.curated.text = false;
        let (m, kept) = update_from_source(&stored, &incoming);
        assert_eq!((m.title, m.body.as_str()), (None, "the source's body"));
        assert!(kept.is_empty(), "{kept:?}");
    }
}
