//! Skim's score matrix, computed only where it can change.
//!
//! Skim fills two rows of `choice.len() + 1` cells per pattern character (a match
//! score `m`, a gap score `p` and a carried `bonus`), reusing each row's cells from two
//! characters earlier where it does not write them. Almost every cell is a column where
//! the pattern character does not occur: there `m` is −∞, the bonus 0, and `p` falls by
//! one per column from the last match. So this keeps, per pattern character, only the
//! columns where it occurs (its [`Hit`]s), and answers any other cell's value in closed
//! form, including the cells a row inherits from two rows up. The result is the very
//! score of the full matrix (`tests` check it against `fuzzy-matcher`), at a cost of
//! the pattern characters' occurrences instead of pattern length × haystack length.

use super::bound::Reach;
use super::{
    BONUS_CONSECUTIVE, BONUS_FIRST_CHAR_MULTIPLIER, CharType, GAP_EXTENSION, GAP_START,
    NEG_INFINITY, PENALTY_CASE_MISMATCH, SCORE_MATCH, char_type, in_place_bonus,
};

/// One unit of text the matrix walks: a byte of an ASCII haystack, or a `char`.
pub(super) trait Unit: Copy + PartialEq {
    /// The character class skim's bonuses are computed from.
    fn kind(self) -> CharType;
    /// Equal ignoring ASCII case.
    fn same_letter(self, other: Self) -> bool;
    /// Whether this unit matches the pattern's `p` (ignoring ASCII case unless
    /// `case_sensitive`).
    #[inline]
    fn matches(self, p: Self, case_sensitive: bool) -> bool {
        if case_sensitive {
            self == p
        } else {
            self.same_letter(p)
        }
    }
    /// The first position in `hay` that [`Unit::matches`] `p`.
    fn find(hay: &[Self], p: Self, case_sensitive: bool) -> Option<usize> {
        hay.iter().position(|&c| c.matches(p, case_sensitive))
    }
}

impl Unit for u8 {
    #[inline]
    fn kind(self) -> CharType {
        char_type(char::from(self))
    }
    #[inline]
    fn same_letter(self, other: u8) -> bool {
        self.eq_ignore_ascii_case(&other)
    }
    #[inline]
    fn find(hay: &[u8], p: u8, case_sensitive: bool) -> Option<usize> {
        let (lower, upper) = if case_sensitive {
            (p, p)
        } else {
            (p.to_ascii_lowercase(), p.to_ascii_uppercase())
        };
        if hay.len() < 32 {
            // shorter than one vector: a plain loop beats memchr's set-up
            return hay.iter().position(|&c| c == lower || c == upper);
        }
        if lower == upper {
            memchr::memchr(p, hay)
        } else {
            memchr::memchr2(lower, upper, hay)
        }
    }
}

impl Unit for char {
    #[inline]
    fn kind(self) -> CharType {
        char_type(self)
    }
    #[inline]
    fn same_letter(self, other: char) -> bool {
        self.eq_ignore_ascii_case(&other)
    }
}

/// A column where a pattern character occurs, with what skim computes there.
#[derive(Clone, Copy)]
struct Hit {
    /// The cell: one past the character's position in the haystack.
    cell: usize,
    /// The match score `m` of the cell.
    m: i32,
    /// The bonus this match wrote into the cell on its left.
    carried: i32,
    /// The largest `m + cell` of this row's hits up to and including this one.
    best: i32,
}

/// Where one pattern character's row keeps its hits, and what it inherited.
#[derive(Clone, Copy)]
struct Row {
    /// The first cell the row writes (one past the greedy first match).
    from: usize,
    /// This row's hits are `hits[start..end]`.
    start: usize,
    end: usize,
    /// `max(p + cell + 3, m + cell)` of the inherited cell left of `from`: the closed
    /// form of `p` starts from it.
    base: i32,
}

/// Buffers reused between calls (their contents never are).
#[derive(Default)]
pub(super) struct Scratch {
    /// The haystack's characters, when it is not ASCII and the pattern is not either.
    pub chars: Vec<char>,
    /// The haystack as one byte per character, when it is not ASCII and the pattern is.
    pub bytes: Vec<u8>,
    /// The greedy first position of each pattern character.
    pub first: Vec<usize>,
    /// Per pattern character, the positions where it occurs at or after its first.
    at: Vec<Vec<u32>>,
    hits: Vec<Hit>,
    row_hits: Vec<Hit>,
    rows: Vec<Row>,
    /// The rows of a score bound (`bound.rs`) being computed.
    pub reach: Vec<Reach>,
    /// The positions of an alignment a lower bound (`bound::least`) is summed along.
    pub positions: Vec<usize>,
}

/// The matrix of one pattern over one haystack.
struct Matrix<'a, C: Unit> {
    pattern: &'a [C],
    choice: &'a [C],
    case_sensitive: bool,
    first: &'a [usize],
    hits: &'a [Hit],
    rows: &'a [Row],
}

impl<'a, C: Unit> Matrix<'a, C> {
    /// The rows computed so far in `s`.
    fn over(s: &'a Scratch, pattern: &'a [C], choice: &'a [C], case_sensitive: bool) -> Self {
        Matrix {
            pattern,
            choice,
            case_sensitive,
            first: &s.first,
            hits: &s.hits,
            rows: &s.rows,
        }
    }

    /// Whether row `j` writes a match at `cell`.
    #[inline]
    fn is_hit(&self, j: usize, cell: usize) -> bool {
        cell > self.first[j]
            && cell <= self.choice.len()
            && self.choice[cell - 1].matches(self.pattern[j], self.case_sensitive)
    }

    /// Row `j`'s hit at `cell` (which [`Matrix::is_hit`]).
    fn hit(&self, j: usize, cell: usize) -> Hit {
        let row = &self.hits[self.rows[j].start..self.rows[j].end];
        row[row.partition_point(|h| h.cell < cell)]
    }

    /// `m` of row `j` (`None`: one of the two rows skim starts from) at `cell`, which
    /// row `j` writes.
    fn m(&self, j: Option<usize>, cell: usize) -> i32 {
        match j {
            Some(j) if self.is_hit(j, cell) => self.hit(j, cell).m,
            _ => NEG_INFINITY,
        }
    }

    /// The bonus row `j` leaves at `cell`, which it writes.
    fn bonus(&self, j: Option<usize>, cell: usize) -> i32 {
        let Some(j) = j else { return 0 };
        if self.is_hit(j, cell + 1) {
            self.hit(j, cell + 1).carried
        } else if self.is_hit(j, cell) {
            // a match keeps the bonus its cell held from two rows up
            self.bonus(j.checked_sub(2), cell)
        } else {
            0
        }
    }

    /// `p` of row `j` at `cell`, which it writes; `start` is what skim's rows hold
    /// before any character: the first row P = gap_extension, the second −∞.
    fn p(&self, j: Option<usize>, start: i32, cell: usize) -> i32 {
        let Some(j) = j else { return start };
        let row = self.rows[j];
        let before = self.hits[row.start..row.end].partition_point(|h| h.cell < cell);
        self.p_before(j, cell, before)
    }

    /// [`Matrix::p`] of row `j` at `cell`, given how many of the row's hits lie left of
    /// it.
    fn p_before(&self, j: usize, cell: usize, before: usize) -> i32 {
        let row = self.rows[j];
        let hits = &self.hits[row.start..row.start + before];
        // p[x] = max(m[x-1] - 4, p[x-1] - 1), unrolled back to the inherited cell
        let mut reach = row.base;
        if let Some(h) = hits.last() {
            reach = reach.max(h.best);
        }
        // the nearest column left of `cell` without a match (its m is −∞)
        let mut gap = cell - 1;
        for h in hits.iter().rev() {
            if h.cell != gap {
                break;
            }
            gap -= 1;
        }
        if gap >= row.from {
            reach = reach.max(NEG_INFINITY + gap as i32);
        }
        reach + GAP_START + GAP_EXTENSION + 1 - cell as i32
    }

    /// Skim's bonus for a match at `cell`.
    fn in_place(&self, cell: usize) -> i32 {
        in_place_at(self.choice, cell - 1)
    }
}

/// Skim's bonus for a match of the character at `pos` of `choice`.
#[inline]
pub(super) fn in_place_at<C: Unit>(choice: &[C], pos: usize) -> i32 {
    let prev = if pos >= 1 {
        choice[pos - 1].kind()
    } else {
        CharType::Empty
    };
    let bonus = in_place_bonus(prev, choice[pos].kind());
    if pos == 0 {
        bonus * BONUS_FIRST_CHAR_MULTIPLIER
    } else {
        bonus
    }
}

/// The start value of the row that row `i` reads (`prev`) or inherits from (`stale`)
/// when that is one of skim's two initial rows.
fn start_of(row: isize) -> i32 {
    if row == -1 {
        GAP_EXTENSION
    } else {
        NEG_INFINITY
    }
}

fn reset(s: &mut Scratch, rows: usize) {
    s.first.clear();
    if s.at.len() < rows {
        s.at.resize_with(rows, Vec::new);
    }
    for at in &mut s.at[..rows] {
        at.clear();
    }
}

/// Finds the greedy first position of each pattern character (skim's cheap_matches);
/// false when the pattern is not a subsequence.
pub(super) fn first_positions<C: Unit>(
    s: &mut Scratch,
    pattern: &[C],
    choice: &[C],
    cs: bool,
) -> bool {
    reset(s, pattern.len());
    let mut from = 0;
    for &p in pattern {
        let Some(found) = C::find(&choice[from..], p, cs) else {
            return false;
        };
        s.first.push(from + found);
        from += found + 1;
    }
    true
}

/// [`first_positions`], or `known` when it holds them (one for each pattern character,
/// found by a pass that matched the same units).
pub(super) fn first_positions_or<C: Unit>(
    s: &mut Scratch,
    pattern: &[C],
    choice: &[C],
    cs: bool,
    known: &[u32],
) -> bool {
    if known.len() != pattern.len() {
        return first_positions(s, pattern, choice, cs);
    }
    reset(s, pattern.len());
    s.first.extend(known.iter().map(|&at| at as usize));
    true
}

/// [`first_positions`], then [`occurrences`].
pub(super) fn scan<C: Unit>(s: &mut Scratch, pattern: &[C], choice: &[C], cs: bool) -> bool {
    if !first_positions(s, pattern, choice, cs) {
        return false;
    }
    occurrences(s, pattern, choice, cs);
    true
}

/// Where each pattern character occurs from its first position on (after
/// [`first_positions`] found the pattern).
pub(super) fn occurrences<C: Unit>(s: &mut Scratch, pattern: &[C], choice: &[C], cs: bool) {
    for (i, &p) in pattern.iter().enumerate() {
        let mut x = s.first[i];
        while let Some(found) = C::find(&choice[x..], p, cs) {
            s.at[i].push((x + found) as u32);
            x += found + 1;
        }
    }
}

/// Skim's matrix score for `pattern` (two or more units) over `choice`, after a
/// successful [`scan`].
pub(super) fn fill<C: Unit>(
    s: &mut Scratch,
    pattern: &[C],
    choice: &[C],
    case_sensitive: bool,
) -> i64 {
    s.hits.clear();
    s.rows.clear();
    let mut found = std::mem::take(&mut s.row_hits);
    let at = std::mem::take(&mut s.at);
    for (i, &p_ch) in pattern.iter().enumerate() {
        let mx = Matrix::over(s, pattern, choice, case_sensitive);
        let stale = i.checked_sub(2);
        let prev = i.checked_sub(1);
        let inherited = s.first[i];
        let stale_m = mx.m(stale, inherited);
        let stale_p = mx.p(stale, start_of(i as isize - 2), inherited);
        let stale_bonus = mx.bonus(stale, inherited);
        let start = s.hits.len();
        found.clear();
        let mut best = i32::MIN;
        // how many of the previous row's hits lie left of the cell read from it
        let prev_hits = prev.map_or(&[][..], |j| &s.hits[s.rows[j].start..s.rows[j].end]);
        let mut before = 0;
        for &x in &at[i] {
            let cell = x as usize + 1;
            let c_ch = choice[cell - 1];
            let left = if cell - 1 == inherited {
                stale_bonus
            } else if mx.is_hit(i, cell - 1) {
                mx.bonus(stale, cell - 1)
            } else {
                0
            };
            let in_place = mx.in_place(cell);
            let carried = left.max(in_place.max(BONUS_CONSECUTIVE));
            let penalty = if !case_sensitive && p_ch != c_ch {
                PENALTY_CASE_MISMATCH
            } else {
                0
            };
            let match_score = (SCORE_MATCH + penalty).max(0);
            while before < prev_hits.len() && prev_hits[before].cell < cell - 1 {
                before += 1;
            }
            let (before_m, before_p) = match prev {
                Some(j) => (
                    prev_hits
                        .get(before)
                        .filter(|h| h.cell == cell - 1)
                        .map_or(NEG_INFINITY, |h| h.m),
                    mx.p_before(j, cell - 1, before),
                ),
                None => (NEG_INFINITY, start_of(-1)),
            };
            let m = (before_m + carried).max(before_p + in_place) + match_score;
            best = best.max(m + cell as i32);
            found.push(Hit {
                cell,
                m,
                carried,
                best,
            });
        }
        let base = (stale_p + inherited as i32 - GAP_START - GAP_EXTENSION - 1)
            .max(stale_m + inherited as i32);
        s.hits.extend_from_slice(&found);
        s.rows.push(Row {
            from: inherited + 1,
            start,
            end: s.hits.len(),
            base,
        });
    }
    s.row_hits = found;
    s.at = at;
    let last = pattern.len() - 1;
    let mx = Matrix::over(s, pattern, choice, case_sensitive);
    let row = s.rows[last];
    let inherited = s.first[last];
    let mut score = mx.m(last.checked_sub(2), inherited);
    if row.end - row.start < choice.len() - inherited {
        score = score.max(NEG_INFINITY);
    }
    for h in &s.hits[row.start..row.end] {
        score = score.max(h.m);
    }
    i64::from(score)
}
