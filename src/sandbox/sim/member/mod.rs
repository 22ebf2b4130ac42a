//! A member cluster's moving parts, simulated against its sandbox API server: what the
//! scheduler, the kubelets and the workload controllers would do, just enough for tests.
//!
//! - Nodes: [`create_nodes`] registers `node-1`..`node-N`, Ready. A cordoned node gets the
//!   `node.kubernetes.io/unschedulable` taint ([`node_lifecycle`]); the scheduler respects
//!   cordons and `NoSchedule`/`NoExecute` taints. A node whose Ready condition is not True has
//!   no working kubelet (its pods are left as they are).
//! - Scheduler ([`scheduler`]): binds pending pods to the feasible node with the fewest pods of
//!   the same controller, then the fewest pods, then by name; marks the rest `Unschedulable`.
//! - Kubelet ([`kubelet`]): makes bound pods Running and Ready, and finishes graceful deletions
//!   once the shared clock passes their `deletionTimestamp`. A pod annotated
//!   [`BROKEN_ANNOTATION`]` = "true"` runs but is not Ready, until the annotation goes.
//! - Controllers: Deployment → ReplicaSet ([`deployment`]), ReplicaSet → Pods ([`replicaset`]),
//!   StatefulSet → Pods ([`statefulset`]), each keeping its status current.
//!
//! How it runs: one reflector per kind feeds a store; a single loop wakes on every watch event
//! and on a 50 ms tick (grace periods run on the shared clock, which may be virtual), takes a
//! snapshot of the stores ([`view::View`]), plans every change with pure functions, and sends
//! them through the API as the real components would. Before planning again it waits until the
//! stores have seen its own writes ([`versions`]): the real controllers need expectations and
//! an assumed-pods cache to avoid acting twice on a stale cache; the sandbox's single
//! resourceVersion counter lets this simulation wait for its writes instead.
//!
//! Left out: rollouts (a template change creates the new ReplicaSet at full scale and scales
//! the old ones to 0 at once, like `Recreate` without waiting), adoption and release of
//! orphans, affinity and topology constraints, resources, volume claims, DaemonSets, Jobs,
//! restarts and container failures, pod garbage collection on deleted nodes.

pub mod actions;
pub mod deployment;
pub mod deployment_status;
pub mod hashing;
pub mod informers;
pub mod kubelet;
pub mod node_lifecycle;
pub mod nodes;
pub mod pod_status;
pub mod pod_template;
pub mod pods;
pub mod replicaset;
pub mod scheduler;
pub mod statefulset;
pub mod versions;
pub mod view;

#[cfg(test)]
mod fixtures;

pub use nodes::create_nodes;

use crate::runtime::clock::SharedClock;
use actions::Action;
use informers::Informers;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Notify;
use tokio::task::JoinHandle;
use view::View;

/// The sandbox-only annotation that makes a pod's containers unready (value `"true"`); removing
/// it (or any other value) makes the pod Ready again. Tests and scenarios break pods with it.
pub const BROKEN_ANNOTATION: &str = "sandbox.fleet-eviction.io/broken";

/// How often the loop looks again when nothing changed: grace periods and `minReadySeconds`
/// expire on the shared clock, which sends no events.
const TICK: Duration = Duration::from_millis(50);

/// How long the loop waits for the stores to catch up with its own writes before planning
/// anyway (a relist can skip the event it waits for).
const CATCH_UP_LIMIT: Duration = Duration::from_secs(2);

/// The running tasks of a simulation; dropping the handle stops them.
#[derive(Debug, Default)]
pub struct SimHandle {
    tasks: Vec<JoinHandle<()>>,
}

impl SimHandle {
    pub fn new(tasks: Vec<JoinHandle<()>>) -> SimHandle {
        SimHandle { tasks }
    }

    /// Stops every task now (dropping the handle does the same).
    pub fn stop(&self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The member-cluster simulation: scheduler, kubelets and workload controllers.
#[derive(Debug)]
pub struct MemberSim;

impl MemberSim {
    /// Starts the simulation against the cluster `client` talks to (every namespace); time
    /// decisions read `clock`.
    pub fn start(client: kube::Client, clock: SharedClock) -> SimHandle {
        let wake = Arc::new(Notify::new());
        let (informers, mut tasks) = Informers::start(&client, wake.clone());
        tasks.push(tokio::spawn(run(client, clock, informers, wake)));
        SimHandle::new(tasks)
    }
}

/// Every change the simulated components would make now, in the order they are sent.
pub fn plan(view: &View) -> Vec<Action> {
    let mut actions = node_lifecycle::plan(view);
    actions.extend(deployment::plan(view));
    actions.extend(replicaset::plan(view));
    actions.extend(statefulset::plan(view));
    actions.extend(scheduler::plan(view));
    actions.extend(kubelet::plan(view));
    actions
}

async fn run(client: kube::Client, clock: SharedClock, informers: Informers, wake: Arc<Notify>) {
    informers.wait_until_ready().await;
    let mut behind_since: Option<tokio::time::Instant> = None;
    loop {
        tokio::select! {
            _ = wake.notified() => {}
            _ = tokio::time::sleep(TICK) => {}
        }
        if !informers.versions.caught_up() {
            let since = *behind_since.get_or_insert_with(tokio::time::Instant::now);
            if since.elapsed() < CATCH_UP_LIMIT {
                continue;
            }
            tracing::debug!("member simulation: stores did not catch up, planning anyway");
            informers.versions.forget_writes();
        }
        behind_since = None;
        let view = informers.view(clock.now());
        for action in plan(&view) {
            actions::execute(&client, &informers.versions, action).await;
        }
    }
}
