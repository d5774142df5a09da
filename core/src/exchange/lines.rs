//! Reading line-oriented input (JSONL, plain or gzip-compressed) one numbered line at a
//! time, without holding the whole file in memory.
//!
//! Input is bounded: a line (or a hivelore file, one record) longer than
//! [`MAX_RECORD_BYTES`] stops the run, and a gzip file stops once it has decompressed
//! to more than [`gzip_limit`] of its compressed size, so that an endless input
//! (`/dev/zero`, a pipe fed forever) or a gzip bomb is an error, not an exhausted memory.

use super::{ExchangeError, RecordSink};
use flate2::read::MultiGzDecoder;
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// The longest line (JSONL, OpenMemory, MCP memory) or record (a hivelore `.md` file)
/// memlens reads: 8 MiB, well above the 1 MiB body limit, so that every valid memory
/// fits even with each byte of its body escaped (`\u0001` is six bytes) and its other
/// fields besides.
pub const MAX_RECORD_BYTES: usize = 8 << 20;

/// A gzip file may decompress to this many times its compressed size …
pub const GZIP_MAX_RATIO: u64 = 100;

/// … plus this many bytes (so that a small file of repetitive memories still reads).
pub const GZIP_FLOOR_BYTES: u64 = 64 << 20;

/// The most a gzip file of `compressed` bytes may decompress to.
pub fn gzip_limit(compressed: u64) -> u64 {
    compressed
        .saturating_mul(GZIP_MAX_RATIO)
        .saturating_add(GZIP_FLOOR_BYTES)
}

/// `8 MiB`: a byte count in whole mebibytes, for messages.
pub fn mebibytes(bytes: u64) -> String {
    format!("{} MiB", bytes >> 20)
}

/// The error an [`Inflated`] reader gives once it has decompressed past its limit.
#[derive(Debug, thiserror::Error)]
#[error(
    "decompresses to more than {} ({GZIP_MAX_RATIO}× its compressed size plus {}); not read further, as it may be a gzip bomb",
    mebibytes(*.limit),
    mebibytes(GZIP_FLOOR_BYTES)
)]
pub struct InflatedTooFar {
    /// The limit it passed, in decompressed bytes.
    pub limit: u64,
}

/// A gzip stream that fails with [`InflatedTooFar`] once it has given more than
/// `limit` bytes.
struct Inflated<R> {
    inner: MultiGzDecoder<R>,
    given: u64,
    limit: u64,
}

impl<R: Read> Inflated<R> {
    fn new(compressed: R, limit: u64) -> Inflated<R> {
        Inflated {
            inner: MultiGzDecoder::new(compressed),
            given: 0,
            limit,
        }
    }
}

impl<R: Read> Read for Inflated<R> {
    /// Gives at most the bytes up to the limit, so that the error comes to the reader
    /// of the line holding the first byte past it.
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let room = self.limit.saturating_sub(self.given);
        if room == 0 {
            // at the limit: fine only when the stream ends here
            let mut probe = [0u8; 1];
            return match self.inner.read(&mut probe)? {
                0 => Ok(0),
                _ => Err(std::io::Error::other(InflatedTooFar { limit: self.limit })),
            };
        }
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = self.inner.read(&mut buf[..want])?;
        self.given += n as u64;
        Ok(n)
    }
}

/// A gzip stream read from `compressed` (of `compressed_len` bytes, 0 when unknown)
/// that fails once it passes [`gzip_limit`], as [`open`] reads `.gz` files.
pub fn gunzip<R: Read>(compressed: R, compressed_len: u64) -> impl Read {
    Inflated::new(compressed, gzip_limit(compressed_len))
}

/// The error for a read of `path` failing at `line`: a gzip file past its limit is
/// [`ExchangeError::TooLarge`] at that line, any other failure an I/O error.
pub fn read_error(path: &Path, line: usize, e: std::io::Error) -> ExchangeError {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<InflatedTooFar>())
    {
        Some(too_far) => ExchangeError::TooLarge {
            path: path.to_path_buf(),
            line,
            reason: too_far.to_string(),
        },
        None => ExchangeError::io(path, e),
    }
}

/// The error for a line (or record) at `line` over [`MAX_RECORD_BYTES`].
pub fn too_long(path: &Path, line: usize, what: &str) -> ExchangeError {
    ExchangeError::TooLarge {
        path: path.to_path_buf(),
        line,
        reason: format!(
            "{what} is longer than {}",
            mebibytes(MAX_RECORD_BYTES as u64)
        ),
    }
}

/// Reads the next line of `reader` into `buf` (which it clears), newline included:
/// the number of bytes read (0 at the end), or an error once the line is longer than
/// [`MAX_RECORD_BYTES`] without its line ending. `line` is its number, for errors.
pub fn read_bounded_line(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    path: &Path,
    line: usize,
) -> Result<usize, ExchangeError> {
    buf.clear();
    let read = reader
        .by_ref()
        .take(MAX_RECORD_BYTES as u64 + 1)
        .read_until(b'\n', buf)
        .map_err(|e| read_error(path, line, e))?;
    if buf.len() > MAX_RECORD_BYTES && buf.last() != Some(&b'\n') {
        return Err(too_long(path, line, "line"));
    }
    Ok(read)
}

/// Reads at most `limit` bytes of the file at `path`: `Ok(None)` when it is longer.
pub fn read_at_most(path: &Path, limit: usize) -> std::io::Result<Option<Vec<u8>>> {
    let mut bytes = Vec::new();
    File::open(path)?
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)?;
    Ok((bytes.len() <= limit).then_some(bytes))
}

/// True when the path names a gzip file (`.gz`).
pub fn is_gzip(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("gz"))
}

/// Opens a file for reading, decompressing `.gz` files on the fly.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, ExchangeError> {
    let file = File::open(path).map_err(|e| ExchangeError::io(path, e))?;
    let reader: Box<dyn Read> = if is_gzip(path) {
        // a pipe or device has no size: it may decompress to the floor only
        let compressed = file
            .metadata()
            .ok()
            .filter(std::fs::Metadata::is_file)
            .map_or(0, |m| m.len());
        Box::new(Inflated::new(file, gzip_limit(compressed)))
    } else {
        Box::new(file)
    };
    Ok(Box::new(BufReader::with_capacity(1 << 16, reader)))
}

/// Calls `f(line_number, text)` for every line that is not blank, line endings and a
/// leading byte-order mark removed. A line that is not UTF-8 is reported to the sink
/// (field `line`) and skipped; one longer than [`MAX_RECORD_BYTES`] stops the reading
/// with [`ExchangeError::TooLarge`].
pub fn for_each_line(
    mut reader: impl BufRead,
    path: &Path,
    sink: &mut dyn RecordSink,
    mut f: impl FnMut(&mut dyn RecordSink, usize, &str),
) -> Result<(), ExchangeError> {
    let mut buf = Vec::with_capacity(1024);
    let mut number = 0usize;
    loop {
        if read_bounded_line(&mut reader, &mut buf, path, number + 1)? == 0 {
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

/// The first line of a file that is not blank, for format detection: the whole line
/// up to [`MAX_RECORD_BYTES`] (a longer one is an error, as reading it would be).
pub fn first_line(path: &Path) -> Result<Option<String>, ExchangeError> {
    let mut reader = open(path)?;
    let mut buf = Vec::new();
    let mut number = 0;
    loop {
        number += 1;
        if read_bounded_line(&mut reader, &mut buf, path, number)? == 0 {
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

    #[test]
    fn a_line_may_be_as_long_as_the_cap_and_no_longer() {
        let path = Path::new("t.jsonl");
        let mut buf = Vec::new();
        let at_cap = vec![b'a'; MAX_RECORD_BYTES];
        let mut with_ending = at_cap.clone();
        with_ending.extend_from_slice(b"\nb\n");
        let mut reader = BufReader::new(with_ending.as_slice());
        let n = read_bounded_line(&mut reader, &mut buf, path, 1).expect("at the cap");
        assert_eq!(n, MAX_RECORD_BYTES + 1);
        assert_eq!(
            read_bounded_line(&mut reader, &mut buf, path, 2).ok(),
            Some(2)
        );
        let mut reader = BufReader::new(at_cap.as_slice());
        let n = read_bounded_line(&mut reader, &mut buf, path, 1).expect("at the cap, at the end");
        assert_eq!(n, MAX_RECORD_BYTES);
        let mut over = at_cap;
        over.extend_from_slice(b"a\n");
        let mut reader = BufReader::new(over.as_slice());
        let err = read_bounded_line(&mut reader, &mut buf, path, 7).unwrap_err();
        assert_eq!(err.to_string(), "t.jsonl:7: line is longer than 8 MiB");
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, bytes).expect("compress");
        gz.finish().expect("compress")
    }

    #[test]
    fn gzip_input_reads_up_to_its_limit_and_fails_one_byte_past_it() {
        let text = b"{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"c\"}\n";
        let compressed = gzip(text);
        let read_with = |limit: u64| {
            let reader = BufReader::new(Inflated::new(compressed.as_slice(), limit));
            let mut lines = Vec::new();
            let mut sink = Collected::default();
            let outcome = for_each_line(reader, Path::new("m.jsonl.gz"), &mut sink, |_, n, _| {
                lines.push(n)
            });
            (outcome.map_err(|e| e.to_string()), lines)
        };
        let whole = text.len() as u64;
        assert_eq!(read_with(whole), (Ok(()), vec![1, 2, 3]));
        let (err, lines) = read_with(whole - 1);
        assert_eq!(lines, [1, 2]);
        let err = err.unwrap_err();
        assert!(
            err.starts_with("m.jsonl.gz:3: decompresses to more than"),
            "{err}"
        );
        // the first byte past the limit is the first of line 2
        let (err, lines) = read_with(12);
        assert_eq!(lines, [1]);
        assert!(err.unwrap_err().starts_with("m.jsonl.gz:2: "));
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
