//! Counted nouns in messages, so that one of a thing is never "1 memories":
//! `1 memory`, `3 memories`, `1 problem found`, `2 problems found`.

/// `n` with `one` when it is 1, else with `many`.
pub fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

/// `1 problem`, `3 problems`: a noun whose plural adds an `s`.
pub fn plural(n: usize, word: &str) -> String {
    counted(n, word, &format!("{word}s"))
}

/// `1 memory`, `3 memories`.
pub fn memories(n: usize) -> String {
    counted(n, "memory", "memories")
}

/// The verb `have` agreeing with `n` things: `has` for one.
pub fn have(n: usize) -> &'static str {
    if n == 1 { "has" } else { "have" }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(memories(1), "1 memory");
        assert_eq!(memories(0), "0 memories");
        assert_eq!(plural(2, "link"), "2 links");
        assert_eq!(plural(1, "link"), "1 link");
        assert_eq!(
            counted(3, "problem remains", "problems remain"),
            "3 problems remain"
        );
        assert_eq!((have(1), have(2)), ("has", "have"));
    }
}
