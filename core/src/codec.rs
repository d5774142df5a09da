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

/// Scores are written as ten-thousandths when they are exactly that (`0.7`, `0.095`,
/// `-0.25`: the scores agents and people write), in two bytes instead of eight.
const SCORE_SCALE: f64 = 10_000.0;
/// The two-byte code that says the score's eight bytes follow.
const SCORE_WIDE: u16 = u16::MAX;

/// The score a two-byte code stands for (codes above `2 × SCORE_SCALE` stand for none).
fn score_of(code: u16) -> Option<f64> {
    (f64::from(code) <= 2.0 * SCORE_SCALE).then(|| (f64::from(code) - SCORE_SCALE) / SCORE_SCALE)
}

/// A score (weight, trust, confidence, a `feel_*` value): the two-byte code of its
/// ten-thousandths from −1 to 1 when it reads back bit for bit, else [`SCORE_WIDE`]
/// and its eight bytes, so every `f64` survives.
pub(crate) fn put_score(w: &mut Vec<u8>, v: f64) {
    let k = (v * SCORE_SCALE).round();
    if (-SCORE_SCALE..=SCORE_SCALE).contains(&k) {
        let code = (k + SCORE_SCALE) as u16;
        if score_of(code).is_some_and(|back| back.to_bits() == v.to_bits()) {
            w.extend(code.to_le_bytes());
            return;
        }
    }
    w.extend(SCORE_WIDE.to_le_bytes());
    w.extend(v.to_le_bytes());
}

/// A byte saying whether a score follows, then the [`put_score`] score.
pub(crate) fn put_opt_score(w: &mut Vec<u8>, v: Option<f64>) {
    match v {
        Some(v) => {
            w.push(1);
            put_score(w, v);
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

/// The `feel_*` scores: a mask of those present ([`put_u32`]), then each present one
/// ([`put_score`]).
pub(crate) fn put_feel(w: &mut Vec<u8>, feel: &[Option<f64>; FEEL_COUNT]) {
    put_feel_by(w, feel, put_score);
}

/// [`put_feel`] with each present score written by `value`.
pub(crate) fn put_feel_by(
    w: &mut Vec<u8>,
    feel: &[Option<f64>; FEEL_COUNT],
    value: impl Fn(&mut Vec<u8>, f64),
) {
    let mask = (0..FEEL_COUNT)
        .filter(|&i| feel[i].is_some())
        .fold(0u32, |acc, i| acc | (1 << i));
    put_u32(w, mask);
    for &v in feel.iter().flatten() {
        value(w, v);
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
    /// A [`put_score`] score.
    pub(crate) fn score(&mut self) -> Option<f64> {
        match u16::from_le_bytes(self.take(2)?.try_into().ok()?) {
            SCORE_WIDE => self.f64(),
            code => score_of(code),
        }
    }
    /// A [`put_opt_score`] score.
    pub(crate) fn opt_score(&mut self) -> Option<Option<f64>> {
        match self.u8()? {
            0 => Some(None),
            _ => Some(Some(self.score()?)),
        }
    }
    /// [`put_feel`] scores; `None` when the mask names a dimension that does not exist.
    pub(crate) fn feel(&mut self) -> Option<[Option<f64>; FEEL_COUNT]> {
        self.feel_by(Self::score)
    }
    /// [`put_feel_by`] scores, each read by `value`.
    pub(crate) fn feel_by(
        &mut self,
        value: impl Fn(&mut Self) -> Option<f64>,
    ) -> Option<[Option<f64>; FEEL_COUNT]> {
        let mask = self.u32()?;
        if mask >> FEEL_COUNT != 0 {
            return None;
        }
        let mut feel = [None; FEEL_COUNT];
        for (i, slot) in feel.iter_mut().enumerate() {
            if mask & (1 << i) != 0 {
                *slot = Some(value(self)?);
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

    /// The score read back from its [`put_score`] bytes, and how many bytes it took.
    fn score_round_trip(v: f64) -> (f64, usize) {
        let mut w = Vec::new();
        put_score(&mut w, v);
        let mut r = Reader { bytes: &w, at: 0 };
        let back = r.score().expect("a score");
        assert_eq!(r.at, w.len(), "{v}: bytes left over");
        (back, w.len())
    }

    #[test]
    fn scores_of_few_decimals_take_two_bytes_and_every_score_reads_back_bit_for_bit() {
        for v in [
            0.0, 0.5, 1.0, -1.0, 0.095, 0.7, -0.25, 0.0001, -0.9999, 0.637,
        ] {
            assert_eq!(score_round_trip(v), (v, 2), "{v}");
        }
        let wide = [
            -0.0,
            0.1 + 0.2,
            0.00005,
            1.0001,
            -1.5,
            1e-300,
            f64::MAX,
            f64::INFINITY,
            2.0_f64.sqrt() / 2.0,
        ];
        for v in wide {
            let (back, len) = score_round_trip(v);
            assert_eq!((back.to_bits(), len), (v.to_bits(), 10), "{v}");
        }
        let (nan, len) = score_round_trip(f64::NAN);
        assert!(nan.is_nan() && len == 10);
        // a two-byte code that stands for no score is damage
        let bad = (2 * SCORE_SCALE as u16 + 1).to_le_bytes();
        assert_eq!(Reader { bytes: &bad, at: 0 }.score(), None);
        assert_eq!(Reader { bytes: &[1], at: 0 }.score(), None, "cut short");
    }

    proptest::proptest! {
        #[test]
        fn any_score_reads_back_bit_for_bit(bits in proptest::num::u64::ANY, k in -10_000i32..=10_000) {
            let v = f64::from_bits(bits);
            let (back, _) = score_round_trip(v);
            proptest::prop_assert_eq!(back.to_bits(), v.to_bits());
            let written = f64::from(k) / 10_000.0;
            proptest::prop_assert_eq!(score_round_trip(written), (written, 2));
            let text: f64 = format!("{:.4}", written).parse().expect("a number");
            proptest::prop_assert_eq!(score_round_trip(text).1, 2);
        }
    }
}
