//! A Deployment's status from its ReplicaSets: counts, and the `Available` and `Progressing`
//! conditions with the real controller's reasons.

use super::pods::omit_zero;
use super::view::View;
use k8s_openapi::api::apps::v1::{
    Deployment, DeploymentCondition, DeploymentSpec, DeploymentStatus, ReplicaSet,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

/// The status for `deployment`, whose ReplicaSets are `owned` and whose current template's
/// ReplicaSet is named `current`.
pub fn status(
    view: &View,
    deployment: &Deployment,
    owned: &[&ReplicaSet],
    current: &str,
) -> DeploymentStatus {
    let spec = deployment.spec.clone().unwrap_or_default();
    let want = spec.replicas.unwrap_or(1);
    let sum = |f: fn(&ReplicaSet) -> i32| owned.iter().map(|rs| f(rs)).sum::<i32>();
    let replicas = sum(|rs| rs.status.as_ref().map_or(0, |s| s.replicas));
    let ready = sum(|rs| {
        rs.status
            .as_ref()
            .and_then(|s| s.ready_replicas)
            .unwrap_or(0)
    });
    let available = sum(|rs| {
        rs.status
            .as_ref()
            .and_then(|s| s.available_replicas)
            .unwrap_or(0)
    });
    let desired_total = sum(|rs| rs.spec.as_ref().and_then(|s| s.replicas).unwrap_or(0));
    let updated = owned
        .iter()
        .find(|rs| rs.metadata.name.as_deref() == Some(current))
        .and_then(|rs| rs.status.as_ref())
        .map_or(0, |s| s.replicas);
    let current_status = deployment.status.clone().unwrap_or_default();
    let previous = current_status.conditions.clone().unwrap_or_default();
    let now = view.now_time();
    let minimum_met = available >= want - max_unavailable(&spec, want);
    let available_condition = if minimum_met {
        (
            "True",
            "MinimumReplicasAvailable",
            "Deployment has minimum availability.".to_string(),
        )
    } else {
        (
            "False",
            "MinimumReplicasUnavailable",
            "Deployment does not have minimum availability.".to_string(),
        )
    };
    let complete = updated == want && replicas == want && available == want;
    let progressing = if complete {
        (
            "True",
            "NewReplicaSetAvailable",
            format!("ReplicaSet \"{current}\" has successfully progressed."),
        )
    } else {
        (
            "True",
            "ReplicaSetUpdated",
            format!("ReplicaSet \"{current}\" is progressing."),
        )
    };
    let count = |n: i32| omit_zero(usize::try_from(n).unwrap_or(0));
    DeploymentStatus {
        observed_generation: deployment.metadata.generation,
        replicas: count(replicas),
        updated_replicas: count(updated),
        ready_replicas: count(ready),
        available_replicas: count(available),
        unavailable_replicas: count(desired_total - available),
        conditions: Some(vec![
            condition(&previous, "Available", available_condition, &now),
            condition(&previous, "Progressing", progressing, &now),
        ]),
        ..current_status
    }
}

/// A condition that keeps its times while nothing about it changes, and its transition time
/// while only the reason or message changes.
fn condition(
    previous: &[DeploymentCondition],
    kind: &str,
    (status, reason, message): (&str, &str, String),
    now: &Time,
) -> DeploymentCondition {
    let old = previous.iter().find(|c| c.type_ == kind);
    let same_status = old.filter(|c| c.status == status);
    let unchanged = same_status.filter(|c| {
        c.reason.as_deref() == Some(reason) && c.message.as_deref() == Some(message.as_str())
    });
    DeploymentCondition {
        type_: kind.to_string(),
        status: status.to_string(),
        reason: Some(reason.to_string()),
        message: Some(message),
        last_transition_time: same_status
            .and_then(|c| c.last_transition_time.clone())
            .or_else(|| Some(now.clone())),
        last_update_time: unchanged
            .and_then(|c| c.last_update_time.clone())
            .or_else(|| Some(now.clone())),
    }
}

/// How many pods may be unavailable: 0 for `Recreate` or no replicas; otherwise
/// `maxUnavailable` (default 25%, rounded down), 1 if it and `maxSurge` (default 25%, rounded
/// up) both come to 0, at most the replicas.
pub fn max_unavailable(spec: &DeploymentSpec, replicas: i32) -> i32 {
    let strategy = spec.strategy.clone().unwrap_or_default();
    if strategy.type_.as_deref() == Some("Recreate") || replicas <= 0 {
        return 0;
    }
    let rolling = strategy.rolling_update.unwrap_or_default();
    let quarter = IntOrString::String("25%".into());
    let surge = scaled(
        rolling.max_surge.as_ref().unwrap_or(&quarter),
        replicas,
        true,
    );
    let unavailable = scaled(
        rolling.max_unavailable.as_ref().unwrap_or(&quarter),
        replicas,
        false,
    );
    if surge == 0 && unavailable == 0 {
        return 1;
    }
    unavailable.min(replicas)
}

/// An int, or a percentage of `total` rounded up or down; unreadable values count as 0 (the
/// server validates them).
fn scaled(value: &IntOrString, total: i32, round_up: bool) -> i32 {
    match value {
        IntOrString::Int(n) => *n,
        IntOrString::String(s) => {
            let percent: i64 = s
                .strip_suffix('%')
                .and_then(|p| p.parse().ok())
                .unwrap_or(0);
            let product = percent * i64::from(total);
            let result = if round_up {
                (product + 99) / 100
            } else {
                product / 100
            };
            i32::try_from(result).unwrap_or(0)
        }
    }
}
