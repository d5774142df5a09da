//! A small JSON reader over the text of one line, for the canonical fast path: strings
//! (borrowed when they hold no escape), numbers, `null`, objects and arrays read field
//! by field, and the raw text of any other value.
//!
//! Every method returns `None` on anything it does not read exactly as serde_json
//! would (a lone surrogate, a control character inside a string, a number that is not
//! finite, nesting deeper than serde_json allows), and the caller then leaves the line
//! to the general reader, which reports the problem precisely.

use std::borrow::Cow;

/// How deep arrays and objects may nest inside a value that is skipped (serde_json
/// refuses more than 128 levels).
const MAX_DEPTH: usize = 100;

/// A position in the text of one JSON line.
pub struct Scan<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Scan<'a> {
    /// Reading starts at the beginning of `text`.
    pub fn new(text: &'a str) -> Scan<'a> {
        Scan { text, at: 0 }
    }

    fn bytes(&self) -> &'a [u8] {
        self.text.as_bytes()
    }

    /// Skips JSON whitespace and returns the next byte.
    fn peek(&mut self) -> Option<u8> {
        let bytes = self.bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.at) {
            self.at += 1;
        }
        bytes.get(self.at).copied()
    }

    /// Takes `byte` (after whitespace) if it comes next.
    fn eat(&mut self, byte: u8) -> bool {
        let next = self.peek() == Some(byte);
        if next {
            self.at += 1;
        }
        next
    }

    /// True when nothing but whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    /// Takes a `null` if one comes next.
    pub fn null(&mut self) -> bool {
        self.literal("null")
    }

    fn literal(&mut self, word: &str) -> bool {
        self.peek();
        let found = self.bytes()[self.at..].starts_with(word.as_bytes());
        if found {
            self.at += word.len();
        }
        found
    }

    /// `null` as `None`, else what `read` reads.
    pub fn opt<T>(&mut self, read: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.null() {
            Some(None)
        } else {
            read(self).map(Some)
        }
    }

    /// A string, borrowed from the line when it holds no escape.
    pub fn string(&mut self) -> Option<Cow<'a, str>> {
        if !self.eat(b'"') {
            return None;
        }
        let start = self.at;
        let end = self.plain_run()?;
        if self.bytes()[end] == b'"' {
            self.at = end + 1;
            return Some(Cow::Borrowed(&self.text[start..end]));
        }
        let mut out = String::with_capacity(end - start + 16);
        out.push_str(&self.text[start..end]);
        self.at = end;
        loop {
            match self.bytes()[self.at] {
                b'"' => {
                    self.at += 1;
                    return Some(Cow::Owned(out));
                }
                _ => {
                    // a backslash
                    self.at += 1;
                    self.escape(&mut out)?;
                    let run = self.plain_run()?;
                    out.push_str(&self.text[self.at..run]);
                    self.at = run;
                }
            }
        }
    }

    /// Where the run of plain string characters from here ends: at the next quote or
    /// backslash. `None` when the text ends first or the run holds a control character.
    /// Eight bytes are looked at a time: the lowest flagged byte of a word is always a
    /// real quote, backslash or control character (a false flag can only follow one).
    fn plain_run(&self) -> Option<usize> {
        const ONES: u64 = u64::from_le_bytes([1; 8]);
        const HIGH: u64 = u64::from_le_bytes([0x80; 8]);
        let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        let bytes = self.bytes();
        let mut at = self.at;
        while let Some(chunk) = bytes.get(at..at + 8) {
            let word = u64::from_le_bytes(chunk.try_into().ok()?);
            let flags = zero_byte(word ^ (ONES * u64::from(b'"')))
                | zero_byte(word ^ (ONES * u64::from(b'\\')))
                | (word.wrapping_sub(ONES * 0x20) & !word & HIGH);
            if flags != 0 {
                at += (flags.trailing_zeros() / 8) as usize;
                return (bytes[at] >= 0x20).then_some(at);
            }
            at += 8;
        }
        while let Some(&b) = bytes.get(at) {
            match b {
                b'"' | b'\\' => return Some(at),
                0..0x20 => return None,
                _ => at += 1,
            }
        }
        None
    }

    /// The character of the escape after a backslash, pushed to `out`.
    fn escape(&mut self, out: &mut String) -> Option<()> {
        let b = *self.bytes().get(self.at)?;
        self.at += 1;
        let c = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let high = self.hex4()?;
                if (0xDC00..0xE000).contains(&high) {
                    return None;
                }
                if (0xD800..0xDC00).contains(&high) {
                    if !self.bytes()[self.at..].starts_with(b"\\u") {
                        return None;
                    }
                    self.at += 2;
                    let low = self.hex4()?;
                    if !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?
                } else {
                    char::from_u32(high)?
                }
            }
            _ => return None,
        };
        out.push(c);
        Some(())
    }

    fn hex4(&mut self) -> Option<u32> {
        let digits = self.bytes().get(self.at..self.at + 4)?;
        let mut v = 0;
        for &d in digits {
            v = v * 16 + char::from(d).to_digit(16)?;
        }
        self.at += 4;
        Some(v)
    }

    /// The text of a number, checked against JSON's grammar.
    fn number(&mut self) -> Option<&'a str> {
        self.peek();
        let bytes = self.bytes();
        let start = self.at;
        let mut at = start;
        let digits = |at: &mut usize| {
            let from = *at;
            while bytes.get(*at).is_some_and(u8::is_ascii_digit) {
                *at += 1;
            }
            *at > from
        };
        if bytes.get(at) == Some(&b'-') {
            at += 1;
        }
        if bytes.get(at) == Some(&b'0') {
            at += 1;
        } else if !digits(&mut at) {
            return None;
        }
        if bytes.get(at) == Some(&b'.') {
            at += 1;
            if !digits(&mut at) {
                return None;
            }
        }
        if matches!(bytes.get(at), Some(b'e' | b'E')) {
            at += 1;
            if matches!(bytes.get(at), Some(b'+' | b'-')) {
                at += 1;
            }
            if !digits(&mut at) {
                return None;
            }
        }
        self.at = at;
        Some(&self.text[start..at])
    }

    /// A finite number as `f64`, rounded as serde_json rounds it.
    pub fn f64(&mut self) -> Option<f64> {
        self.peek();
        if let Some((value, end)) = short_decimal(self.bytes(), self.at) {
            self.at = end;
            return Some(value);
        }
        let text = self.number()?;
        // serde_json reads the integer -0 as 0, not -0.0
        if text == "-0" {
            return None;
        }
        text.parse::<f64>().ok().filter(|v| v.is_finite())
    }

    /// A whole number written without sign, fraction or exponent that fits a `u32`.
    pub fn u32(&mut self) -> Option<u32> {
        let text = self.number()?;
        if !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok()
    }

    /// An array, each item read by `item`.
    pub fn array(&mut self, mut item: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        if self.eat(b']') {
            return Some(());
        }
        loop {
            item(self)?;
            if self.eat(b']') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// An object, each value read by `field` given its key.
    pub fn object(
        &mut self,
        field: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    ) -> Option<()> {
        self.object_with(Self::string, field)
    }

    /// Skips whitespace.
    pub fn skip_space(&mut self) {
        self.peek();
    }

    /// Takes the key `"name"` if it comes next (whitespace already skipped).
    #[inline]
    pub fn key_if(&mut self, name: &str) -> bool {
        let rest = &self.bytes()[self.at..];
        let n = name.len();
        let found = rest.len() > n + 1
            && rest[1] == name.as_bytes()[0]
            && rest[n + 1] == b'"'
            && rest[0] == b'"'
            && &rest[1..=n] == name.as_bytes();
        if found {
            self.at += n + 2;
        }
        found
    }

    /// [`object`](Self::object) with its keys read by `key`.
    pub fn object_with<K>(
        &mut self,
        mut key: impl FnMut(&mut Self) -> Option<K>,
        mut field: impl FnMut(&mut Self, K) -> Option<()>,
    ) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            let key = key(self)?;
            if !self.eat(b':') {
                return None;
            }
            field(self, key)?;
            if self.eat(b'}') {
                return Some(());
            }
            if !self.eat(b',') {
                return None;
            }
        }
    }

    /// A list of strings.
    pub fn strings(&mut self) -> Option<Vec<String>> {
        let mut out = Vec::new();
        self.array(|s| {
            out.push(s.string()?.into_owned());
            Some(())
        })?;
        Some(out)
    }

    /// The raw text of any value, checked to be well formed.
    pub fn raw_value(&mut self) -> Option<&'a str> {
        self.peek();
        let start = self.at;
        self.skip(0)?;
        Some(&self.text[start..self.at])
    }

    fn skip(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string().map(drop),
            b'{' => self.object(|s, _| s.skip(depth + 1)),
            b'[' => self.array(|s| s.skip(depth + 1)),
            b't' => self.literal("true").then_some(()),
            b'f' => self.literal("false").then_some(()),
            b'n' => self.null().then_some(()),
            _ => self.number().map(drop),
        }
    }
}

/// Powers of ten that `f64` holds exactly.
const EXACT_TENS: [f64; 16] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
];

/// A number of at most 15 digits without exponent (`0.193`, the form of nearly every
/// stored score) starting at `at` in `bytes`, with where it ends; read exactly as the
/// correctly rounded reading gives it: its digits and the power of ten both fit `f64`
/// exactly, so the one division rounds once. `None` for any other number (and for an
/// integer -0, which serde_json reads as 0).
fn short_decimal(bytes: &[u8], mut at: usize) -> Option<(f64, usize)> {
    let negative = bytes.get(at) == Some(&b'-');
    at += usize::from(negative);
    let mut value = 0u64;
    let mut digits = |at: &mut usize| {
        let from = *at;
        while let Some(&c @ b'0'..=b'9') = bytes.get(*at) {
            value = value.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
            *at += 1;
        }
        *at - from
    };
    let first = at;
    let whole = digits(&mut at);
    if whole == 0 || (whole > 1 && bytes[first] == b'0') {
        return None;
    }
    let mut scale = 0;
    if bytes.get(at) == Some(&b'.') {
        at += 1;
        scale = digits(&mut at);
        if scale == 0 {
            return None;
        }
    }
    if whole + scale > 15 || matches!(bytes.get(at), Some(b'e' | b'E')) {
        return None;
    }
    if negative && scale == 0 && value == 0 {
        return None;
    }
    let magnitude = value as f64 / EXACT_TENS[scale];
    Some((if negative { -magnitude } else { magnitude }, at))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn string(text: &str) -> Option<String> {
        let mut s = Scan::new(text);
        let v = s.string()?.into_owned();
        s.at_end().then_some(v)
    }

    #[test]
    fn strings_read_as_serde_json_reads_them_or_not_at_all() {
        let cases = [
            r#""plain""#,
            r#""tab\tquote\"slash\/back\\""#,
            r#""\u00e9\u20ac\ud83d\ude00 end""#,
            r#""\b\f\n\r""#,
            r#""lone \ud800 high""#,
            r#""lone \udc00 low""#,
            r#""bad \x escape""#,
            "\"raw\u{1}control\"",
            r#""unterminated"#,
            r#""\u12""#,
            r#""\u0000""#,
            r#""ÉCOLE ΣΑΣ 日本語""#,
        ];
        for case in cases {
            let want: Option<String> = serde_json::from_str(case).ok();
            assert_eq!(string(case), want, "{case}");
        }
    }

    #[test]
    fn numbers_read_as_serde_json_reads_them_or_not_at_all() {
        let floats = [
            "0",
            "1",
            "-1",
            "0.5",
            "-0.0",
            "1e2",
            "1E-2",
            "2.5e+3",
            "0.1",
            "-0",
            "01",
            "1.",
            ".5",
            "1e",
            "-",
            "1e400",
            "123456789012345678901234567890",
            "0.30000000000000004",
        ];
        for case in floats {
            let mut s = Scan::new(case);
            let got = s.f64().filter(|_| s.at_end());
            let want: Option<f64> = serde_json::from_str(case).ok();
            if let Some(v) = got {
                assert_eq!(Some(v.to_bits()), want.map(f64::to_bits), "{case}");
            }
            if want.is_some() && !["-0"].contains(&case) {
                assert!(got.is_some(), "{case}");
            }
        }
        for case in [
            "0",
            "7",
            "4294967295",
            "4294967296",
            "-0",
            "3.0",
            "1e2",
            "-1",
        ] {
            let mut s = Scan::new(case);
            let got = s.u32().filter(|_| s.at_end());
            let want: Option<u32> = serde_json::from_str(case).ok();
            if got.is_some() {
                assert_eq!(got, want, "{case}");
            }
            if want.is_some() && case != "-0" {
                assert!(got.is_some(), "{case}");
            }
        }
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn short_decimals_read_bit_for_bit_as_serde_json_reads_them(
            negative in any::<bool>(),
            whole in 0u64..100_000_000,
            fraction in "[0-9]{0,10}",
        ) {
            let sign = if negative { "-" } else { "" };
            let text = if fraction.is_empty() {
                format!("{sign}{whole}")
            } else {
                format!("{sign}{whole}.{fraction}")
            };
            let mut s = Scan::new(&text);
            let got = s.f64().filter(|_| s.at_end());
            let want: Option<f64> = serde_json::from_str(&text).ok();
            if text != "-0" {
                prop_assert_eq!(got.map(f64::to_bits), want.map(f64::to_bits), "{}", text);
            }
        }
    }

    #[test]
    fn a_raw_value_is_the_text_of_one_well_formed_value() {
        let mut s = Scan::new(r#" {"a":[1,{"b":null}],"c":"d\"}"} , true"#);
        assert_eq!(s.raw_value(), Some(r#"{"a":[1,{"b":null}],"c":"d\"}"}"#));
        assert!(s.eat(b','));
        assert_eq!(s.raw_value(), Some("true"));
        assert!(s.at_end());
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        assert_eq!(Scan::new(&deep).raw_value(), None);
        assert_eq!(Scan::new("[1,]").raw_value(), None);
        assert_eq!(Scan::new("{\"a\" 1}").raw_value(), None);
    }
}
