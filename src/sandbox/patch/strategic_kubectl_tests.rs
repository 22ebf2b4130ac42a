//! Strategic merge patches as kubectl sends them: cordon, label, annotate, condition
//! updates, `kubectl apply` three-way patches, and the examples of the kubectl patch docs.

use super::*;
use serde_json::json;

fn patched(original: &Value, patch: &Value) -> Result<Value, PatchError> {
    apply(original, patch)
}

fn node() -> Value {
    json!({
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": "worker-1", "labels": {"kubernetes.io/hostname": "worker-1", "pool": "blue"}},
        "spec": {"podCIDR": "10.244.1.0/24", "taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        "status": {"conditions": [
            {"type": "Ready", "status": "True", "reason": "KubeletReady", "lastTransitionTime": "2025-01-01T00:00:00Z"},
            {"type": "MemoryPressure", "status": "False", "reason": "KubeletHasSufficientMemory"}
        ]}
    })
}

/// `node()` with `edit` applied.
fn node_with(edit: impl FnOnce(&mut Value)) -> Value {
    let mut node = node();
    edit(&mut node);
    node
}

#[test]
fn kubectl_patches_on_a_node() {
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "kubectl cordon",
            json!({"spec": {"unschedulable": true}}),
            node_with(|n| n["spec"]["unschedulable"] = json!(true)),
        ),
        (
            "kubectl uncordon sends null",
            json!({"spec": {"unschedulable": null}}),
            node(),
        ),
        (
            "kubectl label pool- removes the label",
            json!({"metadata": {"labels": {"pool": null}}}),
            node_with(|n| n["metadata"]["labels"] = json!({"kubernetes.io/hostname": "worker-1"})),
        ),
        (
            "kubectl annotate adds an annotation",
            json!({"metadata": {"annotations": {"note": "drained for maintenance"}}}),
            node_with(|n| {
                n["metadata"]["annotations"] = json!({"note": "drained for maintenance"})
            }),
        ),
        (
            "kubectl patch --type=strategic merges a condition by type, keeping the others",
            json!({"status": {"conditions": [{"type": "Ready", "status": "False"}]}}),
            node_with(|n| n["status"]["conditions"][0]["status"] = json!("False")),
        ),
        (
            "node taints have no merge strategy: replaced",
            json!({"spec": {"taints": [{"key": "maintenance", "effect": "NoExecute"}]}}),
            node_with(|n| {
                n["spec"]["taints"] = json!([{"key": "maintenance", "effect": "NoExecute"}])
            }),
        ),
    ];
    for (rule, patch, expected) in cases {
        assert_eq!(patched(&node(), &patch).ok(), Some(expected), "{rule}");
    }
}

fn deployment(containers: Value) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default", "finalizers": ["example.com/a", "example.com/b"],
            "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"old\":true}\n"}},
        "spec": {"replicas": 2, "template": {"metadata": {"labels": {"app": "web"}}, "spec": {
            "containers": containers,
            "tolerations": [{"key": "dedicated", "value": "test-team", "effect": "NoSchedule"}]
        }}}
    })
}

/// A patch shaped like kubectl apply's three-way patch: the new last-applied annotation
/// plus `template_spec` under spec.template.spec.
fn apply_patch(template_spec: Value) -> Value {
    json!({
        "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{\"new\":true}\n"}},
        "spec": {"template": {"spec": template_spec}}
    })
}

fn with_new_annotation(mut deployment: Value) -> Value {
    deployment["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"] =
        json!("{\"new\":true}\n");
    deployment
}

#[test]
fn kubectl_apply_on_a_deployment() {
    let app = json!({"name": "app", "image": "app:v1", "env": [{"name": "LOG", "value": "info"}, {"name": "DEBUG", "value": "1"}]});
    let sidecar = json!({"name": "sidecar", "image": "proxy:v1"});
    let live = deployment(json!([app, sidecar]));
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "an image change, with $setElementOrder/containers",
            apply_patch(json!({
                "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                "containers": [{"name": "sidecar", "image": "proxy:v2"}]
            })),
            with_new_annotation(deployment(
                json!([app, {"name": "sidecar", "image": "proxy:v2"}]),
            )),
        ),
        (
            "a container added in the middle lands where the manifest puts it",
            apply_patch(json!({
                "$setElementOrder/containers": [{"name": "app"}, {"name": "cache"}, {"name": "sidecar"}],
                "containers": [{"name": "cache", "image": "redis"}]
            })),
            with_new_annotation(deployment(
                json!([app, {"name": "cache", "image": "redis"}, sidecar]),
            )),
        ),
        (
            "a container removed from the manifest: $patch: delete by name",
            apply_patch(json!({
                "$setElementOrder/containers": [{"name": "app"}],
                "containers": [{"$patch": "delete", "name": "sidecar"}]
            })),
            with_new_annotation(deployment(json!([app]))),
        ),
        (
            "an env var removed from the manifest: $patch: delete inside the container",
            apply_patch(json!({
                "$setElementOrder/containers": [{"name": "app"}, {"name": "sidecar"}],
                "containers": [{"name": "app", "$setElementOrder/env": [{"name": "LOG"}], "env": [{"$patch": "delete", "name": "DEBUG"}]}]
            })),
            with_new_annotation(deployment(json!([
                {"name": "app", "image": "app:v1", "env": [{"name": "LOG", "value": "info"}]},
                sidecar
            ]))),
        ),
    ];
    for (rule, patch, expected) in cases {
        assert_eq!(patched(&live, &patch).ok(), Some(expected), "{rule}");
    }
}

#[test]
fn kubectl_patch_docs_examples() {
    let live = deployment(json!([{"name": "patch-demo-ctr", "image": "nginx"}]));
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "a container added by kubectl patch comes first (docs output: redis, then nginx)",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "patch-demo-ctr-2", "image": "redis"}]}}}}),
            deployment(
                json!([{"name": "patch-demo-ctr-2", "image": "redis"}, {"name": "patch-demo-ctr", "image": "nginx"}]),
            ),
        ),
        (
            "tolerations have no merge strategy: replaced",
            json!({"spec": {"template": {"spec": {"tolerations": [{"effect": "NoSchedule", "key": "disktype", "value": "ssd"}]}}}}),
            {
                let mut d = live.clone();
                d["spec"]["template"]["spec"]["tolerations"] =
                    json!([{"effect": "NoSchedule", "key": "disktype", "value": "ssd"}]);
                d
            },
        ),
        (
            "$deleteFromPrimitiveList/finalizers removes those finalizers",
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["example.com/a"]}}),
            {
                let mut d = live.clone();
                d["metadata"]["finalizers"] = json!(["example.com/b"]);
                d
            },
        ),
    ];
    for (rule, patch, expected) in cases {
        assert_eq!(patched(&live, &patch).ok(), Some(expected), "{rule}");
    }
}
