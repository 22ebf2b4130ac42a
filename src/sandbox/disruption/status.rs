//! A budget's status as the disruption controller writes it after a sync.

use super::condition::{DISRUPTION_ALLOWED, INSUFFICIENT_PODS, SUFFICIENT_PODS};
use super::condition::{set_disruption_allowed, set_sync_failed};
use super::disrupted_pods::{count_healthy, kept_disruptions};
use super::expected_pods::{BudgetError, BudgetTarget, ControllerScales, expected_pods};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;

/// The status the controller would write for `pdb`, given the pods its selector matches (in
/// its namespace), the scale of their controllers, the time, and the status stored so far
/// (`previous`; its `disruptedPods` and conditions carry over).
///
/// When the expected count cannot be computed (a pod's controller is unknown, a malformed
/// percentage), the result is the controller's fail-safe: the previous status with
/// `disruptionsAllowed: 0` and `DisruptionAllowed` False/`SyncFailed` — `observedGeneration`
/// is not advanced, so evictions get 429 until the budget is fixed.
///
/// When nothing changed, `previous` comes back unchanged, so the caller can skip the write.
pub fn pdb_status(
    pdb: &PodDisruptionBudget,
    selected_pods: &[&Pod],
    scales: &ControllerScales,
    now: &Time,
    previous: Option<&PodDisruptionBudgetStatus>,
) -> PodDisruptionBudgetStatus {
    let previous = previous.cloned().unwrap_or_default();
    match expected_pods(pdb, selected_pods, scales) {
        Ok(target) => synced_status(pdb, target, selected_pods, previous, now),
        Err(error) => fail_safe_status(previous, &error, now),
    }
}

fn synced_status(
    pdb: &PodDisruptionBudget,
    target: BudgetTarget,
    pods: &[&Pod],
    previous: PodDisruptionBudgetStatus,
    now: &Time,
) -> PodDisruptionBudgetStatus {
    let disruptions = kept_disruptions(previous.disrupted_pods.as_ref(), pods, now);
    let current_healthy = count_healthy(pods, &disruptions, now);
    let mut status = PodDisruptionBudgetStatus {
        current_healthy,
        desired_healthy: target.desired_healthy,
        expected_pods: target.expected_pods,
        disruptions_allowed: disruptions_allowed(target, current_healthy),
        // An empty map is omitted on the wire.
        disrupted_pods: (!disruptions.is_empty()).then_some(disruptions),
        observed_generation: pdb
            .metadata
            .generation
            .filter(|generation| *generation != 0),
        conditions: previous.conditions.clone(),
    };
    if status == previous && condition_is_up_to_date(&status) {
        return previous;
    }
    set_disruption_allowed(&mut status, now);
    status
}

/// Healthy pods beyond the desired count, never negative, and 0 while the budget expects no
/// pods: a budget whose first pods appear must not allow disruptions before it is synced.
fn disruptions_allowed(target: BudgetTarget, current_healthy: i32) -> i32 {
    if target.expected_pods <= 0 {
        return 0;
    }
    current_healthy
        .saturating_sub(target.desired_healthy)
        .max(0)
}

/// `ConditionsAreUpToDate`: the condition exists with the status and reason that match
/// `disruptionsAllowed`.
fn condition_is_up_to_date(status: &PodDisruptionBudgetStatus) -> bool {
    let conditions = status.conditions.as_deref().unwrap_or_default();
    let Some(condition) = conditions.iter().find(|c| c.type_ == DISRUPTION_ALLOWED) else {
        return false;
    };
    if status.disruptions_allowed > 0 {
        condition.status == "True" && condition.reason == SUFFICIENT_PODS
    } else {
        condition.status == "False" && condition.reason == INSUFFICIENT_PODS
    }
}

fn fail_safe_status(
    mut status: PodDisruptionBudgetStatus,
    error: &BudgetError,
    now: &Time,
) -> PodDisruptionBudgetStatus {
    status.disruptions_allowed = 0;
    set_sync_failed(&mut status, error.to_string(), now);
    status
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
