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
