//! The eviction controller: watches feed the caches, changes queue their placements, workers
//! run one pass per placement at a time (§4.3: decisions for one placement serialised,
//! different placements in parallel), and timers bring placements back at ttl deadlines.

pub mod cache;
pub mod ledger;
pub mod metrics;
pub mod reconcile;
pub mod writes;

use self::cache::Caches;
use self::ledger::Ledger;
use self::metrics::{CONTROLLER, EvictionMetrics, Telemetry};
use self::reconcile::{Context, reconcile};
use self::writes::Writer;
use crate::runtime::clock::SharedClock;
use crate::runtime::work_queue::WorkQueue;
use crate::runtime::worker::{self, Failures};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinHandle;

#[derive(Debug, Clone)]
pub struct ControllerOptions {
    /// Placements decided in parallel (`--workers`).
    pub workers: usize,
    /// The ttl of an extended eviction that sets none (`--extended-ttl-default`).
    pub extended_ttl_default: Duration,
    pub clock: SharedClock,
}

/// A running controller; dropping it stops it.
pub struct EvictionController {
    caches: Arc<Caches>,
    queue: WorkQueue,
    tasks: Vec<JoinHandle<()>>,
}

impl EvictionController {
    /// Starts the watches at once and the workers once every cache has synced: no decision
    /// is made on a partial view of the fleet.
    pub fn start(
        client: kube::Client,
        options: ControllerOptions,
        metrics: EvictionMetrics,
    ) -> EvictionController {
        let caches = Arc::new(Caches::default());
        let queue = WorkQueue::new(options.clock.clone());
        let writer = Writer::new(client.clone());
        let mut tasks = vec![
            follow(&caches, &queue, |c| &c.evictions, &client, "evictions"),
            follow(&caches, &queue, |c| &c.bindings, &client, "bindings"),
            follow(&caches, &queue, |c| &c.placements, &client, "placements"),
            follow(&caches, &queue, |c| &c.budgets, &client, "budgets"),
        ];
        let ctx = Arc::new(Context {
            caches: caches.clone(),
            ledger: Ledger::default(),
            writer,
            telemetry: Telemetry::new(metrics),
            clock: options.clock.clone(),
            default_ttl: options.extended_ttl_default,
        });
        let workers = options.workers.max(1);
        let starter = {
            let (caches, queue) = (caches.clone(), queue.clone());
            tokio::spawn(async move {
                caches.wait_synced().await;
                tracing::info!(
                    workers,
                    "eviction controller caches synced; deciding evictions"
                );
                let failures = Arc::new(Mutex::new(HashMap::new()));
                let handles: Vec<JoinHandle<()>> = (0..workers)
                    .map(|_| tokio::spawn(work(ctx.clone(), queue.clone(), failures.clone())))
                    .collect();
                for handle in handles {
                    let _ = handle.await;
                }
            })
        };
        tasks.push(starter);
        EvictionController {
            caches,
            queue,
            tasks,
        }
    }

    /// Resolves once every cache holds its first full list.
    pub async fn synced(&self) {
        self.caches.wait_synced().await;
    }

    pub fn stop(&self) {
        self.queue.close();
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for EvictionController {
    fn drop(&mut self) {
        self.stop();
    }
}

fn follow<I: cache::Index>(
    caches: &Arc<Caches>,
    queue: &WorkQueue,
    pick: fn(&Caches) -> &cache::Cache<I>,
    client: &kube::Client,
    what: &'static str,
) -> JoinHandle<()> {
    let (caches, queue, client) = (caches.clone(), queue.clone(), client.clone());
    tokio::spawn(async move { pick(&caches).follow(client, &queue, what).await })
}

async fn work(ctx: Arc<Context>, queue: WorkQueue, failures: Failures) {
    let families = ctx.telemetry.metrics.shared.clone();
    worker::work(queue, families, CONTROLLER, failures, |placement| {
        let ctx = ctx.clone();
        async move {
            let span = tracing::info_span!("reconcile", placement = %placement);
            tracing::Instrument::instrument(reconcile(&ctx, &placement), span).await
        }
    })
    .await;
}
