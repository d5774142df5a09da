//! Timestamps: RFC 3339 in, RFC 3339 UTC out, ordered as nanoseconds since the epoch.

use std::fmt;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// An instant, stored as nanoseconds since 1970-01-01T00:00:00Z.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(pub i64);

impl Timestamp {
    /// The current time, in whole milliseconds: what memlens writes (`updated_at`,
    /// `deleted_at`, `last_read_at`) then reads like the timestamps agents write, as
    /// JavaScript's `toISOString` does (`…T11:17:24.768Z`).
    pub fn now() -> Timestamp {
        let nanos = OffsetDateTime::now_utc().unix_timestamp_nanos();
        Timestamp(i64::try_from(nanos).unwrap_or(i64::MAX)).whole_millis()
    }

    /// The same instant to the millisecond (rounded down), as every time memlens and
    /// hivelore write is.
    pub fn whole_millis(self) -> Timestamp {
        Timestamp(self.0 - self.0.rem_euclid(1_000_000))
    }

    /// Parses an RFC 3339 timestamp (any offset; stored as UTC). A bare date
    /// (`2026-01-31`) is midnight UTC, as filters accept it.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let text = text.trim();
        if let Some(t) = parse_utc(text) {
            return Some(t);
        }
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

/// The form memlens writes, `YYYY-MM-DDTHH:MM:SS[.fraction]Z`, read directly (an import
/// reads two or three a memory): the same instant as the general RFC 3339 reader gives,
/// or `None` for anything else (another offset, a leap second, a year outside the range
/// of nanoseconds since the epoch), which the general reader then decides.
fn parse_utc(text: &str) -> Option<Timestamp> {
    let b = text.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    if b[16] != b':' || b[b.len() - 1] != b'Z' {
        return None;
    }
    let (year, month, day) = (decimal(&b[0..4])?, decimal(&b[5..7])?, decimal(&b[8..10])?);
    let (hour, minute) = (decimal(&b[11..13])?, decimal(&b[14..16])?);
    let second = decimal(&b[17..19])?;
    // nanoseconds since the epoch reach from 1677 to 2262
    if !(1678..=2261).contains(&year) || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let month = time::Month::try_from(u8::try_from(month).ok()?).ok()?;
    let date =
        time::Date::from_calendar_date(i32::try_from(year).ok()?, month, u8::try_from(day).ok()?)
            .ok()?;
    let fraction = &b[19..b.len() - 1];
    let nanos = match fraction {
        [] => 0,
        [b'.', rest @ ..] if (1..=9).contains(&rest.len()) => {
            let value = decimal(rest)?;
            value * 10u32.pow(9 - rest.len() as u32)
        }
        _ => return None,
    };
    // the Julian day of 1970-01-01 is 2,440,588
    let days = i64::from(date.to_julian_day()) - 2_440_588;
    let seconds = days * 86_400 + i64::from(hour * 3600 + minute * 60 + second);
    Some(Timestamp(seconds * 1_000_000_000 + i64::from(nanos)))
}

/// The value of a run of ASCII digits (at most 9 of them).
#[inline]
fn decimal(digits: &[u8]) -> Option<u32> {
    let mut value = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u32::from(c - b'0');
    }
    Some(value)
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

    #[test]
    fn now_is_written_in_whole_milliseconds() {
        let before = OffsetDateTime::now_utc().unix_timestamp_nanos();
        let now = Timestamp::now();
        assert_eq!(now.0 % 1_000_000, 0, "{now}");
        assert!(i128::from(now.0) > before - 1_000_000, "{now}");
        let text = now.to_string();
        assert_eq!(text.len(), "2026-04-25T23:39:56.850Z".len(), "{text}");
    }

    /// What the general RFC 3339 reader alone makes of a text.
    fn general(text: &str) -> Option<Timestamp> {
        let parsed = OffsetDateTime::parse(text, &Rfc3339).ok()?;
        i64::try_from(parsed.unix_timestamp_nanos())
            .ok()
            .map(Timestamp)
    }

    use proptest::prelude::*;

    proptest! {
        #[test]
        fn the_direct_reader_agrees_with_the_general_one(
            year in 1600u32..2300,
            month in 0u32..14,
            day in 0u32..33,
            hour in 0u32..26,
            minute in 0u32..62,
            second in 0u32..62,
            fraction in prop::option::of("[0-9]{0,11}"),
            end in prop::sample::select(vec!["Z", "z", "+00:00", "+02:30", ""]),
        ) {
            let fraction = fraction.map(|f| format!(".{f}")).unwrap_or_default();
            let text = format!(
                "{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{fraction}{end}"
            );
            if let Some(t) = parse_utc(&text) {
                prop_assert_eq!(Some(t), general(&text), "{}", text);
            }
        }

        #[test]
        fn every_instant_memlens_writes_is_read_directly(nanos in any::<i64>()) {
            let t = Timestamp(nanos);
            let text = t.to_string();
            prop_assert_eq!(parse_utc(&text).or_else(|| general(&text)), Some(t), "{}", text);
            let year: u32 = text[..4].parse().unwrap_or(0);
            if (1678..=2261).contains(&year) && !text.starts_with('-') {
                prop_assert_eq!(parse_utc(&text), Some(t), "{}", text);
            }
        }
    }
}
