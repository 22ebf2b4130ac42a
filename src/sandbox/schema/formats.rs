//! The string formats the apiserver validates and our CRDs use: `date-time` and `date`.
//!
//! kube-openapi accepts more than RFC 3339 for `date-time` (a space or lower-case `t` as
//! separator, no seconds, no zone, a zone without colon), so this check is as lenient:
//! rejecting what the apiserver accepts would break clients that work against a real
//! cluster. Other formats are not checked.

/// Whether `text` is valid for `format`; formats not checked here always are.
pub(crate) fn valid(format: &str, text: &str) -> bool {
    match format {
        "date-time" | "datetime" => date_time(text),
        "date" => date(text.as_bytes()).is_some_and(<[u8]>::is_empty),
        _ => true,
    }
}

/// `YYYY-MM-DD`; returns what follows it.
fn date(b: &[u8]) -> Option<&[u8]> {
    let (_year, rest) = digits(b, 4)?;
    let rest = rest.strip_prefix(b"-")?;
    let (month, rest) = digits(rest, 2)?;
    let rest = rest.strip_prefix(b"-")?;
    let (day, rest) = digits(rest, 2)?;
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some(rest)
}

fn date_time(text: &str) -> bool {
    let Some(rest) = date(text.as_bytes()) else {
        return false;
    };
    if rest.is_empty() {
        // `2006-01-02` alone is one of the accepted layouts.
        return true;
    }
    let Some((&sep, rest)) = rest.split_first() else {
        return false;
    };
    if !matches!(sep, b'T' | b't' | b' ') {
        return false;
    }
    let Some(rest) = time(rest) else {
        return false;
    };
    zone(rest)
}

/// `HH:MM[:SS[.fraction]]`; returns what follows it.
fn time(b: &[u8]) -> Option<&[u8]> {
    let (hour, rest) = digits(b, 2)?;
    let rest = rest.strip_prefix(b":")?;
    let (minute, mut rest) = digits(rest, 2)?;
    if hour > 23 || minute > 59 {
        return None;
    }
    if let Some(after) = rest.strip_prefix(b":") {
        let (second, after) = digits(after, 2)?;
        if second > 60 {
            return None;
        }
        rest = after;
        if let Some(fraction) = rest.strip_prefix(b".") {
            let n = fraction.iter().take_while(|c| c.is_ascii_digit()).count();
            if n == 0 {
                return None;
            }
            rest = &fraction[n..];
        }
    }
    Some(rest)
}

/// Nothing (local time), `Z`, or `±HH:MM` / `±HHMM`.
fn zone(b: &[u8]) -> bool {
    match b {
        [] | [b'Z'] | [b'z'] => true,
        [b'+' | b'-', rest @ ..] => {
            let Some((hours, rest)) = digits(rest, 2) else {
                return false;
            };
            let rest = rest.strip_prefix(b":").unwrap_or(rest);
            hours <= 23 && digits(rest, 2).is_some_and(|(m, tail)| m <= 59 && tail.is_empty())
        }
        _ => false,
    }
}

fn digits(b: &[u8], n: usize) -> Option<(u32, &[u8])> {
    let head = b.get(..n)?;
    if !head.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = head
        .iter()
        .fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
    Some((value, &b[n..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_what_the_apiserver_accepts() {
        let cases = [
            ("RFC 3339 UTC", "date-time", "2024-01-02T03:04:05Z", true),
            (
                "RFC 3339 with offset and fraction",
                "date-time",
                "2024-01-02T03:04:05.123+02:00",
                true,
            ),
            (
                "offset without colon",
                "date-time",
                "2024-01-02T03:04:05+0200",
                true,
            ),
            ("local time", "date-time", "2024-01-02T03:04:05", true),
            ("no seconds", "date-time", "2024-01-02T03:04Z", true),
            ("space separator", "date-time", "2024-01-02 03:04:05", true),
            ("date alone", "date-time", "2024-01-02", true),
            ("not a time", "date-time", "yesterday", false),
            ("month 13", "date-time", "2024-13-02T03:04:05Z", false),
            ("hour 24", "date-time", "2024-01-02T24:00:00Z", false),
            (
                "trailing garbage",
                "date-time",
                "2024-01-02T03:04:05Zx",
                false,
            ),
            (
                "empty fraction",
                "date-time",
                "2024-01-02T03:04:05.Z",
                false,
            ),
            ("date", "date", "2024-01-02", true),
            (
                "date with time is not a date",
                "date",
                "2024-01-02T00:00:00Z",
                false,
            ),
            ("unchecked formats pass", "int32", "anything", true),
        ];
        for (rule, format, text, expected) in cases {
            assert_eq!(valid(format, text), expected, "{rule}");
        }
    }
}
