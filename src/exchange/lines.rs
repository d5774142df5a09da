//! Reading line-oriented input (JSONL, plain or gzip-compressed) one numbered line at a
//! time, without holding the whole file in memory.

use super::{ExchangeError, RecordSink};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// True when the path names a gzip file (`.gz`).
pub fn is_gzip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// Opens a file for reading, decompressing `.gz` files on the fly.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, ExchangeError> {
    let file = File::open(path).map_err(|e| ExchangeError::io(path, e))?;
    let reader: Box<dyn Read> = if is_gzip(path) {
        Box::new(MultiGzDecoder::new(file))
    } else {
        Box::new(file)
    };
    Ok(Box::new(BufReader::with_capacity(1 << 16, reader)))
}

/// Calls `f(line_number, text)` for every line that is not blank, line endings and a
/// leading byte-order mark removed. A line that is not UTF-8 is reported to the sink
/// (field `line`) and skipped.
pub fn for_each_line(
    mut reader: impl BufRead,
    path: &Path,
    sink: &mut dyn RecordSink,
    mut f: impl FnMut(&mut dyn RecordSink, usize, &str),
) -> Result<(), ExchangeError> {
    let mut buf = Vec::with_capacity(1024);
    let mut number = 0usize;
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(|e| ExchangeError::io(path, e))?;
        if read == 0 {
            return Ok(());
        }
        number += 1;
        let mut bytes = buf.as_slice();
        if number == 1 {
            bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
        }
        while let Some(rest) = bytes
            .strip_suffix(b"\n")
            .or_else(|| bytes.strip_suffix(b"\r"))
        {
            bytes = rest;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) if text.trim().is_empty() => {}
            Ok(text) => f(sink, number, text),
            Err(e) => sink.problem(
                number,
                "line",
                format!("not valid UTF-8 (byte {})", e.valid_up_to() + 1),
            ),
        }
    }
}

/// The first line of a file that is not blank, for format detection (at most 1 MiB
/// of it is looked at).
pub fn first_line(path: &Path) -> Result<Option<String>, ExchangeError> {
    let mut reader = open(path)?;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = (&mut reader)
            .take(1 << 20)
            .read_until(b'\n', &mut buf)
            .map_err(|e| ExchangeError::io(path, e))?;
        if read == 0 {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&buf);
        let text = text.trim_start_matches('\u{feff}').trim();
        if !text.is_empty() {
            return Ok(Some(text.to_string()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exchange::Collected;
    use proptest::prelude::*;

    /// What every line should give, read the plain way: (number, text) of the lines
    /// handed on, and the numbers of the lines reported as not UTF-8.
    fn expected(input: &[u8]) -> (Vec<(usize, String)>, Vec<usize>) {
        let (mut lines, mut bad) = (Vec::new(), Vec::new());
        let mut pieces: Vec<&[u8]> = input.split_inclusive(|&b| b == b'\n').collect();
        if input.is_empty() {
            pieces.clear();
        }
        for (i, piece) in pieces.into_iter().enumerate() {
            let number = i + 1;
            let mut bytes = piece;
            if number == 1 {
                bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
            }
            while let Some(rest) = bytes.strip_suffix(b"\n").or(bytes.strip_suffix(b"\r")) {
                bytes = rest;
            }
            match std::str::from_utf8(bytes) {
                Ok(t) if t.trim().is_empty() => {}
                Ok(t) => lines.push((number, t.to_string())),
                Err(_) => bad.push(number),
            }
        }
        (lines, bad)
    }

    fn read(input: &[u8], capacity: usize) -> (Vec<(usize, String)>, Vec<usize>) {
        let mut sink = Collected::default();
        let mut lines = Vec::new();
        let reader = BufReader::with_capacity(capacity, input);
        for_each_line(reader, Path::new("t.jsonl"), &mut sink, |_, n, t| {
            lines.push((n, t.to_string()))
        })
        .expect("reading from memory");
        (lines, sink.problems.iter().map(|p| p.line).collect())
    }

    #[test]
    fn lines_across_the_buffer_keep_their_numbers_and_text() {
        let input = "\u{feff}first\r\n\n  \nsecond line é\nlast without ending".as_bytes();
        for capacity in 1..=input.len() + 1 {
            assert_eq!(
                read(input, capacity),
                expected(input),
                "capacity {capacity}"
            );
        }
        let (lines, _) = read(input, 3);
        assert_eq!(lines[0], (1, "first".to_string()));
        assert_eq!(lines[2], (5, "last without ending".to_string()));
    }

    proptest! {
        #[test]
        fn any_input_reads_as_split_on_newlines(
            input in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'\r'), Just(b' '), Just(0xC3u8), Just(0xA9u8), Just(0xEFu8), b'a'..=b'c'],
                0..80,
            ),
            capacity in 1usize..24,
        ) {
            prop_assert_eq!(read(&input, capacity), expected(&input));
        }
    }
}
