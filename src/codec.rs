//! The small binary encodings the stored forms are built from (search records, the
//! compact memory encoding): fixed-width numbers, strings after their length, LEB128
//! varints, and a reader that fails softly on damaged or truncated bytes.

use crate::model::FEEL_COUNT;

/// `n` as a `u32` (saturating: lengths this large are refused long before).
pub(crate) fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// A `u32`, little-endian.
pub(crate) fn put_u32(w: &mut Vec<u8>, v: u32) {
    w.extend(v.to_le_bytes());
}

/// A string after its length ([`put_u32`]).
pub(crate) fn put_str(w: &mut Vec<u8>, s: &str) {
    put_u32(w, len_u32(s.len()));
    w.extend(s.as_bytes());
}

/// `v` in LEB128: seven bits a byte, low bits first, the high bit set on every byte
/// but the last (one byte below 128, as nearly every term length and frequency is).
pub(crate) fn put_varint(w: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        w.push((v as u8 & 0x7f) | 0x80);
        v >>= 7;
    }
    w.push(v as u8);
}

/// One entry of a term section: the term, length first, then its frequency.
pub(crate) fn put_term(w: &mut Vec<u8>, term: &[u8], tf: u32) {
    put_varint(w, len_u32(term.len()));
    w.extend_from_slice(term);
    put_varint(w, tf);
}

/// A byte saying whether a string follows, then the string.
pub(crate) fn put_opt_str(w: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => {
            w.push(1);
            put_str(w, s);
        }
        None => w.push(0),
    }
}

/// A byte saying whether an `f64` follows, then its 8 bytes.
pub(crate) fn put_opt_f64(w: &mut Vec<u8>, v: Option<f64>) {
    match v {
        Some(v) => {
            w.push(1);
            w.extend(v.to_le_bytes());
        }
        None => w.push(0),
    }
}

/// A byte saying whether a `u32` follows, then the `u32`.
pub(crate) fn put_opt_u32(w: &mut Vec<u8>, v: Option<u32>) {
    match v {
        Some(v) => {
            w.push(1);
            put_u32(w, v);
        }
        None => w.push(0),
    }
}

/// An `i64`, little-endian.
pub(crate) fn put_i64(w: &mut Vec<u8>, v: i64) {
    w.extend(v.to_le_bytes());
}

/// The position of `v` among `all` as one byte (an enum's code).
pub(crate) fn code_of<T: PartialEq>(all: &[T], v: &T) -> u8 {
    all.iter().position(|x| x == v).unwrap_or(0) as u8
}

/// The `feel_*` scores: a mask of those present ([`put_u32`]), then each present one.
pub(crate) fn put_feel(w: &mut Vec<u8>, feel: &[Option<f64>; FEEL_COUNT]) {
    let mask = (0..FEEL_COUNT)
        .filter(|&i| feel[i].is_some())
        .fold(0u32, |acc, i| acc | (1 << i));
    put_u32(w, mask);
    for v in feel.iter().flatten() {
        w.extend(v.to_le_bytes());
    }
}

/// A counted list of owned strings ([`put_list_of`]).
pub(crate) fn put_list(w: &mut Vec<u8>, items: &[String]) {
    put_list_of(w, items.iter().map(String::as_str));
}

/// A counted list of strings, as records store tags and targets.
pub(crate) fn put_list_of<'s>(w: &mut Vec<u8>, items: impl ExactSizeIterator<Item = &'s str>) {
    put_u32(w, len_u32(items.len()));
    for s in items {
        put_str(w, s);
    }
}

/// A cursor over an encoded record that fails softly on truncated input.
pub(crate) struct Reader<'a> {
    /// The bytes read.
    pub(crate) bytes: &'a [u8],
    /// Where the next read starts.
    pub(crate) at: usize,
}

impl<'a> Reader<'a> {
    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let out = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(out)
    }
    /// One byte.
    pub(crate) fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    /// A [`put_u32`] value.
    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    /// An `f64`, little-endian.
    pub(crate) fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A [`put_varint`] value; `None` when truncated or longer than a `u32`.
    pub(crate) fn varint(&mut self) -> Option<u32> {
        let mut v = 0u32;
        for shift in (0..35).step_by(7) {
            let b = self.u8()?;
            v |= u32::from(b & 0x7f).checked_shl(shift)?;
            if b & 0x80 == 0 {
                return (shift < 28 || b < 0x10).then_some(v);
            }
        }
        None
    }
    /// A [`put_term`] entry.
    pub(crate) fn term(&mut self) -> Option<(&'a [u8], u32)> {
        let n = self.varint()? as usize;
        let term = self.take(n)?;
        Some((term, self.varint()?))
    }
    /// Bytes after their length.
    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = self.u32()? as usize;
        self.take(n)
    }
    /// A [`put_str`] string, which must be UTF-8.
    pub(crate) fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
    /// A [`put_opt_f64`] value.
    pub(crate) fn opt_f64(&mut self) -> Option<Option<f64>> {
        match self.u8()? {
            0 => Some(None),
            _ => Some(Some(self.f64()?)),
        }
    }
    /// A [`put_list_of`] list, checked: its bytes (the strings, each after its length)
    /// and how many strings they hold.
    pub(crate) fn list(&mut self) -> Option<(&'a [u8], usize)> {
        let len = self.u32()? as usize;
        let start = self.at;
        for _ in 0..len {
            self.str()?;
        }
        Some((&self.bytes[start..self.at], len))
    }
    /// An `i64`, little-endian.
    pub(crate) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A [`put_opt_u32`] value.
    pub(crate) fn opt_u32(&mut self) -> Option<Option<u32>> {
        match self.u8()? {
            0 => Some(None),
            _ => Some(Some(self.u32()?)),
        }
    }
    /// A [`code_of`] byte, as the value of `all` it stands for.
    pub(crate) fn code<T: Copy>(&mut self, all: &[T]) -> Option<T> {
        all.get(usize::from(self.u8()?)).copied()
    }
    /// [`put_feel`] scores; `None` when the mask names a dimension that does not exist.
    pub(crate) fn feel(&mut self) -> Option<[Option<f64>; FEEL_COUNT]> {
        let mask = self.u32()?;
        if mask >> FEEL_COUNT != 0 {
            return None;
        }
        let mut feel = [None; FEEL_COUNT];
        for (i, slot) in feel.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                *slot = Some(self.f64()?);
            }
        }
        Some(feel)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_truncated_or_overlong_bytes() {
        let values = [
            0,
            1,
            127,
            128,
            255,
            16_383,
            16_384,
            1 << 21,
            1 << 28,
            u32::MAX,
        ];
        let mut w = Vec::new();
        for v in values {
            put_varint(&mut w, v);
        }
        assert_eq!(w.len(), 1 + 1 + 1 + 2 + 2 + 2 + 3 + 4 + 5 + 5);
        let mut r = Reader { bytes: &w, at: 0 };
        for v in values {
            assert_eq!(r.varint(), Some(v));
        }
        assert_eq!(r.varint(), None, "read past the end");
        // a continuation byte with nothing after it
        assert_eq!(
            Reader {
                bytes: &[0x80],
                at: 0
            }
            .varint(),
            None
        );
        // more than 32 bits
        let overlong = [0xff, 0xff, 0xff, 0xff, 0x10];
        assert_eq!(
            Reader {
                bytes: &overlong,
                at: 0
            }
            .varint(),
            None
        );
        let six = [0x80, 0x80, 0x80, 0x80, 0x80, 0x00];
        assert_eq!(Reader { bytes: &six, at: 0 }.varint(), None);
    }
}
