//! Every user intent and every asynchronous arrival, as one `Action` enum.
//!
//! The variants a user can bind are named in the TOML keymap in snake_case
//! (`select_next = …`); the ones that only the program sends are `#[serde(skip)]`.

use super::state::{DetailView, Facets, SliderHistogram};
use super::write::WriteOutcome;
use crate::model::Memory;
use crate::search::SearchResponse;
use serde::Deserialize;
use std::time::Duration;
use tui_textarea::Input;

/// One thing that happened: a bound key, typed text, a resize, or a background result.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    /// Quit at once, whatever is open.
    Quit,
    /// Close the top overlay, or quit when none is open.
    CloseOrQuit,
    /// Move the selection to the next memory.
    SelectNext,
    /// Move the selection to the previous memory.
    SelectPrevious,
    /// Jump to the first memory.
    SelectFirst,
    /// Jump to the last memory.
    SelectLast,
    /// Move the selection one screen down.
    PageDown,
    /// Move the selection one screen up.
    PageUp,
    /// Show the next browse-mode tab.
    NextTab,
    /// Show the previous browse-mode tab.
    PreviousTab,
    /// Show the Relevance tab.
    ShowRelevance,
    /// Show the Time tab.
    ShowTime,
    /// Show the Density tab.
    ShowDensity,
    /// Show the Rating tab.
    ShowRating,
    /// Show the Discovery tab.
    ShowDiscovery,
    /// Show the Property tab.
    ShowProperty,
    /// Show the Random tab; on it, draw a fresh sample.
    ShowRandom,
    /// Flip the order of the list between ascending and descending.
    FlipOrder,
    /// Pick the numeric field the Property tab sorts by.
    PickPropertyField,
    /// Move focus to the detail pane.
    FocusDetail,
    /// Move focus to the result list.
    FocusList,
    /// Move focus to the next pane.
    CycleFocus,
    /// Move focus to the search bar.
    FocusSearch,
    /// Open or close the filter panel.
    ToggleFilters,
    /// Open or close the help overlay.
    ToggleHelp,
    /// Show or mask `<private>…</private>` text in the detail pane.
    TogglePrivate,
    /// Switch the search engine: literal → bm25 → fuzzy.
    CycleEngine,
    /// Clear the query.
    ClearQuery,
    /// Leave the search bar for the list (the query stays).
    LeaveSearch,
    /// Choose the next filter.
    NextFilter,
    /// Choose the previous filter.
    PreviousFilter,
    /// Move the chosen filter's lower bound down (or its choice back).
    LowerBoundDown,
    /// Move the chosen filter's lower bound up (or its choice on).
    LowerBoundUp,
    /// Move the chosen filter's upper bound down.
    UpperBoundDown,
    /// Move the chosen filter's upper bound up.
    UpperBoundUp,
    /// Reset the chosen filter.
    ResetFilter,
    /// Reset every filter.
    ResetAllFilters,
    /// Close the filter panel.
    CloseFilters,
    /// Scroll the detail pane (or help) down.
    ScrollDown,
    /// Scroll the detail pane (or help) up.
    ScrollUp,
    /// Scroll the detail pane (or help) down a page.
    ScrollPageDown,
    /// Scroll the detail pane (or help) up a page.
    ScrollPageUp,
    /// Scroll the detail pane (or help) to its top.
    ScrollToTop,
    /// Scroll the detail pane (or help) to its end.
    ScrollToEnd,
    /// Choose the next relationship in the detail pane.
    NextRelationship,
    /// Choose the previous relationship in the detail pane.
    PreviousRelationship,
    /// Open the chosen relationship's memory.
    FollowRelationship,
    /// Go back to the memory shown before following a relationship.
    GoBack,
    /// Choose the next entry in a picker.
    PickerNext,
    /// Choose the previous entry in a picker.
    PickerPrevious,
    /// Accept the chosen entry in a picker.
    PickerAccept,
    /// Close the top overlay.
    CloseOverlay,
    /// Edit the memory's title, tags and body.
    Edit,
    /// Set the type of the memory (or of the marked ones) from a list.
    SetType,
    /// Set the scope of the memory (or of the marked ones) from a list.
    SetScope,
    /// Approve: status validated, validated by a human.
    Approve,
    /// Reject, asking for the reason.
    Reject,
    /// Rate 1–5: the next key gives the rating.
    Rate,
    /// Soft delete (restore brings it back).
    Delete,
    /// Restore a soft-deleted memory.
    Restore,
    /// Purge for good, after a yes.
    Purge,
    /// Merge the marked memories into the one under the cursor, after a yes.
    Merge,
    /// Link the memory to another one, picked by search.
    Link,
    /// Remove one of the memory's relationships.
    Unlink,
    /// Add tags, asking which.
    Tag,
    /// Remove tags, asking which.
    Untag,
    /// Mark or unmark the memory (marked memories are changed together).
    ToggleMark,
    /// Mark every memory in the list (again: unmark them).
    MarkAll,
    /// Unmark every memory.
    ClearMarks,
    /// Take back the newest change.
    Undo,
    /// Apply again the change most recently undone.
    Redo,
    /// Show only deleted memories, or back to hiding them.
    ToggleDeletedView,
    /// Open the Review tab (the queue shown last, else pending).
    ShowReview,
    /// Show the next review queue.
    NextQueue,
    /// Show the previous review queue.
    PreviousQueue,
    /// Leave the entry as it is and go to the next.
    SkipEntry,
    /// Mark the pair under the cursor as not duplicates, for good.
    NotDuplicate,
    /// Keep the left memory of the pair and deprecate the right one in its favour.
    Supersede,
    /// Swap which memory of the pair is kept.
    SwapPair,
    /// Rate 1.
    #[serde(rename = "rate_1")]
    Rate1,
    /// Rate 2.
    #[serde(rename = "rate_2")]
    Rate2,
    /// Rate 3.
    #[serde(rename = "rate_3")]
    Rate3,
    /// Rate 4.
    #[serde(rename = "rate_4")]
    Rate4,
    /// Rate 5.
    #[serde(rename = "rate_5")]
    Rate5,
    /// Take back your rating (the imported ratings stay).
    RetractRating,
    /// Move to the editor's next field.
    EditorNextField,
    /// Move to the editor's previous field.
    EditorPreviousField,
    /// Save the editor's changes.
    EditorSave,
    /// Close the editor (asks before dropping unsaved changes).
    EditorCancel,
    /// Accept what is typed in a prompt.
    PromptAccept,
    /// Answer yes.
    ConfirmYes,
    /// Answer no.
    ConfirmNo,
    /// A key typed into the search bar.
    #[serde(skip)]
    SearchInput(Input),
    /// A key typed into the text box of an overlay (editor, prompt, link picker).
    #[serde(skip)]
    TextInput(Input),
    /// Text pasted from the terminal.
    #[serde(skip)]
    Paste(String),
    /// The terminal changed size.
    #[serde(skip)]
    Resize(u16, u16),
    /// The mouse wheel turned over a cell (positive = down).
    #[serde(skip)]
    Wheel {
        /// Column of the pointer.
        column: u16,
        /// Row of the pointer.
        row: u16,
        /// Lines to move: positive down, negative up.
        lines: i8,
    },
    /// A left click on a cell.
    #[serde(skip)]
    Click {
        /// Column of the pointer.
        column: u16,
        /// Row of the pointer.
        row: u16,
    },
    /// The in-memory index finished loading.
    #[serde(skip)]
    SearcherReady,
    /// The store or index could not be loaded.
    #[serde(skip)]
    LoadFailed(String),
    /// A background read of the store failed (a damaged file): the reason, for the
    /// status line.
    #[serde(skip)]
    StoreFailed(String),
    /// How long the oldest store call under way has kept the browser waiting, in whole
    /// seconds, once that is long; `None` once nothing keeps it waiting.
    #[serde(skip)]
    StoreWaiting(Option<u64>),
    /// The values the choice filters offer (types, tags, modules, spans).
    #[serde(skip)]
    FacetsLoaded(Facets),
    /// A search stopped because a newer one was asked for (it answers nothing).
    #[serde(skip)]
    SearchSuperseded,
    /// A search finished.
    #[serde(skip)]
    SearchDone {
        /// The generation of the request it answers.
        generation: u64,
        /// The answer.
        response: SearchResponse,
        /// Where its page starts in the whole list: the offset asked for, or the page
        /// around the memory the selection was kept on when a change moved it.
        offset: usize,
        /// How long the search took.
        elapsed: Duration,
    },
    /// A slider's histogram finished.
    #[serde(skip)]
    HistogramDone {
        /// The generation of the request it answers.
        generation: u64,
        /// Which filter row it belongs to.
        row: usize,
        /// The histogram.
        histogram: SliderHistogram,
    },
    /// A memory's full detail (with its linked memories) was read.
    #[serde(skip)]
    DetailLoaded(Box<DetailView>),
    /// A memory could not be read for the detail pane.
    #[serde(skip)]
    DetailFailed {
        /// The memory asked for.
        id: String,
        /// Why it failed.
        reason: String,
    },
    /// A change, undo or redo was written (or refused).
    #[serde(skip)]
    Written(Box<WriteOutcome>),
    /// Files of the hivelore project the store indexes changed on disk: read them.
    #[serde(skip)]
    FilesChanged(Box<crate::project::live::Changed>),
    /// A tracked read was recorded: the memory as stored now, or why not.
    #[serde(skip)]
    ReadTracked {
        /// The memory opened.
        id: String,
        /// The memory after the read, or the reason it failed.
        result: Result<Box<Memory>, String>,
    },
    /// The collection was brought up to date after a write.
    #[serde(skip)]
    IndexReloaded,
    /// The search index could not be rebuilt (the old one stays in use).
    #[serde(skip)]
    IndexReloadFailed(String),
    /// A link-picker search finished.
    #[serde(skip)]
    LinkSearchDone {
        /// The generation of the request it answers.
        generation: u64,
        /// The answer.
        response: SearchResponse,
    },
    /// A page of a review queue was listed.
    #[serde(skip)]
    ReviewDone {
        /// The generation of the request it answers.
        generation: u64,
        /// The page as hits.
        response: SearchResponse,
        /// The rest of each entry, in the order of the hits.
        rows: Vec<super::review::QueueRow>,
        /// Every queue's count.
        counts: [Option<usize>; 6],
        /// How long it took.
        elapsed: Duration,
    },
    /// The ids of every memory in the list, to mark.
    #[serde(skip)]
    MarkAllDone {
        /// The generation of the request it answers.
        generation: u64,
        /// The ids.
        ids: Vec<String>,
    },
}

impl Action {
    /// What the action does, in the words the help overlay shows.
    pub fn describe(&self) -> &'static str {
        match self {
            Action::Quit => "quit at once",
            Action::CloseOrQuit => "close the overlay, or quit",
            Action::SelectNext => "next memory",
            Action::SelectPrevious => "previous memory",
            Action::SelectFirst => "first memory",
            Action::SelectLast => "last memory",
            Action::PageDown => "one screen down",
            Action::PageUp => "one screen up",
            Action::NextTab => "next tab",
            Action::PreviousTab => "previous tab",
            Action::ShowRelevance => "Relevance tab",
            Action::ShowTime => "Time tab",
            Action::ShowDensity => "Density tab",
            Action::ShowRating => "Rating tab",
            Action::ShowDiscovery => "Discovery tab",
            Action::ShowProperty => "Property tab",
            Action::ShowRandom => "Random tab (again: a fresh draw)",
            Action::FlipOrder => "flip the order (asc/desc)",
            Action::PickPropertyField => "pick the Property tab's field",
            Action::FocusDetail => "focus the detail pane",
            Action::FocusList => "back to the list",
            Action::CycleFocus => "cycle focus",
            Action::FocusSearch => "focus the search bar",
            Action::ToggleFilters => "open/close the filter panel",
            Action::ToggleHelp => "help",
            Action::TogglePrivate => "show/hide private text",
            Action::CycleEngine => "engine: literal → bm25 → fuzzy",
            Action::ClearQuery => "clear the query",
            Action::LeaveSearch => "back to the list (query stays)",
            Action::NextFilter => "next filter",
            Action::PreviousFilter => "previous filter",
            Action::LowerBoundDown => "lower bound down / previous choice",
            Action::LowerBoundUp => "lower bound up / next choice",
            Action::UpperBoundDown => "upper bound down",
            Action::UpperBoundUp => "upper bound up",
            Action::ResetFilter => "reset this filter",
            Action::ResetAllFilters => "reset every filter",
            Action::CloseFilters => "close the filter panel",
            Action::ScrollDown => "scroll down",
            Action::ScrollUp => "scroll up",
            Action::ScrollPageDown => "scroll a page down",
            Action::ScrollPageUp => "scroll a page up",
            Action::ScrollToTop => "scroll to the top",
            Action::ScrollToEnd => "scroll to the end",
            Action::NextRelationship => "next relationship",
            Action::PreviousRelationship => "previous relationship",
            Action::FollowRelationship => "follow the relationship",
            Action::GoBack => "go back",
            Action::PickerNext => "next entry",
            Action::PickerPrevious => "previous entry",
            Action::PickerAccept => "choose it",
            Action::CloseOverlay => "close",
            Action::Edit => "edit title, tags, body",
            Action::SetType => "set the type",
            Action::SetScope => "set the scope",
            Action::Approve => "approve (validated)",
            Action::Reject => "reject (asks a reason)",
            Action::Rate => "rate, then 1–5",
            Action::Delete => "delete (soft)",
            Action::Restore => "restore a deleted memory",
            Action::Purge => "purge for good (asks)",
            Action::Merge => "merge the marked into this one (asks)",
            Action::Link => "link to a memory picked by search",
            Action::Unlink => "remove a relationship",
            Action::Tag => "add tags",
            Action::Untag => "remove tags",
            Action::ToggleMark => "mark / unmark",
            Action::MarkAll => "mark all in the list / unmark",
            Action::ClearMarks => "unmark all",
            Action::Undo => "undo the newest change",
            Action::Redo => "redo what was undone",
            Action::ToggleDeletedView => "deleted memories only / back",
            Action::ShowReview => "Review tab: the queues",
            Action::NextQueue => "next queue",
            Action::PreviousQueue => "previous queue",
            Action::SkipEntry => "skip: leave it, go to the next",
            Action::NotDuplicate => "not a duplicate (for good)",
            Action::Supersede => "supersede: keep left, deprecate right",
            Action::SwapPair => "swap which one is kept",
            Action::Rate1 => "rate 1",
            Action::Rate2 => "rate 2",
            Action::Rate3 => "rate 3",
            Action::Rate4 => "rate 4",
            Action::Rate5 => "rate 5",
            Action::RetractRating => "take back your rating",
            Action::EditorNextField => "next field",
            Action::EditorPreviousField => "previous field",
            Action::EditorSave => "save",
            Action::EditorCancel => "cancel (asks if unsaved)",
            Action::PromptAccept => "accept",
            Action::ConfirmYes => "yes",
            Action::ConfirmNo => "no",
            Action::TextInput(_) => "type text",
            Action::SearchInput(_) => "edit the query",
            Action::Paste(_) => "paste",
            Action::Resize(..) => "resize",
            Action::Wheel { .. } => "mouse wheel",
            Action::Click { .. } => "mouse click",
            Action::SearcherReady
            | Action::LoadFailed(_)
            | Action::StoreFailed(_)
            | Action::StoreWaiting(_)
            | Action::FacetsLoaded(_)
            | Action::SearchDone { .. }
            | Action::SearchSuperseded
            | Action::HistogramDone { .. }
            | Action::DetailLoaded(_)
            | Action::DetailFailed { .. }
            | Action::Written(_)
            | Action::FilesChanged(_)
            | Action::ReadTracked { .. }
            | Action::IndexReloaded
            | Action::IndexReloadFailed(_)
            | Action::LinkSearchDone { .. }
            | Action::MarkAllDone { .. }
            | Action::ReviewDone { .. } => "background result",
        }
    }

    /// Parses an action name from the keymap (`select_next`).
    pub fn from_name(name: &str) -> Option<Action> {
        Action::named(name).ok()
    }

    /// The action named `name`, or serde's word on why there is none (which lists the
    /// names there are).
    fn named(name: &str) -> Result<Action, serde::de::value::Error> {
        use serde::de::IntoDeserializer;
        let de: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
            name.into_deserializer();
        Action::deserialize(de)
    }

    /// The action name closest to `name` (`select_previous` for `select_prev`), when
    /// one is close enough to be what was meant.
    pub fn nearest_name(name: &str) -> Option<String> {
        let why = Action::named(name).err()?.to_string();
        // serde lists the names there are as "expected one of `a`, `b`, …"
        let (_, listed) = why.split_once("expected one of ")?;
        let names = listed.split(", ").map(|n| n.trim_matches('`'));
        let score = |candidate: &str| {
            let similar = strsim::jaro_winkler(name, candidate);
            // a name written short (`select_prev`) is what the full one begins with
            let begun = candidate.starts_with(name) || name.starts_with(candidate);
            if begun { similar.max(0.9) } else { similar }
        };
        names
            .map(|candidate| (score(candidate), candidate))
            .filter(|(similar, _)| *similar >= 0.85)
            .max_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, candidate)| candidate.to_string())
    }
}
