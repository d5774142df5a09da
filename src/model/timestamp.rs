//! Timestamps: RFC 3339 in, RFC 3339 UTC out, ordered as nanoseconds since the epoch.

use std::fmt;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// An instant, stored as nanoseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The current time.
    pub fn now() -> Timestamp {
        let nanos = OffsetDateTime::now_utc().unix_timestamp_nanos();
        Timestamp(i64::try_from(nanos).unwrap_or(i64::MAX))
    }

    /// Parses an RFC 3339 timestamp (any offset; stored as UTC). A bare date
    /// (`2026-01-31`) is midnight UTC, as filters accept it.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let text = text.trim();
        let parsed = OffsetDateTime::parse(text, &Rfc3339).ok().or_else(|| {
            let date = time::Date::parse(
                text,
                time::macros::format_description!("[year]-[month]-[day]"),
            )
            .ok()?;
            Some(date.midnight().assume_utc())
        })?;
        i64::try_from(parsed.unix_timestamp_nanos())
            .ok()
            .map(Timestamp)
    }

    /// Seconds since the epoch as f64, for numeric sorting and ranges.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / 1e9
    }

    /// Whole days between `self` and a later instant.
    pub fn days_until(self, later: Timestamp) -> i64 {
        (later.0 - self.0) / 86_400_000_000_000
    }
}

impl fmt::Display for Timestamp {
    /// RFC 3339 in UTC with a `Z`; milliseconds always shown (as JavaScript's
    /// `toISOString` writes them), more digits only when the instant has them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Ok(dt) = OffsetDateTime::from_unix_timestamp_nanos(i128::from(self.0)) else {
            return write!(f, "invalid-time");
        };
        let nanos = dt.nanosecond();
        write!(
            f,
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            dt.year(),
            u8::from(dt.month()),
            dt.day(),
            dt.hour(),
            dt.minute(),
            dt.second()
        )?;
        if nanos % 1_000_000 == 0 {
            write!(f, ".{:03}Z", nanos / 1_000_000)
        } else if nanos % 1_000 == 0 {
            write!(f, ".{:06}Z", nanos / 1_000)
        } else {
            write!(f, ".{nanos:09}Z")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_milliseconds_and_normalises_offsets_to_utc() {
        let t = Timestamp::parse("2026-04-25T23:39:56.850Z").unwrap();
        assert_eq!(t.to_string(), "2026-04-25T23:39:56.850Z");
        let t = Timestamp::parse("2026-04-26T01:39:56+02:00").unwrap();
        assert_eq!(t.to_string(), "2026-04-25T23:39:56.000Z");
        let t = Timestamp::parse("2026-04-25T23:39:56.123456Z").unwrap();
        assert_eq!(t.to_string(), "2026-04-25T23:39:56.123456Z");
        assert_eq!(
            Timestamp::parse("2026-01-31").unwrap().to_string(),
            "2026-01-31T00:00:00.000Z"
        );
        assert!(Timestamp::parse("yesterday").is_none());
    }
}
