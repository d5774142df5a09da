//! What a person changed in memlens that the memory's source does not know of, so
//! that a re-import of a changed source (`--on-conflict update`) keeps exactly that
//! and takes everything else from the source.

/// The changes made in memlens, recorded as they are made (by approve, reject,
/// supersede, `set status`, tag and untag, an edit, a merge, an agent's update through
/// memlens). An import that replaces the memory whole (`overwrite`) clears them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Curated {
    /// The status (or who validated it, or why it was rejected) was set in memlens.
    pub status: bool,
    /// The title or the body was written in memlens (an edit, a merge, an agent's
    /// update through memlens).
    pub text: bool,
    /// Tags added in memlens, in the order they were added.
    pub tags_added: Vec<String>,
    /// Tags removed in memlens.
    pub tags_removed: Vec<String>,
    /// The memories this one was linked to in memlens (a link made, or its kind
    /// changed, by link, merge or supersede), by id: a re-import keeps these links.
    pub links_added: Vec<String>,
    /// The memories this one held a link to that was removed in memlens, by id: a
    /// re-import leaves these links out.
    pub links_removed: Vec<String>,
    /// The rating aggregate (sum, count) the memories merged into this one brought: a
    /// re-import adds it to the source's aggregate.
    pub ratings_merged: (u32, u32),
}

impl Curated {
    /// True when nothing was changed in memlens.
    pub fn is_empty(&self) -> bool {
        !self.status
            && !self.text
            && self.tags_added.is_empty()
            && self.tags_removed.is_empty()
            && self.links_added.is_empty()
            && self.links_removed.is_empty()
            && self.ratings_merged == (0, 0)
    }

    /// Records a change of the links a memory holds from `before` to `after` (target,
    /// kind): a link made or given another kind is marked added, one taken away marked
    /// removed, and a mark the change undoes is dropped.
    pub fn note_links(&mut self, before: &[(&str, &str)], after: &[(&str, &str)]) {
        for &(target, _) in after.iter().filter(|l| !before.contains(l)) {
            // a link removed in memlens and made again is the source's once more
            if let Some(i) = self.links_removed.iter().position(|t| t == target) {
                self.links_removed.remove(i);
            } else if !self.links_added.iter().any(|t| t == target) {
                self.links_added.push(target.to_string());
            }
        }
        let held = |target: &str| after.iter().any(|(t, _)| *t == target);
        for &(target, _) in before.iter().filter(|(t, _)| !held(t)) {
            if let Some(i) = self.links_added.iter().position(|t| t == target) {
                self.links_added.remove(i);
            } else if !self.links_removed.iter().any(|t| t == target) {
                self.links_removed.push(target.to_string());
            }
        }
    }

    /// The links a re-import leaves, from the source's `incoming` and the `stored`
    /// memory's own: the source's, but those removed in memlens and those whose link
    /// was made (or changed) in memlens, then those made in memlens as they are stored.
    pub fn links_over(
        &self,
        incoming: &[super::Relationship],
        stored: &[super::Relationship],
    ) -> Vec<super::Relationship> {
        let ours = |target: &str| {
            self.links_removed.iter().any(|t| t == target)
                || self.links_added.iter().any(|t| t == target)
        };
        let mut links: Vec<super::Relationship> = incoming
            .iter()
            .filter(|r| !ours(&r.target))
            .cloned()
            .collect();
        links.extend(
            stored
                .iter()
                .filter(|r| self.links_added.contains(&r.target))
                .cloned(),
        );
        links
    }

    /// Records a change of the tags from `before` to `after`: a tag added back after
    /// it was removed (or removed after it was added) cancels the earlier mark.
    pub fn note_tags(&mut self, before: &[String], after: &[String]) {
        for tag in after.iter().filter(|t| !before.contains(t)) {
            if let Some(i) = self.tags_removed.iter().position(|t| t == tag) {
                self.tags_removed.remove(i);
            } else if !self.tags_added.contains(tag) {
                self.tags_added.push(tag.clone());
            }
        }
        for tag in before.iter().filter(|t| !after.contains(t)) {
            if let Some(i) = self.tags_added.iter().position(|t| t == tag) {
                self.tags_added.remove(i);
            } else if !self.tags_removed.contains(tag) {
                self.tags_removed.push(tag.clone());
            }
        }
    }

    /// The tags a re-import leaves: the source's `incoming` tags without those removed
    /// in memlens, then those added in memlens.
    pub fn tags_over(&self, incoming: &[String]) -> Vec<String> {
        let mut tags: Vec<String> = incoming
            .iter()
            .filter(|t| !self.tags_removed.contains(t))
            .cloned()
            .collect();
        for tag in &self.tags_added {
            if !tags.contains(tag) {
                tags.push(tag.clone());
            }
        }
        tags
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tags(list: &[&str]) -> Vec<String> {
        list.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn tag_marks_follow_every_change_and_cancel_out() {
        let mut c = Curated::default();
        c.note_tags(&tags(&["a", "b"]), &tags(&["a", "b", "mine"]));
        c.note_tags(&tags(&["a", "b", "mine"]), &tags(&["b", "mine"]));
        assert_eq!(c.tags_added, ["mine"]);
        assert_eq!(c.tags_removed, ["a"]);
        // putting "a" back and dropping "mine" again leaves nothing marked
        c.note_tags(&tags(&["b", "mine"]), &tags(&["b", "a"]));
        assert!(c.is_empty(), "{c:?}");
    }

    #[test]
    fn a_reimport_takes_the_source_tags_with_the_persons_changes_on_top() {
        let c = Curated {
            status: false,
            text: false,
            tags_added: tags(&["mine"]),
            tags_removed: tags(&["noise"]),
            ..Curated::default()
        };
        // the source dropped "old" and added "new": both follow the source
        let got = c.tags_over(&tags(&["new", "noise", "kept"]));
        assert_eq!(got, ["new", "kept", "mine"]);
    }
}
