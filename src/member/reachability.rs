//! Whether a member's API server answers (overview.md "Member cluster registration"): three
//! failed probes in a row make a member unreachable, one success makes it reachable again.
//! The rule is a pure function of the last state and one probe's outcome.

/// Failed probes in a row after which a member counts as unreachable. One failure is often a
/// dropped connection or a restarting API server; three in a row are an outage.
pub const FAILURES_TO_UNREACHABLE: u32 = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reachability {
    /// Not probed successfully yet, and fewer than three failures so far.
    Unknown,
    Reachable,
    Unreachable,
}

impl Reachability {
    /// `Some(true|false)` once known.
    pub fn known(self) -> Option<bool> {
        match self {
            Reachability::Unknown => None,
            Reachability::Reachable => Some(true),
            Reachability::Unreachable => Some(false),
        }
    }
}

/// What the rule remembers between probes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tracker {
    pub reachability: Reachability,
    pub failures_in_a_row: u32,
}

impl Default for Tracker {
    fn default() -> Self {
        Tracker {
            reachability: Reachability::Unknown,
            failures_in_a_row: 0,
        }
    }
}

/// The state after one probe. A success resets the count, so failures must be consecutive.
pub fn next(current: Tracker, probe_succeeded: bool) -> Tracker {
    if probe_succeeded {
        return Tracker {
            reachability: Reachability::Reachable,
            failures_in_a_row: 0,
        };
    }
    let failures_in_a_row = current.failures_in_a_row.saturating_add(1);
    let reachability = if failures_in_a_row >= FAILURES_TO_UNREACHABLE {
        Reachability::Unreachable
    } else {
        current.reachability
    };
    Tracker {
        reachability,
        failures_in_a_row,
    }
}

#[cfg(test)]
mod tests {
    use super::Reachability::{Reachable, Unknown, Unreachable};
    use super::*;

    fn at(reachability: Reachability, failures_in_a_row: u32) -> Tracker {
        Tracker {
            reachability,
            failures_in_a_row,
        }
    }

    #[test]
    fn transitions_table() {
        let rows = [
            (
                at(Unknown, 0),
                true,
                at(Reachable, 0),
                "one success: reachable",
            ),
            (
                at(Unknown, 0),
                false,
                at(Unknown, 1),
                "first failure: still unknown",
            ),
            (
                at(Unknown, 1),
                false,
                at(Unknown, 2),
                "second failure: still unknown",
            ),
            (
                at(Unknown, 2),
                false,
                at(Unreachable, 3),
                "third failure in a row: unreachable",
            ),
            (
                at(Unknown, 2),
                true,
                at(Reachable, 0),
                "a success before the third failure",
            ),
            (
                at(Reachable, 0),
                false,
                at(Reachable, 1),
                "one failure keeps a reachable member",
            ),
            (
                at(Reachable, 1),
                false,
                at(Reachable, 2),
                "two failures keep a reachable member",
            ),
            (
                at(Reachable, 2),
                false,
                at(Unreachable, 3),
                "three in a row: unreachable",
            ),
            (
                at(Reachable, 2),
                true,
                at(Reachable, 0),
                "a success resets the count",
            ),
            (
                at(Unreachable, 3),
                false,
                at(Unreachable, 4),
                "further failures: still unreachable",
            ),
            (
                at(Unreachable, 9),
                true,
                at(Reachable, 0),
                "one success: reachable again",
            ),
            (
                at(Unreachable, u32::MAX),
                false,
                at(Unreachable, u32::MAX),
                "the count saturates",
            ),
        ];
        for (current, succeeded, want, rule) in rows {
            assert_eq!(next(current, succeeded), want, "rule: {rule}");
        }
    }

    #[test]
    fn after_a_success_it_takes_three_new_failures() {
        let mut state = Tracker::default();
        for succeeded in [false, false, true, false, false] {
            state = next(state, succeeded);
        }
        assert_eq!(state, at(Reachable, 2));
        assert_eq!(next(state, false).reachability, Unreachable);
    }

    #[test]
    fn known_table() {
        assert_eq!(Unknown.known(), None);
        assert_eq!(Reachable.known(), Some(true));
        assert_eq!(Unreachable.known(), Some(false));
    }
}
