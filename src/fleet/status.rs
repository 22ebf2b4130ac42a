//! §5.4 Status writes: our conditions merged into a status other controllers write too.
//! Conditions we do not own (gates, an external controller's `ExternalEvacuation` verdict)
//! are kept exactly; ours are upserted in place, new ones appended, and `lastTransitionTime`
//! moves only when a condition's status does.

use super::messages::EXTERNAL_EVACUATION;
use super::step::{Note, ReservationChange, StatusUpdate};
use crate::api::eviction::{EvictionStatus, Reservation, TargetBinding};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::jiff::Timestamp;

/// The status after applying `update` to `current`.
pub fn merge(
    current: Option<&EvictionStatus>,
    update: &StatusUpdate,
    generation: i64,
    now: Timestamp,
) -> EvictionStatus {
    let mut status = current.cloned().unwrap_or_default();
    for wanted in &update.conditions {
        let existing = status
            .conditions
            .iter_mut()
            .find(|c| c.type_ == wanted.type_);
        match existing {
            // The external controller's verdict is never overwritten (§5.2).
            Some(c) if c.type_ == EXTERNAL_EVACUATION && c.status != "Unknown" => {}
            Some(c) => {
                if c.status != wanted.status {
                    c.last_transition_time = Time(now);
                }
                c.status = wanted.status.to_string();
                c.reason = wanted.reason.clone();
                c.message = wanted.message.clone();
                c.observed_generation = Some(generation);
            }
            None => status.conditions.push(Condition {
                type_: wanted.type_.to_string(),
                status: wanted.status.to_string(),
                reason: wanted.reason.clone(),
                message: wanted.message.clone(),
                observed_generation: Some(generation),
                last_transition_time: Time(now),
            }),
        }
    }
    if let Some((name, uid)) = &update.target {
        status.target_binding = Some(TargetBinding {
            name: name.clone(),
            uid: uid.clone(),
        });
    }
    match &update.reservation {
        ReservationChange::Keep => {}
        ReservationChange::Reserve(binding) => {
            if status
                .reservation
                .as_ref()
                .is_none_or(|r| &r.binding != binding)
            {
                status.reservation = Some(Reservation {
                    binding: binding.clone(),
                    reserved_at: Time(now),
                });
            }
        }
        ReservationChange::Release => status.reservation = None,
    }
    if let Some(deadline) = update.deadline {
        status.deadline = Some(Time(deadline));
    }
    status
}

/// Whether the write changed what `note` reports (its condition's status or reason), so
/// that an Event is recorded once per change and not on every re-decision.
pub fn note_applies(note: &Note, before: Option<&EvictionStatus>, after: &EvictionStatus) -> bool {
    let find = |s: Option<&EvictionStatus>| {
        s.and_then(|s| s.conditions.iter().find(|c| c.type_ == note.about))
            .map(|c| (c.status.clone(), c.reason.clone()))
    };
    find(before) != find(Some(after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::step::WantedCondition;

    fn t(s: &str) -> Timestamp {
        s.parse().expect("time")
    }

    fn cond(type_: &str, status: &str, reason: &str, at: &str) -> Condition {
        Condition {
            type_: type_.into(),
            status: status.into(),
            reason: reason.into(),
            message: format!("{type_} message"),
            observed_generation: Some(1),
            last_transition_time: Time(t(at)),
        }
    }

    fn update(conditions: Vec<WantedCondition>) -> StatusUpdate {
        StatusUpdate::new(conditions)
    }

    const T0: &str = "2026-01-01T00:00:00Z";
    const T1: &str = "2026-01-01T00:05:00Z";

    #[test]
    fn merge_table() {
        let gate = cond("TrafficShifted", "True", "Shifted", T0);
        type Row<'a> = (
            &'a str,
            Vec<Condition>,
            Vec<WantedCondition>,
            Vec<(&'a str, &'a str, &'a str, &'a str)>,
        );
        let rows: Vec<Row> = vec![
            (
                "new conditions are appended in order",
                vec![],
                vec![
                    WantedCondition::new("Valid", "True", "V", "ok"),
                    WantedCondition::new("Executed", "True", "E", "done"),
                ],
                vec![("Valid", "True", "V", T1), ("Executed", "True", "E", T1)],
            ),
            (
                "a foreign gate condition is kept in place",
                vec![cond("Valid", "True", "V", T0), gate.clone()],
                vec![WantedCondition::new(
                    "Progressing",
                    "True",
                    "WaitingForConditions",
                    "m",
                )],
                vec![
                    ("Valid", "True", "V", T0),
                    ("TrafficShifted", "True", "Shifted", T0),
                    ("Progressing", "True", "WaitingForConditions", T1),
                ],
            ),
            (
                "same status keeps lastTransitionTime, reason changes",
                vec![cond("Progressing", "True", "WaitingForBudget", T0)],
                vec![WantedCondition::new(
                    "Progressing",
                    "True",
                    "WaitingForConditions",
                    "m",
                )],
                vec![("Progressing", "True", "WaitingForConditions", T0)],
            ),
            (
                "status change moves lastTransitionTime",
                vec![cond("Progressing", "True", "WaitingForBudget", T0)],
                vec![WantedCondition::new(
                    "Progressing",
                    "False",
                    "Succeeded",
                    "m",
                )],
                vec![("Progressing", "False", "Succeeded", T1)],
            ),
            (
                "an external True on ExternalEvacuation is never overwritten",
                vec![cond("ExternalEvacuation", "True", "Done", T0)],
                vec![WantedCondition::new(
                    "ExternalEvacuation",
                    "Unknown",
                    "Requested",
                    "m",
                )],
                vec![("ExternalEvacuation", "True", "Done", T0)],
            ),
            (
                "an external False on ExternalEvacuation is never overwritten",
                vec![cond("ExternalEvacuation", "False", "GaveUp", T0)],
                vec![WantedCondition::new(
                    "ExternalEvacuation",
                    "Unknown",
                    "Requested",
                    "m",
                )],
                vec![("ExternalEvacuation", "False", "GaveUp", T0)],
            ),
        ];
        for (rule, current, wanted, want) in rows {
            let current = EvictionStatus {
                conditions: current,
                ..Default::default()
            };
            let merged = merge(Some(&current), &update(wanted), 1, t(T1));
            let got: Vec<(String, String, String, Timestamp)> = merged
                .conditions
                .iter()
                .map(|c| {
                    (
                        c.type_.clone(),
                        c.status.clone(),
                        c.reason.clone(),
                        c.last_transition_time.0,
                    )
                })
                .collect();
            let want: Vec<(String, String, String, Timestamp)> = want
                .into_iter()
                .map(|(a, b, c, d)| (a.into(), b.into(), c.into(), t(d)))
                .collect();
            assert_eq!(got, want, "rule: {rule}");
        }
    }

    #[test]
    fn reservation_keeps_its_time_and_releases() {
        let mut u = update(vec![]);
        u.reservation = ReservationChange::Reserve("b1".into());
        let first = merge(None, &u, 1, t(T0));
        let again = merge(Some(&first), &u, 1, t(T1));
        assert_eq!(
            again.reservation, first.reservation,
            "re-reserving keeps reservedAt"
        );
        assert_eq!(
            first.reservation.as_ref().map(|r| r.reserved_at.0),
            Some(t(T0))
        );
        u.reservation = ReservationChange::Release;
        assert_eq!(merge(Some(&again), &u, 1, t(T1)).reservation, None);
    }

    #[test]
    fn notes_fire_once_per_change() {
        let note = Note {
            warning: false,
            about: "Progressing",
            reason: "WaitingForConditions".into(),
            message: "m".into(),
        };
        let u = update(vec![WantedCondition::new(
            "Progressing",
            "True",
            "WaitingForConditions",
            "m",
        )]);
        let first = merge(None, &u, 1, t(T0));
        assert!(note_applies(&note, None, &first));
        let second = merge(Some(&first), &u, 1, t(T1));
        assert!(!note_applies(&note, Some(&first), &second));
    }
}
