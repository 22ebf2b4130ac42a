//! The kubelets of every Ready node: start the pods bound to them, report their status, and
//! finish graceful deletions once the grace period has passed on the shared clock.

use super::actions::{Action, Op};
use super::nodes;
use super::pod_status;
use super::pods::{self, is_finished, node_name};
use super::versions::Kind;
use super::view::View;
use k8s_openapi::api::core::v1::Pod;
use serde_json::json;

const MANAGER: &str = "kubelet";

/// What the kubelets do now: status reports and final deletions.
pub fn plan(view: &View) -> Vec<Action> {
    view.pods
        .iter()
        .filter_map(|pod| pod_action(view, pod))
        .collect()
}

fn pod_action(view: &View, pod: &Pod) -> Option<Action> {
    let (index, node) = view.node(node_name(pod)?)?;
    // A node that is not Ready has no working kubelet: its pods stay as they are.
    if !nodes::is_ready(node) || is_finished(pod) {
        return None;
    }
    let meta = &pod.metadata;
    let (namespace, name) = (pods::namespace(meta), pods::name(meta));
    if let Some(deadline) = &meta.deletion_timestamp {
        // The containers have had their grace period: remove the pod for good, and only the
        // pod this kubelet ran (a new pod may have taken the name).
        if view.now < deadline.0 {
            return None;
        }
        let delete = Op::Delete {
            uid: pods::uid(meta).to_string(),
            grace_period_seconds: Some(0),
        };
        return Some(Action::new(Kind::Pod, namespace, name, MANAGER, delete));
    }
    let next = pod_status::running(pod, node, index, &view.now_time());
    if pod.status.as_ref() == Some(&next) {
        return None;
    }
    let report = Op::PatchStatus(json!({"status": next}));
    Some(Action::new(Kind::Pod, namespace, name, MANAGER, report))
}

#[cfg(test)]
#[path = "kubelet_tests.rs"]
mod tests;
