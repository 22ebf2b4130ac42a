//! Nodes: registering them as their kubelets would, and what the scheduler asks of them.

use k8s_openapi::api::core::v1::{Node, Pod, Taint, Toleration};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::{Client, Error};
use serde_json::{Value, json};

/// The taint the node lifecycle controller puts on a cordoned node; a pod tolerating it may
/// still be scheduled there.
pub const UNSCHEDULABLE_TAINT: &str = "node.kubernetes.io/unschedulable";

/// The Node `node-<ordinal>` as its kubelet registers it, status included.
pub fn ready_node(ordinal: usize) -> Value {
    let name = format!("node-{ordinal}");
    let pressure =
        |kind: &str, reason: &str| json!({"type": kind, "status": "False", "reason": reason});
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {
            "kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}},
        "spec": {},
        "status": {
            "conditions": [
                pressure("MemoryPressure", "KubeletHasSufficientMemory"),
                pressure("DiskPressure", "KubeletHasNoDiskPressure"),
                pressure("PIDPressure", "KubeletHasSufficientPID"),
                {"type": "Ready", "status": "True", "reason": "KubeletReady",
                 "message": "kubelet is posting ready status"},
            ],
            "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "allocatable": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "addresses": [
                {"type": "InternalIP", "address": format!("10.0.0.{}", ordinal % 250 + 1)},
                {"type": "Hostname", "address": name},
            ],
            "nodeInfo": {
                "architecture": "amd64", "bootID": "", "containerRuntimeVersion": "containerd://2.0.0",
                "kernelVersion": "6.1.0", "kubeProxyVersion": "", "kubeletVersion": crate::sandbox::apiserver::GIT_VERSION,
                "machineID": "", "operatingSystem": "linux", "osImage": "sandbox", "systemUUID": "",
            },
        },
    })
}

/// Registers `node-1`..`node-<count>`, Ready with room for 110 pods each; returns their names.
/// A node that already exists gets its Ready status back.
pub async fn create_nodes(client: &Client, count: usize) -> Result<Vec<String>, Error> {
    let api: Api<Node> = Api::all(client.clone());
    let mut names = Vec::new();
    for ordinal in 1..=count {
        let object = ready_node(ordinal);
        let node: Node = serde_json::from_value(object.clone()).map_err(Error::SerdeError)?;
        let name = format!("node-{ordinal}");
        match api.create(&PostParams::default(), &node).await {
            Ok(_) => {}
            Err(Error::Api(status)) if status.code == 409 => {}
            Err(e) => return Err(e),
        }
        // Status is not taken on create (the status subresource owns it): post it as a
        // kubelet does.
        let status = json!({"status": object.get("status")});
        api.patch_status(&name, &PatchParams::default(), &Patch::Merge(status))
            .await?;
        names.push(name);
    }
    Ok(names)
}

pub fn is_ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "Ready"))
        .is_some_and(|c| c.status == "True")
}

/// How many pods the node takes (`allocatable.pods`); unlimited when absent or unreadable.
pub fn pod_capacity(node: &Node) -> usize {
    node.status
        .as_ref()
        .and_then(|s| s.allocatable.as_ref())
        .and_then(|a| a.get("pods"))
        .and_then(|q| q.0.parse().ok())
        .unwrap_or(usize::MAX)
}

pub fn internal_ip(node: &Node) -> Option<String> {
    node.status
        .as_ref()?
        .addresses
        .as_ref()?
        .iter()
        .find(|a| a.type_ == "InternalIP")
        .map(|a| a.address.clone())
}

fn tolerations(pod: &Pod) -> &[Toleration] {
    pod.spec
        .as_ref()
        .and_then(|s| s.tolerations.as_deref())
        .unwrap_or(&[])
}

/// The toleration rules: an empty key with `Exists` matches every key; an empty effect
/// matches every effect; `Equal` (the default operator) also compares the value.
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    let effect_ok = toleration
        .effect
        .as_deref()
        .is_none_or(|e| e.is_empty() || e == taint.effect);
    let key = toleration.key.as_deref().unwrap_or("");
    let exists = toleration.operator.as_deref() == Some("Exists");
    let key_ok = (exists && key.is_empty()) || key == taint.key;
    let value_ok =
        exists || toleration.value.as_deref().unwrap_or("") == taint.value.as_deref().unwrap_or("");
    effect_ok && key_ok && value_ok
}

fn tolerated(pod: &Pod, taint: &Taint) -> bool {
    tolerations(pod).iter().any(|t| tolerates(t, taint))
}

/// Why `node` cannot take `pod` (apart from room), in the scheduler's words; None if it can.
pub fn unfit_reason(node: &Node, pod: &Pod) -> Option<String> {
    if !is_ready(node) {
        return Some("node(s) were not ready".into());
    }
    let spec = node.spec.clone().unwrap_or_default();
    let cordon = Taint {
        key: UNSCHEDULABLE_TAINT.into(),
        effect: "NoSchedule".into(),
        ..Default::default()
    };
    if spec.unschedulable == Some(true) && !tolerated(pod, &cordon) {
        return Some("node(s) were unschedulable".into());
    }
    let blocking =
        spec.taints.unwrap_or_default().into_iter().find(|t| {
            matches!(t.effect.as_str(), "NoSchedule" | "NoExecute") && !tolerated(pod, t)
        });
    if let Some(taint) = blocking {
        let value = taint
            .value
            .as_deref()
            .map(|v| format!(": {v}"))
            .unwrap_or_default();
        return Some(format!(
            "node(s) had untolerated taint {{{}{value}}}",
            taint.key
        ));
    }
    let selector = pod.spec.as_ref().and_then(|s| s.node_selector.as_ref());
    let labels = node.metadata.labels.clone().unwrap_or_default();
    let selected = selector.is_none_or(|sel| sel.iter().all(|(k, v)| labels.get(k) == Some(v)));
    if !selected {
        return Some("node(s) didn't match Pod's node affinity/selector".into());
    }
    None
}

#[cfg(test)]
#[path = "nodes_tests.rs"]
mod tests;
