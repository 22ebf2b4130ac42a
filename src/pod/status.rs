//! §2 Status writes: our conditions merged into a status that external controllers write too
//! (gates, the `ExternalEvacuation` verdict). The executor reads the status, applies the change
//! with [`apply`] and writes it back with the resourceVersion it read.
//!
//! The rules, Koordinator's `UpdateCondition` plus ours:
//! - a condition keeps its place; a new one is appended (first-appearance order);
//! - `lastTransitionTime` moves only when the condition's status does;
//! - conditions we were not asked to change, ours or not, are kept exactly;
//! - an external controller's `ExternalEvacuation` verdict (`True`/`False`) is never overwritten;
//! - `status.status/reason/message` mirror the last condition the change actually changed,
//!   then the change's own `status`/`reason`/`message` apply (abort paths set no `status`, so
//!   it keeps the last step the job reached).

use super::messages::EXTERNAL_EVACUATION;
use super::step::{StatusChange, WantedCondition};
use crate::api::migration::{PodMigrationJobCondition, PodMigrationJobStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;

/// The status after applying `change` to `current` at `now`.
pub fn apply(
    current: Option<&PodMigrationJobStatus>,
    change: &StatusChange,
    now: Timestamp,
) -> PodMigrationJobStatus {
    let mut status = current.cloned().unwrap_or_default();
    let mut last_changed = None;
    for wanted in &change.conditions {
        if upsert(&mut status.conditions, wanted, now) {
            last_changed = Some(wanted);
        }
    }
    if let Some(c) = last_changed {
        status.status = Some(c.type_.to_string());
        status.reason = non_empty(&c.reason);
        status.message = non_empty(&c.message);
    }
    if let Some(phase) = &change.phase {
        status.phase = Some(phase.clone());
    }
    if let Some(s) = &change.status {
        status.status = non_empty(s);
    }
    if let Some(reason) = &change.reason {
        status.reason = non_empty(reason);
    }
    if let Some(message) = &change.message {
        status.message = non_empty(message);
    }
    if let Some(node) = &change.node_name {
        status.node_name = non_empty(node);
    }
    status
}

/// Inserts or updates one condition; true if anything changed.
fn upsert(
    conditions: &mut Vec<PodMigrationJobCondition>,
    wanted: &WantedCondition,
    now: Timestamp,
) -> bool {
    let Some(existing) = conditions.iter_mut().find(|c| c.type_ == wanted.type_) else {
        conditions.push(PodMigrationJobCondition {
            type_: wanted.type_.to_string(),
            status: wanted.status.to_string(),
            last_probe_time: None,
            last_transition_time: Some(Time(now)),
            reason: non_empty(&wanted.reason),
            message: non_empty(&wanted.message),
        });
        return true;
    };
    // The external controller's answer is its own (§4 External step 3).
    if existing.type_ == EXTERNAL_EVACUATION && existing.status != "Unknown" {
        return false;
    }
    let reason = non_empty(&wanted.reason);
    let message = non_empty(&wanted.message);
    if existing.status == wanted.status && existing.reason == reason && existing.message == message
    {
        return false;
    }
    if existing.status != wanted.status {
        existing.last_transition_time = Some(Time(now));
    }
    existing.status = wanted.status.to_string();
    existing.reason = reason;
    existing.message = message;
    true
}

/// Go writes empty strings with `omitempty`, that is not at all; so do we, so that a status
/// we wrote reads the same to Koordinator's clients.
fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::migration::PodMigrationJobPhase;

    const T0: &str = "2026-01-01T00:00:00Z";
    const T1: &str = "2026-01-01T00:05:00Z";

    fn t(s: &str) -> Timestamp {
        s.parse().expect("time")
    }

    fn cond(
        type_: &str,
        status: &str,
        reason: &str,
        message: &str,
        at: &str,
    ) -> PodMigrationJobCondition {
        PodMigrationJobCondition {
            type_: type_.into(),
            status: status.into(),
            last_probe_time: None,
            last_transition_time: Some(Time(t(at))),
            reason: non_empty(reason),
            message: non_empty(message),
        }
    }

    fn want(
        type_: &'static str,
        status: &'static str,
        reason: &str,
        message: &str,
    ) -> WantedCondition {
        WantedCondition::new(type_, status, reason, message)
    }

    /// (type, status, reason, lastTransitionTime) of each condition, in order.
    type Seen = Vec<(String, String, Option<String>, Timestamp)>;

    fn seen(status: &PodMigrationJobStatus) -> Seen {
        status
            .conditions
            .iter()
            .map(|c| {
                let at = c
                    .last_transition_time
                    .as_ref()
                    .map_or(Timestamp::UNIX_EPOCH, |t| t.0);
                (c.type_.clone(), c.status.clone(), c.reason.clone(), at)
            })
            .collect()
    }

    fn row(
        type_: &str,
        status: &str,
        reason: &str,
        at: &str,
    ) -> (String, String, Option<String>, Timestamp) {
        (type_.into(), status.into(), non_empty(reason), t(at))
    }

    #[test]
    fn condition_upsert_table() {
        let gate = cond("TrafficDrained", "True", "Drained", "ok", T0);
        type Row<'a> = (
            &'a str,
            Vec<PodMigrationJobCondition>,
            Vec<WantedCondition>,
            Seen,
        );
        let rows: Vec<Row> = vec![
            (
                "a new condition is appended with lastTransitionTime now",
                vec![],
                vec![want("Eviction", "False", "Evicting", "m")],
                vec![row("Eviction", "False", "Evicting", T1)],
            ),
            (
                "a gate condition we do not own keeps its place and fields",
                vec![gate.clone()],
                vec![want("Eviction", "False", "Evicting", "m")],
                vec![
                    row("TrafficDrained", "True", "Drained", T0),
                    row("Eviction", "False", "Evicting", T1),
                ],
            ),
            (
                "an updated condition keeps its first-appearance place",
                vec![cond("Eviction", "False", "Evicting", "m", T0), gate.clone()],
                vec![want("Eviction", "True", "EvictComplete", "done")],
                // The status changed (False → True): lastTransitionTime moves.
                vec![
                    row("Eviction", "True", "EvictComplete", T1),
                    row("TrafficDrained", "True", "Drained", T0),
                ],
            ),
            (
                "same status: lastTransitionTime stays while the reason changes",
                vec![cond("Eviction", "False", "Evicting", "m", T0)],
                vec![want("Eviction", "False", "Retrying", "m2")],
                vec![row("Eviction", "False", "Retrying", T0)],
            ),
            (
                "the same condition again changes nothing",
                vec![cond("ExternalEvacuation", "Unknown", "Requested", "m", T0)],
                vec![want("ExternalEvacuation", "Unknown", "Requested", "m")],
                vec![row("ExternalEvacuation", "Unknown", "Requested", T0)],
            ),
            (
                "the external True verdict is never overwritten",
                vec![cond("ExternalEvacuation", "True", "Done", "m", T0)],
                vec![want("ExternalEvacuation", "Unknown", "Requested", "m")],
                vec![row("ExternalEvacuation", "True", "Done", T0)],
            ),
            (
                "the external False verdict is never overwritten",
                vec![cond("ExternalEvacuation", "False", "GaveUp", "m", T0)],
                vec![want("ExternalEvacuation", "Unknown", "Requested", "m")],
                vec![row("ExternalEvacuation", "False", "GaveUp", T0)],
            ),
            (
                "several conditions are upserted in order",
                vec![],
                vec![
                    want("ExternalEvacuation", "Unknown", "Requested", "a"),
                    want("Eviction", "False", "Evicting", "b"),
                ],
                vec![
                    row("ExternalEvacuation", "Unknown", "Requested", T1),
                    row("Eviction", "False", "Evicting", T1),
                ],
            ),
        ];
        for (rule, current, wanted, expected) in rows {
            let current = PodMigrationJobStatus {
                conditions: current,
                ..Default::default()
            };
            let change = StatusChange {
                conditions: wanted,
                ..Default::default()
            };
            assert_eq!(
                seen(&apply(Some(&current), &change, t(T1))),
                expected,
                "rule: {rule}"
            );
        }
    }

    /// (phase, status, reason, message) after the change.
    type Summary = (
        Option<PodMigrationJobPhase>,
        Option<String>,
        Option<String>,
        Option<String>,
    );

    fn summary(s: &PodMigrationJobStatus) -> Summary {
        (
            s.phase.clone(),
            s.status.clone(),
            s.reason.clone(),
            s.message.clone(),
        )
    }

    fn some(s: &str) -> Option<String> {
        Some(s.to_string())
    }

    #[test]
    fn summary_fields_table() {
        use PodMigrationJobPhase::*;
        let evicting = PodMigrationJobStatus {
            phase: Some(Running),
            status: some("Eviction"),
            reason: some("Evicting"),
            message: some("evicting"),
            conditions: vec![cond("Eviction", "False", "Evicting", "evicting", T0)],
            ..Default::default()
        };
        let waiting = PodMigrationJobStatus {
            phase: Some(Running),
            status: some("WaitForEvictionConditions"),
            reason: some("WaitForEvictionConditions"),
            message: some("Waiting for eviction conditions \"A\""),
            ..Default::default()
        };
        type Row<'a> = (&'a str, PodMigrationJobStatus, StatusChange, Summary);
        let rows: Vec<Row> = vec![
            (
                "status/reason/message mirror the condition that changed",
                waiting.clone(),
                StatusChange {
                    conditions: vec![want("Eviction", "False", "Evicting", "evicting")],
                    ..Default::default()
                },
                (
                    Some(Running),
                    some("Eviction"),
                    some("Evicting"),
                    some("evicting"),
                ),
            ),
            (
                "an unchanged condition does not overwrite the summary",
                PodMigrationJobStatus {
                    status: some("WaitForEvictionConditions"),
                    ..evicting.clone()
                },
                StatusChange {
                    conditions: vec![want("Eviction", "False", "Evicting", "evicting")],
                    ..Default::default()
                },
                (
                    Some(Running),
                    some("WaitForEvictionConditions"),
                    some("Evicting"),
                    some("evicting"),
                ),
            ),
            (
                "abort: phase, reason and message set, status.status left as it was",
                evicting.clone(),
                StatusChange {
                    phase: Some(Failed),
                    reason: some("Timeout"),
                    message: some("Abort job caused by timeout"),
                    ..Default::default()
                },
                (
                    Some(Failed),
                    some("Eviction"),
                    some("Timeout"),
                    some("Abort job caused by timeout"),
                ),
            ),
            (
                "abort of a job that never had a status keeps status.status absent",
                PodMigrationJobStatus::default(),
                StatusChange {
                    phase: Some(Failed),
                    reason: some("MissingPod"),
                    message: some("gone"),
                    ..Default::default()
                },
                (Some(Failed), None, some("MissingPod"), some("gone")),
            ),
            (
                "success: condition mirrored, then Complete with the reason cleared",
                evicting.clone(),
                StatusChange {
                    phase: Some(Succeeded),
                    conditions: vec![want("Eviction", "True", "EvictComplete", "evicted")],
                    status: some("Complete"),
                    reason: some(""),
                    message: some("evicted"),
                    node_name: None,
                },
                (Some(Succeeded), some("Complete"), None, some("evicted")),
            ),
            (
                "phase only: the summary is untouched",
                waiting.clone(),
                StatusChange {
                    phase: Some(Succeeded),
                    ..Default::default()
                },
                (
                    Some(Succeeded),
                    some("WaitForEvictionConditions"),
                    some("WaitForEvictionConditions"),
                    some("Waiting for eviction conditions \"A\""),
                ),
            ),
        ];
        for (rule, current, change, expected) in rows {
            assert_eq!(
                summary(&apply(Some(&current), &change, t(T1))),
                expected,
                "rule: {rule}"
            );
        }
    }

    #[test]
    fn applying_the_same_change_twice_changes_nothing() {
        let change = StatusChange {
            conditions: vec![want("Eviction", "False", "Evicting", "m")],
            ..Default::default()
        };
        let first = apply(None, &change, t(T0));
        assert_eq!(apply(Some(&first), &change, t(T1)), first);
    }

    #[test]
    fn fields_other_than_ours_are_kept() {
        let current = PodMigrationJobStatus {
            node_name: some("node-b"),
            preempted_pods_ref: vec![Default::default()],
            ..Default::default()
        };
        let change = StatusChange {
            phase: Some(PodMigrationJobPhase::Running),
            ..Default::default()
        };
        let after = apply(Some(&current), &change, t(T1));
        assert_eq!(after.node_name, current.node_name);
        assert_eq!(after.preempted_pods_ref, current.preempted_pods_ref);
    }
}
