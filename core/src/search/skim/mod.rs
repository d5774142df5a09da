//! The fuzzy score of `fuzzy-matcher`'s `SkimMatcherV2::default()` (smart case), computed
//! the way a fresh matcher computes it for one haystack.
//!
//! Why not call the crate for every memory: a reused `SkimMatcherV2` keeps its score
//! matrix between calls and a few cells are read before they are written, so its
//! score for a haystack can depend on the haystacks it scored before (about one pair in
//! six thousand with patterns of three or more characters). SPEC asks for one exact
//! list whatever the scan order or thread, so memlens defines the score as that of a
//! fresh matcher, and this is the same algorithm (skim v2, affine gaps, compressed
//! two-row matrix, the same reuse of cells between rows) starting from a fresh matrix
//! every time, without the per-call allocations, and computed only at the columns where
//! the pattern's characters occur (`matrix.rs`). `tests` check it against the crate.

mod bound;
mod matrix;

use bound::Reach;
use matrix::{Scratch, Unit};
use std::cell::RefCell;

const SCORE_MATCH: i32 = 16;
const GAP_START: i32 = -3;
const GAP_EXTENSION: i32 = -1;
const BONUS_FIRST_CHAR_MULTIPLIER: i32 = 2;
const BONUS_HEAD: i32 = SCORE_MATCH / 2;
const BONUS_BREAK: i32 = SCORE_MATCH / 2 + GAP_EXTENSION;
const BONUS_CAMEL: i32 = SCORE_MATCH / 2 + 2 * GAP_EXTENSION;
const BONUS_CONSECUTIVE: i32 = -(GAP_START + GAP_EXTENSION);
const PENALTY_CASE_MISMATCH: i32 = GAP_EXTENSION * 2;
const NEG_INFINITY: i32 = i16::MIN as i32;

#[derive(Clone, Copy, PartialEq)]
enum CharType {
    Empty,
    Upper,
    Lower,
    Number,
    HardSep,
    SoftSep,
}

/// [`char_type`] of every ASCII character, looked up instead of matched.
const ASCII_TYPES: [CharType; 128] = {
    let mut t = [CharType::Lower; 128];
    let mut i = 0;
    while i < 128 {
        t[i] = char_type_slow(i as u8 as char);
        i += 1;
    }
    t
};

#[inline]
fn char_type(ch: char) -> CharType {
    if ch.is_ascii() {
        ASCII_TYPES[ch as usize]
    } else {
        CharType::Lower
    }
}

const fn char_type_slow(ch: char) -> CharType {
    match ch {
        '\0' => CharType::Empty,
        ' ' | '/' | '\\' | '|' | '(' | ')' | '[' | ']' | '{' | '}' => CharType::HardSep,
        '!'..='\'' | '*'..='.' | ':'..='@' | '^'..='`' | '~' => CharType::SoftSep,
        '0'..='9' => CharType::Number,
        'A'..='Z' => CharType::Upper,
        _ => CharType::Lower,
    }
}

const fn in_place_bonus_slow(prev: CharType, cur: CharType) -> i32 {
    match (prev, cur) {
        (CharType::Empty, _) | (CharType::HardSep, _) => BONUS_HEAD,
        (CharType::SoftSep, _) => BONUS_BREAK,
        (CharType::Lower, CharType::Upper) | (CharType::Number, CharType::Upper) => BONUS_CAMEL,
        _ => 0,
    }
}

const TYPES: [CharType; 6] = [
    CharType::Empty,
    CharType::Upper,
    CharType::Lower,
    CharType::Number,
    CharType::HardSep,
    CharType::SoftSep,
];

/// [`in_place_bonus_slow`] of every pair of character types.
const BONUSES: [[i32; 6]; 6] = {
    let mut t = [[0; 6]; 6];
    let mut i = 0;
    while i < 6 {
        let mut j = 0;
        while j < 6 {
            t[i][j] = in_place_bonus_slow(TYPES[i], TYPES[j]);
            j += 1;
        }
        i += 1;
    }
    t
};

/// Skim's bonus for a character of type `cur` after one of type `prev`.
#[inline]
fn in_place_bonus(prev: CharType, cur: CharType) -> i32 {
    BONUSES[prev as usize][cur as usize]
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// `f` with this thread's scratch buffers (fresh ones if they are already in use).
fn with_scratch<T>(f: impl FnOnce(&mut Scratch) -> T) -> T {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => f(&mut s),
        Err(_) => f(&mut Scratch::default()),
    })
}

/// `f` with this thread's scratch buffers and `choice` as one byte per character
/// ([`squash`]): the form an ASCII pattern scores any haystack in.
fn with_bytes<T>(choice: &str, f: impl FnOnce(&mut Scratch, &[u8]) -> T) -> T {
    with_scratch(|s| {
        if choice.is_ascii() {
            return f(s, choice.as_bytes());
        }
        let mut bytes = std::mem::take(&mut s.bytes);
        squash(choice, &mut bytes);
        let scored = f(s, &bytes);
        s.bytes = bytes;
        scored
    })
}

/// `choice` with each character as one byte: an ASCII character as itself, any other
/// as 0x80. Against an ASCII pattern the matrix only asks of a column whether it
/// matches a pattern character and what kind of character it is: no ASCII character
/// matches 0x80 (nor, in memlens's matching, any non-ASCII character), and 0x80's kind
/// is a non-ASCII character's ([`char_type`]), so the bytes score as the characters do.
fn squash(choice: &str, into: &mut Vec<u8>) {
    into.clear();
    // a character's first byte is ASCII or 0xC0 and above; the bytes that continue one
    // (0x80..0xC0) are left out
    into.extend(
        choice
            .bytes()
            .filter(|&b| b & 0xC0 != 0x80)
            .map(|b| if b.is_ascii() { b } else { 0x80 }),
    );
}

/// Haystacks longer than this are always scored in full: the matrix's stand-in for −∞
/// is a finite number that only stays below real scores in shorter ones.
const BOUNDED_LEN: usize = 4096;

/// What [`FuzzyPattern::score_from`] found of one haystack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scored {
    /// The pattern is not a subsequence of it.
    Missed,
    /// It matches, with a score certainly below the floor asked for.
    Below,
    /// It matches, with a score certainly above the ceiling asked for.
    Above,
    /// It matches with this score.
    Score(i64),
    /// It matches, may reach the floor, and holds no run of the whole pattern: asked
    /// with [`FuzzyPattern::score_runs_from`], its score is left for later.
    Later,
}

/// A query prepared once for many haystacks.
pub struct FuzzyPattern {
    chars: Vec<char>,
    /// The pattern's bytes when it is ASCII: ASCII haystacks are then matched byte by
    /// byte, with the same matrix.
    ascii: Option<Vec<u8>>,

    case_sensitive: bool,
    /// [`bound::loosest`]'s rows for a haystack that does not and that does start with
    /// the pattern's first character (ASCII patterns), and their bounds.
    loosest: [Vec<Reach>; 2],
    loosest_score: [i32; 2],
}

impl FuzzyPattern {
    /// Prepares `pattern` (smart case: case-sensitive when it has an ASCII capital).
    pub fn new(pattern: &str) -> FuzzyPattern {
        let case_sensitive = pattern.chars().any(|c| c.is_ascii_uppercase());
        let ascii = pattern.is_ascii().then(|| pattern.as_bytes().to_vec());
        let chars: Vec<char> = pattern.chars().collect();
        let loosest = [false, true].map(|starts| {
            ascii
                .as_deref()
                .map_or_else(Vec::new, |p| bound::loosest(p, case_sensitive, starts))
        });
        let loosest_score = [0, 1].map(|i| bound::of(&loosest[i]));
        FuzzyPattern {
            chars,
            ascii,
            case_sensitive,
            loosest,
            loosest_score,
        }
    }

    /// Whether the pattern matches `choice` and, unless its score is certainly below
    /// `floor`, that score: the same as [`FuzzyPattern::score`], skipping the full
    /// score of a match whose upper bound (`bound.rs`) is below `floor`.
    pub fn score_from(&self, choice: &str, floor: i64) -> Scored {
        self.score_above(choice, &[], floor, false)
    }

    /// Like [`FuzzyPattern::score_from`], but a match that does not hold the whole
    /// pattern as one run of characters is [`Scored::Later`]: scoring the runs first
    /// finds the best scores early, and a higher floor skips more of the rest. `first`
    /// is the greedy match when it is known, as for [`FuzzyPattern::score_match_from`].
    pub fn score_runs_from(&self, choice: &str, first: &[u32], floor: i64) -> Scored {
        self.score_above(choice, first, floor, true)
    }

    /// [`FuzzyPattern::score_from`] of a haystack the pattern is known to match (found
    /// by [`FuzzyPattern::matches_in`], which gives `first`, the greedy first position
    /// of each pattern character in bytes from the haystack's start; empty when not
    /// known): a match that cannot reach `floor` from where its first character stands
    /// is [`Scored::Below`] before its characters are looked for, as `score_from` would
    /// find once it had looked.
    pub fn score_match_from(&self, choice: &str, first: &[u32], floor: i64) -> Scored {
        if let (Some(pattern), Some(&first)) = (self.ascii.as_deref(), choice.as_bytes().first())
            && !pattern.is_empty()
            && choice.len() <= BOUNDED_LEN
        {
            // a haystack's characters are never more than its bytes, and one that starts
            // with a longer character does not start with the pattern's first
            let starts = usize::from(first.matches(pattern[0], self.case_sensitive));
            if i64::from(self.loosest_score[starts]) < floor {
                return Scored::Below;
            }
        }
        self.score_above(choice, first, floor, false)
    }

    /// [`FuzzyPattern::score_upto`] of a haystack the pattern is known to match (found
    /// by [`FuzzyPattern::matches_in`], which gives `first` as for
    /// [`FuzzyPattern::score_match_from`]): a match that cannot score as low as
    /// `ceiling` ([`FuzzyPattern::surely_above`]) is [`Scored::Above`] before its
    /// characters are looked for, as `score_upto` would find once it had looked.
    pub fn score_match_upto(&self, choice: &str, first: &[u32], ceiling: i64) -> Scored {
        if self.surely_above(choice.len(), first, ceiling) {
            return Scored::Above;
        }
        self.upto(choice, first, ceiling)
    }

    /// Whether a haystack of `len` bytes that the pattern is known to match, with the
    /// greedy first positions `first` ([`FuzzyPattern::matches_in`]; empty when not
    /// known), certainly scores above `ceiling`, told without reading it: from its
    /// length alone ([`bound::least_for_length`]: a haystack's characters are never
    /// more than its bytes, and the least score only falls as the haystack grows),
    /// then from the positions ([`bound::least_at`]).
    pub fn surely_above(&self, len: usize, first: &[u32], ceiling: i64) -> bool {
        let Some(pattern) = self.ascii.as_deref().filter(|p| p.len() >= 2) else {
            return false;
        };
        len <= BOUNDED_LEN
            && (i64::from(bound::least_for_length(pattern.len(), len)) > ceiling
                || (first.len() == pattern.len() && bound::least_at(first) > ceiling))
    }

    /// Whether the pattern matches `choice` and, unless its score is certainly above
    /// `ceiling`, that score: the same as [`FuzzyPattern::score`], skipping the full
    /// score of a match whose lower bound (`bound::above`) is above `ceiling`.
    pub fn score_upto(&self, choice: &str, ceiling: i64) -> Scored {
        self.upto(choice, &[], ceiling)
    }

    /// [`FuzzyPattern::score_upto`], starting from the greedy first positions `first`
    /// when they are known.
    fn upto(&self, choice: &str, first: &[u32], ceiling: i64) -> Scored {
        let cs = self.case_sensitive;
        self.with_bounds(choice, first, 2, |s, pattern, choice, first| {
            if !matrix::first_positions_or(s, pattern, choice, cs, first) {
                return Scored::Missed;
            }
            if ceiling < i64::MAX
                && bound::above(pattern, choice, cs, &s.first, &mut s.positions, ceiling)
            {
                return Scored::Above;
            }
            matrix::occurrences(s, pattern, choice, cs);
            Scored::Score(matrix::fill(s, pattern, choice, cs))
        })
    }

    fn score_above(&self, choice: &str, first: &[u32], floor: i64, runs_first: bool) -> Scored {
        self.with_bounds(choice, first, 1, |s, pattern, choice, first| {
            self.score_from_scratch(s, pattern, (choice, first), floor, runs_first)
        })
    }

    /// `bounded` with this thread's scratch buffers, the ASCII pattern, `choice` one
    /// byte per character ([`with_bytes`]) and the greedy first positions `first`
    /// (empty unless they are known and the bytes are the characters), when the pattern
    /// is ASCII of at least `shortest` characters and the haystack short enough for
    /// score bounds ([`BOUNDED_LEN`]); otherwise the full score.
    fn with_bounds(
        &self,
        choice: &str,
        first: &[u32],
        shortest: usize,
        bounded: impl FnOnce(&mut Scratch, &[u8], &[u8], &[u32]) -> Scored,
    ) -> Scored {
        let Some(pattern) = self.ascii.as_deref().filter(|p| p.len() >= shortest) else {
            return self.score(choice).map_or(Scored::Missed, Scored::Score);
        };
        let cs = self.case_sensitive;
        with_bytes(choice, |s, bytes| {
            if bytes.len() > BOUNDED_LEN {
                return score_bytes(s, pattern, bytes, cs).map_or(Scored::Missed, Scored::Score);
            }
            // a haystack of as many characters as bytes is ASCII: its byte offsets are
            // its characters'
            let first = if bytes.len() == choice.len() {
                first
            } else {
                &[]
            };
            bounded(s, pattern, bytes, first)
        })
    }

    fn score_from_scratch(
        &self,
        s: &mut Scratch,
        pattern: &[u8],
        (choice, first): (&[u8], &[u32]),
        floor: i64,
        runs_first: bool,
    ) -> Scored {
        let cs = self.case_sensitive;
        if !matrix::first_positions_or(s, pattern, choice, cs, first) {
            return Scored::Missed;
        }
        let starts = usize::from(choice[0].matches(pattern[0], cs));
        if i64::from(self.loosest_score[starts]) < floor {
            return Scored::Below;
        }
        if let [p] = pattern {
            let score = single_unit_score(*p, choice.iter().copied(), cs);
            return score.map_or(Scored::Missed, Scored::Score);
        }
        if runs_first && !holds_run(pattern, choice, cs, s.first[0]) {
            return Scored::Later;
        }
        if floor > i64::MIN {
            // each character's real reach in turn, the rest at their loosest, until the
            // bound falls below the floor
            let loosest = &self.loosest[starts];
            s.reach.clone_from(loosest);
            for (i, &cap) in loosest.iter().enumerate() {
                s.reach[i] = bound::reach_row(pattern, choice, cs, i, s.first[i], cap);
                if i64::from(bound::of(&s.reach)) < floor {
                    return Scored::Below;
                }
            }
        }
        matrix::occurrences(s, pattern, choice, cs);
        Scored::Score(matrix::fill(s, pattern, choice, cs))
    }

    /// Calls `hit` with every slot of `slots` whose haystack the pattern matches (is a
    /// subsequence of), in ascending order, over haystacks stored one after another in
    /// `text`: slot `i`'s is `text[start(i)..start(i + 1)]`. One pass over the text: the
    /// pattern's first character is looked for across haystacks, and a haystack is
    /// left at its first one, where a greedy match either completes or shows there is
    /// none. The same answer as [`FuzzyPattern::score`]`.is_some()` on each haystack;
    /// `None` (nothing called) when the pattern is empty or not ASCII, which only the
    /// haystacks' characters can match. `hit` also gets that greedy match: each pattern
    /// character's first position, in bytes from the haystack's start (what the
    /// `score_match_*` scores start from).
    pub fn matches_in(
        &self,
        text: &[u8],
        slots: std::ops::Range<usize>,
        start: impl Fn(usize) -> usize,
        mut hit: impl FnMut(usize, &[u32]),
    ) -> Option<()> {
        let pattern = self.ascii.as_deref().filter(|p| !p.is_empty())?;
        let cs = self.case_sensitive;
        let (&head, rest) = pattern.split_first()?;
        let stop = start(slots.end).min(text.len());
        let mut slot = slots.start;
        let mut at = start(slot);
        let mut first = Vec::with_capacity(pattern.len());
        // an ASCII pattern character matches only that ASCII byte (or its other case),
        // never a byte of a longer UTF-8 character, so bytes answer as characters do
        while at < stop {
            let Some(found) = u8::find(&text[at..stop], head, cs) else {
                break;
            };
            let pos = at + found;
            while slot + 1 < slots.end && start(slot + 1) <= pos {
                slot += 1;
            }
            let (begin, end) = (start(slot), start(slot + 1).min(stop));
            first.clear();
            first.push((pos - begin) as u32);
            let mut x = pos + 1;
            let whole = rest.iter().all(|&p| match u8::find(&text[x..end], p, cs) {
                Some(f) => {
                    first.push((x + f - begin) as u32);
                    x += f + 1;
                    true
                }
                None => false,
            });
            if whole {
                hit(slot, &first);
            }
            at = end;
        }
        Some(())
    }

    /// The score a fresh `SkimMatcherV2::default()` gives `choice`, or `None` when the
    /// pattern is not a subsequence of it.
    pub fn score(&self, choice: &str) -> Option<i64> {
        let cs = self.case_sensitive;
        match (&self.chars[..], self.ascii.as_deref()) {
            ([], _) => Some(0),
            (&[p], _) => single_unit_score(p, choice.chars(), cs),
            (_, Some(pattern)) => with_bytes(choice, |s, bytes| score_bytes(s, pattern, bytes, cs)),
            // a pattern with a non-ASCII character never matches an ASCII haystack
            (_, None) if choice.is_ascii() => None,
            (pattern, None) => with_scratch(|s| {
                let mut chars = std::mem::take(&mut s.chars);
                chars.clear();
                chars.extend(choice.chars());
                let score = matrix::scan(s, pattern, &chars, cs)
                    .then(|| matrix::fill(s, pattern, &chars, cs));
                s.chars = chars;
                score
            }),
        }
    }
}

/// The full score of an ASCII pattern of two or more characters over `choice`, one
/// byte per character ([`squash`]).
fn score_bytes(s: &mut Scratch, pattern: &[u8], choice: &[u8], cs: bool) -> Option<i64> {
    matrix::scan(s, pattern, choice, cs).then(|| matrix::fill(s, pattern, choice, cs))
}

/// A one-character pattern `p` in closed form over the units of `choice`. The matrix's
/// first row holds M = −∞ and P = gap_extension, so every matching column j scores
/// gap_extension + in_place_bonus(j) + match_score(j) (the M path starts at −∞ and
/// never wins), and the result is the best of them.
fn single_unit_score<C: Unit>(p: C, choice: impl Iterator<Item = C>, cs: bool) -> Option<i64> {
    let mut best: Option<i32> = None;
    let mut prev = CharType::Empty;
    for (j, c) in choice.enumerate() {
        let ty = c.kind();
        if c.matches(p, cs) {
            let mut bonus = in_place_bonus(prev, ty);
            if j == 0 {
                bonus *= BONUS_FIRST_CHAR_MULTIPLIER;
            }
            let penalty = if !cs && p != c {
                PENALTY_CASE_MISMATCH
            } else {
                0
            };
            let score = GAP_EXTENSION + bonus + (SCORE_MATCH + penalty).max(0);
            best = Some(best.map_or(score, |b| b.max(score)));
        }
        prev = ty;
    }
    best.map(i64::from)
}

/// Whether `choice` holds the whole pattern as one run of characters, starting at or
/// after `from` (the first occurrence of its first character).
fn holds_run(pattern: &[u8], choice: &[u8], case_sensitive: bool, from: usize) -> bool {
    run_at(pattern, choice, case_sensitive, from).is_some()
}

/// Where `choice` first holds the whole pattern as one run of characters, at or after
/// `from`.
fn run_at(pattern: &[u8], choice: &[u8], case_sensitive: bool, from: usize) -> Option<usize> {
    let mut x = from;
    while let Some(found) = u8::find(&choice[x..], pattern[0], case_sensitive) {
        let at = x + found;
        let rest = choice.get(at + 1..at + pattern.len())?;
        if rest
            .iter()
            .zip(&pattern[1..])
            .all(|(&c, &p)| c.matches(p, case_sensitive))
        {
            return Some(at);
        }
        x = at + 1;
    }
    None
}

#[cfg(test)]
mod tests;
