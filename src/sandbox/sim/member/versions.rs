//! Read-your-writes for the simulation's stores: per kind, the highest resourceVersion the
//! store has seen and the highest one the simulation wrote. The sandbox numbers every change
//! from one counter and a watch delivers a kind's changes in order, so a store that has seen
//! version `v` of its kind holds every change of that kind up to `v`.

use std::sync::atomic::{AtomicU64, Ordering};

/// The kinds the simulation watches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Node,
    Pod,
    ReplicaSet,
    Deployment,
    StatefulSet,
}

impl Kind {
    const ALL: [Kind; 5] = [
        Kind::Node,
        Kind::Pod,
        Kind::ReplicaSet,
        Kind::Deployment,
        Kind::StatefulSet,
    ];

    fn index(self) -> usize {
        match self {
            Kind::Node => 0,
            Kind::Pod => 1,
            Kind::ReplicaSet => 2,
            Kind::Deployment => 3,
            Kind::StatefulSet => 4,
        }
    }
}

#[derive(Debug, Default)]
pub struct Versions {
    seen: [AtomicU64; 5],
    written: [AtomicU64; 5],
}

/// A resourceVersion as a number; the sandbox's are decimal. Anything else counts as 0 (no
/// constraint).
pub fn parse(resource_version: Option<&str>) -> u64 {
    resource_version.and_then(|v| v.parse().ok()).unwrap_or(0)
}

impl Versions {
    /// The store of `kind` has applied an object at `resource_version`.
    pub fn saw(&self, kind: Kind, resource_version: Option<&str>) {
        self.seen[kind.index()].fetch_max(parse(resource_version), Ordering::SeqCst);
    }

    /// The simulation wrote an object of `kind`; the server answered with `resource_version`.
    pub fn wrote(&self, kind: Kind, resource_version: Option<&str>) {
        self.written[kind.index()].fetch_max(parse(resource_version), Ordering::SeqCst);
    }

    /// Every store has seen every write the simulation made to its kind.
    pub fn caught_up(&self) -> bool {
        Kind::ALL.iter().all(|k| {
            let i = k.index();
            self.seen[i].load(Ordering::SeqCst) >= self.written[i].load(Ordering::SeqCst)
        })
    }

    /// Gives up waiting for writes the stores may never show (a relist that skipped them).
    pub fn forget_writes(&self) {
        for written in &self.written {
            written.store(0, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caught_up_follows_each_kind_separately() {
        let v = Versions::default();
        assert!(v.caught_up(), "nothing written: nothing to wait for");
        v.wrote(Kind::Pod, Some("12"));
        v.saw(Kind::ReplicaSet, Some("20"));
        assert!(
            !v.caught_up(),
            "a later change of another kind does not count"
        );
        v.saw(Kind::Pod, Some("11"));
        assert!(!v.caught_up(), "an older change of the kind does not count");
        v.saw(Kind::Pod, Some("12"));
        assert!(v.caught_up(), "the write itself seen");
        v.wrote(Kind::Pod, Some("5"));
        assert!(
            v.caught_up(),
            "an unchanged write answers with an older version"
        );
    }

    #[test]
    fn forgetting_writes_and_unparsable_versions() {
        let v = Versions::default();
        v.wrote(Kind::Deployment, Some("40"));
        v.forget_writes();
        assert!(v.caught_up());
        v.wrote(Kind::Node, Some("not-a-number"));
        assert!(v.caught_up(), "an unparsable version sets no constraint");
    }
}
