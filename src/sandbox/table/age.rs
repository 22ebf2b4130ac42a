//! Ages as kube-apiserver prints them in `date` printer columns: apimachinery's
//! `duration.HumanDuration`, about two or three significant figures.

use super::rfc3339::{GO_ZERO_TIME, Instant};

const SECOND: i64 = 1_000_000_000;
const MINUTE: i64 = 60 * SECOND;
const HOUR: i64 = 60 * MINUTE;

/// The age of `since` at `now` (unix seconds), as `ConvertToHumanReadableDateType` prints
/// it: `<unknown>` for Go's zero time, otherwise [`human_duration`] of the difference.
pub fn age(since: Instant, now: i64) -> String {
    if since == GO_ZERO_TIME {
        return "<unknown>".to_string();
    }
    let nanos = i128::from(now) * i128::from(SECOND)
        - (i128::from(since.secs) * i128::from(SECOND) + i128::from(since.nanos));
    // Go's Time.Sub saturates at the limits of a time.Duration.
    let clamped = nanos.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
    human_duration(i64::try_from(clamped).unwrap_or(i64::MAX))
}

/// `duration.HumanDuration` of a duration in nanoseconds. Up to one second in the future
/// counts as "now" (clock skew between machines); further ahead is `<invalid>`.
pub fn human_duration(d: i64) -> String {
    let seconds = d / SECOND;
    if seconds < -1 {
        return "<invalid>".to_string();
    }
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 2 * 60 {
        return format!("{seconds}s");
    }
    let minutes = d / MINUTE;
    if minutes < 10 {
        return with_remainder(minutes, "m", seconds % 60, "s");
    }
    if minutes < 3 * 60 {
        return format!("{minutes}m");
    }
    let hours = d / HOUR;
    if hours < 8 {
        return with_remainder(hours, "h", minutes % 60, "m");
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return with_remainder(hours / 24, "d", hours % 24, "h");
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return with_remainder(hours / 24 / 365, "y", hours / 24 % 365, "d");
    }
    format!("{}y", hours / 24 / 365)
}

/// `3m`, or `3m20s` when the smaller unit is not zero.
fn with_remainder(big: i64, big_unit: &str, small: i64, small_unit: &str) -> String {
    if small == 0 {
        format!("{big}{big_unit}")
    } else {
        format!("{big}{big_unit}{small}{small_unit}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_duration_rules() {
        let s = SECOND;
        let cases = [
            ("more than a second ahead is invalid", -2 * s, "<invalid>"),
            ("a second ahead counts as now", -s, "0s"),
            ("just under a second ahead", -s / 2, "0s"),
            ("zero", 0, "0s"),
            ("seconds below two minutes", 119 * s, "119s"),
            ("two minutes", 120 * s, "2m"),
            ("minutes and seconds below ten minutes", 125 * s, "2m5s"),
            ("whole minutes drop the seconds", 9 * MINUTE, "9m"),
            ("only minutes from ten minutes", 10 * MINUTE + 30 * s, "10m"),
            ("minutes below three hours", 179 * MINUTE, "179m"),
            (
                "hours and minutes below eight hours",
                3 * HOUR + 5 * MINUTE,
                "3h5m",
            ),
            ("whole hours", 3 * HOUR, "3h"),
            ("only hours below two days", 47 * HOUR + 59 * MINUTE, "47h"),
            ("days and hours below eight days", 50 * HOUR, "2d2h"),
            ("whole days", 72 * HOUR, "3d"),
            ("only days below two years", 400 * 24 * HOUR, "400d"),
            (
                "years and days below eight years",
                (3 * 365 + 10) * 24 * HOUR,
                "3y10d",
            ),
            ("whole years", 3 * 365 * 24 * HOUR, "3y"),
            (
                "only years from eight years",
                (9 * 365 + 100) * 24 * HOUR,
                "9y",
            ),
        ];
        for (rule, d, expected) in cases {
            assert_eq!(human_duration(d), expected, "{rule}");
        }
    }

    #[test]
    fn age_rules() {
        let at = |secs| Instant { secs, nanos: 0 };
        let cases = [
            ("zero time is unknown", GO_ZERO_TIME, 100, "<unknown>"),
            ("five seconds old", at(95), 100, "5s"),
            (
                "created half a second after now truncates to now",
                Instant {
                    secs: 100,
                    nanos: 500_000_000,
                },
                100,
                "0s",
            ),
            ("created in the future", at(110), 100, "<invalid>"),
            (
                "Go's duration saturates at about 292 years",
                at(-20_000_000_000),
                1_800_000_000,
                "292y",
            ),
        ];
        for (rule, since, now, expected) in cases {
            assert_eq!(age(since, now), expected, "{rule}");
        }
    }
}
