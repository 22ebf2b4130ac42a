//! The flags of each subcommand (overview.md "Command line", a contract: flags map one to
//! one onto Helm values). Groups shared by several subcommands are flattened structs.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, ValueEnum};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::option_values::{
    MigrationLimit, OptionsError, parse_listen_addr, parse_positive_duration, parse_rate,
    parse_workload_limit, validate_leader_election,
};
use crate::api::duration::parse as parse_duration;

/// Flags every long-running process has: where to serve metrics and health, how to log.
#[derive(Debug, Clone, Args)]
pub struct ProcessArgs {
    /// Address of the HTTP server for /metrics, /healthz and /readyz (HOST:PORT or :PORT).
    #[arg(long, value_name = "ADDR", default_value = "0.0.0.0:8080", value_parser = parse_listen_addr)]
    pub metrics_addr: SocketAddr,

    /// Log line format.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Log filter in tracing's EnvFilter syntax (e.g. `info,fleet_eviction=debug`).
    /// Defaults to RUST_LOG, else `info`.
    #[arg(long, value_name = "FILTER", env = "RUST_LOG")]
    pub log_filter: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line, for log collectors.
    Json,
}

/// `fleet-eviction run`: the hub controller.
#[derive(Debug, Clone, Args)]
pub struct RunArgs {
    /// Kubeconfig of the hub. Without it: the KUBECONFIG environment variable, else the
    /// in-cluster service account.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,

    /// Namespace of the member kubeconfig Secrets and of the leader election Lease.
    #[arg(long, value_name = "NS", default_value = "fleet-eviction-system")]
    pub namespace: String,

    #[command(flatten)]
    pub process: ProcessArgs,

    #[command(flatten)]
    pub leader_election: LeaderElectionArgs,

    /// Reconciles that run concurrently per controller.
    #[arg(long, value_name = "N", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..))]
    pub workers: u32,

    /// Time limit of an extended eviction that sets no ttl (Go duration; 0s = none).
    #[arg(long, value_name = "DURATION", default_value = "1h", value_parser = parse_duration)]
    pub extended_ttl_default: Duration,

    /// Run the ClusterResourcePlacementEviction controller (true|false).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    pub enable_fleet_eviction: bool,

    /// Run a PodMigrationJob executor on every registered member cluster (true|false).
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    pub enable_pod_migration: bool,

    #[command(flatten)]
    pub pmj: PmjArgs,

    /// How often each member cluster's API server is probed; three failures in a row mark
    /// it unreachable.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_positive_duration)]
    pub member_probe_interval: Duration,
}

impl RunArgs {
    /// Checks that span several flags (single values are checked while parsing).
    pub fn validate(&self) -> Result<(), OptionsError> {
        self.leader_election.validate()
    }
}

/// Leader election on a coordination.k8s.io Lease in `--namespace`.
#[derive(Debug, Clone, Args)]
pub struct LeaderElectionArgs {
    /// Elect a leader among replicas before acting (true|false). With false this process
    /// acts alone: run a single replica.
    #[arg(long, value_name = "BOOL", default_value_t = true, action = ArgAction::Set,
          num_args = 0..=1, default_missing_value = "true")]
    pub leader_elect: bool,

    /// Name of the Lease.
    #[arg(long, value_name = "NAME", default_value = "fleet-eviction")]
    pub lease_name: String,

    /// How long a lease is valid; others wait this long before taking over.
    #[arg(long, value_name = "DURATION", default_value = "15s", value_parser = parse_duration)]
    pub lease_duration: Duration,

    /// How long the leader keeps trying to renew before it stops acting.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = parse_duration)]
    pub renew_deadline: Duration,

    /// Pause between attempts to acquire or renew the lease.
    #[arg(long, value_name = "DURATION", default_value = "2s", value_parser = parse_duration)]
    pub retry_period: Duration,
}

impl LeaderElectionArgs {
    pub fn validate(&self) -> Result<(), OptionsError> {
        validate_leader_election(self.lease_duration, self.renew_deadline, self.retry_period)
    }
}

/// PodMigrationJob executor settings, shared by `run` (one executor per member) and
/// `member` (one executor against one cluster).
#[derive(Debug, Clone, Args)]
pub struct PmjArgs {
    /// Mode of jobs that set none.
    #[arg(long, value_enum, value_name = "MODE", default_value_t = PmjMode::EvictDirectly, ignore_case = true)]
    pub pmj_default_mode: PmjMode,

    /// Eviction policy when neither the pod nor the job names one.
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = EvictPolicy::Eviction, ignore_case = true)]
    pub pmj_default_evict_policy: EvictPolicy,

    /// Eviction, Delete and SoftEviction calls per second per member cluster.
    #[arg(long, value_name = "QPS", default_value = "10", value_parser = parse_rate)]
    pub pmj_evict_qps: f64,

    /// Burst of the per-member eviction token bucket.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub pmj_evict_burst: u32,

    /// Admitted jobs migrating at once per node (a number or `unlimited`).
    #[arg(long, value_name = "N", default_value = "2")]
    pub pmj_max_migrating_per_node: MigrationLimit,

    /// Admitted jobs migrating at once per namespace (a number or `unlimited`).
    #[arg(long, value_name = "N", default_value = "unlimited")]
    pub pmj_max_migrating_per_namespace: MigrationLimit,

    /// Admitted jobs migrating at once per member cluster (a number or `unlimited`).
    #[arg(long, value_name = "N", default_value = "unlimited")]
    pub pmj_max_migrating_globally: MigrationLimit,

    /// Admitted jobs migrating at once per workload: a number or a percentage of its
    /// replicas. Default: 10% above 10 replicas, 2 for 4-10, else 1.
    #[arg(long, value_name = "N|P%", value_parser = parse_workload_limit)]
    pub pmj_max_migrating_per_workload: Option<IntOrString>,

    /// Unavailable pods allowed per workload (not-ready ones count): a number or a
    /// percentage of its replicas. Default: 10% above 10 replicas, 2 for 4-10, else 1.
    #[arg(long, value_name = "N|P%", value_parser = parse_workload_limit)]
    pub pmj_max_unavailable_per_workload: Option<IntOrString>,

    /// How long finished jobs are kept before they are deleted.
    #[arg(long, value_name = "DURATION", default_value = "30m", value_parser = parse_duration)]
    pub pmj_gc_after: Duration,
}

/// The `mode` of a PodMigrationJob (Koordinator's spelling).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum PmjMode {
    #[value(name = "EvictDirectly")]
    EvictDirectly,
    #[value(name = "ReservationFirst")]
    ReservationFirst,
}

/// How a pod is taken down (pod-migration.md §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EvictPolicy {
    #[value(name = "Eviction")]
    Eviction,
    #[value(name = "Delete")]
    Delete,
    #[value(name = "SoftEviction")]
    SoftEviction,
    #[value(name = "External")]
    External,
}

/// `fleet-eviction member`: the PodMigrationJob executor against one cluster, no hub.
#[derive(Debug, Clone, Args)]
pub struct MemberArgs {
    /// Kubeconfig of the cluster whose PodMigrationJobs to execute.
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: PathBuf,

    #[command(flatten)]
    pub process: ProcessArgs,

    #[command(flatten)]
    pub pmj: PmjArgs,
}

/// `fleet-eviction drain|uncordon <cluster>`.
#[derive(Debug, Clone, Args)]
pub struct ClusterArgs {
    /// Name of the MemberCluster.
    #[arg(value_name = "CLUSTER")]
    pub cluster: String,

    /// Kubeconfig of the hub (default: KUBECONFIG, else in-cluster).
    #[arg(long, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
}
