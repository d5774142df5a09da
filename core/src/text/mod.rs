//! The one door through which text from data (memories, input files, file names)
//! reaches a terminal: control characters, escape sequences and bidirectional
//! overrides are made visible and inert. The browser draws through [`inert`]; the
//! command line writes through [`InertWriter`], built on the same rule; JSON output
//! escapes the same characters ([`json`]).

pub mod json;
mod writer;

pub use writer::{InertWriter, stderr, stdout};

use std::borrow::Cow;

/// True for characters that must never reach the terminal raw: C0 and C1 controls,
/// DEL, the bidirectional marks, embeddings, overrides and isolates that can reorder
/// what the user sees, and the line and paragraph separators some terminals break on.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Width a tab is expanded to on one line.
const TAB: &str = "    ";

/// Makes untrusted text safe to draw on one line: C0 controls become caret notation
/// (`ESC` → `^[`, `BEL` → `^G`, newline → `^J`), DEL becomes `^?`, tabs become spaces,
/// C1 controls and bidi controls become U+FFFD. Clean text is borrowed, not copied.
pub fn inert(text: &str) -> Cow<'_, str> {
    inert_with(text, Keep::Nothing)
}

/// Like [`inert`], but newlines and tabs stay as they are: for multi-line text printed
/// to a terminal (a memory's body in `memlens get`, whole lines of command output).
pub fn inert_lines(text: &str) -> Cow<'_, str> {
    inert_with(text, Keep::LineBreaks)
}

/// Which layout characters survive as themselves.
#[derive(Clone, Copy, PartialEq)]
enum Keep {
    /// None: everything is drawn on one line.
    Nothing,
    /// `\n` and `\t`.
    LineBreaks,
}

fn inert_with(text: &str, keep: Keep) -> Cow<'_, str> {
    let kept = |c: char| keep == Keep::LineBreaks && (c == '\n' || c == '\t');
    if !text.chars().any(|c| is_unsafe(c) && !kept(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if kept(c) => out.push(c),
            '\t' => out.push_str(TAB),
            '\u{0}'..='\u{1f}' => {
                out.push('^');
                out.push(char::from(b'@' + c as u8));
            }
            '\u{7f}' => out.push_str("^?"),
            c if is_unsafe(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_sequences_and_controls_become_visible_text() {
        let shown = inert("a\u{1b}[2Jb\u{7}c\u{9b}d\u{7f}e\u{202e}f\u{2067}g");
        assert!(!shown.chars().any(is_unsafe), "{shown:?}");
        assert_eq!(shown, "a^[[2Jb^Gc\u{FFFD}d^?e\u{FFFD}f\u{FFFD}g");
        assert!(matches!(inert("plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn line_breaks_survive_only_where_asked() {
        assert_eq!(inert("a\nb\tc\rd"), "a^Jb    c^Md");
        assert_eq!(
            inert_lines("a\nb\tc\rd\u{1b}]0;x\u{7}"),
            "a\nb\tc^Md^[]0;x^G"
        );
        assert!(matches!(inert_lines("a\nb"), Cow::Borrowed(_)));
    }
}
