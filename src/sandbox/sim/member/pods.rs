//! What the simulated components read off a pod and its owners.

use super::BROKEN_ANNOTATION;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::jiff::{SignedDuration, Timestamp};

/// The uid in the owner reference marked `controller: true`.
pub fn controller_uid(meta: &ObjectMeta) -> Option<&str> {
    meta.owner_references
        .as_ref()?
        .iter()
        .find(|r| r.controller == Some(true))
        .map(|r| r.uid.as_str())
}

/// The owner reference a controller puts on what it creates.
pub fn controller_ref(api_version: &str, kind: &str, owner: &ObjectMeta) -> OwnerReference {
    OwnerReference {
        api_version: api_version.to_string(),
        kind: kind.to_string(),
        name: owner.name.clone().unwrap_or_default(),
        uid: owner.uid.clone().unwrap_or_default(),
        controller: Some(true),
        block_owner_deletion: Some(true),
    }
}

pub fn is_terminating(meta: &ObjectMeta) -> bool {
    meta.deletion_timestamp.is_some()
}

pub fn phase(pod: &Pod) -> &str {
    pod.status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("")
}

/// Succeeded or Failed: the pod will not run again.
pub fn is_finished(pod: &Pod) -> bool {
    matches!(phase(pod), "Succeeded" | "Failed")
}

/// Counts toward its controller's replicas: neither terminating nor finished.
pub fn is_active(pod: &Pod) -> bool {
    !is_terminating(&pod.metadata) && !is_finished(pod)
}

/// The node the pod is bound to, if any.
pub fn node_name(pod: &Pod) -> Option<&str> {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.as_deref())
        .filter(|n| !n.is_empty())
}

fn condition_status<'a>(pod: &'a Pod, kind: &str) -> Option<&'a str> {
    pod.status
        .as_ref()?
        .conditions
        .as_ref()?
        .iter()
        .find(|c| c.type_ == kind)
        .map(|c| c.status.as_str())
}

pub fn is_ready(pod: &Pod) -> bool {
    condition_status(pod, "Ready") == Some("True")
}

/// Running and Ready, as the workload controllers count ready replicas.
pub fn is_running_and_ready(pod: &Pod) -> bool {
    phase(pod) == "Running" && is_ready(pod)
}

/// Ready for at least `min_ready_seconds` at `now` (the controllers' "available").
pub fn is_available(pod: &Pod, min_ready_seconds: i32, now: Timestamp) -> bool {
    if !is_running_and_ready(pod) {
        return false;
    }
    if min_ready_seconds <= 0 {
        return true;
    }
    let since = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .and_then(|c| c.last_transition_time.as_ref());
    since.is_some_and(|t| {
        t.0.checked_add(SignedDuration::from_secs(i64::from(min_ready_seconds)))
            .is_ok_and(|ready_enough| ready_enough <= now)
    })
}

/// Annotated with the sandbox's [`BROKEN_ANNOTATION`] set to `"true"`.
pub fn is_broken(pod: &Pod) -> bool {
    pod.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(BROKEN_ANNOTATION))
        .is_some_and(|v| v == "true")
}

pub fn name(meta: &ObjectMeta) -> &str {
    meta.name.as_deref().unwrap_or("")
}

pub fn namespace(meta: &ObjectMeta) -> &str {
    meta.namespace.as_deref().unwrap_or("")
}

pub fn uid(meta: &ObjectMeta) -> &str {
    meta.uid.as_deref().unwrap_or("")
}

/// A pod count as the API's int32.
pub fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// A pod count for an `omitempty` field: absent when zero, as the real server writes it.
pub fn omit_zero(n: usize) -> Option<i32> {
    (n > 0).then(|| count(n))
}
