//! The one clock every timestamp, timer, TTL and GC reads, so that in-process tests can run
//! the controller and any in-process API server on a shared virtual clock.

use k8s_openapi::jiff::{SignedDuration, Timestamp};
use std::sync::{Arc, Mutex, PoisonError};

/// A source of the current time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    fn now(&self) -> Timestamp;
}

/// A shared handle on a clock.
pub type SharedClock = Arc<dyn Clock>;

/// Wall-clock time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// A clock that moves only when told to: tests share it between the controller and the
/// API servers they talk to, to step through TTLs and grace periods without waiting.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Timestamp>,
}

impl ManualClock {
    pub fn new(start: Timestamp) -> Arc<ManualClock> {
        Arc::new(ManualClock {
            now: Mutex::new(start),
        })
    }

    pub fn advance(&self, by: SignedDuration) {
        let mut now = self.now.lock().unwrap_or_else(PoisonError::into_inner);
        *now = now.saturating_add(by).unwrap_or(*now);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Timestamp {
        *self.now.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Kubernetes' wire form of a timestamp: RFC 3339 in UTC, whole seconds.
pub fn rfc3339_seconds(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manual_clock_moves_only_when_advanced() {
        let start: Timestamp = "2026-01-02T03:04:05Z".parse().expect("timestamp");
        let clock = ManualClock::new(start);
        assert_eq!(clock.now(), start);
        clock.advance(SignedDuration::from_secs(90));
        assert_eq!(rfc3339_seconds(clock.now()), "2026-01-02T03:05:35Z");
    }

    #[test]
    fn wire_form_drops_fractions() {
        let t: Timestamp = "2026-01-02T03:04:05.987Z".parse().expect("timestamp");
        assert_eq!(rfc3339_seconds(t), "2026-01-02T03:04:05Z");
    }
}
