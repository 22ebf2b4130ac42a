//! What the registry knows, for the rest of the controller: which members are registered,
//! a client for each, and whether each answers. The fan-out of fleet evictions asks "is
//! member X reachable?" and "a client for member X" here; the registry loop and the probes
//! are the only writers.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

use k8s_openapi::jiff::Timestamp;
use tokio::sync::watch;

use super::metrics::MemberMetrics;
use super::reachability::{self, Reachability, Tracker};
use super::registration::Registration;
use crate::runtime::clock::SharedClock;

/// A cheap, cloneable handle on the registry's state.
#[derive(Clone)]
pub struct Members {
    inner: Arc<Inner>,
}

struct Inner {
    entries: RwLock<BTreeMap<String, Entry>>,
    synced: watch::Sender<bool>,
    metrics: MemberMetrics,
    clock: SharedClock,
}

struct Entry {
    registration: Registration,
    /// Present exactly while the registration is complete.
    live: Option<Live>,
}

struct Live {
    client: kube::Client,
    /// Which run of the member's task this is: a probe of an earlier run, finishing late,
    /// must not write over a newer one.
    generation: u64,
    reachability: ReachabilityStatus,
}

/// A registered member's reachability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReachabilityStatus {
    pub reachability: Reachability,
    pub failures_in_a_row: u32,
    /// When `reachability` last changed (the registration, at first), on the shared clock.
    pub since: Timestamp,
    /// What the last failed probe said; cleared by a success.
    pub last_error: Option<String>,
}

impl std::fmt::Debug for Members {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Members")
            .field("registrations", &self.registrations())
            .finish_non_exhaustive()
    }
}

impl Members {
    pub(super) fn new(metrics: MemberMetrics, clock: SharedClock) -> Members {
        Members {
            inner: Arc::new(Inner {
                entries: RwLock::default(),
                synced: watch::channel(false).0,
                metrics,
                clock,
            }),
        }
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<String, Entry>> {
        self.inner
            .entries
            .read()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, BTreeMap<String, Entry>> {
        self.inner
            .entries
            .write()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Registered members (MemberCluster, one Secret, a usable kubeconfig), sorted.
    pub fn names(&self) -> Vec<String> {
        self.read()
            .iter()
            .filter(|(_, entry)| entry.live.is_some())
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The client of a registered member.
    pub fn client(&self, member: &str) -> Option<kube::Client> {
        let entries = self.read();
        Some(entries.get(member)?.live.as_ref()?.client.clone())
    }

    /// `Some(true|false)` for a registered member whose reachability is known; `None` for
    /// an unknown name, an unregistered one, or before the probes have a verdict.
    pub fn is_reachable(&self, member: &str) -> Option<bool> {
        self.reachability(member)?.reachability.known()
    }

    /// A registered member's reachability in full.
    pub fn reachability(&self, member: &str) -> Option<ReachabilityStatus> {
        let entries = self.read();
        Some(entries.get(member)?.live.as_ref()?.reachability.clone())
    }

    /// The registration of any member name the hub mentions (in a MemberCluster or a
    /// Secret's label).
    pub fn registration(&self, member: &str) -> Option<Registration> {
        self.read().get(member).map(|e| e.registration.clone())
    }

    pub fn registrations(&self) -> BTreeMap<String, Registration> {
        self.read()
            .iter()
            .map(|(name, e)| (name.clone(), e.registration.clone()))
            .collect()
    }

    /// Resolves once the registry has read both lists (MemberClusters and Secrets) and
    /// started the work of every member registered at that time.
    pub async fn synced(&self) {
        let mut synced = self.inner.synced.subscribe();
        // The sender lives as long as `self`, so this only ends when synced.
        let _ = synced.wait_for(|s| *s).await;
    }

    pub(super) fn mark_synced(&self) {
        self.inner.synced.send_replace(true);
    }

    /// The member is registered with `client`. The same generation keeps the reachability
    /// (a new kubeconfig for the same member: the probes tell soon enough if it changed).
    pub(super) fn set_live(&self, member: &str, client: kube::Client, generation: u64) {
        let now = self.inner.clock.now();
        let mut entries = self.write();
        let entry = entries.entry(member.to_string()).or_insert(Entry {
            registration: Registration::Complete,
            live: None,
        });
        entry.registration = Registration::Complete;
        match &mut entry.live {
            Some(live) if live.generation == generation => live.client = client,
            _ => {
                entry.live = Some(Live {
                    client,
                    generation,
                    reachability: unknown_since(now),
                });
                self.inner.metrics.forget(member);
            }
        }
    }

    /// The member is named on the hub but not registered.
    pub(super) fn set_incomplete(&self, member: &str, registration: Registration) {
        let mut entries = self.write();
        let entry = entries.entry(member.to_string()).or_insert(Entry {
            registration: registration.clone(),
            live: None,
        });
        entry.registration = registration;
        if entry.live.take().is_some() {
            self.inner.metrics.forget(member);
        }
    }

    /// The member name is no longer mentioned on the hub at all.
    pub(super) fn remove(&self, member: &str) {
        self.write().remove(member);
        self.inner.metrics.forget(member);
    }

    /// Applies one probe's outcome; on a change of reachability, logs it and sets the gauge.
    pub(super) fn record_probe(&self, member: &str, generation: u64, outcome: Result<(), String>) {
        let now = self.inner.clock.now();
        let mut entries = self.write();
        let Some(live) = entries
            .get_mut(member)
            .and_then(|e| e.live.as_mut())
            .filter(|live| live.generation == generation)
        else {
            return;
        };
        let status = &mut live.reachability;
        let before = Tracker {
            reachability: status.reachability,
            failures_in_a_row: status.failures_in_a_row,
        };
        let after = reachability::next(before, outcome.is_ok());
        status.failures_in_a_row = after.failures_in_a_row;
        status.last_error = outcome.err();
        if after.reachability == before.reachability {
            return;
        }
        status.reachability = after.reachability;
        status.since = now;
        match after.reachability {
            Reachability::Reachable => {
                self.inner.metrics.set_reachable(member, true);
                tracing::info!(member, "member cluster is reachable");
            }
            Reachability::Unreachable => {
                self.inner.metrics.set_reachable(member, false);
                tracing::warn!(
                    member,
                    failures = after.failures_in_a_row,
                    "member cluster is unreachable: {} probes in a row failed, the last: {}",
                    after.failures_in_a_row,
                    status.last_error.as_deref().unwrap_or("unknown")
                );
            }
            // `next` never returns to Unknown.
            Reachability::Unknown => {}
        }
    }
}

fn unknown_since(now: Timestamp) -> ReachabilityStatus {
    ReachabilityStatus {
        reachability: Reachability::Unknown,
        failures_in_a_row: 0,
        since: now,
        last_error: None,
    }
}
