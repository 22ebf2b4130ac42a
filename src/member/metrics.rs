//! The registry's metrics (quality.md "Metrics names"):
//! `fleet_eviction_member_reachable{member}` (1 reachable, 0 unreachable; no series before
//! the first verdict or once the member is gone) and
//! `fleet_eviction_member_registrations{state}` (member names per registration state).

use std::collections::BTreeMap;

use prometheus::{IntGaugeVec, Opts, Registry};

use super::registration::Registration;
use crate::runtime::metrics::{MetricsError, register};

#[derive(Debug, Clone)]
pub struct MemberMetrics {
    pub reachable: IntGaugeVec,
    pub registrations: IntGaugeVec,
}

impl MemberMetrics {
    pub fn register(registry: &Registry) -> Result<Self, MetricsError> {
        let reachable = register(
            registry,
            IntGaugeVec::new(
                Opts::new(
                    "fleet_eviction_member_reachable",
                    "1 while the member cluster's API server answers probes, 0 after three \
                     failed probes in a row.",
                ),
                &["member"],
            ),
        )?;
        let registrations = register(
            registry,
            IntGaugeVec::new(
                Opts::new(
                    "fleet_eviction_member_registrations",
                    "Member names by registration state: complete, or what is missing or wrong \
                     (missing_secret, missing_member_cluster, conflicting_secrets, \
                     invalid_kubeconfig).",
                ),
                &["state"],
            ),
        )?;
        let metrics = MemberMetrics {
            reachable,
            registrations,
        };
        // Every state from the start, so a dashboard sees 0 rather than no data.
        metrics.set_registrations(&BTreeMap::new());
        Ok(metrics)
    }

    pub fn set_reachable(&self, member: &str, reachable: bool) {
        self.reachable
            .with_label_values(&[member])
            .set(i64::from(reachable));
    }

    /// Removes the member's series (gone, or its reachability is unknown again).
    pub fn forget(&self, member: &str) {
        // An error only says there was no series to remove.
        let _ = self.reachable.remove_label_values(&[member]);
    }

    /// `counts` by state label; states it lacks are set to 0.
    pub fn set_registrations(&self, counts: &BTreeMap<&'static str, i64>) {
        for state in Registration::STATES {
            self.registrations
                .with_label_values(&[state])
                .set(counts.get(state).copied().unwrap_or(0));
        }
    }
}
