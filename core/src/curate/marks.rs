//! Marks what a person changes in memlens on the memory itself (status, text, tags,
//! the links it holds)
//! ([`crate::model::Curated`]), so that a re-import from the memory's source keeps it.

use super::edit::STATUS_KEYS;
use crate::model::Memory;

/// Notes on `after` what the change from `before` did to the fields a re-import
/// would otherwise take from the source: the status (with who validated it and why
/// it was rejected or went stale), the text (title or body) and the tags.
pub(super) fn note_person_changes(before: &Memory, after: &mut Memory) {
    let status_fields_changed = before.status != after.status
        || STATUS_KEYS
            .iter()
            .any(|k| before.extra.get(*k) != after.extra.get(*k));
    if status_fields_changed {
        after.curated.status = true;
    }
    if before.title != after.title || before.body != after.body {
        after.curated.text = true;
    }
    if before.tags != after.tags {
        after.curated.note_tags(&before.tags, &after.tags);
    }
    if before.relationships != after.relationships {
        let mut curated = std::mem::take(&mut after.curated);
        curated.note_links(&held_links(before), &held_links(after));
        after.curated = curated;
    }
}

/// The links `m` holds, as (target, kind).
fn held_links(m: &Memory) -> Vec<(&str, &str)> {
    (m.relationships.iter())
        .map(|r| (r.target.as_str(), r.kind.as_str()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::curate::edit::{Edit, VALIDATED_BY};
    use crate::model::{Status, Timestamp};

    /// Linking marks the link added, unlinking a link the source gave marks it removed,
    /// and undoing either drops the mark; a kind changed counts as a link made.
    #[test]
    fn links_made_removed_and_rekinded_are_marked_and_cancel_out() {
        let link = |target: &str, kind: &str| crate::model::Relationship {
            target: target.into(),
            kind: kind.into(),
            strength: None,
        };
        let mut m = Memory::new("a", "text", crate::model::Timestamp(1));
        m.relationships = vec![link("src", "related")];
        let change = |m: &Memory, links: Vec<crate::model::Relationship>| {
            let mut after = m.clone();
            after.relationships = links;
            note_person_changes(m, &mut after);
            after
        };
        let linked = change(&m, vec![link("src", "related"), link("new", "supports")]);
        assert_eq!(linked.curated.links_added, ["new"]);
        let unlinked = change(&linked, vec![link("new", "supports")]);
        assert_eq!(unlinked.curated.links_removed, ["src"]);
        let back = change(&unlinked, vec![link("src", "related")]);
        assert!(back.curated.is_empty(), "{:?}", back.curated);
        let rekinded = change(&m, vec![link("src", "supersedes")]);
        assert_eq!(rekinded.curated.links_added, ["src"]);
        assert!(rekinded.curated.links_removed.is_empty());
    }

    fn edited(m: &Memory, edit: Edit) -> Memory {
        let mut after = m.clone();
        edit.apply_to(&mut after, Timestamp(9)).unwrap();
        note_person_changes(m, &mut after);
        after
    }

    #[test]
    fn status_text_and_tag_changes_are_marked_and_nothing_else_is() {
        let mut m = Memory::new("a", "text", Timestamp(1));
        m.tags = vec!["src".into()];
        let rated = edited(&m, Edit::Rate(4));
        assert!(rated.curated.is_empty(), "{:?}", rated.curated);
        let approved = edited(&m, Edit::Approve);
        assert!(approved.curated.status);
        // approving what an agent validated changes only who validated it: still marked
        let mut by_agent = m.clone();
        by_agent.status = Status::Validated;
        by_agent.extra.insert(VALIDATED_BY.into(), "agent".into());
        assert!(edited(&by_agent, Edit::Approve).curated.status);
        assert!(!approved.curated.text);
        let retitled = edited(
            &m,
            Edit::Set(vec![crate::curate::FieldValue::Title(Some("new".into()))]),
        );
        assert!(retitled.curated.text && !retitled.curated.status);
        let tagged = edited(&m, Edit::Tag(vec!["mine".into()]));
        assert_eq!(tagged.curated.tags_added, ["mine"]);
        assert!(!tagged.curated.status);
        let untagged = edited(&tagged, Edit::Untag(vec!["src".into()]));
        assert_eq!(untagged.curated.tags_removed, ["src"]);
        assert_eq!(untagged.curated.tags_added, ["mine"]);
    }
}
