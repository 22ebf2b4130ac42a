//! The eviction subresource's decision (`POST .../pods/<name>/eviction`), as kube-apiserver's
//! eviction REST handler makes it. The caller does it atomically: decide, write the budget
//! update if any, then delete the pod (with the `DisruptionTarget` condition, unless dry run).

use super::condition::set_disruption_allowed;
use super::pod_health::{is_pod_ready, is_terminating, pod_name, pod_phase};
use super::refusal::Refusal;
use super::timestamps::whole_seconds;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// Above this many `disruptedPods` entries the apiserver stops approving evictions: too many
/// approvals have not been confirmed by the controller.
const MAX_DISRUPTED_POD_SIZE: usize = 2000;

/// What to do with an eviction request.
#[derive(Clone, Debug, PartialEq)]
pub enum EvictionDecision {
    /// Delete the pod; when `budget_update` is set, write that budget status first, atomically
    /// with the check.
    Allow { budget_update: Option<BudgetUpdate> },
    /// Refuse with this `Status`.
    Refuse(Refusal),
}

/// The status to write to the one budget covering the pod.
#[derive(Clone, Debug, PartialEq)]
pub struct BudgetUpdate {
    pub pdb_name: String,
    pub status: PodDisruptionBudgetStatus,
}

/// Decides an eviction of `pod`, given the budgets in its namespace whose selector matches
/// it:
/// 1. a pod that is `Pending`, `Succeeded`, `Failed` or already terminating is deleted without
///    looking at budgets;
/// 2. no budget → allowed; several → 500;
/// 3. a pod that is not ready is allowed without spending the budget when the budget's
///    `unhealthyPodEvictionPolicy` is `AlwaysAllow`, or (`IfHealthyBudget`, the default) when
///    the budget is currently met (`currentHealthy >= desiredHealthy > 0`);
/// 4. otherwise the budget is checked and decremented: stale status → 429, negative
///    `disruptionsAllowed` or too many pending disruptions → 403, none left → 429; allowed →
///    `disruptionsAllowed − 1` and `disruptedPods[pod] = now` (nothing written on dry run).
pub fn eviction_decision(
    pod: &Pod,
    covering_pdbs: &[&PodDisruptionBudget],
    dry_run: bool,
    now: &Time,
) -> EvictionDecision {
    if can_ignore_budgets(pod) {
        return unbudgeted();
    }
    let pdb = match covering_pdbs {
        [] => return unbudgeted(),
        [pdb] => pdb,
        _ => return EvictionDecision::Refuse(Refusal::several_budgets()),
    };
    if !is_pod_ready(pod) && may_evict_unhealthy_pod(pdb) {
        return unbudgeted();
    }
    if let Some(refusal) = budget_refusal(pdb) {
        return EvictionDecision::Refuse(refusal);
    }
    // A dry run is checked like a real one but spends nothing.
    let budget_update = (!dry_run).then(|| spend_one_disruption(pdb, pod_name(pod), now));
    EvictionDecision::Allow { budget_update }
}

/// Allowed without touching any budget.
fn unbudgeted() -> EvictionDecision {
    EvictionDecision::Allow {
        budget_update: None,
    }
}

/// The pod's eviction causes no further disruption: it has not started, has finished, or is
/// already being deleted. A pod with no phase at all is checked (the API server sets
/// `Pending` on create).
fn can_ignore_budgets(pod: &Pod) -> bool {
    let finished_or_not_started =
        matches!(pod_phase(pod), Some("Pending" | "Succeeded" | "Failed"));
    finished_or_not_started || is_terminating(pod)
}

/// An unready pod does not count towards `currentHealthy`, so deleting it spends nothing.
fn may_evict_unhealthy_pod(pdb: &PodDisruptionBudget) -> bool {
    let policy = pdb
        .spec
        .as_ref()
        .and_then(|spec| spec.unhealthy_pod_eviction_policy.as_deref());
    if policy == Some("AlwaysAllow") {
        return true;
    }
    let status = pdb.status.clone().unwrap_or_default();
    status.current_healthy >= status.desired_healthy && status.desired_healthy > 0
}

/// Why the budget cannot pay for one more disruption, checked in the apiserver's order.
fn budget_refusal(pdb: &PodDisruptionBudget) -> Option<Refusal> {
    let pdb_name = pdb.metadata.name.as_deref().unwrap_or_default();
    let status = pdb.status.clone().unwrap_or_default();
    let pending_disruptions = status.disrupted_pods.as_ref().map_or(0, |pods| pods.len());
    if status.observed_generation.unwrap_or(0) < pdb.metadata.generation.unwrap_or(0) {
        return Some(Refusal::budget_still_processing(pdb_name));
    }
    if status.disruptions_allowed < 0 {
        let problem = "pdb disruptions allowed is negative";
        return Some(Refusal::budget_forbidden(pdb_name, problem));
    }
    if pending_disruptions > MAX_DISRUPTED_POD_SIZE {
        let problem =
            "DisruptedPods map too big - too many evictions not confirmed by PDB controller";
        return Some(Refusal::budget_forbidden(pdb_name, problem));
    }
    if status.disruptions_allowed == 0 {
        let (desired, current) = (status.desired_healthy, status.current_healthy);
        return Some(Refusal::budget_exhausted(pdb_name, desired, current));
    }
    None
}

/// The budget status after approving the eviction: one disruption fewer, and the pod
/// recorded so the controller does not count it as healthy while its deletion is pending.
fn spend_one_disruption(pdb: &PodDisruptionBudget, pod_name: &str, now: &Time) -> BudgetUpdate {
    let mut status = pdb.status.clone().unwrap_or_default();
    status.disruptions_allowed -= 1;
    if status.disruptions_allowed == 0 {
        set_disruption_allowed(&mut status, now);
    }
    let disrupted = status.disrupted_pods.get_or_insert_with(Default::default);
    disrupted.insert(pod_name.to_string(), whole_seconds(now));
    let pdb_name = pdb.metadata.name.clone().unwrap_or_default();
    BudgetUpdate { pdb_name, status }
}

#[cfg(test)]
#[path = "eviction_tests.rs"]
mod tests;
