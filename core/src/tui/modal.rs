//! The overlays drawn over the screen and what each is for: help, the pickers, the
//! editor, the text prompt (a reason, a tag, a module, a new type, a relationship
//! kind), the yes/no question and the rating keys. The overlays' text boxes live in
//! `State`, beside them.

use crate::model::Scope;

/// A window drawn over everything else.
#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    /// The help overlay, scrolled by so many lines.
    Help {
        /// First line shown.
        scroll: u16,
    },
    /// The Property tab's field picker.
    FieldPicker {
        /// Index into `NumericField::all()`.
        selected: usize,
    },
    /// The editor of `State::editor`.
    Editor,
    /// A one-line prompt; its text box is `State::prompt_input`.
    Prompt(PromptFor),
    /// A yes/no question.
    Confirm(ConfirmFor),
    /// A list to choose one entry from.
    Choice {
        /// What the choice is for.
        purpose: ChoiceFor,
        /// The entries.
        options: Vec<ChoiceOption>,
        /// The chosen entry.
        selected: usize,
    },
    /// Waiting for the rating key 1–5.
    Rate {
        /// The memories to rate.
        ids: Vec<String>,
    },
    /// Picking the memory to link to by search; the query box is `State::link_query`.
    LinkPicker {
        /// The memory the link starts from.
        from: String,
        /// The chosen result.
        selected: usize,
    },
}

impl Overlay {
    /// True when the overlay has a text box that takes typed keys.
    pub fn takes_text(&self) -> bool {
        matches!(
            self,
            Overlay::Editor | Overlay::Prompt(_) | Overlay::LinkPicker { .. }
        )
    }
}

/// What a one-line text prompt asks for, and for which memories.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptFor {
    /// Why the memories are rejected (required).
    RejectReason {
        /// The memories.
        ids: Vec<String>,
    },
    /// Tags to add, comma-separated.
    Tag {
        /// The memories.
        ids: Vec<String>,
    },
    /// Tags to remove, comma-separated.
    Untag {
        /// The memories.
        ids: Vec<String>,
    },
    /// The module, after choosing scope `module`.
    Module {
        /// The memories.
        ids: Vec<String>,
    },
    /// A type that is not in the type list.
    NewType {
        /// The memories.
        ids: Vec<String>,
    },
    /// The kind of a new relationship (`related` when left blank).
    LinkKind {
        /// The memory that holds the relationship.
        from: String,
        /// The memory it points to.
        to: String,
    },
}

impl PromptFor {
    /// The prompt's title: what is asked, about which memories.
    pub fn title(&self) -> String {
        match self {
            PromptFor::RejectReason { ids } => format!("Reject {}: why?", targets_label(ids)),
            PromptFor::Tag { ids } => format!("Tag {} with (comma-separated)", targets_label(ids)),
            PromptFor::Untag { ids } => {
                format!("Remove tags from {} (comma-separated)", targets_label(ids))
            }
            PromptFor::Module { ids } => format!("Module of {}", targets_label(ids)),
            PromptFor::NewType { ids } => format!("Type of {}", targets_label(ids)),
            PromptFor::LinkKind { from, to } => format!("Kind of the link `{from}` → `{to}`"),
        }
    }

    /// A hint shown in the empty box.
    pub fn placeholder(&self) -> &'static str {
        match self {
            PromptFor::RejectReason { .. } => "the reason is kept as stale_reason",
            PromptFor::Tag { .. } | PromptFor::Untag { .. } => "tag, another-tag",
            PromptFor::Module { .. } => "e.g. ledger-core",
            PromptFor::NewType { .. } => "lowercase letters, digits, _ and -",
            PromptFor::LinkKind { .. } => "related",
        }
    }
}

/// A question answered with yes or no.
#[derive(Debug, Clone, PartialEq)]
pub enum ConfirmFor {
    /// Soft-delete these memories (more than one: a marked selection).
    Delete {
        /// The memories.
        ids: Vec<String>,
    },
    /// Remove these memories for good.
    Purge {
        /// The memories.
        ids: Vec<String>,
    },
    /// Merge `from` into `into`.
    Merge {
        /// The memory kept.
        into: String,
        /// The memories merged into it.
        from: Vec<String>,
    },
    /// Close the editor, dropping its unsaved changes.
    DropEdits,
    /// Quit, dropping the editor's unsaved changes.
    QuitDroppingEdits,
}

impl ConfirmFor {
    /// The question, one line.
    pub fn question(&self) -> String {
        match self {
            ConfirmFor::Delete { ids } => format!(
                "Delete {}? Restore or undo brings them back.",
                targets_label(ids)
            ),
            ConfirmFor::Purge { ids } => format!(
                "Purge {} for good? Only undo in this session brings {} back.",
                targets_label(ids),
                if ids.len() == 1 { "it" } else { "them" }
            ),
            ConfirmFor::Merge { into, from } => format!(
                "Merge {} into `{into}`? {} deleted (restorable) and linked from it.",
                targets_label(from),
                if from.len() == 1 { "It is" } else { "They are" }
            ),
            ConfirmFor::DropEdits => "Drop the unsaved changes?".into(),
            ConfirmFor::QuitDroppingEdits => "Quit and drop the unsaved changes?".into(),
        }
    }
}

/// What a choice list chooses.
#[derive(Debug, Clone, PartialEq)]
pub enum ChoiceFor {
    /// The memories' type.
    Type {
        /// The memories.
        ids: Vec<String>,
    },
    /// The memories' scope (module asks for the module next).
    Scope {
        /// The memories.
        ids: Vec<String>,
    },
    /// The relationship of `from` to remove.
    Unlink {
        /// The memory whose relationships are listed.
        from: String,
    },
}

impl ChoiceFor {
    /// The list's title.
    pub fn title(&self) -> String {
        match self {
            ChoiceFor::Type { ids } => format!("Type of {}", targets_label(ids)),
            ChoiceFor::Scope { ids } => format!("Scope of {}", targets_label(ids)),
            ChoiceFor::Unlink { from } => format!("Unlink `{from}` from"),
        }
    }
}

/// One entry of a choice list: the value it stands for and what is shown.
#[derive(Debug, Clone, PartialEq)]
pub struct ChoiceOption {
    /// The value (a type name, a scope name, a memory id), or empty for "other…".
    pub value: String,
    /// The text shown.
    pub label: String,
}

/// The value the "type a new one" entry of the type list carries.
pub const OTHER_TYPE: &str = "";

/// Types offered even when the store has none of them yet (hivelore's and remember's).
pub const KNOWN_TYPES: [&str; 13] = [
    "architecture",
    "attempt",
    "convention",
    "decision",
    "event",
    "glossary",
    "gotcha",
    "journal",
    "note",
    "person",
    "skill",
    "todo",
    "session_recap",
];

/// The type list: the store's types and the known ones, sorted, then "other…".
pub fn type_options(store_types: &[String]) -> Vec<ChoiceOption> {
    let mut names: Vec<String> = store_types
        .iter()
        .cloned()
        .chain(KNOWN_TYPES.iter().map(|t| t.to_string()))
        .collect();
    names.sort();
    names.dedup();
    let mut out: Vec<ChoiceOption> = names
        .into_iter()
        .map(|t| ChoiceOption {
            label: t.clone(),
            value: t,
        })
        .collect();
    out.push(ChoiceOption {
        value: OTHER_TYPE.into(),
        label: "other… (type a name)".into(),
    });
    out
}

/// The scope list, with what each scope means.
pub fn scope_options() -> Vec<ChoiceOption> {
    Scope::ALL
        .iter()
        .map(|s| ChoiceOption {
            value: s.as_str().into(),
            label: match s {
                Scope::Personal => "personal  only its author",
                Scope::Team => "team      the whole team",
                Scope::Module => "module    one module (asks which)",
                Scope::Shared => "shared    across teams",
            }
            .into(),
        })
        .collect()
}

/// `` `id` `` for one memory, `N memories` for several.
pub fn targets_label(ids: &[String]) -> String {
    match ids {
        [one] => format!("`{one}`"),
        many => format!("{} memories", many.len()),
    }
}

/// Comma-separated text as a list: trimmed, blanks and repeats dropped.
pub fn split_list(text: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    for item in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        // said twice, asked once (the status line echoes the list)
        if !items.iter().any(|seen| seen == item) {
            items.push(item.to_string());
        }
    }
    items
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typed_list_is_trimmed_without_blanks_or_repeats() {
        assert_eq!(split_list("trial, trial,  , Trial2,"), ["trial", "Trial2"]);
    }

    #[test]
    fn type_options_merge_store_and_known_types_once_and_end_with_other() {
        let options = type_options(&["zeta".into(), "note".into()]);
        let values: Vec<&str> = options.iter().map(|o| o.value.as_str()).collect();
        assert_eq!(values.iter().filter(|v| **v == "note").count(), 1);
        assert!(values.contains(&"zeta") && values.contains(&"gotcha"));
        assert_eq!(values.last(), Some(&OTHER_TYPE));
        let named = &values[..values.len() - 1];
        assert!(named.windows(2).all(|w| w[0] < w[1]), "{named:?}");
    }

    #[test]
    fn lists_split_on_commas_and_drop_blanks() {
        assert_eq!(split_list(" a, ,b ,, c "), ["a", "b", "c"]);
        assert!(split_list(" , ").is_empty());
        assert_eq!(targets_label(&["m".into()]), "`m`");
        assert_eq!(targets_label(&["a".into(), "b".into()]), "2 memories");
    }
}
