//! The one door through which memory text enters the view: control characters and
//! escape sequences are made visible and inert, and lines are wrapped by display width.
//!
//! Widths are measured as ratatui's buffer measures them: per grapheme cluster
//! (unicode-segmentation), each taking the cells ratatui gives it (`CellWidth`), and
//! nothing for a grapheme it drops (one of zero width, or holding a control). Counting
//! per character instead gets a flag (two regional indicators), an emoji ZWJ sequence
//! or an emoji with a variation selector wrong, and cutting per character can split
//! one, leaving a stray half on the screen.

use ratatui::buffer::CellWidth;
use std::borrow::Cow;
use unicode_segmentation::UnicodeSegmentation;

pub use crate::text::inert;

/// The cells ratatui's buffer gives one grapheme cluster (0 for one it drops).
fn cells(grapheme: &str) -> usize {
    if grapheme.contains(char::is_control) {
        0
    } else {
        usize::from(grapheme.cell_width())
    }
}

/// Display width of already inert text, in the cells ratatui draws it in.
pub fn width(text: &str) -> usize {
    text.graphemes(true).map(cells).sum()
}

/// Cuts inert text to at most `max` columns, ending with `…` when cut; never inside a
/// grapheme cluster.
pub fn truncate(text: &str, max: usize) -> Cow<'_, str> {
    if width(text) <= max {
        return Cow::Borrowed(text);
    }
    let mut out = String::new();
    let mut used = 0;
    for g in text.graphemes(true) {
        let w = cells(g);
        if used + w + 1 > max {
            break;
        }
        out.push_str(g);
        used += w;
    }
    if max > 0 {
        out.push('…');
    }
    Cow::Owned(out)
}

/// Splits untrusted multi-line text into inert lines of at most `max` columns,
/// breaking at spaces where it can and between grapheme clusters of long words where
/// it must.
pub fn wrap(text: &str, max: usize) -> Vec<String> {
    let max = max.max(1);
    let mut out = Vec::new();
    for raw in text.split('\n') {
        let line = inert(raw.strip_suffix('\r').unwrap_or(raw));
        if line.is_empty() {
            out.push(String::new());
            continue;
        }
        let mut current = String::new();
        let mut current_w = 0;
        for word in split_keep_spaces(&line) {
            let w = width(word);
            if current_w + w <= max {
                current.push_str(word);
                current_w += w;
                continue;
            }
            if !current.is_empty() {
                out.push(current.trim_end().to_string());
                current = String::new();
                current_w = 0;
            }
            let word = if word.trim().is_empty() { "" } else { word };
            for g in word.graphemes(true) {
                let gw = cells(g);
                if current_w + gw > max && !current.is_empty() {
                    out.push(std::mem::take(&mut current));
                    current_w = 0;
                }
                current.push_str(g);
                current_w += gw;
            }
        }
        out.push(current.trim_end().to_string());
    }
    out
}

/// Splits a line into words, each followed by the spaces after it; a space that a
/// combining character or joiner extends into a grapheme stays inside its word.
fn split_keep_spaces(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = false;
    for (i, g) in line.grapheme_indices(true) {
        if g == " " {
            in_space = true;
        } else if in_space {
            out.push(&line[start..i]);
            start = i;
            in_space = false;
        }
    }
    if start < line.len() {
        out.push(&line[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_every_word_within_the_width() {
        let text = "the quick brown fox jumps over the lazy dog\n\nsupercalifragilistic";
        let lines = wrap(text, 10);
        assert!(lines.iter().all(|l| width(l) <= 10), "{lines:?}");
        let joined: String = lines.concat().split_whitespace().collect();
        let expected: String = text.split_whitespace().collect();
        assert_eq!(joined, expected);
        assert!(lines.contains(&String::new()), "blank line kept");
    }

    #[test]
    fn truncate_marks_the_cut() {
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
    }
}
