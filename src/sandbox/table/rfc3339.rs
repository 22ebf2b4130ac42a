//! RFC 3339 timestamps as Go's `time.Parse(time.RFC3339, ...)` reads them and
//! `Format(time.RFC3339)` writes them, on plain integers (no clock, no time crate).

/// An instant as seconds and nanoseconds since the Unix epoch (nanos in 0..1e9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Instant {
    pub secs: i64,
    pub nanos: u32,
}

/// Go's zero `time.Time` (0001-01-01T00:00:00Z), which metav1.Time uses for "unset".
pub const GO_ZERO_TIME: Instant = Instant {
    secs: -62_135_596_800,
    nanos: 0,
};

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)` with Go's range checks; `None` when
/// Go's parser would fail.
pub fn parse_rfc3339(text: &str) -> Option<Instant> {
    let b = text.as_bytes();
    let year = digits(b, 0, 4)?;
    expect(b, 4, b'-')?;
    let month = digits(b, 5, 2)?;
    expect(b, 7, b'-')?;
    let day = digits(b, 8, 2)?;
    expect(b, 10, b'T')?;
    let hour = digits(b, 11, 2)?;
    expect(b, 13, b':')?;
    let minute = digits(b, 14, 2)?;
    expect(b, 16, b':')?;
    let second = digits(b, 17, 2)?;
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    let (nanos, zone_at) = fraction(b, 19)?;
    let offset = zone_offset(b.get(zone_at..)?)?;
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3_600 + minute * 60 + second - offset;
    Some(Instant { secs, nanos })
}

/// `time.Time.UTC().Format(time.RFC3339)`: second precision, `Z` suffix.
pub fn format_rfc3339(secs: i64) -> String {
    let days = secs.div_euclid(86_400);
    let in_day = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        in_day / 3_600,
        in_day % 3_600 / 60,
        in_day % 60
    )
}

fn digits(b: &[u8], at: usize, len: usize) -> Option<i64> {
    let slice = b.get(at..at + len)?;
    slice.iter().try_fold(0i64, |acc, c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}

fn expect(b: &[u8], at: usize, want: u8) -> Option<()> {
    (b.get(at) == Some(&want)).then_some(())
}

/// An optional `.ddd` (or `,ddd`, which Go also accepts) after the seconds: the nanoseconds
/// (digits past the ninth are dropped, as Go does) and where the zone starts.
fn fraction(b: &[u8], at: usize) -> Option<(u32, usize)> {
    match b.get(at) {
        Some(b'.' | b',') => {}
        _ => return Some((0, at)),
    }
    let count = b
        .get(at + 1..)
        .unwrap_or_default()
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if count == 0 {
        return None;
    }
    let mut nanos: u32 = 0;
    for i in 0..9 {
        let digit = match b.get(at + 1 + i) {
            Some(c) if i < count => u32::from(c - b'0'),
            _ => 0,
        };
        nanos = nanos * 10 + digit;
    }
    Some((nanos, at + 1 + count))
}

/// `Z` or `±HH:MM` and nothing after it: the offset east of UTC in seconds.
fn zone_offset(zone: &[u8]) -> Option<i64> {
    if zone == b"Z" {
        return Some(0);
    }
    if zone.len() != 6 || zone.get(3) != Some(&b':') {
        return None;
    }
    let sign = match zone.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let hours = digits(zone, 1, 2)?;
    let minutes = digits(zone, 4, 2)?;
    if hours > 23 || minutes > 59 {
        return None;
    }
    Some(sign * (hours * 3_600 + minutes * 60))
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let shifted_month = (month + 9) % 12; // March = 0
    let day_of_year = (153 * shifted_month + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`].
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let shifted_month = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * shifted_month + 2) / 5 + 1;
    let month = if shifted_month < 10 {
        shifted_month + 3
    } else {
        shifted_month - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_follows_go_rfc3339() {
        let at = |secs, nanos| Some(Instant { secs, nanos });
        let cases = [
            ("epoch", "1970-01-01T00:00:00Z", at(0, 0)),
            (
                "a Kubernetes creationTimestamp",
                "2026-11-22T07:48:49Z",
                at(1_795_333_729, 0),
            ),
            (
                "fractional seconds become nanos",
                "1970-01-01T00:00:01.5Z",
                at(1, 500_000_000),
            ),
            (
                "comma also starts a fraction",
                "1970-01-01T00:00:01,25Z",
                at(1, 250_000_000),
            ),
            (
                "digits past nanoseconds dropped",
                "1970-01-01T00:00:00.1234567891Z",
                at(0, 123_456_789),
            ),
            (
                "positive offset is east of UTC",
                "1970-01-01T01:00:00+01:00",
                at(0, 0),
            ),
            ("negative offset", "1969-12-31T23:30:00-00:30", at(0, 0)),
            (
                "leap day exists in 2024",
                "2024-02-29T00:00:00Z",
                at(1_709_164_800, 0),
            ),
            ("Go's zero time", "0001-01-01T00:00:00Z", Some(GO_ZERO_TIME)),
            ("no leap day in 2023", "2023-02-29T00:00:00Z", None),
            ("month out of range", "2023-13-01T00:00:00Z", None),
            ("hour out of range", "2023-01-01T24:00:00Z", None),
            ("leap second refused", "2023-01-01T23:59:60Z", None),
            ("zone required", "2023-01-01T00:00:00", None),
            ("lowercase t refused", "2023-01-01t00:00:00Z", None),
            ("lowercase z refused", "2023-01-01T00:00:00z", None),
            ("offset needs a colon", "2023-01-01T00:00:00+0100", None),
            (
                "offset hour out of range",
                "2023-01-01T00:00:00+24:00",
                None,
            ),
            ("trailing text refused", "2023-01-01T00:00:00Zx", None),
            ("empty fraction refused", "2023-01-01T00:00:00.Z", None),
            ("date only refused", "2023-01-01", None),
            ("empty refused", "", None),
        ];
        for (rule, text, expected) in cases {
            assert_eq!(parse_rfc3339(text), expected, "{rule}");
        }
    }

    #[test]
    fn format_writes_utc_seconds() {
        let cases = [
            ("epoch", 0, "1970-01-01T00:00:00Z"),
            ("a recent instant", 1_795_333_729, "2026-11-22T07:48:49Z"),
            ("before the epoch", -1, "1969-12-31T23:59:59Z"),
            ("Go's zero time", GO_ZERO_TIME.secs, "0001-01-01T00:00:00Z"),
            ("leap day", 1_709_164_800, "2024-02-29T00:00:00Z"),
        ];
        for (rule, secs, expected) in cases {
            assert_eq!(format_rfc3339(secs), expected, "{rule}");
        }
    }
}
