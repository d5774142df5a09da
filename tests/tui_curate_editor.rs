//! `update()` for the editor, through the headless browser on a real store: a save sets
//! only the fields that changed, title and tags stay one line, a refused save keeps the
//! editor open, and cancelling asks before dropping unsaved changes (never otherwise).

mod tui_common;

use memlens::curate::{Change, Edit};
use memlens::tui::editor::EditorField;
use memlens::tui::modal::ConfirmFor;
use memlens::tui::state::Overlay;
use ratatui::crossterm::event::KeyCode;
use tui_common::curate::{changes, ctrl, cursor, press, shown_everywhere, start, stored, writes};

#[test]
fn the_editor_saves_only_what_changed_and_undo_restores_it() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    b.type_keys("e");
    assert_eq!(b.state.overlay, Some(Overlay::Editor));
    let editor = b.state.editor.as_ref().expect("editor");
    assert_eq!(editor.text(EditorField::Body), before.body);
    assert_eq!(
        editor.text(EditorField::Tags),
        before.tags.join(", "),
        "tags as text"
    );
    press(&mut b, KeyCode::Tab);
    press(&mut b, KeyCode::Tab);
    assert_eq!(b.state.editor.as_ref().expect("e").field, EditorField::Body);
    b.type_keys("NEW ");
    press(&mut b, KeyCode::Enter); // a new line in the body
    b.effects.clear();
    ctrl(&mut b, 's');
    assert_eq!(b.state.overlay, None, "closed once saved");
    assert!(b.state.editor.is_none());
    let after = stored(&b, &id).expect("stored");
    assert_eq!(after.body, format!("NEW \n{}", before.body));
    assert_eq!((&after.title, &after.tags), (&before.title, &before.tags));
    match &changes(&b)[..] {
        [
            Change::Edit {
                edit: Edit::Set(values),
                ..
            },
        ] => {
            assert_eq!(values.len(), 1, "only the body: {values:?}");
        }
        other => panic!("{other:?}"),
    }
    shown_everywhere(&b, &id, |m| m.body.starts_with("NEW \n"));
    b.type_keys("u");
    assert_eq!(stored(&b, &id), Some(before));
}

#[test]
fn the_editor_sets_title_and_tags_and_a_cleared_title_is_removed() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    b.type_keys("e");
    // the title and tags boxes open with the cursor after their text
    b.type_keys("!");
    press(&mut b, KeyCode::Enter); // title is one line: Enter goes to tags
    b.type_keys(", curated,  ,even");
    ctrl(&mut b, 's');
    let m = stored(&b, &id).expect("stored");
    assert_eq!(m.title, before.title.map(|t| format!("{t}!")));
    let mut expected = before.tags.clone();
    for tag in ["curated", "even"] {
        if !expected.iter().any(|t| t == tag) {
            expected.push(tag.to_string());
        }
    }
    assert_eq!(m.tags, expected, "blanks and repeats dropped");
    b.type_keys("e");
    for _ in 0..200 {
        press(&mut b, KeyCode::Backspace);
        press(&mut b, KeyCode::Delete);
    }
    ctrl(&mut b, 's');
    assert_eq!(stored(&b, &id).expect("stored").title, None);
}

#[test]
fn cancelling_an_unchanged_editor_closes_it_without_asking_or_writing() {
    let (_f, mut b) = start();
    b.effects.clear();
    b.type_keys("e");
    press(&mut b, KeyCode::Tab);
    press(&mut b, KeyCode::Esc);
    assert_eq!(b.state.overlay, None);
    assert!(b.state.editor.is_none());
    assert!(writes(&b).is_empty());
    // saving with nothing changed writes nothing either
    b.type_keys("e");
    ctrl(&mut b, 's');
    assert!(b.state.editor.is_none() && writes(&b).is_empty());
    assert_eq!(b.state.report.as_deref(), Some("nothing to save"));
}

#[test]
fn cancelling_with_unsaved_changes_asks_and_no_keeps_every_change() {
    let (_f, mut b) = start();
    let id = cursor(&b);
    let before = stored(&b, &id).expect("stored");
    b.effects.clear();
    b.type_keys("e");
    b.type_keys("draft ");
    press(&mut b, KeyCode::Esc);
    assert_eq!(
        b.state.overlay,
        Some(Overlay::Confirm(ConfirmFor::DropEdits))
    );
    b.type_keys("n");
    assert_eq!(b.state.overlay, Some(Overlay::Editor));
    let title = b
        .state
        .editor
        .as_ref()
        .expect("editor")
        .text(EditorField::Title);
    assert!(title.ends_with("draft "), "{title}");
    press(&mut b, KeyCode::Esc);
    press(&mut b, KeyCode::Esc); // Esc on the question is "no"
    assert_eq!(b.state.overlay, Some(Overlay::Editor));
    // Ctrl-c does not drop them silently either: it asks, and a second one quits
    ctrl(&mut b, 'c');
    assert_eq!(
        b.state.overlay,
        Some(Overlay::Confirm(ConfirmFor::QuitDroppingEdits))
    );
    assert!(!b.state.quitting);
    b.type_keys("n");
    press(&mut b, KeyCode::Esc);
    b.type_keys("y");
    assert_eq!(b.state.overlay, None);
    assert!(b.state.editor.is_none());
    assert!(writes(&b).is_empty(), "dropped, never written");
    assert_eq!(stored(&b, &id), Some(before));
    b.type_keys("e");
    b.type_keys("x");
    ctrl(&mut b, 'c');
    ctrl(&mut b, 'c');
    assert!(b.state.quitting);
}

#[test]
fn an_emptied_body_saves_as_an_empty_memory() {
    // SPEC §2: an empty body is a memory (hivelore and OpenMemory write them), so the
    // editor saves it rather than refusing it
    let (_f, mut b) = start();
    let id = cursor(&b);
    b.type_keys("e");
    press(&mut b, KeyCode::BackTab); // backwards from the title: the body
    assert_eq!(b.state.editor.as_ref().expect("e").field, EditorField::Body);
    for _ in 0..400 {
        press(&mut b, KeyCode::Delete);
    }
    ctrl(&mut b, 's');
    assert_eq!(b.state.overlay, None, "saved and closed");
    assert!(stored(&b, &id).expect("stored").body.is_empty());
}

/// A memory holding private text is edited only once private text is shown: the
/// editor shows the text as it is, so it does not open on a hidden secret.
#[test]
fn the_editor_opens_on_private_text_only_once_it_is_shown() {
    let mut memories = tui_common::memories();
    for m in &mut memories {
        m.body = format!("token <private>SECRET-123</private> {}", m.body);
    }
    let f = tui_common::fixture_with(memories);
    let mut b = tui_common::session(&f, (120, 40));
    b.dispatch(memlens::tui::action::Action::SelectFirst);
    let id = cursor(&b);
    assert!(stored(&b, &id).expect("stored").body.contains("<private>"));
    b.type_keys("e");
    assert_eq!(b.state.overlay, None, "not opened");
    assert!(b.state.editor.is_none());
    let said = b.state.message.clone().unwrap_or_default();
    assert!(said.contains("private text"), "{said}");
    b.dispatch(memlens::tui::action::Action::TogglePrivate);
    b.type_keys("e");
    assert_eq!(b.state.overlay, Some(Overlay::Editor));
}
