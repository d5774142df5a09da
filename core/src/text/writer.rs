//! A writer that passes everything through [`super::inert_lines`]: what the command
//! line prints to its standard output and error cannot carry an escape sequence, a
//! control character or a bidi override from the data it prints, whatever the code
//! that formatted it forgot.

use std::io::{self, Write};

/// Writes text to `W` with every unsafe character made visible ([`super::inert_lines`]).
/// Newlines and tabs pass; bytes that are not UTF-8 become U+FFFD. A character split
/// across two writes is held until its last byte arrives.
pub struct InertWriter<W: Write> {
    inner: W,
    /// The first bytes of a UTF-8 character whose remaining bytes have not come yet.
    pending: Vec<u8>,
}

/// The process's standard output, through an [`InertWriter`].
pub fn stdout() -> InertWriter<io::StdoutLock<'static>> {
    InertWriter::new(io::stdout().lock())
}

/// The process's standard error, through an [`InertWriter`].
pub fn stderr() -> InertWriter<io::Stderr> {
    InertWriter::new(io::stderr())
}

impl<W: Write> InertWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> InertWriter<W> {
        InertWriter {
            inner,
            pending: Vec::new(),
        }
    }

    /// Writes `bytes` (whole characters, or invalid bytes) made inert.
    fn emit(&mut self, bytes: &[u8]) -> io::Result<()> {
        if bytes
            .iter()
            .all(|&b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t')
        {
            return self.inner.write_all(bytes);
        }
        let text = String::from_utf8_lossy(bytes);
        self.inner.write_all(super::inert_lines(&text).as_bytes())
    }
}

/// Length of the incomplete UTF-8 character at the end of `bytes` (0 when the last
/// character is complete or the tail is not UTF-8 at all).
fn incomplete_tail(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let b = bytes[bytes.len() - back];
        if b & 0xC0 == 0x80 {
            continue; // a continuation byte: look further back for the lead
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return 0,
        };
        return if needed > back { back } else { 0 };
    }
    0
}

impl<W: Write> Write for InertWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut joined;
        let bytes: &[u8] = if self.pending.is_empty() {
            buf
        } else {
            joined = std::mem::take(&mut self.pending);
            joined.extend_from_slice(buf);
            &joined
        };
        let keep = incomplete_tail(bytes);
        let (whole, tail) = bytes.split_at(bytes.len() - keep);
        let tail = tail.to_vec();
        self.emit(whole)?;
        self.pending = tail;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

impl<W: Write> Drop for InertWriter<W> {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let tail = std::mem::take(&mut self.pending);
            let _ = self.emit(&tail);
            let _ = self.inner.flush();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(chunks: &[&[u8]]) -> String {
        let mut out = Vec::new();
        {
            let mut w = InertWriter::new(&mut out);
            for c in chunks {
                w.write_all(c).unwrap();
            }
        }
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn escapes_are_made_visible_and_layout_passes() {
        assert_eq!(
            through(&[b"ok\n\x1b]52;c;cm0gLXJm\x07\tend\n"]),
            "ok\n^[]52;c;cm0gLXJm^G\tend\n"
        );
    }

    #[test]
    fn a_character_split_between_writes_is_kept_whole() {
        let text = "é\u{9b}2J→🇫🇷\u{202e}";
        let bytes = text.as_bytes();
        let whole = through(&[bytes]);
        for cut in 0..=bytes.len() {
            assert_eq!(through(&[&bytes[..cut], &bytes[cut..]]), whole, "cut {cut}");
        }
        assert_eq!(whole, "é\u{FFFD}2J→🇫🇷\u{FFFD}");
    }

    #[test]
    fn bytes_that_are_not_utf8_become_replacement_characters() {
        assert_eq!(through(&[b"a\xffb", b"\xe2\x82"]), "a\u{FFFD}b\u{FFFD}");
    }
}
