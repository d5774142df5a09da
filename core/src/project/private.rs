//! `<private>…</private>` blocks: text a memory's author keeps out of what hivelore
//! serves (its parser strips them before showing a memory). memlens masks each block
//! in what it shows — the browser and every command's output — as a marked
//! placeholder until the person reveals them, leaves them out of what search matches,
//! and keeps them byte for byte in the file.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

/// Whether this process shows private blocks (`--reveal-private`, or the browser's
/// reveal key).
static REVEALED: AtomicBool = AtomicBool::new(false);

/// Shows (`true`) or masks private blocks in what this process prints from now on.
pub fn set_revealed(revealed: bool) {
    REVEALED.store(revealed, Ordering::Relaxed);
}

/// True when private blocks are shown.
pub fn is_revealed() -> bool {
    REVEALED.load(Ordering::Relaxed)
}

/// The text as it is shown now: masked unless revealed.
pub fn shown(text: &str) -> Cow<'_, str> {
    if is_revealed() {
        Cow::Borrowed(text)
    } else {
        mask(text)
    }
}

const OPEN: &str = "<private>";
const CLOSE: &str = "</private>";

/// What a masked block is shown as.
pub fn placeholder(chars: usize) -> String {
    format!(
        "[private: {} hidden]",
        crate::words::plural(chars, "character")
    )
}

/// The memory as it is shown now: its body masked unless revealed.
pub fn shown_memory(memory: &crate::model::Memory) -> Cow<'_, crate::model::Memory> {
    match shown(&memory.body) {
        Cow::Borrowed(_) => Cow::Borrowed(memory),
        Cow::Owned(body) => {
            let mut m = memory.clone();
            m.body = body;
            Cow::Owned(m)
        }
    }
}

/// Calls `f` with each piece of `text`: `(piece, true)` for a whole private block
/// (tags included), `(piece, false)` for the text around them. A `<private>` with no
/// closing tag is not a block (hivelore's pattern needs both).
fn for_each_piece<'a>(text: &'a str, mut f: impl FnMut(&'a str, bool)) {
    let mut rest = text;
    while let Some(start) = memchr::memmem::find(rest.as_bytes(), OPEN.as_bytes()) {
        let after = &rest[start + OPEN.len()..];
        let Some(end) = memchr::memmem::find(after.as_bytes(), CLOSE.as_bytes()) else {
            break;
        };
        f(&rest[..start], false);
        let block_end = start + OPEN.len() + end + CLOSE.len();
        f(&rest[start..block_end], true);
        rest = &rest[block_end..];
    }
    f(rest, false);
}

/// True when the text has a private block.
pub fn has_private(text: &str) -> bool {
    let mut found = false;
    static FINDER: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(OPEN.as_bytes()));
    if FINDER.find(text.as_bytes()).is_some() {
        for_each_piece(text, |_, private| found |= private);
    }
    found
}

/// The text with each private block replaced by its placeholder.
pub fn mask(text: &str) -> Cow<'_, str> {
    if !has_private(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for_each_piece(text, |piece, private| {
        if private {
            let inner = &piece[OPEN.len()..piece.len() - CLOSE.len()];
            out.push_str(&placeholder(inner.chars().count()));
        } else {
            out.push_str(piece);
        }
    });
    Cow::Owned(out)
}

/// The text search matches: each private block replaced by a single space (so words
/// on either side stay apart).
pub fn searchable(text: &str) -> Cow<'_, str> {
    if !has_private(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for_each_piece(text, |piece, private| {
        out.push_str(if private { " " } else { piece })
    });
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_are_masked_and_left_out_of_search() {
        let text = "keep <private>token=abc\nmore</private> end <private>x</private>";
        assert_eq!(
            mask(text),
            "keep [private: 14 characters hidden] end [private: 1 character hidden]"
        );
        assert_eq!(searchable(text), "keep   end  ");
        assert_eq!(mask("no <private> close"), "no <private> close");
        assert!(matches!(mask("plain"), Cow::Borrowed(_)));
    }
}
