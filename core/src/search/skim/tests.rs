//! The skim score and its bound checked against `fuzzy-matcher`'s fresh matcher.

use super::*;
use fuzzy_matcher::FuzzyMatcher;
use fuzzy_matcher::skim::SkimMatcherV2;
use proptest::prelude::*;

fn fresh(choice: &str, pattern: &str) -> Option<i64> {
    SkimMatcherV2::default().fuzzy_match(choice, pattern)
}

#[test]
fn known_cases_score_like_a_fresh_matcher() {
    for (c, p) in [
        ("b1__acBa11b", "bbab"),
        ("Bca1__BaABb", "BBab"),
        ("BcAc1abb1Bb_", "bbb"),
        ("1c_A_bAb1 _A", "aab"),
        ("axbycz", "abc"),
        ("abc", "abx"),
        ("", "a"),
        ("École straße", "éc"),
        ("FooBar foo_bar", "fb"),
    ] {
        assert_eq!(FuzzyPattern::new(p).score(c), fresh(c, p), "{c:?} / {p:?}");
    }
}

/// `score_from` with the floor at the true score must still score it (the bound is
/// never below the score), and one above may only skip it.
fn bound_holds(choice: &str, pattern: &str) -> Result<(), TestCaseError> {
    let p = FuzzyPattern::new(pattern);
    let Some(score) = fresh(choice, pattern) else {
        prop_assert_eq!(p.score_from(choice, i64::MIN), Scored::Missed);
        return Ok(());
    };
    prop_assert_eq!(p.score_from(choice, i64::MIN), Scored::Score(score));
    prop_assert_eq!(
        p.score_from(choice, score),
        Scored::Score(score),
        "floor at the score"
    );
    let above = p.score_from(choice, score + 1);
    prop_assert!(
        above == Scored::Below || above == Scored::Score(score),
        "{:?}",
        above
    );
    Ok(())
}

/// `score_upto` with the ceiling at the true score must still score it (the lower
/// bound is never above the score), and one below may only skip it.
fn lower_bound_holds(choice: &str, pattern: &str) -> Result<(), TestCaseError> {
    let p = FuzzyPattern::new(pattern);
    let Some(score) = fresh(choice, pattern) else {
        prop_assert_eq!(p.score_upto(choice, i64::MAX), Scored::Missed);
        return Ok(());
    };
    prop_assert_eq!(p.score_upto(choice, i64::MAX), Scored::Score(score));
    prop_assert_eq!(
        p.score_upto(choice, score),
        Scored::Score(score),
        "ceiling at the score"
    );
    let below = p.score_upto(choice, score - 1);
    prop_assert!(
        below == Scored::Above || below == Scored::Score(score),
        "{:?}",
        below
    );
    Ok(())
}

/// `score_runs_from` leaves for later exactly the matches without a run of the
/// whole pattern, and scores the others like a fresh matcher.
fn runs_come_first(choice: &str, pattern: &str) -> Result<(), TestCaseError> {
    let p = FuzzyPattern::new(pattern);
    let cs = pattern.chars().any(|c| c.is_ascii_uppercase());
    let has_run = choice.as_bytes().windows(pattern.len()).any(|w| {
        w.iter().zip(pattern.as_bytes()).all(|(c, q)| {
            if cs {
                c == q
            } else {
                c.eq_ignore_ascii_case(q)
            }
        })
    });
    let got = p.score_runs_from(choice, &[], i64::MIN);
    // from the greedy match a one-pass test gives, the same
    prop_assert_eq!(
        p.score_runs_from(choice, &greedy(&p, choice), i64::MIN),
        got
    );
    match fresh(choice, pattern) {
        None => prop_assert_eq!(got, Scored::Missed),
        Some(score) if has_run || pattern.len() == 1 => {
            prop_assert_eq!(got, Scored::Score(score))
        }
        Some(_) => prop_assert_eq!(got, Scored::Later),
    }
    Ok(())
}

#[test]
fn the_bound_is_tight_for_a_word_start_run() {
    // "abo" at word starts: the loosest bound is reached, so nothing is skipped
    let p = FuzzyPattern::new("abo");
    let choice = "x about";
    let score = fresh(choice, "abo").unwrap();
    assert_eq!(i64::from(p.loosest_score[0]), score);
    // letters inside words, none following the one before, are skipped below it
    assert!(fresh("xa xb xo", "abo").unwrap() < score);
    assert_eq!(p.score_from("xa xb xo", score), Scored::Below);
}

#[test]
fn the_lower_bound_is_tight_for_a_run_and_for_one_scattered_alignment() {
    let p = FuzzyPattern::new("abo");
    for choice in ["x about", "xa xb xo", "zab zzzzo"] {
        let score = fresh(choice, "abo").unwrap();
        assert_eq!(p.score_upto(choice, score - 1), Scored::Above, "{choice}");
    }
}

/// The pattern's characters in order, with `fillers` around and between them: a
/// haystack the pattern matches.
/// The greedy match [`FuzzyPattern::matches_in`] gives for `choice` alone (empty when
/// it gives none).
fn greedy(p: &FuzzyPattern, choice: &str) -> Vec<u32> {
    let mut first = Vec::new();
    let ends = [0, choice.len()];
    p.matches_in(
        choice.as_bytes(),
        0..1,
        |i| ends[i],
        |_, g| first = g.to_vec(),
    );
    first
}

/// The greedy match by its definition: each pattern byte at the first place after the
/// one before that it matches (both cases unless the pattern holds a capital).
fn greedy_plainly(choice: &[u8], pattern: &[u8]) -> Option<Vec<u32>> {
    let cs = pattern.iter().any(u8::is_ascii_uppercase);
    let mut from = 0;
    let mut first = Vec::new();
    for &q in pattern {
        let found = choice[from..].iter().position(|&c| {
            if cs {
                c == q
            } else {
                c.eq_ignore_ascii_case(&q)
            }
        })?;
        first.push((from + found) as u32);
        from += found + 1;
    }
    Some(first)
}

fn spread(pattern: &str, fillers: &[String]) -> String {
    let mut choice = fillers[0].clone();
    for (c, filler) in pattern.chars().zip(&fillers[1..]) {
        choice.push(c);
        choice.push_str(filler);
    }
    choice
}

#[test]
fn the_least_score_for_a_length_is_reached_but_for_one_leading_character() {
    // each letter of the pattern in capitals after a capital (no bonus, the other case),
    // after a gap: the worst alignment, here the only one; the bound counts the leading
    // character, which spares the first match the head bonus, as one more gap
    for (pattern, choice) in [
        ("ab", "XAXXB"),
        ("abc", "XAXBXXXXC"),
        ("abcd", "XAXXXXXXXXBXCXXD"),
    ] {
        let least = i64::from(bound::least_for_length(pattern.len(), choice.len()));
        assert_eq!(
            fresh(choice, pattern),
            Some(least + 1),
            "{choice} / {pattern}"
        );
        // the bound from the greedy positions is the score itself here: no bonus, the
        // other case, the gaps where they are
        let first = greedy(&FuzzyPattern::new(pattern), choice);
        assert_eq!(Some(bound::least_at(&first)), fresh(choice, pattern));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn the_bound_is_never_below_the_score(
        choice in "[a-dA-D_ 1/.:-]{0,60}",
        pattern in "[a-dA-D_ 1.]{1,7}",
    ) {
        bound_holds(&choice, &pattern)?;
    }

    #[test]
    fn the_lower_bound_is_never_above_the_score(
        choice in "[a-dA-D_ 1/.:-]{0,60}",
        pattern in "[a-dA-D_ 1.]{1,7}",
    ) {
        lower_bound_holds(&choice, &pattern)?;
    }

    #[test]
    fn bounds_hold_over_characters_longer_than_a_byte(
        choice in "[a-dA-D_ 1/.:é—\u{212A}\u{1F600}-]{0,60}",
        pattern in "[a-dA-D_ 1.]{1,7}",
    ) {
        // scored one byte per character: a long character is a column like any other
        bound_holds(&choice, &pattern)?;
        lower_bound_holds(&choice, &pattern)?;
        prop_assert_eq!(FuzzyPattern::new(&pattern).score(&choice), fresh(&choice, &pattern));
    }

    #[test]
    fn the_lower_bound_holds_for_repeated_letters(
        choice in "[aAb /]{0,40}",
        pattern in "[abA]{1,8}",
    ) {
        lower_bound_holds(&choice, &pattern)?;
    }

    #[test]
    fn matches_without_a_run_are_left_for_later(
        choice in "[abAB_ 1.-]{0,30}",
        pattern in "[abAB_ 1.]{1,4}",
    ) {
        runs_come_first(&choice, &pattern)?;
    }

    #[test]
    fn the_bound_holds_for_repeated_letters(
        choice in "[aAb /]{0,40}",
        pattern in "[abA]{1,8}",
    ) {
        bound_holds(&choice, &pattern)?;
    }

    #[test]
    fn scores_equal_a_fresh_skim_matcher(
        choice in "[abAB_ c1/.é\\-]{0,24}",
        pattern in "[abAB_ c1.é]{1,5}",
    ) {
        prop_assert_eq!(FuzzyPattern::new(&pattern).score(&choice), fresh(&choice, &pattern));
    }

    #[test]
    fn repeated_letters_score_like_a_fresh_skim_matcher(
        choice in "[aAb ]{0,30}",
        pattern in "[ab]{2,8}",
    ) {
        prop_assert_eq!(FuzzyPattern::new(&pattern).score(&choice), fresh(&choice, &pattern));
    }

    #[test]
    fn ascii_haystacks_score_like_a_fresh_skim_matcher(
        choice in "[a-dA-D_ 1/.:-]{0,60}",
        pattern in "[a-dA-D_ 1.]{2,7}",
    ) {
        prop_assert_eq!(FuzzyPattern::new(&pattern).score(&choice), fresh(&choice, &pattern));
    }

    #[test]
    fn matches_in_stored_text_are_the_haystacks_a_fresh_matcher_matches(
        hays in proptest::collection::vec("[abAB_ c1/.é\\-K\u{212A}]{0,40}", 0..12),
        pattern in "[abAB_ cK1.é]{1,5}",
        cut in (0usize..13, 0usize..13),
    ) {
        let mut text = Vec::new();
        let mut starts = vec![0];
        for h in &hays {
            text.extend_from_slice(h.as_bytes());
            starts.push(text.len());
        }
        let (a, b) = (cut.0.min(hays.len()), cut.1.min(hays.len()));
        let slots = a.min(b)..a.max(b);
        let p = FuzzyPattern::new(&pattern);
        let mut found = Vec::new();
        let mut matches = Vec::new();
        let answered = p.matches_in(&text, slots.clone(), |i| starts[i], |i, g| {
            found.push(i);
            matches.push(g.to_vec());
        });
        prop_assert_eq!(answered.is_some(), pattern.is_ascii());
        if answered.is_some() {
            let expected: Vec<usize> = slots
                .filter(|&i| fresh(&hays[i], &pattern).is_some())
                .collect();
            prop_assert_eq!(&found, &expected);
            // each with its greedy match, in bytes from its haystack's start
            let plainly: Vec<Option<Vec<u32>>> = found
                .iter()
                .map(|&i| greedy_plainly(hays[i].as_bytes(), pattern.as_bytes()))
                .collect();
            prop_assert_eq!(matches.into_iter().map(Some).collect::<Vec<_>>(), plainly);
        }
    }

    #[test]
    fn a_known_match_scores_as_one_tested(
        pattern in "[a-dA-D_ 1.]{1,6}",
        fillers in proptest::collection::vec("[a-dA-D_ 1/.:é—\u{212A}-]{0,8}", 7),
        floor_at in 0usize..8,
    ) {
        let choice = spread(&pattern, &fillers);
        let p = FuzzyPattern::new(&pattern);
        let score = p.score(&choice);
        prop_assert!(score.is_some());
        // floors at the edges: the score itself and the bounds checked before looking
        let (score, loose) = (score.unwrap_or(0), p.loosest_score.map(i64::from));
        let floor = [score, score + 1, score - 1, loose[0], loose[0] + 1, loose[1], loose[1] + 1, i64::MIN][floor_at];
        let tested = p.score_from(&choice, floor);
        prop_assert_eq!(p.score_match_from(&choice, &[], floor), tested);
        // from the greedy match a one-pass test gives, when the pattern is ASCII
        let first = greedy(&p, &choice);
        prop_assert_eq!(first.is_empty(), !pattern.is_ascii());
        prop_assert_eq!(p.score_match_from(&choice, &first, floor), tested);
    }

    #[test]
    fn the_bound_from_greedy_positions_is_never_above_the_score(
        pattern in "[a-dA-D_ 1.]{2,6}",
        fillers in proptest::collection::vec("[a-dA-D_ 1/.:é—-]{0,30}", 7),
    ) {
        // positions in bytes, as a one-pass test gives them, with characters of two and
        // three bytes among the fillers
        let choice = spread(&pattern, &fillers);
        let p = FuzzyPattern::new(&pattern);
        let first = greedy(&p, &choice);
        prop_assert_eq!(first.len(), pattern.len());
        let score = p.score(&choice);
        prop_assert!(score.is_some());
        let least = bound::least_at(&first);
        prop_assert!(least <= score.unwrap_or(i64::MIN), "least {} above {:?}", least, score);
    }

    #[test]
    fn a_known_match_is_above_a_ceiling_as_one_tested(
        pattern in "[a-dA-D_ 1.]{2,6}",
        fillers in proptest::collection::vec("[a-dA-D_ 1/.:é—-]{0,30}", 7),
        ceiling_at in 0usize..6,
    ) {
        let choice = spread(&pattern, &fillers);
        let p = FuzzyPattern::new(&pattern);
        let score = p.score(&choice);
        prop_assert!(score.is_some());
        let score = score.unwrap_or(0);
        // the least a haystack of this length can score: the bound itself is never above
        // the score
        let least = i64::from(bound::least_for_length(pattern.len(), choice.chars().count()));
        prop_assert!(least <= score, "least {} above the score {}", least, score);
        let ceiling = [score, score - 1, least, least - 1, score + 1, i64::MAX][ceiling_at];
        let known = p.score_match_upto(&choice, &[], ceiling);
        let tested = p.score_upto(&choice, ceiling);
        // from the greedy match a one-pass test gives: the same answer
        let first = greedy(&p, &choice);
        prop_assert!(!first.is_empty());
        prop_assert_eq!(p.score_match_upto(&choice, &first, ceiling), known);
        // both give the score when it is at most the ceiling, and only may skip it above
        if score <= ceiling {
            prop_assert_eq!(known, Scored::Score(score));
            prop_assert_eq!(tested, Scored::Score(score));
        } else {
            prop_assert!(known == Scored::Above || known == Scored::Score(score), "{:?}", known);
        }
    }
}
