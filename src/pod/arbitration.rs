//! §5 Arbitration: which Pending jobs of one member may start now.
//!
//! [`admit`] takes every non-terminal job of the member that is Pending or admitted, and
//! returns the Pending ones to admit, first come first served (creationTimestamp, then name).
//! Only admitted jobs count as migrating. A job is admitted when, with it, no limit is
//! exceeded: per node, per namespace, globally, per workload (migrating, and unavailable =
//! not-ready pods plus migrating ones), and at most one admitted job per pod uid. A job that
//! does not fit waits without blocking later jobs that fit elsewhere (no head-of-line
//! blocking: a full node must not stall the whole member). [`over_limits`] checks the
//! invariant "never more admitted than the limits" on any set of jobs.
//!
//! §6 hook: a job that is [`exempt`](Candidate::exempt) (a fan-out job past its gates) holds
//! no slot, but still holds its pod uid.

use std::collections::{BTreeMap, BTreeSet};

use super::facts::{PodView, Stage, passed_arbitration, recorded_uid, stage};
use crate::api::keys::EVICTION_LABEL;
use crate::api::migration::PodMigrationJob;
use crate::gates::{self, GateVerdict, ObservedCondition};
use crate::runtime::option_values::MigrationLimit;
use crate::runtime::options::PmjArgs;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;

/// The limits (`--pmj-max-*` flags).
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    pub per_node: MigrationLimit,
    pub per_namespace: MigrationLimit,
    pub globally: MigrationLimit,
    /// `None`: the default by replicas (see [`workload_limit`]).
    pub per_workload: Option<IntOrString>,
    pub unavailable_per_workload: Option<IntOrString>,
}

impl Limits {
    pub fn from_args(args: &PmjArgs) -> Limits {
        Limits {
            per_node: args.pmj_max_migrating_per_node,
            per_namespace: args.pmj_max_migrating_per_namespace,
            globally: args.pmj_max_migrating_globally,
            per_workload: args.pmj_max_migrating_per_workload.clone(),
            unavailable_per_workload: args.pmj_max_unavailable_per_workload.clone(),
        }
    }
}

impl Default for Limits {
    /// Koordinator's defaults, which are the flags' defaults.
    fn default() -> Self {
        Limits {
            per_node: MigrationLimit::AtMost(std::num::NonZeroU32::MIN.saturating_add(1)),
            per_namespace: MigrationLimit::Unlimited,
            globally: MigrationLimit::Unlimited,
            per_workload: None,
            unavailable_per_workload: None,
        }
    }
}

/// One non-terminal job as arbitration sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub job: String,
    pub created: Option<Timestamp>,
    /// Passed arbitration (or already Running): counts as migrating.
    pub admitted: bool,
    /// §6: holds no slot (still holds its pod uid).
    pub exempt: bool,
    /// The pod's uid; `None` when the pod is unknown (such a Pending job is never admitted:
    /// validation fails it first).
    pub pod_uid: Option<String>,
    pub namespace: String,
    /// `None` or empty: unscheduled or unknown; passes and does not count in the node limit.
    pub node: Option<String>,
    /// The pod's workload (the executor's key for it: ReplicaSets resolved to their
    /// Deployment); `None`: no controller, passes the workload limits.
    pub workload: Option<String>,
}

impl Candidate {
    /// A job and its pod (if the cache has it); `workload` is the executor's key for the pod's
    /// resolved controller. A Running job counts as admitted even without the annotation
    /// (a koord-descheduler may have started it), as Koordinator counts it.
    pub fn of(job: &PodMigrationJob, pod: Option<&PodView>, workload: Option<String>) -> Candidate {
        let pod_ref = job.spec.pod_ref.as_ref();
        Candidate {
            job: job.metadata.name.clone().unwrap_or_default(),
            created: job.metadata.creation_timestamp.as_ref().map(|t| t.0),
            admitted: passed_arbitration(job) || stage(job) == Stage::Running,
            exempt: exempt(job),
            pod_uid: pod
                .map(|p| p.uid.clone())
                .or_else(|| recorded_uid(job).map(str::to_string)),
            namespace: pod_ref
                .and_then(|r| r.namespace.clone())
                .unwrap_or_default(),
            // The job's record of the node outlives the pod: an admitted job whose pod is gone
            // still migrates until it ends, and keeps its node's slot.
            node: pod
                .map(|p| p.node_name.clone())
                .filter(|n| !n.is_empty())
                .or_else(|| job.status.as_ref().and_then(|s| s.node_name.clone()))
                .filter(|n| !n.is_empty()),
            workload,
        }
    }
}

/// §6 hook: a fan-out job (labelled `fleet-eviction.io/eviction`) that is Running and whose
/// gates are all met holds no arbitration slot; otherwise jobs waiting for the withdrawal would
/// hold every slot. Pending jobs always need a slot, so that admission alone never exceeds a
/// limit.
pub fn exempt(job: &PodMigrationJob) -> bool {
    let fan_out = job
        .metadata
        .labels
        .as_ref()
        .is_some_and(|l| l.contains_key(EVICTION_LABEL));
    if !fan_out || stage(job) != Stage::Running {
        return false;
    }
    let observed: Vec<ObservedCondition> = job
        .status
        .iter()
        .flat_map(|s| &s.conditions)
        .map(|c| ObservedCondition {
            type_: &c.type_,
            status: &c.status,
            message: c.message.as_deref().unwrap_or_default(),
        })
        .collect();
    let names = job
        .spec
        .eviction_conditions
        .iter()
        .flatten()
        .map(|g| g.name.as_str());
    gates::evaluate(names, &observed) == GateVerdict::Open
}

/// A workload's replicas and its unavailable pods.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WorkloadState {
    /// Desired replicas (`spec.replicas`, or `/scale`).
    pub replicas: i32,
    /// Uids of its pods that are not available (not ready, terminating or finished).
    pub unavailable: BTreeSet<String>,
}

impl WorkloadState {
    pub fn from_pods<'a>(
        replicas: i32,
        pods: impl IntoIterator<Item = &'a PodView>,
    ) -> WorkloadState {
        WorkloadState {
            replicas,
            unavailable: pods
                .into_iter()
                .filter(|p| !p.available)
                .map(|p| p.uid.clone())
                .collect(),
        }
    }
}

/// Why a Pending job was not admitted (the first limit it hit, in this order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// The pod is unknown; validation will fail the job.
    PodUnknown,
    /// Another admitted job already migrates this pod.
    SamePod,
    Node,
    Namespace,
    Global,
    /// The workload's replicas are unknown to the executor (e.g. `/scale` failed): wait
    /// rather than guess.
    WorkloadUnknown,
    WorkloadMigrating,
    WorkloadUnavailable,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Verdicts {
    /// Jobs to admit now, in arrival order.
    pub admit: Vec<String>,
    /// The other Pending jobs, in arrival order, with what held them.
    pub waiting: Vec<(String, Blocked)>,
}

/// Decides which Pending jobs to admit now (§5).
pub fn admit(
    jobs: &[Candidate],
    workloads: &BTreeMap<String, WorkloadState>,
    limits: &Limits,
) -> Verdicts {
    let mut tally = Tally::default();
    for job in jobs.iter().filter(|j| j.admitted) {
        tally.add(job);
    }
    let mut pending: Vec<&Candidate> = jobs.iter().filter(|j| !j.admitted).collect();
    pending.sort_by(|a, b| (a.created, &a.job).cmp(&(b.created, &b.job)));
    let mut verdicts = Verdicts::default();
    for job in pending {
        match tally.blocked(job, workloads, limits) {
            Some(why) => verdicts.waiting.push((job.job.clone(), why)),
            None => {
                tally.add(job);
                verdicts.admit.push(job.job.clone());
            }
        }
    }
    verdicts
}

/// A limit the admitted jobs exceed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    SamePod(String),
    Node(String),
    Namespace(String),
    Global,
    WorkloadMigrating(String),
}

/// The limits the admitted jobs exceed: the invariant admission keeps. Unavailability is not
/// here: pods fall ill on their own, so it is judged at each admission, not as an invariant.
pub fn over_limits(
    jobs: &[Candidate],
    workloads: &BTreeMap<String, WorkloadState>,
    limits: &Limits,
) -> Vec<Violation> {
    let mut tally = Tally::default();
    let mut violations = Vec::new();
    for job in jobs.iter().filter(|j| j.admitted) {
        if let Some(uid) = &job.pod_uid
            && tally.pods.contains(uid)
        {
            violations.push(Violation::SamePod(uid.clone()));
        }
        tally.add(job);
    }
    let over = |count: usize, limit: MigrationLimit| matches!(limit, MigrationLimit::AtMost(n) if count > n.get() as usize);
    for (node, count) in &tally.nodes {
        if over(*count, limits.per_node) {
            violations.push(Violation::Node(node.clone()));
        }
    }
    for (namespace, count) in &tally.namespaces {
        if over(*count, limits.per_namespace) {
            violations.push(Violation::Namespace(namespace.clone()));
        }
    }
    if over(tally.global, limits.globally) {
        violations.push(Violation::Global);
    }
    for (workload, pods) in &tally.workloads {
        let replicas = workloads.get(workload).map_or(0, |w| w.replicas);
        if pods.len() > workload_limit(replicas, limits.per_workload.as_ref()) {
            violations.push(Violation::WorkloadMigrating(workload.clone()));
        }
    }
    violations
}

/// What the admitted jobs hold.
#[derive(Default)]
struct Tally {
    /// Pod uids of every admitted job, exempt ones included.
    pods: BTreeSet<String>,
    nodes: BTreeMap<String, usize>,
    namespaces: BTreeMap<String, usize>,
    global: usize,
    /// Pods migrating per workload (by uid, or by job name when the pod is unknown).
    workloads: BTreeMap<String, BTreeSet<String>>,
}

impl Tally {
    fn add(&mut self, job: &Candidate) {
        if let Some(uid) = &job.pod_uid {
            self.pods.insert(uid.clone());
        }
        if job.exempt {
            return;
        }
        if let Some(node) = job.node.as_ref().filter(|n| !n.is_empty()) {
            *self.nodes.entry(node.clone()).or_default() += 1;
        }
        *self.namespaces.entry(job.namespace.clone()).or_default() += 1;
        self.global += 1;
        if let Some(workload) = &job.workload {
            let pod = job.pod_uid.clone().unwrap_or_else(|| job.job.clone());
            self.workloads
                .entry(workload.clone())
                .or_default()
                .insert(pod);
        }
    }

    fn blocked(
        &self,
        job: &Candidate,
        workloads: &BTreeMap<String, WorkloadState>,
        limits: &Limits,
    ) -> Option<Blocked> {
        let fits = |count: usize, limit: MigrationLimit| match limit {
            MigrationLimit::Unlimited => true,
            MigrationLimit::AtMost(n) => count < n.get() as usize,
        };
        let Some(uid) = &job.pod_uid else {
            return Some(Blocked::PodUnknown);
        };
        if self.pods.contains(uid) {
            return Some(Blocked::SamePod);
        }
        if let Some(node) = job.node.as_ref().filter(|n| !n.is_empty())
            && !fits(self.nodes.get(node).copied().unwrap_or(0), limits.per_node)
        {
            return Some(Blocked::Node);
        }
        if !fits(
            self.namespaces.get(&job.namespace).copied().unwrap_or(0),
            limits.per_namespace,
        ) {
            return Some(Blocked::Namespace);
        }
        if !fits(self.global, limits.globally) {
            return Some(Blocked::Global);
        }
        let workload = job.workload.as_ref()?;
        let Some(state) = workloads.get(workload) else {
            return Some(Blocked::WorkloadUnknown);
        };
        let migrating = self.workloads.get(workload);
        let migrating_count = migrating.map_or(0, BTreeSet::len);
        if migrating_count >= workload_limit(state.replicas, limits.per_workload.as_ref()) {
            return Some(Blocked::WorkloadMigrating);
        }
        // Unavailable with this job admitted: not-ready pods, migrating pods and this pod, each
        // counted once (migrating a pod that is already not ready costs no availability).
        let mut unavailable: BTreeSet<&String> = state.unavailable.iter().collect();
        unavailable.extend(migrating.into_iter().flatten());
        unavailable.insert(uid);
        if unavailable.len()
            > workload_limit(state.replicas, limits.unavailable_per_workload.as_ref())
        {
            return Some(Blocked::WorkloadUnavailable);
        }
        None
    }
}

/// A per-workload limit for a workload of `replicas` (§5): an integer as is, a percentage of
/// the replicas rounded down; without a limit 10% above 10 replicas, 2 for 4-10, else 1; then
/// capped at the replicas and at least 1 (a 1-replica workload may migrate, by request; a
/// workload scaled to 0 may still let its last pods go). A value that cannot be read (the
/// flag parser refuses those) gives 1, the strictest limit that still makes progress.
pub fn workload_limit(replicas: i32, limit: Option<&IntOrString>) -> usize {
    let replicas = i64::from(replicas.max(0));
    let raw = match limit {
        Some(IntOrString::Int(n)) => i64::from(*n),
        Some(IntOrString::String(s)) => percent(s).map_or(1, |p| p * replicas / 100),
        None if replicas > 10 => replicas / 10,
        None if replicas >= 4 => 2,
        None => 1,
    };
    usize::try_from(raw.min(replicas).max(1)).unwrap_or(1)
}

/// `"80%"` → 80; any number of digits (percentages above 100 are capped by the replicas).
fn percent(s: &str) -> Option<i64> {
    let digits = s.strip_suffix('%')?;
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
#[path = "arbitration_tests.rs"]
mod tests;
