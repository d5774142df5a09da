//! An upper bound of skim's score for an ASCII haystack, from where the pattern's
//! characters occur, at a fraction of the matrix's cost: a page of the best matches
//! needs the full score only of the haystacks whose bound can still reach it.
//!
//! Every match cell of the matrix (`matrix.rs`) takes the larger of two ways in, plus
//! its match score: extending a run (the previous row's `m` one column to the left,
//! plus a carried bonus) or starting after a gap (the previous row's `p`, plus the
//! in-place bonus). Rows also inherit cells from two rows up, and `p` falls from the
//! `m` and `p` to its left. So the largest `m` and `p` each row can hold follow from the
//! rows before it and two gains per pattern character: the most a match of it can add
//! after a gap, and the most it can add extending a run, over the positions where each
//! is possible. The bonus a run carries is the larger of the consecutive bonus and the
//! match's own in-place bonus: skim takes the larger of those and of a bonus it reads
//! from cells written two rows up, but those cells are written only by matches in the
//! same column, whose in-place bonus is the same, so the reading never adds more (by
//! induction over the rows). `tests` check the bound against the full score.

use super::matrix::{Unit, in_place_at};
use super::{
    BONUS_CONSECUTIVE, BONUS_FIRST_CHAR_MULTIPLIER, BONUS_HEAD, GAP_EXTENSION, GAP_START,
    NEG_INFINITY, PENALTY_CASE_MISMATCH, SCORE_MATCH, char_type, in_place_bonus,
};

/// What the bound needs of one pattern character.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reach {
    /// The most a match of it adds after a gap: match score plus in-place bonus, the
    /// largest over its occurrences at or after its first position.
    pub gap: i32,
    /// The most a match of it adds extending a run: match score plus the larger of the
    /// consecutive and in-place bonus, over its occurrences right after one of the
    /// previous pattern character (−∞ when there is none).
    pub run: i32,
}

/// The largest score the matrix can give when the pattern's characters reach `rows`.
pub(super) fn of(rows: &[Reach]) -> i32 {
    // The largest m of the previous row's own matches; the largest m and p any cell of
    // the previous row and of the one before it holds (own or inherited). Skim starts
    // from two rows: m = −∞ in both, p = gap_extension in the nearer one.
    let mut own_before = NEG_INFINITY;
    let (mut m1, mut p1) = (NEG_INFINITY, GAP_EXTENSION);
    let (mut m2, mut p2) = (NEG_INFINITY, NEG_INFINITY);
    for r in rows {
        let run = if r.run > NEG_INFINITY {
            own_before + r.run
        } else {
            NEG_INFINITY
        };
        let own = run.max(p1 + r.gap);
        let m = own.max(m2);
        let p = (own + GAP_START + GAP_EXTENSION)
            .max(p2 + GAP_EXTENSION)
            .max(m2 + GAP_START + GAP_EXTENSION);
        (m2, p2) = (m1, p1);
        (m1, p1) = (m, p);
        own_before = own;
    }
    m1
}

/// The match score of a character matched in the other case: the least any match adds.
const LEAST_GAIN: i32 = if SCORE_MATCH + PENALTY_CASE_MISMATCH > 0 {
    SCORE_MATCH + PENALTY_CASE_MISMATCH
} else {
    0
};

/// The match score of haystack character `c` for pattern character `p`.
#[inline]
fn match_score(c: u8, p: u8, case_sensitive: bool) -> i32 {
    if !case_sensitive && c != p {
        LEAST_GAIN
    } else {
        SCORE_MATCH
    }
}

/// The characters that match pattern character `p`.
fn spellings(p: u8, case_sensitive: bool) -> [u8; 2] {
    if case_sensitive {
        [p, p]
    } else {
        [p.to_ascii_lowercase(), p.to_ascii_uppercase()]
    }
}

/// The rows of the bound over any haystack, knowing only whether it starts with the
/// pattern's first character: every character at a word start after a gap, and every
/// run in its best spelling. No haystack's [`reach_row`] exceeds them.
pub(super) fn loosest(pattern: &[u8], case_sensitive: bool, starts_with_first: bool) -> Vec<Reach> {
    (0..pattern.len())
        .map(|i| {
            let head = if i == 0 && starts_with_first {
                BONUS_HEAD * BONUS_FIRST_CHAR_MULTIPLIER
            } else {
                BONUS_HEAD
            };
            let mut run = NEG_INFINITY;
            if i > 0 {
                for before in spellings(pattern[i - 1], case_sensitive) {
                    for c in spellings(pattern[i], case_sensitive) {
                        let bonus = in_place_bonus(char_type(before.into()), char_type(c.into()));
                        let gain = match_score(c, pattern[i], case_sensitive)
                            + bonus.max(BONUS_CONSECUTIVE);
                        run = run.max(gain);
                    }
                }
            }
            Reach {
                gap: SCORE_MATCH + head,
                run,
            }
        })
        .collect()
}

/// The [`Reach`] of pattern character `i` in `choice`, from its occurrences at or
/// after `first` (its first position); the walk stops once it reaches `cap`, a row no
/// haystack exceeds.
pub(super) fn reach_row(
    pattern: &[u8],
    choice: &[u8],
    case_sensitive: bool,
    i: usize,
    first: usize,
    cap: Reach,
) -> Reach {
    let p = pattern[i];
    let previous = i.checked_sub(1).map(|j| pattern[j]);
    let mut r = Reach {
        gap: NEG_INFINITY,
        run: NEG_INFINITY,
    };
    let mut x = first;
    while let Some(found) = u8::find(&choice[x..], p, case_sensitive) {
        let at = x + found;
        let score = match_score(choice[at], p, case_sensitive);
        let bonus = in_place_at(choice, at);
        r.gap = r.gap.max(score + bonus);
        if let Some(q) = previous
            && at > 0
            && choice[at - 1].matches(q, case_sensitive)
        {
            r.run = r.run.max(score + bonus.max(BONUS_CONSECUTIVE));
        }
        if r.gap >= cap.gap && r.run >= cap.run {
            break;
        }
        x = at + 1;
    }
    r
}

/// Whether skim's score for an ASCII haystack is certainly above `ceiling`: whether
/// one of a few alignments the matrix certainly weighs scores above it (the greedy
/// first positions, the tightest alignment ending where the greedy one ends, and the
/// first run of the whole pattern), tried from the cheapest. A page in ascending
/// relevance needs the full score only of the haystacks that can still reach it.
///
/// Each match cell takes the larger of extending a run (with at least the larger of
/// the consecutive and in-place bonus) and starting after a gap (the previous row's
/// `p`, which falls from the previous match by `gap_start` and then `gap_extension`
/// per column), so a chain of matches at positions rising from each character's
/// greedy first position is scored at least as [`along`] sums it; the score is the
/// largest `m` of the last row. `first` holds the greedy first positions (two or
/// more); `positions` is scratch space.
pub(super) fn above(
    pattern: &[u8],
    choice: &[u8],
    case_sensitive: bool,
    first: &[usize],
    positions: &mut Vec<usize>,
    ceiling: i64,
) -> bool {
    let over = |positions: &[usize]| {
        i64::from(along(pattern, choice, case_sensitive, positions)) > ceiling
    };
    if over(first) {
        return true;
    }
    // the tightest alignment ending at the greedy last position: each character at its
    // last occurrence before the next one's
    positions.clear();
    positions.extend_from_slice(first);
    for i in (0..pattern.len() - 1).rev() {
        let window = &choice[first[i]..positions[i + 1]];
        if let Some(at) = window
            .iter()
            .rposition(|&c| c.matches(pattern[i], case_sensitive))
        {
            positions[i] = first[i] + at;
        }
    }
    if over(positions) {
        return true;
    }
    let Some(at) = super::run_at(pattern, choice, case_sensitive, first[0]) else {
        return false;
    };
    positions.clear();
    positions.extend((0..pattern.len()).map(|i| at + i));
    over(positions)
}

/// The least score any match of a pattern of `pattern_len` characters (two or more)
/// can have in a haystack of `len` characters: [`along`] of the worst alignment, each
/// character matched in the other case with no bonus, each after a gap, the gaps
/// together as long as the haystack leaves them. [`above`]'s greedy alignment scores
/// at least this, so the matrix does too.
pub(super) fn least_for_length(pattern_len: usize, len: usize) -> i32 {
    let (pattern_len, len) = (pattern_len as i32, len as i32);
    let gaps = (len - pattern_len).max(0);
    GAP_EXTENSION + pattern_len * LEAST_GAIN + (pattern_len - 1) * GAP_START + gaps * GAP_EXTENSION
}

/// The least score the matrix gives a match whose greedy first positions are `first`
/// (two or more): [`along`] of that alignment with no bonus but the consecutive one
/// and each character matched in the other case, so from the positions alone, before
/// the haystack is looked at. Offsets in bytes rather than characters only widen the
/// gaps (an ASCII pattern character follows another at the next byte exactly when at
/// the next character), so the bound holds for them too.
pub(super) fn least_at(first: &[u32]) -> i64 {
    let mut m = i64::from(GAP_EXTENSION + LEAST_GAIN);
    for pair in first.windows(2) {
        let gap = i64::from(pair[1]) - i64::from(pair[0]) - 1;
        m += i64::from(LEAST_GAIN)
            + if gap == 0 {
                i64::from(BONUS_CONSECUTIVE)
            } else {
                i64::from(GAP_START) + i64::from(GAP_EXTENSION) * gap
            };
    }
    m
}

/// The score the matrix gives at least to the pattern's characters matched at
/// `positions` (rising, each at or after its greedy first position).
fn along(pattern: &[u8], choice: &[u8], case_sensitive: bool, positions: &[usize]) -> i32 {
    let mut m = GAP_EXTENSION;
    let mut previous: Option<usize> = None;
    for (&p, &at) in pattern.iter().zip(positions) {
        let gain = match_score(choice[at], p, case_sensitive);
        let bonus = in_place_at(choice, at);
        m = match previous {
            None => m + bonus + gain,
            Some(before) if at == before + 1 => m + bonus.max(BONUS_CONSECUTIVE) + gain,
            Some(before) => m + GAP_START + GAP_EXTENSION * (at - before - 1) as i32 + bonus + gain,
        };
        previous = Some(at);
    }
    m
}
