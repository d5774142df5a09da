//! Keys → actions, per part of the screen, from the defaults of SPEC §5 with the
//! config file's `[keys.*]` tables laid over them. The help overlay is built from the
//! same tables, so it always lists the keys in force.

use super::action::Action;
use super::state::{Focus, Overlay, State};
use ratatui::crossterm::event::KeyEvent;
use std::collections::BTreeMap;

pub use super::key::{Key, KeyCodeOrd};

/// A part of the screen with its own key table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Section {
    /// Keys that work everywhere, even in text boxes.
    Everywhere,
    /// Keys that work anywhere outside a text box.
    Global,
    /// The result list.
    List,
    /// The search bar.
    Search,
    /// The filter panel.
    Filters,
    /// The detail pane.
    Detail,
    /// The help overlay.
    Help,
    /// The pickers: the Property tab's field, a type, a scope, a relationship.
    Picker,
    /// The curation keys, in the list and the detail pane.
    Curation,
    /// The editor.
    Editor,
    /// The one-line prompts (a reason, tags, a module, a kind).
    Prompt,
    /// Yes/no questions.
    Confirm,
    /// After the rate key: the rating.
    Rate,
    /// The link picker (a search box over a result list).
    LinkPicker,
    /// On a review queue (list or detail), before the curation keys.
    Review,
}

impl Section {
    /// Every section, in the order help lists them.
    pub const ALL: [Section; 15] = [
        Section::List,
        Section::Review,
        Section::Curation,
        Section::Global,
        Section::Search,
        Section::Filters,
        Section::Detail,
        Section::Editor,
        Section::Prompt,
        Section::Confirm,
        Section::Rate,
        Section::Picker,
        Section::LinkPicker,
        Section::Help,
        Section::Everywhere,
    ];

    /// The table name in the config file (`[keys.list]`).
    pub fn name(self) -> &'static str {
        match self {
            Section::Everywhere => "everywhere",
            Section::Global => "global",
            Section::List => "list",
            Section::Search => "search",
            Section::Filters => "filters",
            Section::Detail => "detail",
            Section::Help => "help",
            Section::Picker => "picker",
            Section::Curation => "curation",
            Section::Editor => "editor",
            Section::Prompt => "prompt",
            Section::Confirm => "confirm",
            Section::Rate => "rate",
            Section::LinkPicker => "link_picker",
            Section::Review => "review",
        }
    }

    /// The heading help shows.
    pub fn title(self) -> &'static str {
        match self {
            Section::Everywhere => "Everywhere",
            Section::Global => "Anywhere outside a text box",
            Section::List => "List",
            Section::Search => "Search bar",
            Section::Filters => "Filter panel",
            Section::Detail => "Detail pane",
            Section::Help => "Help",
            Section::Picker => "Pickers (field, type, scope, relationship)",
            Section::Curation => "Curation (list or detail; marked memories first)",
            Section::Editor => "Editor",
            Section::Prompt => "Prompts (reason, tags, module, kind)",
            Section::Confirm => "Questions",
            Section::Rate => "Rating",
            Section::LinkPicker => "Link picker (type to search)",
            Section::Review => "Review queues (the curation keys work too)",
        }
    }

    /// The section named `name`.
    pub fn parse(name: &str) -> Option<Section> {
        Section::ALL.into_iter().find(|s| s.name() == name)
    }
}

/// Keys → actions for every section.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    tables: BTreeMap<Section, Vec<(Key, Action)>>,
}

/// A problem in the `[keys]` part of a config file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KeymapError {
    /// The table name is not a section.
    #[error("[keys.{0}]: no such part of the screen (use one of {list})", list = section_list())]
    UnknownSection(String),
    /// The key cannot be read.
    #[error("[keys.{section}] `{key}`: not a key (write e.g. `j`, `G`, `ctrl-t`, `enter`, `pgdn`)")]
    BadKey {
        /// The table.
        section: String,
        /// The key as written.
        key: String,
    },
    /// The action is not known.
    #[error(
        "[keys.{section}] `{key}` = `{action}`: no such action{} (`none` unbinds)",
        nearest.as_ref().map(|n| format!("; did you mean `{n}`?")).unwrap_or_default()
    )]
    UnknownAction {
        /// The table.
        section: String,
        /// The key as written.
        key: String,
        /// The action as written.
        action: String,
        /// The action name closest to it, when one is close.
        nearest: Option<String>,
    },
    /// The config rebinds or unbinds Ctrl-c, the one key that always quits.
    #[error(
        "[keys.{section}] `{key}`: Ctrl-c always quits at once and cannot be rebound or unbound"
    )]
    QuitKey {
        /// The table.
        section: String,
        /// The key as written.
        key: String,
    },
    /// The config leaves an overlay with no key that closes it.
    #[error("[keys.{section}]: no key is left that closes it (keep one bound to `{action}`)")]
    NoWayOut {
        /// The overlay's table.
        section: &'static str,
        /// The action that closes it, by its config name.
        action: &'static str,
    },
}

/// The key that quits at once, whatever the config says (SPEC §5: "quits at once").
pub const QUIT_KEY: &str = "ctrl-c";

/// Each overlay's section and the action that closes it (by its config name).
const WAYS_OUT: [(Section, Action, &str); 7] = [
    (Section::Help, Action::CloseOverlay, "close_overlay"),
    (Section::Picker, Action::CloseOverlay, "close_overlay"),
    (Section::Prompt, Action::CloseOverlay, "close_overlay"),
    (Section::Rate, Action::CloseOverlay, "close_overlay"),
    (Section::LinkPicker, Action::CloseOverlay, "close_overlay"),
    (Section::Editor, Action::EditorCancel, "editor_cancel"),
    (Section::Confirm, Action::ConfirmNo, "confirm_no"),
];

fn section_list() -> String {
    Section::ALL.map(Section::name).join(", ")
}

fn defaults() -> Vec<(Section, &'static str, Action)> {
    use Action as A;
    use Section as S;
    vec![
        (S::Everywhere, "ctrl-c", A::Quit),
        (S::Global, "/", A::FocusSearch),
        (S::Global, "f", A::ToggleFilters),
        (S::Global, "?", A::ToggleHelp),
        (S::Global, "v", A::TogglePrivate),
        (S::Global, "q", A::CloseOrQuit),
        (S::List, "j", A::SelectNext),
        (S::List, "down", A::SelectNext),
        (S::List, "k", A::SelectPrevious),
        (S::List, "up", A::SelectPrevious),
        (S::List, "g", A::SelectFirst),
        (S::List, "home", A::SelectFirst),
        (S::List, "G", A::SelectLast),
        (S::List, "end", A::SelectLast),
        (S::List, "pgdn", A::PageDown),
        (S::List, "pgup", A::PageUp),
        (S::List, "[", A::PreviousTab),
        (S::List, "]", A::NextTab),
        (S::List, "1", A::ShowRelevance),
        (S::List, "2", A::ShowTime),
        (S::List, "3", A::ShowDensity),
        (S::List, "4", A::ShowRating),
        (S::List, "5", A::ShowDiscovery),
        (S::List, "6", A::ShowProperty),
        (S::List, "7", A::ShowRandom),
        (S::List, "8", A::ShowReview),
        (S::Review, "}", A::NextQueue),
        (S::Review, "{", A::PreviousQueue),
        (S::Review, "n", A::SkipEntry),
        (S::Review, "N", A::NotDuplicate),
        (S::Review, "S", A::Supersede),
        (S::Review, "w", A::SwapPair),
        (S::List, "o", A::FlipOrder),
        (S::List, "p", A::PickPropertyField),
        (S::List, "enter", A::FocusDetail),
        (S::List, "tab", A::CycleFocus),
        (S::Search, "ctrl-t", A::CycleEngine),
        (S::Search, "ctrl-u", A::ClearQuery),
        (S::Search, "enter", A::LeaveSearch),
        (S::Search, "esc", A::LeaveSearch),
        (S::Search, "tab", A::CycleFocus),
        (S::Search, "down", A::SelectNext),
        (S::Search, "up", A::SelectPrevious),
        (S::Filters, "j", A::NextFilter),
        (S::Filters, "down", A::NextFilter),
        (S::Filters, "k", A::PreviousFilter),
        (S::Filters, "up", A::PreviousFilter),
        (S::Filters, "h", A::LowerBoundDown),
        (S::Filters, "l", A::LowerBoundUp),
        (S::Filters, "H", A::UpperBoundDown),
        (S::Filters, "L", A::UpperBoundUp),
        (S::Filters, "0", A::ResetFilter),
        (S::Filters, "ctrl-r", A::ResetAllFilters),
        (S::Filters, "esc", A::CloseFilters),
        (S::Filters, "tab", A::CycleFocus),
        (S::Detail, "j", A::ScrollDown),
        (S::Detail, "down", A::ScrollDown),
        (S::Detail, "k", A::ScrollUp),
        (S::Detail, "up", A::ScrollUp),
        (S::Detail, "pgdn", A::ScrollPageDown),
        (S::Detail, "pgup", A::ScrollPageUp),
        (S::Detail, "g", A::ScrollToTop),
        (S::Detail, "home", A::ScrollToTop),
        (S::Detail, "G", A::ScrollToEnd),
        (S::Detail, "end", A::ScrollToEnd),
        (S::Detail, "n", A::NextRelationship),
        (S::Detail, "N", A::PreviousRelationship),
        (S::Detail, "enter", A::FollowRelationship),
        (S::Detail, "backspace", A::GoBack),
        (S::Detail, "esc", A::FocusList),
        (S::Detail, "tab", A::CycleFocus),
        (S::Picker, "j", A::PickerNext),
        (S::Picker, "down", A::PickerNext),
        (S::Picker, "k", A::PickerPrevious),
        (S::Picker, "up", A::PickerPrevious),
        (S::Picker, "enter", A::PickerAccept),
        (S::Picker, "esc", A::CloseOverlay),
        (S::Picker, "q", A::CloseOverlay),
        (S::Curation, "e", A::Edit),
        (S::Curation, "t", A::SetType),
        (S::Curation, "s", A::SetScope),
        (S::Curation, "a", A::Approve),
        (S::Curation, "x", A::Reject),
        (S::Curation, "r", A::Rate),
        (S::Curation, "d", A::Delete),
        (S::Curation, "R", A::Restore),
        (S::Curation, "P", A::Purge),
        (S::Curation, "M", A::Merge),
        (S::Curation, "l", A::Link),
        (S::Curation, "L", A::Unlink),
        (S::Curation, "+", A::Tag),
        (S::Curation, "-", A::Untag),
        (S::Curation, "space", A::ToggleMark),
        (S::Curation, "V", A::MarkAll),
        (S::Curation, "esc", A::ClearMarks),
        (S::Curation, "u", A::Undo),
        (S::Curation, "U", A::Redo),
        (S::Curation, "D", A::ToggleDeletedView),
        (S::Editor, "tab", A::EditorNextField),
        (S::Editor, "backtab", A::EditorPreviousField),
        (S::Editor, "ctrl-s", A::EditorSave),
        (S::Editor, "esc", A::EditorCancel),
        (S::Prompt, "enter", A::PromptAccept),
        (S::Prompt, "esc", A::CloseOverlay),
        (S::Confirm, "y", A::ConfirmYes),
        (S::Confirm, "n", A::ConfirmNo),
        (S::Confirm, "esc", A::ConfirmNo),
        (S::Rate, "1", A::Rate1),
        (S::Rate, "2", A::Rate2),
        (S::Rate, "3", A::Rate3),
        (S::Rate, "4", A::Rate4),
        (S::Rate, "5", A::Rate5),
        (S::Rate, "0", A::RetractRating),
        (S::Rate, "esc", A::CloseOverlay),
        (S::LinkPicker, "down", A::PickerNext),
        (S::LinkPicker, "ctrl-n", A::PickerNext),
        (S::LinkPicker, "up", A::PickerPrevious),
        (S::LinkPicker, "ctrl-p", A::PickerPrevious),
        (S::LinkPicker, "enter", A::PickerAccept),
        (S::LinkPicker, "esc", A::CloseOverlay),
        (S::Help, "j", A::ScrollDown),
        (S::Help, "down", A::ScrollDown),
        (S::Help, "k", A::ScrollUp),
        (S::Help, "up", A::ScrollUp),
        (S::Help, "pgdn", A::ScrollPageDown),
        (S::Help, "space", A::ScrollPageDown),
        (S::Help, "pgup", A::ScrollPageUp),
        (S::Help, "g", A::ScrollToTop),
        (S::Help, "home", A::ScrollToTop),
        (S::Help, "G", A::ScrollToEnd),
        (S::Help, "end", A::ScrollToEnd),
        (S::Help, "esc", A::CloseOverlay),
        (S::Help, "?", A::CloseOverlay),
        (S::Help, "q", A::CloseOverlay),
    ]
}

impl Default for Keymap {
    fn default() -> Self {
        let mut tables: BTreeMap<Section, Vec<(Key, Action)>> = BTreeMap::new();
        for (section, key, action) in defaults() {
            if let Some(key) = Key::parse(key) {
                tables.entry(section).or_default().push((key, action));
            }
        }
        Keymap { tables }
    }
}

impl Keymap {
    /// The defaults with `overrides` laid over them: `section → key → action name`,
    /// where the action `none` unbinds the key.
    pub fn with_overrides(
        overrides: &BTreeMap<String, BTreeMap<String, String>>,
    ) -> Result<Keymap, Vec<KeymapError>> {
        let mut map = Keymap::default();
        let mut errors = Vec::new();
        let quit_key = Key::parse(QUIT_KEY);
        for (section_name, keys) in overrides {
            let Some(section) = Section::parse(section_name) else {
                errors.push(KeymapError::UnknownSection(section_name.clone()));
                continue;
            };
            for (key_text, action_name) in keys {
                let Some(key) = Key::parse(key_text) else {
                    errors.push(KeymapError::BadKey {
                        section: section_name.clone(),
                        key: key_text.clone(),
                    });
                    continue;
                };
                let quits = action_name == "quit";
                if section == Section::Everywhere && Some(key) == quit_key && !quits {
                    errors.push(KeymapError::QuitKey {
                        section: section_name.clone(),
                        key: key_text.clone(),
                    });
                    continue;
                }
                let table = map.tables.entry(section).or_default();
                if action_name == "none" {
                    table.retain(|(k, _)| *k != key);
                    continue;
                }
                let Some(action) = Action::from_name(action_name) else {
                    errors.push(KeymapError::UnknownAction {
                        section: section_name.clone(),
                        key: key_text.clone(),
                        action: action_name.clone(),
                        nearest: Action::nearest_name(action_name),
                    });
                    continue;
                };
                match table.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => slot.1 = action,
                    None => table.push((key, action)),
                }
            }
        }
        errors.extend(map.overlays_without_a_way_out());
        if errors.is_empty() {
            Ok(map)
        } else {
            Err(errors)
        }
    }

    /// The overlays no key closes: none bound to the closing action in the overlay's
    /// section, or every such key taken first by the `everywhere` section.
    fn overlays_without_a_way_out(&self) -> Vec<KeymapError> {
        WAYS_OUT
            .iter()
            .filter(|(section, close, _)| {
                !self
                    .keys_for(*section, close)
                    .into_iter()
                    .any(|key| self.lookup(Section::Everywhere, key).is_none())
            })
            .map(|(section, _, action)| KeymapError::NoWayOut {
                section: section.name(),
                action,
            })
            .collect()
    }

    /// The action bound to `key` in one section.
    pub fn lookup(&self, section: Section, key: Key) -> Option<&Action> {
        self.tables
            .get(&section)?
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, a)| a)
    }

    /// The sections consulted for a key press, most specific first.
    pub fn sections_for(state: &State) -> Vec<Section> {
        let mut out = vec![Section::Everywhere];
        match &state.overlay {
            Some(Overlay::Help { .. }) => out.push(Section::Help),
            Some(Overlay::FieldPicker { .. } | Overlay::Choice { .. }) => {
                out.push(Section::Picker);
            }
            Some(Overlay::Editor) => out.push(Section::Editor),
            Some(Overlay::Prompt(_)) => out.push(Section::Prompt),
            Some(Overlay::Confirm(_)) => out.push(Section::Confirm),
            Some(Overlay::Rate { .. }) => out.push(Section::Rate),
            Some(Overlay::LinkPicker { .. }) => out.push(Section::LinkPicker),
            None => {
                out.push(match state.focus {
                    Focus::List => Section::List,
                    Focus::Search => Section::Search,
                    Focus::Filters => Section::Filters,
                    Focus::Detail => Section::Detail,
                });
                if matches!(state.focus, Focus::List | Focus::Detail) {
                    if state.review.queue.is_some() {
                        out.push(Section::Review);
                    }
                    out.push(Section::Curation);
                }
                if !state.in_text_box() {
                    out.push(Section::Global);
                }
            }
        }
        out
    }

    /// The action for a key press in the current state: a binding, or typing when a
    /// text box (the search bar, or an overlay's) has the keys.
    pub fn action_for(&self, state: &State, event: &KeyEvent) -> Option<Action> {
        if let Some(key) = Key::from_event(event) {
            for section in Keymap::sections_for(state) {
                if let Some(action) = self.lookup(section, key) {
                    return Some(action.clone());
                }
            }
        }
        if !state.in_text_box() {
            return None;
        }
        Some(if state.overlay.is_some() {
            Action::TextInput((*event).into())
        } else {
            Action::SearchInput((*event).into())
        })
    }

    /// The bindings of one section grouped by action, in the order first bound: what the
    /// help overlay lists.
    pub fn help_entries(&self, section: Section) -> Vec<(Vec<Key>, Action)> {
        let mut out: Vec<(Vec<Key>, Action)> = Vec::new();
        for (key, action) in self.tables.get(&section).into_iter().flatten() {
            match out.iter_mut().find(|(_, a)| a == action) {
                Some((keys, _)) => keys.push(*key),
                None => out.push((vec![*key], action.clone())),
            }
        }
        out
    }

    /// The keys bound to `action` in `section`, for hints.
    pub fn keys_for(&self, section: Section, action: &Action) -> Vec<Key> {
        self.tables
            .get(&section)
            .into_iter()
            .flatten()
            .filter(|(_, a)| a == action)
            .map(|(k, _)| *k)
            .collect()
    }
}
