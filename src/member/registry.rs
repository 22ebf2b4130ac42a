//! The registry: follows MemberClusters and member Secrets on the hub, decides which
//! members are registered, and keeps exactly one member task (work + probes) per registered
//! member, restarted with a fresh client when its kubeconfig changes and stopped when it is
//! no longer registered.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::hub::{self, HubEvent, Listed};
use super::kubeconfig::{KubeconfigProblem, RefusedKubeconfig, member_client};
use super::member_task::{self, MemberTask, TaskContext};
use super::members::Members;
use super::metrics::MemberMetrics;
use super::registration::{Registration, SecretView, pair};
use super::work::MemberWork;
use crate::runtime::clock::SharedClock;

#[derive(Debug, Clone)]
pub struct RegistryOptions {
    /// Where the member Secrets live (`--namespace`).
    pub namespace: String,
    /// Pause between two probes of a member (`--member-probe-interval`).
    pub probe_interval: Duration,
    /// Stamps reachability changes.
    pub clock: SharedClock,
}

/// A running registry. [`MemberRegistry::stop`] stops every member's work and waits for it;
/// dropping the registry does the same in the background.
pub struct MemberRegistry {
    members: Members,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl MemberRegistry {
    pub fn start(
        hub: kube::Client,
        options: RegistryOptions,
        work: Arc<dyn MemberWork>,
        metrics: MemberMetrics,
    ) -> MemberRegistry {
        let members = Members::new(metrics.clone(), options.clock.clone());
        let (stop, stopped) = oneshot::channel();
        let state = State {
            namespace: options.namespace.clone(),
            probe_interval: options.probe_interval,
            work,
            members: members.clone(),
            metrics,
            clusters: Listed::default(),
            secrets: Listed::default(),
            reported: BTreeMap::new(),
            tasks: BTreeMap::new(),
            stopping: BTreeMap::new(),
            refused: BTreeMap::new(),
            generation: 0,
        };
        let task = tokio::spawn(state.run(hub, stopped));
        MemberRegistry {
            members,
            stop: Some(stop),
            task,
        }
    }

    /// The handle the rest of the controller asks (cheap to clone, lives on after `stop`).
    pub fn members(&self) -> Members {
        self.members.clone()
    }

    /// Resolves once both lists were read and the members registered then were started.
    pub async fn synced(&self) {
        self.members.synced().await;
    }

    /// Stops following the hub, stops every member's work and waits for all of it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            // An error means the loop has already ended.
            let _ = stop.send(());
        }
        if let Err(e) = (&mut self.task).await {
            tracing::warn!("the member registry ended abnormally: {e}");
        }
    }
}

/// What the loop that follows the hub owns.
struct State {
    namespace: String,
    probe_interval: Duration,
    work: Arc<dyn MemberWork>,
    members: Members,
    metrics: MemberMetrics,
    clusters: Listed<()>,
    secrets: Listed<SecretView>,
    /// The last registration of every member name, to log each change once.
    reported: BTreeMap<String, Registration>,
    tasks: BTreeMap<String, MemberTask>,
    /// Tasks told to stop, until the member's next task has waited for them.
    stopping: BTreeMap<String, JoinHandle<()>>,
    /// The last refused kubeconfig per member (Secret, bytes), so an unchanged broken
    /// Secret is not parsed again on every change elsewhere.
    refused: BTreeMap<String, (String, Vec<u8>, Registration)>,
    generation: u64,
}

/// What a member's pairing asks for.
enum Wanted {
    Run {
        secret: String,
        kubeconfig: Result<Vec<u8>, KubeconfigProblem>,
    },
    Report(Registration),
}

impl State {
    async fn run(mut self, hub: kube::Client, mut stopped: oneshot::Receiver<()>) {
        let events = hub::follow(hub, &self.namespace);
        futures::pin_mut!(events);
        loop {
            let event = tokio::select! {
                // A send or the registry being dropped: stop either way.
                _ = &mut stopped => break,
                event = events.next() => event,
            };
            let Some(event) = event else { break };
            if self.apply(event) && self.clusters.synced && self.secrets.synced {
                self.reconcile().await;
                self.members.mark_synced();
            }
        }
        self.stop_all().await;
    }

    fn apply(&mut self, event: HubEvent) -> bool {
        match event {
            HubEvent::MemberClusters(Ok(event)) => {
                self.clusters.apply(event, hub::member_cluster_view)
            }
            HubEvent::Secrets(Ok(event)) => self.secrets.apply(event, hub::secret_view),
            HubEvent::MemberClusters(Err(e)) => {
                tracing::warn!("watching MemberClusters failed, retrying: {e}");
                false
            }
            HubEvent::Secrets(Err(e)) => {
                tracing::warn!(namespace = %self.namespace, "watching member Secrets failed, retrying: {e}");
                false
            }
        }
    }

    /// Brings the member tasks in line with the hub, then reports.
    async fn reconcile(&mut self) {
        let names: BTreeSet<String> = self.clusters.objects.keys().cloned().collect();
        let wanted: BTreeMap<String, Wanted> = pair(&names, &self.secrets.objects)
            .into_iter()
            .map(|(member, pairing)| {
                let wanted = match pairing.complete() {
                    Ok(secret) => Wanted::Run {
                        secret: secret.name.clone(),
                        kubeconfig: secret.kubeconfig.clone(),
                    },
                    Err(registration) => Wanted::Report(registration),
                };
                (member, wanted)
            })
            .collect();
        let mut reported = BTreeMap::new();
        for (member, wanted) in wanted {
            let registration = match wanted {
                Wanted::Run { secret, kubeconfig } => {
                    self.run_member(&member, &secret, kubeconfig).await
                }
                Wanted::Report(registration) => {
                    self.stop_member(&member);
                    registration
                }
            };
            if registration != Registration::Complete {
                self.members.set_incomplete(&member, registration.clone());
            }
            self.log_change(&member, &registration);
            reported.insert(member, registration);
        }
        let gone: BTreeSet<String> = self
            .reported
            .keys()
            .chain(self.tasks.keys())
            .filter(|member| !reported.contains_key(*member))
            .cloned()
            .collect();
        for member in gone {
            self.stop_member(&member);
            self.members.remove(&member);
            if self.reported.contains_key(&member) {
                tracing::info!(member = %member, "member {member} is no longer mentioned on the hub");
            }
        }
        self.refused.retain(|member, _| {
            reported
                .get(member)
                .is_some_and(|r| *r != Registration::Complete)
        });
        self.stopping.retain(|_, handle| !handle.is_finished());
        let mut counts: BTreeMap<&'static str, i64> = BTreeMap::new();
        for registration in reported.values() {
            *counts.entry(registration.state()).or_default() += 1;
        }
        self.metrics.set_registrations(&counts);
        self.reported = reported;
    }

    /// Keeps the member's task running with a client from `kubeconfig`, or stops it and
    /// says why the kubeconfig is refused.
    async fn run_member(
        &mut self,
        member: &str,
        secret: &str,
        kubeconfig: Result<Vec<u8>, KubeconfigProblem>,
    ) -> Registration {
        let refuse = |problem| {
            Registration::InvalidKubeconfig(
                RefusedKubeconfig {
                    member: member.to_string(),
                    secret: format!("{}/{secret}", self.namespace),
                    problem,
                }
                .to_string(),
            )
        };
        let bytes = match kubeconfig {
            Ok(bytes) => bytes,
            Err(problem) => {
                let registration = refuse(problem);
                self.stop_member(member);
                return registration;
            }
        };
        if self
            .tasks
            .get(member)
            .is_some_and(|t| t.kubeconfig == bytes)
        {
            return Registration::Complete;
        }
        if let Some((_, _, registration)) = self
            .refused
            .get(member)
            .filter(|(s, b, _)| s == secret && *b == bytes)
        {
            return registration.clone();
        }
        let client = match member_client(&bytes).await {
            Ok(client) => client,
            Err(problem) => {
                // A broken replacement stops the member's work: the old credentials may be
                // the very ones being revoked.
                let registration = refuse(problem);
                self.stop_member(member);
                self.refused.insert(
                    member.to_string(),
                    (secret.to_string(), bytes, registration.clone()),
                );
                return registration;
            }
        };
        self.refused.remove(member);
        if let Some(task) = self.tasks.get_mut(member) {
            task.kubeconfig = bytes;
            self.members
                .set_live(member, client.clone(), task.generation);
            task.clients.send_replace(client);
        } else {
            self.generation += 1;
            let generation = self.generation;
            self.members.set_live(member, client.clone(), generation);
            let context = TaskContext {
                member: member.to_string(),
                generation,
                work: self.work.clone(),
                members: self.members.clone(),
                probe_interval: self.probe_interval,
            };
            let previous = self.stopping.remove(member);
            let task = member_task::spawn(context, client, bytes, previous);
            self.tasks.insert(member.to_string(), task);
        }
        Registration::Complete
    }

    /// Tells the member's task to stop (closing its channel); its next task waits for it.
    fn stop_member(&mut self, member: &str) {
        if let Some(task) = self.tasks.remove(member) {
            drop(task.clients);
            self.stopping.insert(member.to_string(), task.handle);
        }
    }

    fn log_change(&self, member: &str, registration: &Registration) {
        if self.reported.get(member) == Some(registration) {
            return;
        }
        let line = registration.describe(member, &self.namespace);
        match registration {
            Registration::Complete => {
                tracing::info!(member, state = registration.state(), "{line}")
            }
            _ => tracing::warn!(member, state = registration.state(), "{line}"),
        }
    }

    async fn stop_all(mut self) {
        let members: Vec<String> = self.tasks.keys().cloned().collect();
        for member in members {
            self.stop_member(&member);
        }
        for (member, handle) in std::mem::take(&mut self.stopping) {
            if let Err(e) = handle.await {
                tracing::warn!(member = %member, "the member's task ended abnormally: {e}");
            }
        }
    }
}
