//! The rules of SPEC §2: normalisation (tags, titles) and validation that names the
//! field and the bad value.

use super::feel::FEEL_DIMS;
use super::memory::{Memory, Scope};
use std::fmt;

/// Largest body accepted, in bytes.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;
/// Longest id accepted, in characters.
pub const MAX_ID_CHARS: usize = 200;

/// A problem with one field: which field, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field's name as written in files (`feel_humor`, `body`, …).
    pub field: String,
    /// What is wrong, naming the bad value.
    pub reason: String,
}

impl FieldError {
    /// A new error for `field`.
    pub fn new(field: impl Into<String>, reason: impl Into<String>) -> FieldError {
        FieldError {
            field: field.into(),
            reason: reason.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.reason)
    }
}

/// True for a valid memory type: lowercase `[a-z0-9_-]{1,40}`.
pub fn is_valid_type(t: &str) -> bool {
    (1..=40).contains(&t.len())
        && t.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// Why an id is invalid, if it is.
pub fn id_problem(id: &str) -> Option<String> {
    let chars = id.chars().count();
    if chars == 0 {
        Some("must not be empty".into())
    } else if chars > MAX_ID_CHARS {
        Some(format!(
            "{chars} characters is over the limit of {MAX_ID_CHARS}"
        ))
    } else if id.chars().any(char::is_control) {
        Some(format!("{id:?} contains a control character"))
    } else {
        None
    }
}

fn check_unit(errors: &mut Vec<FieldError>, field: &str, v: f64, lo: f64, hi: f64) {
    if !v.is_finite() || v < lo || v > hi {
        let v = shown_number(v);
        errors.push(FieldError::new(field, format!("{v} is outside {lo}–{hi}")));
    }
}

/// A number as a message shows it: in full where that is short, else in scientific
/// notation (`1e308`, not three hundred digits).
pub fn shown_number(v: f64) -> String {
    let plain = v.to_string();
    if plain.len() > 24 {
        format!("{v:e}")
    } else {
        plain
    }
}

/// A memory normalised and found to break no rule of the data model: made only by
/// [`Memory::checked`], so whoever holds one need not check it again.
#[derive(Debug, Clone, PartialEq)]
pub struct Checked(Memory);

impl Checked {
    /// The memory, given up.
    pub fn into_memory(self) -> Memory {
        self.0
    }
}

impl Memory {
    /// Normalises the memory and checks it: `Some` when it breaks no rule.
    pub fn checked(mut self) -> Option<Checked> {
        self.normalise();
        self.validate().is_empty().then_some(Checked(self))
    }

    /// Applies the normalisation rules: tags trimmed, empty ones and duplicates
    /// dropped (order kept); blank titles, modules and kinds become absent/default.
    pub fn normalise(&mut self) {
        // the common case (an export read back, a canonical line): nothing to allocate
        if self.is_normalised() {
            return;
        }
        let mut seen = std::collections::HashSet::new();
        self.tags = std::mem::take(&mut self.tags)
            .into_iter()
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty() && seen.insert(t.clone()))
            .collect();
        if let Some(t) = &self.title {
            let trimmed = t.trim();
            self.title = (!trimmed.is_empty()).then(|| trimmed.to_string());
        }
        if self.module.as_deref().is_some_and(|m| m.trim().is_empty()) {
            self.module = None;
        }
        if self.memory_type.is_empty() {
            self.memory_type = super::memory::DEFAULT_TYPE.to_string();
        }
        for rel in &mut self.relationships {
            if rel.kind.trim().is_empty() {
                rel.kind = super::memory::DEFAULT_RELATIONSHIP_KIND.to_string();
            }
        }
    }

    /// True when [`normalise`](Self::normalise) would leave this memory as it is.
    pub fn is_normalised(&self) -> bool {
        let clean = |t: &String| !t.is_empty() && t.trim() == t;
        let tags = if self.tags.len() <= 16 {
            // a few tags: compared with those before them, nothing allocated
            (0..self.tags.len())
                .all(|i| clean(&self.tags[i]) && !self.tags[..i].contains(&self.tags[i]))
        } else {
            let mut seen = std::collections::HashSet::new();
            self.tags
                .iter()
                .all(|t| clean(t) && seen.insert(t.as_str()))
        };
        let title = self
            .title
            .as_deref()
            .is_none_or(|t| !t.is_empty() && t.trim() == t);
        let module = self.module.as_deref().is_none_or(|m| !m.trim().is_empty());
        let kinds = self.relationships.iter().all(|r| !r.kind.trim().is_empty());
        tags && title && module && kinds && !self.memory_type.is_empty()
    }

    /// Every rule this memory breaks; empty when it is valid.
    pub fn validate(&self) -> Vec<FieldError> {
        let mut errors = Vec::new();
        if let Some(p) = id_problem(&self.id) {
            errors.push(FieldError::new("id", p));
        }
        // An empty or blank body is a memory too: hivelore loads them and OpenMemory
        // writes `"content": ""`.
        if self.body.len() > MAX_BODY_BYTES {
            errors.push(FieldError::new(
                "body",
                format!(
                    "{} bytes is over the limit of {MAX_BODY_BYTES}",
                    self.body.len()
                ),
            ));
        }
        if !is_valid_type(&self.memory_type) {
            errors.push(FieldError::new(
                "type",
                format!("{:?} is not lowercase [a-z0-9_-]{{1,40}}", self.memory_type),
            ));
        }
        if self.scope == Scope::Module && self.module.is_none() {
            errors.push(FieldError::new("module", "required when scope is module"));
        }
        check_unit(&mut errors, "weight", self.weight, 0.0, 1.0);
        check_unit(&mut errors, "trust", self.trust, 0.0, 1.0);
        if let Some(c) = self.confidence {
            check_unit(&mut errors, "confidence", c, 0.0, 1.0);
        }
        for (dim, value) in FEEL_DIMS.iter().zip(&self.feel) {
            if let Some(v) = value {
                check_unit(&mut errors, dim.field, *v, dim.min, dim.max);
            }
        }
        let (sum, count) = (u64::from(self.rating_sum), u64::from(self.rating_count));
        if sum < count || sum > 5 * count {
            errors.push(FieldError::new(
                "rating_sum",
                format!("{sum} cannot be the sum of {count} ratings of 1–5"),
            ));
        }
        self.validate_ratings(&mut errors);
        for rel in &self.relationships {
            if let Some(p) = id_problem(&rel.target) {
                errors.push(FieldError::new("relationships.target", p));
            }
            if rel.target == self.id {
                errors.push(FieldError::new(
                    "relationships.target",
                    "a memory cannot link to itself",
                ));
            }
            if let Some(s) = rel.strength {
                check_unit(&mut errors, "relationships.strength", s, 0.0, 1.0);
            }
        }
        errors
    }
}

impl Memory {
    /// The raters' ratings: each 1–5, one per rater, and all of them counted in the
    /// aggregate.
    fn validate_ratings(&self, errors: &mut Vec<FieldError>) {
        let mut sum = 0u64;
        for (i, r) in self.ratings.iter().enumerate() {
            if !(1..=5).contains(&r.value) {
                errors.push(FieldError::new(
                    "ratings",
                    format!("{} is not a rating 1–5", r.value),
                ));
            }
            if r.rater.trim().is_empty() || r.rater.chars().any(char::is_control) {
                errors.push(FieldError::new(
                    "ratings",
                    format!("{:?} is not a rater", r.rater),
                ));
            }
            if self.ratings[..i].iter().any(|o| o.rater == r.rater) {
                errors.push(FieldError::new(
                    "ratings",
                    format!("{:?} rated twice; a rater has one rating", r.rater),
                ));
            }
            sum += u64::from(r.value);
        }
        let count = self.ratings.len() as u64;
        if count > u64::from(self.rating_count) || sum > u64::from(self.rating_sum) {
            errors.push(FieldError::new(
                "ratings",
                format!(
                    "{count} ratings summing to {sum} are more than rating_count {} and rating_sum {} hold",
                    self.rating_count, self.rating_sum
                ),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_number_out_of_range_is_shown_short() {
        assert_eq!(shown_number(1e308), "1e308");
        assert_eq!(shown_number(-1e-300), "-1e-300");
        assert_eq!(shown_number(1.5), "1.5");
        assert_eq!(shown_number(-2.0), "-2");
        let mut m = Memory::new("a", "b", crate::model::Timestamp(0));
        m.weight = 1e308;
        let problems = m.validate();
        assert!(
            problems[0].to_string().contains("1e308 is outside"),
            "{problems:?}"
        );
    }
    use crate::model::{Relationship, Timestamp};
    use proptest::prelude::*;

    #[test]
    fn tags_are_trimmed_and_kept_once_in_order_and_blanks_become_absent() {
        let mut m = Memory::new("a", "body", Timestamp(0));
        m.tags = ["  x ", "y", "", "x", " y", "\t"]
            .map(String::from)
            .to_vec();
        m.title = Some("  ".into());
        m.module = Some(" ".into());
        assert!(!m.is_normalised());
        m.normalise();
        assert_eq!(m.tags, ["x", "y"]);
        assert_eq!((m.title, m.module), (None, None));
    }

    proptest! {
        /// A memory is normalised exactly when normalising leaves it as it is, and
        /// normalising always makes it so (with few tags, compared in place, and many).
        #[test]
        fn is_normalised_agrees_with_normalise(
            tags in proptest::collection::vec("( |a|b|c|d){0,3}", 0..40),
            title in proptest::option::of("( |t){0,3}"),
            module in proptest::option::of("( |m){0,2}"),
            kind in "( |k){0,2}",
        ) {
            let mut m = Memory::new("a", "body", Timestamp(0));
            m.tags = tags;
            m.title = title;
            m.module = module;
            m.relationships.push(Relationship { target: "b".into(), kind, strength: None });
            let mut normalised = m.clone();
            normalised.normalise();
            prop_assert!(normalised.is_normalised());
            prop_assert_eq!(m.is_normalised(), normalised == m);
        }
    }
}
