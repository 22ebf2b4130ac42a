//! The budget's `DisruptionAllowed` condition, set the way `apimeta.SetStatusCondition` sets
//! conditions: `lastTransitionTime` moves only when the status changes.

use super::timestamps::whole_seconds;
use k8s_openapi::api::policy::v1::PodDisruptionBudgetStatus;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};

pub(super) const DISRUPTION_ALLOWED: &str = "DisruptionAllowed";
pub(super) const SUFFICIENT_PODS: &str = "SufficientPods";
pub(super) const INSUFFICIENT_PODS: &str = "InsufficientPods";
pub(super) const SYNC_FAILED: &str = "SyncFailed";

/// `UpdateDisruptionAllowedCondition`: True/`SufficientPods` while disruptions are allowed,
/// False/`InsufficientPods` otherwise; the condition's `observedGeneration` is the status's.
pub(super) fn set_disruption_allowed(status: &mut PodDisruptionBudgetStatus, now: &Time) {
    let (condition_status, reason) = if status.disruptions_allowed > 0 {
        ("True", SUFFICIENT_PODS)
    } else {
        ("False", INSUFFICIENT_PODS)
    };
    let generation = status.observed_generation;
    set_condition(
        status,
        condition_status,
        reason,
        String::new(),
        generation,
        now,
    );
}

/// The controller's fail-safe: False/`SyncFailed` with the error text as the message.
pub(super) fn set_sync_failed(status: &mut PodDisruptionBudgetStatus, message: String, now: &Time) {
    let generation = status.observed_generation;
    set_condition(status, "False", SYNC_FAILED, message, generation, now);
}

fn set_condition(
    status: &mut PodDisruptionBudgetStatus,
    condition_status: &str,
    reason: &str,
    message: String,
    observed_generation: Option<i64>,
    now: &Time,
) {
    // Go omits a zero observedGeneration.
    let observed_generation = observed_generation.filter(|generation| *generation != 0);
    let conditions = status.conditions.get_or_insert_with(Vec::new);
    let existing = conditions
        .iter_mut()
        .find(|condition| condition.type_ == DISRUPTION_ALLOWED);
    let Some(existing) = existing else {
        conditions.push(Condition {
            type_: DISRUPTION_ALLOWED.to_string(),
            status: condition_status.to_string(),
            reason: reason.to_string(),
            message,
            observed_generation,
            last_transition_time: whole_seconds(now),
        });
        return;
    };
    if existing.status != condition_status {
        existing.status = condition_status.to_string();
        existing.last_transition_time = whole_seconds(now);
    }
    existing.reason = reason.to_string();
    existing.message = message;
    existing.observed_generation = observed_generation;
}
