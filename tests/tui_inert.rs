//! Memory text is untrusted: a memory whose title and body carry escape sequences is
//! drawn with them made visible, and the bytes written to the terminal contain none.

mod tui_common;

use memlens::tui::action::Action;
use memlens::tui::terminal::FrameWriter;
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;
use ratatui::backend::TestBackend;
use std::io::Write;
use std::sync::{Arc, Mutex};
use tui_common::{HOSTILE, fixture, now, session};

/// A writer whose bytes the test can read afterwards.
#[derive(Clone, Default)]
struct Shared(Arc<Mutex<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("lock").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn escape_sequences_in_a_memory_never_reach_the_terminal() {
    let f = fixture();
    for size in [(80u16, 24u16), (120, 40), (200, 50)] {
        let mut b = session(&f, size);
        b.type_keys("/evil");
        assert_eq!(
            b.state.selected_hit().map(|h| h.memory.id.as_str()),
            Some("mem-hostile")
        );
        let detail_body = &b.state.detail.as_ref().expect("detail").memory.body;
        assert!(
            detail_body.contains(HOSTILE[0]),
            "the stored text keeps its bytes"
        );
        let out = Shared::default();
        let mut terminal =
            Terminal::new(CrosstermBackend::new(FrameWriter::new(out.clone(), true))).expect("t");
        terminal
            .resize(ratatui::layout::Rect::new(0, 0, size.0, size.1))
            .expect("size");
        out.0.lock().expect("lock").clear(); // the resize's own clear-screen is ratatui's
        b.draw(&mut terminal, now()).expect("draw");
        b.dispatch(Action::LeaveSearch);
        b.dispatch(Action::FocusDetail);
        b.dispatch(Action::ScrollDown);
        b.draw(&mut terminal, now()).expect("draw");
        let bytes = out.0.lock().expect("lock").clone();
        assert!(bytes.len() > 1000, "something was drawn");
        for payload in HOSTILE {
            assert!(
                !contains(&bytes, payload.as_bytes()),
                "{payload:?} reached the terminal at {size:?}"
            );
        }
        assert!(!contains(&bytes, b"\x07"), "no BEL at all");
        assert!(!contains(&bytes, "\u{9b}".as_bytes()), "no C1 CSI at all");
        // and what the user sees is the caret form
        let mut screen = Terminal::new(TestBackend::new(size.0, size.1)).expect("t");
        b.draw(&mut screen, now()).expect("draw");
        let text = screen.backend().to_string();
        assert!(text.contains("^[P+q544e"), "{text}");
    }
}

#[test]
fn the_editor_prompts_and_link_picker_draw_hostile_text_inert() {
    let f = fixture();
    let size = (120u16, 40u16);
    let mut b = session(&f, size);
    let out = Shared::default();
    let mut terminal =
        Terminal::new(CrosstermBackend::new(FrameWriter::new(out.clone(), true))).expect("t");
    terminal
        .resize(ratatui::layout::Rect::new(0, 0, size.0, size.1))
        .expect("size");
    out.0.lock().expect("lock").clear();
    b.type_keys("/evil");
    b.dispatch(Action::LeaveSearch);
    // the editor shows the stored bytes of the title and body in its text boxes
    b.type_keys("e");
    let editor = b.state.editor.as_ref().expect("editor");
    assert!(
        editor
            .text(memlens::tui::editor::EditorField::Body)
            .contains(HOSTILE[0])
    );
    b.draw(&mut terminal, now()).expect("draw");
    b.dispatch(Action::Paste(format!(
        "pasted {} {}",
        HOSTILE[2], "\u{202e}rtl"
    )));
    b.draw(&mut terminal, now()).expect("draw");
    b.dispatch(Action::Quit);
    b.type_keys("y");
    // a prompt with pasted escapes, and the link picker listing the hostile memory
    b.type_keys("x");
    b.dispatch(Action::Paste(HOSTILE[1].to_string()));
    b.draw(&mut terminal, now()).expect("draw");
    b.dispatch(Action::CloseOverlay);
    b.state.quitting = false;
    b.type_keys("/");
    b.dispatch(Action::ClearQuery);
    b.dispatch(Action::LeaveSearch);
    b.type_keys("j"); // from another memory: a picker leaves out the memory itself
    b.type_keys("l");
    b.type_keys("evil");
    assert!(
        b.state
            .link_results
            .iter()
            .any(|h| h.memory.id == "mem-hostile")
    );
    b.draw(&mut terminal, now()).expect("draw");
    let bytes = out.0.lock().expect("lock").clone();
    assert!(bytes.len() > 1000, "something was drawn");
    for payload in HOSTILE {
        assert!(
            !contains(&bytes, payload.as_bytes()),
            "{payload:?} reached the terminal"
        );
    }
    assert!(!contains(&bytes, "\u{202e}".as_bytes()), "no bidi override");
    assert!(!contains(&bytes, b"\x07") && !contains(&bytes, "\u{9b}".as_bytes()));
}
