//! `setCondition`: what an external controller does to open a gate. A read-modify-write of
//! `status.conditions` through the status subresource, guarded by `resourceVersion`, that
//! keeps every other condition (fleet-eviction.md §5.4 asks the same of our controller; a
//! merge patch would replace the whole list and could drop a condition written meanwhile).

use super::objects::{Clusters, describe_error, display_name, name_of};
use super::retry::{ACTION_DEADLINE, RETRY_PAUSE, is_transient, retry_while_busy};
use super::step_args::SetCondition;
use crate::runtime::clock::rfc3339_seconds;
use k8s_openapi::jiff::Timestamp;
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

pub async fn run(
    clusters: &Clusters<'_>,
    cluster: &str,
    set: &SetCondition,
) -> Result<String, String> {
    let found = clusters.find(cluster, &set.target).await?;
    let [object] = found.as_slice() else {
        return Err(match found.len() {
            0 => "no object matches".to_string(),
            n => format!(
                "{n} objects match ({}); setCondition writes one: name it",
                found
                    .iter()
                    .map(display_name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        });
    };
    let (kind, _) = clusters.selection(cluster, &set.target).await?;
    let namespace = object["metadata"]["namespace"].as_str();
    let api = clusters.api(cluster, &kind, namespace)?;
    let name = name_of(object);
    let deadline = tokio::time::Instant::now() + ACTION_DEADLINE;
    loop {
        let current = retry_while_busy(|| api.get(&name))
            .await
            .map_err(|e| describe_error(&e))?;
        let mut value = serde_json::to_value(&current).map_err(|e| e.to_string())?;
        let generation = value["metadata"]["generation"].as_i64();
        let now = clusters.fleet().clock.now();
        let conditions = value["status"]["conditions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        value["status"]["conditions"] =
            Value::Array(with_condition(conditions, set, generation, now));
        let updated: DynamicObject = serde_json::from_value(value).map_err(|e| e.to_string())?;
        let pp = PostParams::default();
        let written = if kind.has_status {
            api.replace_status(&name, &pp, &updated).await
        } else {
            api.replace(&name, &pp, &updated).await
        };
        match written {
            Ok(_) => {
                return Ok(format!(
                    "{}: {}={}",
                    display_name(object),
                    set.type_,
                    set.status.as_str()
                ));
            }
            // Someone else wrote in between (409), or the server is busy: read again and
            // re-apply, as a controller must.
            Err(e) if is_transient(&e) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            Err(e) => return Err(describe_error(&e)),
        }
    }
}

/// `conditions` with the step's condition set as `meta.SetStatusCondition` does: the others
/// kept as they are; `lastTransitionTime` moves only when the status changes.
pub fn with_condition(
    mut conditions: Vec<Value>,
    set: &SetCondition,
    generation: Option<i64>,
    now: Timestamp,
) -> Vec<Value> {
    let status = set.status.as_str();
    let mut new = json!({
        "type": set.type_,
        "status": status,
        "reason": set.reason,
        "message": set.message,
        "lastTransitionTime": rfc3339_seconds(now),
    });
    if let Some(generation) = generation {
        new["observedGeneration"] = json!(generation);
    }
    match conditions
        .iter_mut()
        .find(|c| c["type"] == set.type_.as_str())
    {
        Some(existing) => {
            if existing["status"] == status {
                new["lastTransitionTime"] = existing["lastTransitionTime"].clone();
            }
            *existing = new;
        }
        None => conditions.push(new),
    }
    conditions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::scenario::format::ConditionStatus;
    use crate::sandbox::scenario::step_args::Target;

    fn set(type_: &str, status: ConditionStatus) -> SetCondition {
        SetCondition {
            target: Target::default(),
            type_: type_.into(),
            status,
            reason: "Shifted".into(),
            message: "traffic moved".into(),
        }
    }

    fn condition(type_: &str, status: &str, at: &str) -> Value {
        json!({"type": type_, "status": status, "reason": "Before", "message": "before", "lastTransitionTime": at})
    }

    #[test]
    fn the_gate_is_set_and_the_other_conditions_stay() {
        let now: Timestamp = "2026-03-01T10:00:00Z".parse().expect("time");
        let before = "2026-03-01T09:00:00Z";
        let valid = condition("Valid", "True", before);
        let progressing = condition("Progressing", "True", before);
        // (rule, conditions before, status set, (type, status, lastTransitionTime) after)
        type Row<'a> = (
            &'a str,
            Vec<Value>,
            ConditionStatus,
            Vec<(&'a str, &'a str, &'a str)>,
        );
        let rows: [Row; 3] = [
            (
                "added after the controller's conditions",
                vec![valid.clone(), progressing.clone()],
                ConditionStatus::True,
                vec![
                    ("Valid", "True", before),
                    ("Progressing", "True", before),
                    ("TrafficShifted", "True", "2026-03-01T10:00:00Z"),
                ],
            ),
            (
                "a status change moves lastTransitionTime",
                vec![
                    valid.clone(),
                    condition("TrafficShifted", "Unknown", before),
                ],
                ConditionStatus::True,
                vec![
                    ("Valid", "True", before),
                    ("TrafficShifted", "True", "2026-03-01T10:00:00Z"),
                ],
            ),
            (
                "the same status keeps lastTransitionTime",
                vec![condition("TrafficShifted", "True", before), valid.clone()],
                ConditionStatus::True,
                vec![
                    ("TrafficShifted", "True", before),
                    ("Valid", "True", before),
                ],
            ),
        ];
        for (rule, conditions, status, want) in rows {
            let got = with_condition(conditions, &set("TrafficShifted", status), Some(3), now);
            let got: Vec<(&str, &str, &str)> = got
                .iter()
                .map(|c| {
                    (
                        c["type"].as_str().unwrap_or_default(),
                        c["status"].as_str().unwrap_or_default(),
                        c["lastTransitionTime"].as_str().unwrap_or_default(),
                    )
                })
                .collect();
            assert_eq!(got, want, "{rule}");
        }
    }

    #[test]
    fn the_written_condition_carries_reason_message_and_generation() {
        let now: Timestamp = "2026-03-01T10:00:00Z".parse().expect("time");
        let got = with_condition(
            Vec::new(),
            &set("TrafficShifted", ConditionStatus::False),
            Some(7),
            now,
        );
        assert_eq!(
            got,
            vec![
                json!({"type": "TrafficShifted", "status": "False", "reason": "Shifted", "message": "traffic moved", "lastTransitionTime": "2026-03-01T10:00:00Z", "observedGeneration": 7})
            ]
        );
    }
}
