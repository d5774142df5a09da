//! The editor of one memory's title, tags and body: three tui-textarea boxes, the text
//! they started from (so unsaved changes are known), and the fields a save would set.

use super::modal::split_list;
use crate::curate::FieldValue;
use crate::model::Memory;
use ratatui::style::{Modifier, Style};
use tui_textarea::{Input, Key, TextArea, WrapMode};

/// The editor's fields, in Tab order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditorField {
    /// The title (one line; empty removes it).
    Title,
    /// The tags, comma-separated (one line).
    Tags,
    /// The body (many lines).
    Body,
}

impl EditorField {
    /// Every field, in Tab order.
    pub const ALL: [EditorField; 3] = [EditorField::Title, EditorField::Tags, EditorField::Body];

    /// The label drawn above the box.
    pub fn label(self) -> &'static str {
        match self {
            EditorField::Title => "Title",
            EditorField::Tags => "Tags (comma-separated)",
            EditorField::Body => "Body",
        }
    }
}

/// An open editor.
#[derive(Debug, Clone)]
pub struct Editor {
    /// The memory being edited.
    pub id: String,
    /// The field that receives keys.
    pub field: EditorField,
    /// The title box.
    pub title: TextArea<'static>,
    /// The tags box.
    pub tags: TextArea<'static>,
    /// The body box.
    pub body: TextArea<'static>,
    /// The title, tags and body text the boxes started with.
    original: [String; 3],
    /// The write a save started, while it runs (the editor stays open until it succeeds).
    pub saving: Option<u64>,
    /// The memory as another process left it while this editor was open (a hivelore
    /// file an agent rewrote or deleted): shown beside the person's text until they
    /// save theirs over it or cancel.
    pub on_disk: Option<OnDisk>,
}

/// What another process made of the memory being edited.
#[derive(Debug, Clone, PartialEq)]
pub enum OnDisk {
    /// Changed: the memory as it is now.
    Changed(Box<Memory>),
    /// Its file was deleted.
    Deleted,
}

fn text_box(text: &str, placeholder: &str) -> TextArea<'static> {
    let lines: Vec<String> = text.split('\n').map(str::to_string).collect();
    let mut area = TextArea::new(lines);
    area.set_placeholder_text(placeholder);
    area.set_cursor_line_style(Style::default());
    area
}

impl Editor {
    /// An editor on `memory`, the title box focused.
    pub fn open(memory: &Memory) -> Editor {
        let title = memory.title.clone().unwrap_or_default();
        let tags = memory.tags.join(", ");
        let mut body = text_box(&memory.body, "the body cannot be empty");
        body.set_wrap_mode(WrapMode::WordOrGlyph);
        // the one-line boxes open with the cursor after their text, ready to add to it
        let at_end = |mut line: TextArea<'static>| {
            line.move_cursor(tui_textarea::CursorMove::End);
            line
        };
        let mut editor = Editor {
            id: memory.id.clone(),
            field: EditorField::Title,
            title: at_end(text_box(&title, "no title (the first body line is shown)")),
            tags: at_end(text_box(&tags, "no tags")),
            body,
            original: [title, tags, memory.body.clone()],
            saving: None,
            on_disk: None,
        };
        editor.show_cursor();
        editor
    }

    /// The text of a field as it is now.
    pub fn text(&self, field: EditorField) -> String {
        self.area(field).lines().join("\n")
    }

    /// The box of a field.
    pub fn area(&self, field: EditorField) -> &TextArea<'static> {
        match field {
            EditorField::Title => &self.title,
            EditorField::Tags => &self.tags,
            EditorField::Body => &self.body,
        }
    }

    fn area_mut(&mut self, field: EditorField) -> &mut TextArea<'static> {
        match field {
            EditorField::Title => &mut self.title,
            EditorField::Tags => &mut self.tags,
            EditorField::Body => &mut self.body,
        }
    }

    fn index(field: EditorField) -> usize {
        EditorField::ALL
            .iter()
            .position(|f| *f == field)
            .unwrap_or(0)
    }

    /// True when a field differs from what it started with.
    pub fn is_changed(&self, field: EditorField) -> bool {
        self.text(field) != self.original[Editor::index(field)]
    }

    /// True when any field has unsaved changes.
    pub fn is_dirty(&self) -> bool {
        EditorField::ALL.iter().any(|f| self.is_changed(*f))
    }

    /// The fields a save sets: only the changed ones.
    pub fn changes(&self) -> Vec<FieldValue> {
        let mut out = Vec::new();
        if self.is_changed(EditorField::Title) {
            let title = self.text(EditorField::Title);
            out.push(FieldValue::Title(
                (!title.trim().is_empty()).then(|| title.trim().to_string()),
            ));
        }
        if self.is_changed(EditorField::Tags) {
            out.push(FieldValue::Tags(split_list(&self.text(EditorField::Tags))));
        }
        if self.is_changed(EditorField::Body) {
            out.push(FieldValue::Body(self.text(EditorField::Body)));
        }
        out
    }

    /// Moves to the next field (`step` 1) or the previous one (`step` −1), wrapping.
    pub fn move_field(&mut self, step: isize) {
        let n = EditorField::ALL.len() as isize;
        let i = (Editor::index(self.field) as isize + step).rem_euclid(n);
        self.field = EditorField::ALL[i as usize];
        self.show_cursor();
    }

    /// Only the focused box shows its cursor.
    fn show_cursor(&mut self) {
        let focused = self.field;
        for field in EditorField::ALL {
            let style = if field == focused {
                Style::default().add_modifier(Modifier::REVERSED)
            } else {
                Style::default()
            };
            self.area_mut(field).set_cursor_style(style);
        }
    }

    /// A key typed into the focused box. Title and tags stay one line: Enter moves to
    /// the next field there.
    pub fn input(&mut self, input: Input) {
        let newline = input.key == Key::Enter
            || (input.ctrl && matches!(input.key, Key::Char('m') | Key::Char('j')));
        if self.field != EditorField::Body && newline {
            self.move_field(1);
            return;
        }
        if input.key == Key::Tab {
            return;
        }
        let field = self.field;
        self.area_mut(field).input(input);
    }

    /// Pasted text: kept as is in the body; on one line (controls as spaces) elsewhere.
    pub fn paste(&mut self, text: &str) {
        let field = self.field;
        let text = if field == EditorField::Body {
            text.replace("\r\n", "\n").replace('\r', "\n")
        } else {
            text.chars()
                .map(|c| if c.is_control() { ' ' } else { c })
                .collect()
        };
        self.area_mut(field).insert_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Timestamp;

    fn memory() -> Memory {
        let mut m = Memory::new("m", "first\n\nthird\n", Timestamp(0));
        m.title = Some("Title".into());
        m.tags = vec!["a".into(), "b".into()];
        m
    }

    fn key(c: char) -> Input {
        Input {
            key: Key::Char(c),
            ..Input::default()
        }
    }

    #[test]
    fn an_untouched_editor_has_no_changes_and_keeps_the_body_byte_for_byte() {
        let e = Editor::open(&memory());
        assert!(!e.is_dirty());
        assert!(e.changes().is_empty());
        assert_eq!(e.text(EditorField::Body), "first\n\nthird\n");
    }

    #[test]
    fn only_changed_fields_are_set_and_enter_leaves_a_one_line_field() {
        let mut e = Editor::open(&memory());
        e.input(key('!'));
        assert!(e.is_dirty());
        e.input(Input {
            key: Key::Enter,
            ..Input::default()
        });
        assert_eq!(e.field, EditorField::Tags);
        // typed after the title: the one-line boxes open with the cursor at their end
        assert_eq!(e.changes(), vec![FieldValue::Title(Some("Title!".into()))]);
        e.paste(",\n x");
        assert_eq!(
            e.changes()[1],
            FieldValue::Tags(vec!["a".into(), "b".into(), "x".into()])
        );
        e.move_field(1);
        e.paste("top\r\n");
        assert_eq!(e.text(EditorField::Body), "top\nfirst\n\nthird\n");
        e.move_field(-2);
        assert_eq!(e.field, EditorField::Title);
        e.move_field(-1);
        assert_eq!(e.field, EditorField::Body);
    }

    #[test]
    fn a_cleared_title_removes_it() {
        let mut e = Editor::open(&memory());
        for _ in 0..5 {
            e.input(Input {
                key: Key::Backspace,
                ..Input::default()
            });
        }
        assert_eq!(e.changes(), vec![FieldValue::Title(None)]);
    }
}
