//! Prometheus metrics: one registry per process, rendered on `/metrics`.
//!
//! Families are grouped by the code that updates them; each group is a struct with a
//! `register(&Registry)` constructor, lives next to the code that updates it, and becomes one
//! field of [`Metrics`].
//! Names follow quality.md "Metrics names" (controller-runtime's where dashboards expect them).

use crate::fleet::controller::metrics::EvictionMetrics;
use crate::member::MemberMetrics;
use crate::pod::executor::metrics::PodMetrics;
use prometheus::core::Collector;
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry, TextEncoder,
};

#[derive(Debug, thiserror::Error)]
pub enum MetricsError {
    #[error("cannot register metric family: {0}")]
    Register(#[source] prometheus::Error),
    #[error("cannot encode metrics: {0}")]
    Encode(#[source] prometheus::Error),
}

/// Every metric the process exports. Build it once and share it (`Arc<Metrics>`); the
/// families inside are cheap handles onto the registry.
#[derive(Debug, Clone)]
pub struct Metrics {
    registry: Registry,
    pub process: ProcessMetrics,
    pub eviction: EvictionMetrics,
    pub member: MemberMetrics,
    pub pod: PodMetrics,
}

impl Metrics {
    pub fn new() -> Result<Self, MetricsError> {
        let registry = Registry::new();
        let process = ProcessMetrics::register(&registry)?;
        let shared = ControllerFamilies::register(&registry)?;
        let eviction = EvictionMetrics::register(&registry, &shared)?;
        let pod = PodMetrics::register(&registry, &shared)?;
        let member = MemberMetrics::register(&registry)?;
        Ok(Self {
            registry,
            process,
            eviction,
            member,
            pod,
        })
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The text exposition format (`text/plain; version=0.0.4`).
    pub fn render(&self) -> Result<String, MetricsError> {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .map_err(MetricsError::Encode)?;
        // The text encoder writes only UTF-8; a lossy conversion cannot lose anything here.
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }
}

/// Families about the process itself rather than any controller.
#[derive(Debug, Clone)]
pub struct ProcessMetrics {
    /// `fleet_eviction_build_info{version}`, always 1: joins the version onto other series.
    pub build_info: IntGaugeVec,
    /// `leader_election_master_status{name}`: 1 while this process acts as the leader of
    /// the Lease `name`, else 0.
    pub leader_election_master_status: IntGaugeVec,
}

impl ProcessMetrics {
    pub fn register(registry: &Registry) -> Result<Self, MetricsError> {
        let build_info = register(
            registry,
            IntGaugeVec::new(
                Opts::new(
                    "fleet_eviction_build_info",
                    "Build information; the value is always 1.",
                ),
                &["version"],
            ),
        )?;
        build_info
            .with_label_values(&[env!("CARGO_PKG_VERSION")])
            .set(1);
        let leader_election_master_status = register(
            registry,
            IntGaugeVec::new(
                Opts::new(
                    "leader_election_master_status",
                    "1 while this process is the leader of the named Lease, else 0.",
                ),
                &["name"],
            ),
        )?;
        Ok(Self {
            build_info,
            leader_election_master_status,
        })
    }

    pub fn set_leader(&self, lease_name: &str, is_leader: bool) {
        self.leader_election_master_status
            .with_label_values(&[lease_name])
            .set(i64::from(is_leader));
    }
}

/// The families both controllers report into, told apart by their `controller` (or `level`)
/// label: controller-runtime's, which dashboards expect, and the gate wait.
#[derive(Debug, Clone)]
pub struct ControllerFamilies {
    pub reconcile_total: IntCounterVec,
    pub reconcile_errors_total: IntCounterVec,
    pub reconcile_time_seconds: HistogramVec,
    pub active_workers: IntGaugeVec,
    /// `fleet_eviction_gate_wait_seconds{level}`, level = fleet|pod.
    pub gate_wait_seconds: HistogramVec,
}

impl ControllerFamilies {
    pub fn register(registry: &Registry) -> Result<Self, MetricsError> {
        Ok(ControllerFamilies {
            reconcile_total: register(
                registry,
                counter(
                    "controller_runtime_reconcile_total",
                    "Reconciliations per controller and result.",
                    &["controller", "result"],
                ),
            )?,
            reconcile_errors_total: register(
                registry,
                counter(
                    "controller_runtime_reconcile_errors_total",
                    "Reconciliations that failed.",
                    &["controller"],
                ),
            )?,
            reconcile_time_seconds: register(
                registry,
                histogram(
                    "controller_runtime_reconcile_time_seconds",
                    "Time per reconciliation.",
                    &["controller"],
                ),
            )?,
            active_workers: register(
                registry,
                IntGaugeVec::new(
                    Opts::new(
                        "controller_runtime_active_workers",
                        "Workers currently reconciling.",
                    ),
                    &["controller"],
                ),
            )?,
            gate_wait_seconds: register(
                registry,
                histogram(
                    "fleet_eviction_gate_wait_seconds",
                    "Time from waiting on gates to their opening.",
                    &["level"],
                ),
            )?,
        })
    }
}

pub fn counter(name: &str, help: &str, labels: &[&str]) -> prometheus::Result<IntCounterVec> {
    IntCounterVec::new(Opts::new(name, help), labels)
}

/// Buckets from 5 ms to an hour: reconciles take milliseconds, gates and hand-offs minutes.
pub fn histogram(name: &str, help: &str, labels: &[&str]) -> prometheus::Result<HistogramVec> {
    let buckets = vec![
        0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0,
        3600.0,
    ];
    HistogramVec::new(HistogramOpts::new(name, help).buckets(buckets), labels)
}

/// Registers a freshly built family and hands it back, so a group's constructor reads as a
/// list of `register(registry, Family::new(..))` calls.
pub fn register<C>(
    registry: &Registry,
    family: Result<C, prometheus::Error>,
) -> Result<C, MetricsError>
where
    C: Collector + Clone + 'static,
{
    let family = family.map_err(MetricsError::Register)?;
    registry
        .register(Box::new(family.clone()))
        .map_err(MetricsError::Register)?;
    Ok(family)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_build_info_and_leader_status() {
        let metrics = Metrics::new().expect("metrics");
        metrics.process.set_leader("fleet-eviction", false);
        let text = metrics.render().expect("render");
        let version = env!("CARGO_PKG_VERSION");
        assert!(
            text.contains(&format!(
                "fleet_eviction_build_info{{version=\"{version}\"}} 1"
            )),
            "{text}"
        );
        assert!(
            text.contains("leader_election_master_status{name=\"fleet-eviction\"} 0"),
            "{text}"
        );
        metrics.process.set_leader("fleet-eviction", true);
        let text = metrics.render().expect("render");
        assert!(
            text.contains("leader_election_master_status{name=\"fleet-eviction\"} 1"),
            "{text}"
        );
    }

    #[test]
    fn each_process_has_its_own_registry() {
        // Two Metrics in one process (in-process tests, an embedded fleet) must not collide.
        let first = Metrics::new().expect("first");
        let second = Metrics::new().expect("second");
        assert_eq!(
            first.registry().gather().len(),
            second.registry().gather().len()
        );
    }

    #[test]
    fn registering_a_family_twice_is_an_error() {
        let metrics = Metrics::new().expect("metrics");
        let again = register(
            metrics.registry(),
            IntGaugeVec::new(Opts::new("fleet_eviction_build_info", "dup"), &["version"]),
        );
        assert!(matches!(again, Err(MetricsError::Register(_))));
    }
}
