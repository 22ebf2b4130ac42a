//! The PodMigrationJob executor of one member cluster (pod-migration.md §1–§5): watches feed
//! the caches, changes queue the jobs they affect, workers run one job at a time per job and
//! apply what [`next_step`](crate::pod::next_step::next_step) returns; admission (§5) runs as
//! one serialised pass per member; timers on the shared clock bring jobs back at their ttl,
//! retry and garbage-collection times.

mod admission;
pub mod bucket;
pub mod caches;
pub mod metrics;
mod reconcile;
pub mod routes;
mod state;
mod sweep;
pub mod work;
pub mod workloads;
pub mod writes;

use self::bucket::TokenBucket;
use self::caches::Caches;
use self::metrics::{CONTROLLER, PodMetrics};
use self::routes::{
    ADMISSION, JobChanges, NamespaceChanges, Nothing, PdbChanges, PodChanges, Routes,
};
use self::state::State;
use self::workloads::Workloads;
use self::writes::Writer;
use crate::pod::arbitration::Limits;
use crate::pod::facts::{ReservationApi, Settings};
use crate::runtime::clock::SharedClock;
use crate::runtime::crd_check;
use crate::runtime::options::PmjArgs;
use crate::runtime::watch_cache::{Cache, Index, Touch};
use crate::runtime::work_queue::WorkQueue;
use crate::runtime::worker::{self, Failures};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinHandle;

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

/// How long the pod watch keeps running after the last active job ended: a member draining
/// job after job should not relist its pods between every two.
const POD_WATCH_LINGER: Duration = Duration::from_secs(30);

/// Everything a pass reads and writes through.
pub struct Context {
    member: String,
    client: kube::Client,
    caches: Arc<Caches>,
    queue: WorkQueue,
    writer: Writer,
    workloads: Workloads,
    bucket: TokenBucket,
    settings: Settings,
    limits: Limits,
    clock: SharedClock,
    metrics: PodMetrics,
    state: Arc<State>,
    reservation_api: tokio::sync::Mutex<Option<ReservationApi>>,
}

/// A running executor; dropping it stops it.
pub struct Executor {
    caches: Arc<Caches>,
    queue: WorkQueue,
    tasks: Vec<JoinHandle<()>>,
}

impl Executor {
    /// Starts the watches at once and the workers once the caches have synced: no decision is
    /// made on a partial view of the member.
    pub fn start(client: kube::Client, options: ExecutorOptions, metrics: PodMetrics) -> Executor {
        let caches = Arc::new(Caches::default());
        let queue = WorkQueue::new(options.clock.clone());
        metrics
            .shared
            .active_workers
            .with_label_values(&[CONTROLLER])
            .set(0);
        let ctx = Arc::new(Context {
            member: options.member.clone(),
            client: client.clone(),
            caches: caches.clone(),
            queue: queue.clone(),
            writer: Writer::new(client.clone()),
            workloads: Workloads::new(client),
            bucket: TokenBucket::new(options.evict_qps, options.evict_burst),
            settings: options.settings.clone(),
            limits: options.limits.clone(),
            clock: options.clock.clone(),
            metrics,
            state: Arc::new(State::default()),
            reservation_api: tokio::sync::Mutex::new(None),
        });
        let task = tokio::spawn(run(ctx, options.workers.max(1), options.sweep_interval));
        Executor {
            caches,
            queue,
            tasks: vec![task],
        }
    }

    /// Resolves once every cache holds its first full list (the pods' once there are jobs).
    pub async fn synced(&self) {
        self.caches.wait_synced().await;
    }

    /// Stops every task; resolves once they have ended.
    pub async fn stop(mut self) {
        self.halt();
        for task in std::mem::take(&mut self.tasks) {
            let _ = task.await;
        }
    }

    fn halt(&self) {
        self.queue.close();
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for Executor {
    fn drop(&mut self) {
        self.halt();
    }
}

/// The executor's life: the member's CRDs checked (until they pass), the watches started,
/// and the workers and the orphan sweep once the caches have synced. Aborting this task
/// aborts everything it started.
async fn run(ctx: Arc<Context>, workers: usize, sweep_interval: Duration) {
    wait_for_crds(&ctx).await;
    let routes = Routes {
        caches: ctx.caches.clone(),
        queue: ctx.queue.clone(),
        state: ctx.state.clone(),
    };
    let (caches, client, member) = (&ctx.caches, &ctx.client, ctx.member.as_str());
    let mut tasks = AbortOnDrop(vec![
        follow(
            caches,
            |c| &c.jobs,
            client,
            JobChanges(routes.clone()),
            "podmigrationjobs",
            member,
        ),
        follow(
            caches,
            |c| &c.pdbs,
            client,
            PdbChanges(routes.clone()),
            "poddisruptionbudgets",
            member,
        ),
        follow(
            caches,
            |c| &c.profiles,
            client,
            Nothing,
            "podmigrationjobprofiles",
            member,
        ),
        follow(
            caches,
            |c| &c.namespaces,
            client,
            NamespaceChanges(routes.clone()),
            "namespaces",
            member,
        ),
        tokio::spawn(pod_watch(client.clone(), routes, member.to_string())),
    ]);
    ctx.caches.wait_synced().await;
    tracing::info!(member = %ctx.member, workers, "PodMigrationJob executor caches synced");
    let failures = Arc::new(Mutex::new(HashMap::new()));
    for _ in 0..workers {
        tasks
            .0
            .push(tokio::spawn(work(ctx.clone(), failures.clone())));
    }
    tasks
        .0
        .push(tokio::spawn(sweep::every(ctx.clone(), sweep_interval)));
    std::future::pending::<()>().await;
}

/// How long to wait before checking a member's CRDs again after a failed check.
const CRD_RECHECK: Duration = Duration::from_secs(30);

/// Acting with the wrong CRDs would lose gates silently (crd_check), so a member whose CRDs
/// are missing or not ours gets an error line and nothing else until they are fixed.
async fn wait_for_crds(ctx: &Context) {
    loop {
        match crd_check::check_member(&ctx.client, &ctx.member).await {
            Ok(()) => return,
            Err(e) => tracing::error!(
                member = %ctx.member,
                retry_in_s = CRD_RECHECK.as_secs(),
                "not executing PodMigrationJobs: {e}"
            ),
        }
        tokio::time::sleep(CRD_RECHECK).await;
    }
}

/// Aborts the tasks it holds when dropped (when the task owning it is aborted).
struct AbortOnDrop(Vec<JoinHandle<()>>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        for handle in &self.0 {
            handle.abort();
        }
    }
}

fn follow<I: Index, T: Touch + Send + 'static>(
    caches: &Arc<Caches>,
    pick: fn(&Caches) -> &Cache<I>,
    client: &kube::Client,
    touch: T,
    what: &'static str,
    member: &str,
) -> JoinHandle<()> {
    let (caches, client) = (caches.clone(), client.clone());
    let span = tracing::info_span!("member", member = %member);
    tokio::spawn(tracing::Instrument::instrument(
        async move { pick(&caches).follow(client, &touch, what).await },
        span,
    ))
}

/// Runs the pod watch while the member has active jobs (§2 "Start a member's pod watch only
/// while it has active jobs"), and a while after, then drops the pods it held.
async fn pod_watch(client: kube::Client, routes: Routes, member: String) {
    let mut running: Option<(JoinHandle<()>, JoinHandle<()>)> = None;
    let mut idle_since: Option<tokio::time::Instant> = None;
    loop {
        let active = routes.caches.jobs.read().any_needs_pods();
        if active {
            idle_since = None;
            if running.is_none() {
                tracing::debug!(member = %member, "starting the pod watch");
                let watch = follow(
                    &routes.caches,
                    |c| &c.pods,
                    &client,
                    PodChanges(routes.clone()),
                    "pods",
                    &member,
                );
                running = Some((
                    watch,
                    tokio::spawn(requeue_when_pods_synced(routes.clone())),
                ));
            }
        } else if running.is_some() {
            let since = *idle_since.get_or_insert_with(tokio::time::Instant::now);
            if since.elapsed() >= POD_WATCH_LINGER
                && let Some((watch, requeue)) = running.take()
            {
                tracing::debug!(member = %member, "stopping the pod watch: no active jobs");
                watch.abort();
                requeue.abort();
                routes.caches.pods.reset();
                idle_since = None;
            }
        }
        tokio::select! {
            () = routes.state.pod_watch.notified() => {}
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

/// Once the pods are known, every active job and the admission pass are decided again.
async fn requeue_when_pods_synced(routes: Routes) {
    routes.caches.pods.wait_synced().await;
    for job in routes.caches.jobs.read().needing_pods() {
        routes.queue.add(&job);
    }
    routes.queue.add(ADMISSION);
}

async fn work(ctx: Arc<Context>, failures: Failures) {
    let families = ctx.metrics.shared.clone();
    worker::work(ctx.queue.clone(), families, CONTROLLER, failures, |key| {
        let ctx = ctx.clone();
        async move {
            let span = tracing::info_span!("reconcile", member = %ctx.member, job = %key);
            tracing::Instrument::instrument(reconcile::reconcile(&ctx, &key), span).await
        }
    })
    .await;
}
