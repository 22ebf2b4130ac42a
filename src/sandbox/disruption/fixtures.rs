//! Pods, budgets and times for the table tests, written as the JSON a user or the kubelet
//! would produce.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::{PodDisruptionBudget, PodDisruptionBudgetStatus};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{Value, json};

/// The states of a pod the budget rules tell apart.
#[derive(Clone, Copy, Debug)]
pub(super) enum PodState {
    /// Running with `Ready=True`.
    Ready,
    /// Running with `Ready=False`.
    Unready,
    /// Running and Ready, with a `deletionTimestamp`.
    Deleting,
    Pending,
    Succeeded,
    Failed,
}

pub(super) fn time(rfc3339: &str) -> Time {
    serde_json::from_value(json!(rfc3339)).expect("test time is RFC 3339")
}

/// A pod in `default`; `controller_uid` is the uid of its controller owner reference.
pub(super) fn pod(name: &str, state: PodState, controller_uid: Option<&str>) -> Pod {
    let (phase, ready) = match state {
        PodState::Ready | PodState::Deleting => ("Running", "True"),
        PodState::Unready => ("Running", "False"),
        PodState::Pending => ("Pending", "False"),
        PodState::Succeeded => ("Succeeded", "False"),
        PodState::Failed => ("Failed", "False"),
    };
    let mut metadata = json!({"name": name, "namespace": "default", "labels": {"app": "web"}});
    if matches!(state, PodState::Deleting) {
        metadata["deletionTimestamp"] = json!("2025-01-01T00:00:00Z");
    }
    if let Some(uid) = controller_uid {
        metadata["ownerReferences"] = json!([{
            "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("rs-{uid}"),
            "uid": uid, "controller": true, "blockOwnerDeletion": true
        }]);
    }
    let status = json!({
        "phase": phase,
        "conditions": [{"type": "Ready", "status": ready}]
    });
    serde_json::from_value(
        json!({"metadata": metadata, "spec": {"containers": []}, "status": status}),
    )
    .expect("test pod is a valid Pod")
}

/// A budget named `name` at `generation` with the given spec fields (selector added) and
/// stored status.
pub(super) fn pdb(
    name: &str,
    generation: i64,
    spec: Value,
    status: Option<Value>,
) -> PodDisruptionBudget {
    let mut spec = spec;
    spec["selector"] = json!({"matchLabels": {"app": "web"}});
    let mut object = json!({
        "metadata": {"name": name, "namespace": "default", "generation": generation},
        "spec": spec
    });
    if let Some(status) = status {
        object["status"] = status;
    }
    serde_json::from_value(object).expect("test budget is a valid PodDisruptionBudget")
}

pub(super) fn status_from(value: Value) -> PodDisruptionBudgetStatus {
    serde_json::from_value(value).expect("test status is a valid PodDisruptionBudgetStatus")
}

pub(super) fn refs<T>(items: &[T]) -> Vec<&T> {
    items.iter().collect()
}
