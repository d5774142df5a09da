//! remember-core's `trust_score`: not how trustworthy a memory is but how confidential,
//! a level from 1 (public) to 5 (secret), named as remember-core names them
//! (`TRUST_LABELS`), and the reading of the legacy floats its older stores hold.

use std::fmt;
use std::str::FromStr;

/// How confidential a memory is (remember-core's `TrustLevel`); higher needs more trust
/// to see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TrustLevel {
    /// 1: anyone can see it.
    Public = 1,
    /// 2: friends and known users.
    Internal = 2,
    /// 3: trusted friends only.
    Confidential = 3,
    /// 4: close contacts only.
    Restricted = 4,
    /// 5: the owner only (what remember-core's `create` gives every new memory).
    Secret = 5,
}

impl TrustLevel {
    /// Every level, from least to most confidential.
    pub const ALL: [TrustLevel; 5] = [
        TrustLevel::Public,
        TrustLevel::Internal,
        TrustLevel::Confidential,
        TrustLevel::Restricted,
        TrustLevel::Secret,
    ];

    /// The level's number, 1–5, as remember-core stores it.
    pub fn number(self) -> u8 {
        self as u8
    }

    /// The level with this number.
    pub fn from_number(n: u8) -> Option<TrustLevel> {
        TrustLevel::ALL.into_iter().find(|l| l.number() == n)
    }

    /// Its name as remember-core labels it (`Public` … `Secret`).
    pub fn label(self) -> &'static str {
        match self {
            TrustLevel::Public => "Public",
            TrustLevel::Internal => "Internal",
            TrustLevel::Confidential => "Confidential",
            TrustLevel::Restricted => "Restricted",
            TrustLevel::Secret => "Secret",
        }
    }

    /// Its lowercase name, as filters and the command line take it.
    pub fn as_str(self) -> &'static str {
        match self {
            TrustLevel::Public => "public",
            TrustLevel::Internal => "internal",
            TrustLevel::Confidential => "confidential",
            TrustLevel::Restricted => "restricted",
            TrustLevel::Secret => "secret",
        }
    }

    /// The level a stored `trust_score` means, read as remember-core's
    /// `normalizeTrustScore` reads it: an integer 1–5 is the level; a legacy float
    /// 0–1 (1 = open) is inverted and taken to the nearest level. Anything else (a
    /// fraction above 1, a number below 0 or above 5, not a number) means nothing:
    /// `None`, where remember-core would quietly call it public.
    pub fn from_score(value: f64) -> Option<TrustLevel> {
        if value.fract() == 0.0 && (1.0..=5.0).contains(&value) {
            return TrustLevel::from_number(value as u8);
        }
        if !(0.0..=1.0).contains(&value) {
            return None;
        }
        let inverted = 1.0 - value;
        Some(if inverted >= 0.875 {
            TrustLevel::Secret
        } else if inverted >= 0.625 {
            TrustLevel::Restricted
        } else if inverted >= 0.375 {
            TrustLevel::Confidential
        } else if inverted >= 0.125 {
            TrustLevel::Internal
        } else {
            TrustLevel::Public
        })
    }
}

impl fmt::Display for TrustLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TrustLevel {
    type Err = String;
    /// A level by its name (any case) or its number.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        TrustLevel::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(t) || t == l.number().to_string())
            .ok_or_else(|| {
                format!(
                    "`{s}` is not one of public, internal, confidential, restricted, secret or 1–5"
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_read_by_number_and_name_and_nonsense_means_nothing() {
        for l in TrustLevel::ALL {
            assert_eq!(TrustLevel::from_score(f64::from(l.number())), Some(l));
            assert_eq!(l.as_str().parse(), Ok(l));
            assert_eq!(l.label().parse(), Ok(l));
        }
        for bad in [-0.5, 1.5, 6.0, 2.5, f64::NAN, f64::INFINITY] {
            assert_eq!(TrustLevel::from_score(bad), None, "{bad}");
        }
        assert!("topsecret".parse::<TrustLevel>().is_err());
    }
}
