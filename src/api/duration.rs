//! Go duration strings (`1h30m`, `2.5s`, `0s`), the wire form of `ttl` fields and of the
//! CLI's duration flags. The schema pattern in the CRDs accepts exactly what [`parse`] does.

use std::time::Duration;

/// The CRD pattern for duration fields. `0s` is valid and means "none".
pub const PATTERN: &str = r"^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid duration {input:?}: {why} (expected a Go duration such as 90s, 5m or 1h30m)")]
pub struct DurationError {
    pub input: String,
    pub why: &'static str,
}

/// Parses a Go-style duration made of one or more `<number><unit>` parts.
pub fn parse(input: &str) -> Result<Duration, DurationError> {
    let err = |why| DurationError {
        input: input.to_string(),
        why,
    };
    if input.is_empty() {
        return Err(err("empty"));
    }
    let mut rest = input;
    let mut total_nanos: f64 = 0.0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(|| err("missing unit"))?;
        if number_len == 0 {
            return Err(err("expected a number"));
        }
        let number: f64 = rest[..number_len].parse().map_err(|_| err("bad number"))?;
        rest = &rest[number_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let nanos_per_unit = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(err("unknown unit")),
        };
        rest = &rest[unit_len..];
        total_nanos += number * nanos_per_unit;
    }
    if total_nanos > u64::MAX as f64 {
        return Err(err("too large"));
    }
    Ok(Duration::from_nanos(total_nanos.round() as u64))
}

/// Formats a duration the way Go prints it for whole seconds and above (`1h0m0s` becomes
/// `1h`): used in messages that echo a ttl back to the user.
pub fn format(duration: Duration) -> String {
    let secs = duration.as_secs();
    if duration.subsec_nanos() != 0 || secs == 0 {
        return format!("{}ms", duration.as_millis());
    }
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 {
        out.push_str(&format!("{s}s"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_table() {
        let cases: &[(&str, Option<Duration>, &str)] = &[
            ("0s", Some(Duration::ZERO), "zero means none"),
            ("90s", Some(Duration::from_secs(90)), "seconds"),
            ("5m", Some(Duration::from_secs(300)), "minutes"),
            ("1h30m", Some(Duration::from_secs(5400)), "compound"),
            ("2.5s", Some(Duration::from_millis(2500)), "fraction"),
            ("250ms", Some(Duration::from_millis(250)), "millis"),
            ("10us", Some(Duration::from_micros(10)), "micros ascii"),
            ("10µs", Some(Duration::from_micros(10)), "micros greek"),
            ("7ns", Some(Duration::from_nanos(7)), "nanos"),
            ("", None, "empty"),
            ("5", None, "no unit"),
            ("s", None, "no number"),
            ("5d", None, "days are not Go units"),
            ("-5s", None, "negative"),
            ("1h 5m", None, "spaces"),
        ];
        for (input, want, rule) in cases {
            assert_eq!(parse(input).ok(), *want, "rule: {rule} ({input:?})");
        }
    }

    #[test]
    fn format_table() {
        let cases = [
            (Duration::from_secs(3600), "1h"),
            (Duration::from_secs(5400), "1h30m"),
            (Duration::from_secs(2), "2s"),
            (Duration::from_secs(3661), "1h1m1s"),
            (Duration::from_millis(1500), "1500ms"),
        ];
        for (d, want) in cases {
            assert_eq!(format(d), want);
        }
    }
}
