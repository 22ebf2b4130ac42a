//! The PodMigrationJob executor's metrics (quality.md "Metrics names"): controller-runtime's
//! families with `controller="podmigrationjob-controller"`, and the pod level's own.

use crate::runtime::metrics::{ControllerFamilies, MetricsError, counter, register};
use prometheus::{Histogram, HistogramOpts, IntCounterVec, Registry};

/// Our name for the executor in controller-runtime's families.
pub const CONTROLLER: &str = "podmigrationjob-controller";

#[derive(Debug, Clone)]
pub struct PodMetrics {
    /// controller-runtime's families and the gate wait, shared with the other level.
    pub shared: ControllerFamilies,
    /// `fleet_eviction_pmj_total{member,phase,reason}`: jobs we ended, by their final phase
    /// and reason (an empty reason on success, as the status has it).
    pub pmj_total: IntCounterVec,
    /// `fleet_eviction_pmj_duration_seconds`: creation to the end we wrote.
    pub pmj_duration_seconds: Histogram,
    /// `fleet_eviction_pod_evictions_total{member,policy,result}`: every eviction, delete,
    /// soft eviction and hand-off call, by its result (accepted, refused, gone, error).
    pub pod_evictions_total: IntCounterVec,
    /// `fleet_eviction_pmj_ignored_total{member,why}`: jobs left alone (created by a
    /// koord-descheduler, ReservationFirst where Koordinator may own them), once per job.
    pub pmj_ignored_total: IntCounterVec,
}

impl PodMetrics {
    pub fn register(
        registry: &Registry,
        shared: &ControllerFamilies,
    ) -> Result<Self, MetricsError> {
        let duration_buckets = vec![
            0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0,
        ];
        Ok(PodMetrics {
            shared: shared.clone(),
            pmj_total: register(
                registry,
                counter(
                    "fleet_eviction_pmj_total",
                    "PodMigrationJobs ended by the executor, by member, final phase and reason.",
                    &["member", "phase", "reason"],
                ),
            )?,
            pmj_duration_seconds: register(
                registry,
                Histogram::with_opts(
                    HistogramOpts::new(
                        "fleet_eviction_pmj_duration_seconds",
                        "Time from a PodMigrationJob's creation to the end the executor wrote.",
                    )
                    .buckets(duration_buckets),
                ),
            )?,
            pod_evictions_total: register(
                registry,
                counter(
                    "fleet_eviction_pod_evictions_total",
                    "Calls that take a pod down or hand it off, by member, policy and result.",
                    &["member", "policy", "result"],
                ),
            )?,
            pmj_ignored_total: register(
                registry,
                counter(
                    "fleet_eviction_pmj_ignored_total",
                    "PodMigrationJobs the executor leaves alone, by member and why.",
                    &["member", "why"],
                ),
            )?,
        })
    }
}
