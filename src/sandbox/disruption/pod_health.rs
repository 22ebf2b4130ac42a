//! What the budget logic reads from a pod: readiness, deletion, phase, controller.

use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

/// `podutil.IsPodReady`: the `Ready` condition is `True`. The phase is not consulted — the
/// kubelet sets `Ready` to `False` when a pod stops running.
pub(super) fn is_pod_ready(pod: &Pod) -> bool {
    let conditions = pod
        .status
        .as_ref()
        .and_then(|status| status.conditions.as_ref());
    conditions.is_some_and(|conditions| {
        conditions
            .iter()
            .any(|condition| condition.type_ == "Ready" && condition.status == "True")
    })
}

/// The pod has a `deletionTimestamp`: deletion has started.
pub(super) fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

/// `status.phase`, if set.
pub(super) fn pod_phase(pod: &Pod) -> Option<&str> {
    pod.status
        .as_ref()
        .and_then(|status| status.phase.as_deref())
}

/// `metav1.GetControllerOf`: the first owner reference marked `controller: true`.
pub(super) fn controller_of(pod: &Pod) -> Option<&OwnerReference> {
    let owners = pod.metadata.owner_references.as_deref().unwrap_or_default();
    owners.iter().find(|owner| owner.controller == Some(true))
}

/// The pod's name, empty when unset (the API server always sets it).
pub(super) fn pod_name(pod: &Pod) -> &str {
    pod.metadata.name.as_deref().unwrap_or_default()
}
