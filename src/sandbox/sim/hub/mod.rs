//! The hub simulation: a KubeFleet stand-in for the sandbox, talking to the hub and member
//! API servers through their clients like a real controller.
//!
//! It acts only on ClusterResourcePlacements labelled `sandbox.fleet-eviction.io/simulate:
//! "true"` and on the bindings it made for them (which carry the same label); hand-made
//! objects are left alone. Every tick (100 ms of real time) it:
//! 1. schedules each simulated placement once ([`scheduling`] has the policy rules), then
//!    marks it `ClusterResourcePlacementScheduled`; more bindings only on [`HubSim::reschedule`];
//! 2. places each Bound (or Unscheduled) binding's resources on its member ([`placed`] says
//!    exactly what is copied) and sets the binding's `RolloutStarted`, `Overridden`,
//!    `WorkSynchronized`, `Applied` and `Available` conditions from what it finds there
//!    ([`readiness`] says how availability is counted);
//! 3. withdraws a deleted binding's resources from its member, then removes its
//!    `kubernetes-fleet.io/work-cleanup` finalizer; bindings of a deleted placement are deleted.
//!
//! A member whose client fails (not an API answer: a transport error) keeps its bindings'
//! conditions as they are and is retried on the next tick; the others carry on.

pub mod apply;
pub mod binding;
pub mod conditions;
pub mod hub_view;
pub mod members;
pub mod placed;
pub mod readiness;
pub mod scheduler;
pub mod scheduling;
pub mod withdraw;

pub use members::MemberClients;
pub use scheduler::ScheduleError;

use crate::runtime::clock::SharedClock;
use crate::sandbox::apiserver::rng::Rng;
use futures::StreamExt;
use hub_view::HubView;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinHandle;

/// Real time between two looks at the hub.
const TICK: Duration = Duration::from_millis(100);
/// Bindings worked on at once, so one slow member does not hold up the others.
const CONCURRENT_BINDINGS: usize = 8;
/// Binding-name suffixes are drawn from this seed, so a run reproduces.
const NAME_SEED: u64 = 0x6875_6273_696d;

/// The hub simulation's shared state; cheap to clone.
#[derive(Clone)]
pub struct HubSim {
    inner: Arc<Inner>,
}

struct Inner {
    hub: kube::Client,
    members: MemberClients,
    clock: SharedClock,
    names: Mutex<Rng>,
    /// Scheduling reads bindings and then creates some: one placement decision at a time.
    scheduling: tokio::sync::Mutex<()>,
}

impl HubSim {
    /// Starts the simulation on the hub's client; members are looked up in `members` by
    /// MemberCluster name on every tick, so they may be added later.
    pub fn start(hub: kube::Client, members: MemberClients, clock: SharedClock) -> SimHandle {
        let sim = HubSim {
            inner: Arc::new(Inner {
                hub,
                members,
                clock,
                names: Mutex::new(Rng::new(NAME_SEED)),
                scheduling: tokio::sync::Mutex::new(()),
            }),
        };
        let looping = sim.clone();
        let task = tokio::spawn(async move {
            loop {
                looping.tick().await;
                tokio::time::sleep(TICK).await;
            }
        });
        SimHandle { sim, task }
    }

    /// Creates the bindings the placement's policy is missing now (for example after an
    /// eviction deleted one); returns the names of the new bindings.
    pub async fn reschedule(&self, placement: &str) -> Result<Vec<String>, ScheduleError> {
        scheduler::schedule(self, placement, scheduler::Mode::Reschedule).await
    }

    pub fn members(&self) -> &MemberClients {
        &self.inner.members
    }

    /// One look at the hub; errors are logged and the next tick retries.
    async fn tick(&self) {
        let view = match HubView::read(&self.inner.hub).await {
            Ok(view) => view,
            Err(error) => return tracing::warn!(%error, "reading the hub failed; retrying"),
        };
        scheduler::schedule_new(self, &view).await;
        let desired = hub_view::desired_objects(&self.inner.hub, &view).await;
        futures::stream::iter(view.managed_bindings())
            .for_each_concurrent(CONCURRENT_BINDINGS, |b| {
                binding::reconcile(self, &view, &desired, b)
            })
            .await;
    }
}

/// The running simulation; dropping it stops it.
pub struct SimHandle {
    sim: HubSim,
    task: JoinHandle<()>,
}

impl SimHandle {
    pub fn sim(&self) -> &HubSim {
        &self.sim
    }

    /// See [`HubSim::reschedule`].
    pub async fn reschedule(&self, placement: &str) -> Result<Vec<String>, ScheduleError> {
        self.sim.reschedule(placement).await
    }
}

impl Drop for SimHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}
