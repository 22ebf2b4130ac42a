//! The conditions the stand-in writes, with KubeFleet's condition types and reason strings
//! (KubeFleet `apis/placement/v1beta1/binding_types.go` and `pkg/utils/condition/reason.go`,
//! as set by its rollout controller and work generator). Messages are ours.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

pub const ROLLOUT_STARTED: &str = "RolloutStarted";
pub const OVERRIDDEN: &str = "Overridden";
pub const WORK_SYNCHRONIZED: &str = "WorkSynchronized";
pub const APPLIED: &str = "Applied";
pub const AVAILABLE: &str = "Available";
/// The placement's condition the scheduler sets once it has made its decisions.
pub const CRP_SCHEDULED: &str = "ClusterResourcePlacementScheduled";

pub const REASON_ROLLOUT_STARTED: &str = "RolloutStarted";
/// Overridden=True when the binding names no override snapshots.
pub const REASON_NO_OVERRIDE: &str = "NoOverrideSpecified";
pub const REASON_ALL_WORK_SYNCED: &str = "AllWorkSynced";
pub const REASON_ALL_APPLIED: &str = "AllWorkHaveBeenApplied";
pub const REASON_NOT_ALL_APPLIED: &str = "NotAllWorkHaveBeenApplied";
pub const REASON_ALL_AVAILABLE: &str = "AllWorkAreAvailable";
pub const REASON_NOT_ALL_AVAILABLE: &str = "NotAllWorkAreAvailable";
pub const REASON_SCHEDULE_SUCCEEDED: &str = "ScheduleSucceeded";

/// Whether every placed object exists on the member as we want it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applied {
    All,
    /// The first failure, for the message.
    NotAll(String),
}

/// Whether every placed workload has its replicas ready on the member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Availability {
    All,
    /// The first workload short of ready replicas, for the message.
    NotAll(String),
}

/// What one look at the member found. `available` is only looked at once all is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Observed {
    pub applied: Applied,
    pub available: Option<Availability>,
}

/// A condition stamped now, for the object's current generation.
pub fn condition(
    type_: &str,
    status: bool,
    reason: &str,
    message: String,
    generation: i64,
    now: Timestamp,
) -> Condition {
    Condition {
        type_: type_.into(),
        status: if status { "True" } else { "False" }.into(),
        reason: reason.into(),
        message,
        observed_generation: Some(generation),
        last_transition_time: Time(whole_seconds(now)),
    }
}

/// The wire form keeps whole seconds; stamping them keeps a re-read equal to what we wrote.
fn whole_seconds(now: Timestamp) -> Timestamp {
    Timestamp::from_second(now.as_second()).unwrap_or(now)
}

/// `meta.SetStatusCondition`: adds or updates the condition of that type; its
/// lastTransitionTime moves only when the status changes.
pub fn set_condition(conditions: &mut Vec<Condition>, new: Condition) {
    match conditions.iter_mut().find(|c| c.type_ == new.type_) {
        Some(existing) => {
            if existing.status != new.status {
                existing.last_transition_time = new.last_transition_time;
            }
            existing.status = new.status;
            existing.reason = new.reason;
            existing.message = new.message;
            existing.observed_generation = new.observed_generation;
        }
        None => conditions.push(new),
    }
}

/// The binding's conditions after an observation: ours replaced, every other type kept.
/// Like KubeFleet, `Available` is only reported while `Applied` is True.
pub fn binding_conditions(
    existing: &[Condition],
    generation: i64,
    observed: &Observed,
    now: Timestamp,
) -> Vec<Condition> {
    let mut conditions = existing.to_vec();
    let stamp = |type_: &str, status: bool, reason: &str, message: &str| {
        condition(type_, status, reason, message.into(), generation, now)
    };
    let fixed = [
        stamp(
            ROLLOUT_STARTED,
            true,
            REASON_ROLLOUT_STARTED,
            "The binding carries the placement's latest resources",
        ),
        stamp(
            OVERRIDDEN,
            true,
            REASON_NO_OVERRIDE,
            "The placement has no overrides",
        ),
        stamp(
            WORK_SYNCHRONIZED,
            true,
            REASON_ALL_WORK_SYNCED,
            "The placed resources are up to date for the member",
        ),
    ];
    for c in fixed {
        set_condition(&mut conditions, c);
    }
    set_condition(
        &mut conditions,
        applied_condition(&observed.applied, &stamp),
    );
    match (&observed.applied, &observed.available) {
        (Applied::All, Some(availability)) => {
            set_condition(&mut conditions, available_condition(availability, &stamp));
        }
        _ => conditions.retain(|c| c.type_ != AVAILABLE),
    }
    conditions
}

fn applied_condition(
    applied: &Applied,
    stamp: &impl Fn(&str, bool, &str, &str) -> Condition,
) -> Condition {
    match applied {
        Applied::All => stamp(
            APPLIED,
            true,
            REASON_ALL_APPLIED,
            "All placed resources exist on the member",
        ),
        Applied::NotAll(why) => stamp(APPLIED, false, REASON_NOT_ALL_APPLIED, why),
    }
}

fn available_condition(
    availability: &Availability,
    stamp: &impl Fn(&str, bool, &str, &str) -> Condition,
) -> Condition {
    match availability {
        Availability::All => stamp(
            AVAILABLE,
            true,
            REASON_ALL_AVAILABLE,
            "All placed workloads have their replicas ready on the member",
        ),
        Availability::NotAll(why) => stamp(AVAILABLE, false, REASON_NOT_ALL_AVAILABLE, why),
    }
}

#[cfg(test)]
#[path = "conditions_tests.rs"]
mod tests;
