//! The little time arithmetic the budget logic needs, on `metav1.Time`.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::{SignedDuration, Timestamp};

/// `now` cut to whole seconds: what a client reads back after the server serialises a
/// `metav1.Time`, so a status computed here equals the status a client would see.
pub(super) fn whole_seconds(now: &Time) -> Time {
    Timestamp::from_second(now.0.as_second()).map_or_else(|_| now.clone(), Time)
}

/// `time + seconds`, or `None` past the representable range (year 9999).
pub(super) fn plus_seconds(time: &Time, seconds: i64) -> Option<Time> {
    time.0
        .checked_add(SignedDuration::from_secs(seconds))
        .ok()
        .map(Time)
}

/// Whether `time + seconds` lies strictly before `now` (Go's `t.Add(d).Before(now)`), compared
/// in nanoseconds so no range limit applies.
pub(super) fn is_before_after_adding(time: &Time, seconds: i64, now: &Time) -> bool {
    deadline_nanos(time, seconds) < now.0.as_nanosecond()
}

/// Whether `time + seconds` lies strictly after `now` (Go's `t.Add(d).After(now)`).
pub(super) fn is_after_after_adding(time: &Time, seconds: i64, now: &Time) -> bool {
    deadline_nanos(time, seconds) > now.0.as_nanosecond()
}

fn deadline_nanos(time: &Time, seconds: i64) -> i128 {
    time.0.as_nanosecond() + i128::from(seconds) * 1_000_000_000
}
