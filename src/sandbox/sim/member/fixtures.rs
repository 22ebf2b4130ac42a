//! Objects for the decision-table tests, as the API server would hold them.

use super::nodes::ready_node;
use super::view::View;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::sync::Arc;

pub const NOW: &str = "2026-03-01T12:00:00Z";
pub const EARLIER: &str = "2026-03-01T11:00:00Z";

pub fn typed<T: DeserializeOwned>(value: Value) -> Arc<T> {
    Arc::new(serde_json::from_value(value).expect("fixture decodes"))
}

pub fn view_of(nodes: &[Value], pods: &[Value]) -> View {
    View {
        now: NOW.parse().expect("timestamp"),
        nodes: nodes.iter().cloned().map(typed).collect(),
        pods: pods.iter().cloned().map(typed).collect(),
        replica_sets: vec![],
        deployments: vec![],
        stateful_sets: vec![],
    }
}

/// `node-<ordinal>`, Ready.
pub fn node(ordinal: usize) -> Value {
    ready_node(ordinal)
}

/// A pending pod in `default`, created an hour ago.
pub fn pod(name: &str) -> Value {
    json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": "default", "uid": format!("uid-{name}"),
                     "creationTimestamp": EARLIER, "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        "status": {"phase": "Pending"},
    })
}

pub fn controlled_by(mut pod: Value, kind: &str, owner: &str) -> Value {
    pod["metadata"]["ownerReferences"] = json!([{"apiVersion": "apps/v1", "kind": kind,
        "name": owner, "uid": format!("uid-{owner}"), "controller": true}]);
    pod
}

pub fn on(mut pod: Value, node: &str) -> Value {
    pod["spec"]["nodeName"] = json!(node);
    pod
}

pub fn running(mut pod: Value, ready: bool) -> Value {
    let status = if ready { "True" } else { "False" };
    pod["status"] = json!({"phase": "Running", "conditions": [
        {"type": "Ready", "status": status, "lastTransitionTime": EARLIER}]});
    pod
}

pub fn terminating(mut pod: Value, at: &str) -> Value {
    pod["metadata"]["deletionTimestamp"] = json!(at);
    pod["metadata"]["deletionGracePeriodSeconds"] = json!(30);
    pod
}

pub fn created(mut pod: Value, at: &str) -> Value {
    pod["metadata"]["creationTimestamp"] = json!(at);
    pod
}

/// A pod template labelled `app: web`.
pub fn template() -> Value {
    json!({"metadata": {"labels": {"app": "web"}},
           "spec": {"containers": [{"name": "c", "image": "nginx"}]}})
}
