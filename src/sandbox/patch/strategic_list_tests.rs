//! Lists in a strategic merge patch: the merge-key table, list directives, ordering, and
//! the lists that cannot be merged.

use super::super::strategic::apply;
use super::*;
use serde_json::json;

fn pod_spec(containers: Value) -> Value {
    json!({"spec": {"containers": containers}})
}

#[test]
fn merge_key_table() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "containers by name: the matching item merges, its other fields stay",
            pod_spec(json!([{"name": "app", "image": "v1", "args": ["--serve"]}])),
            pod_spec(json!([{"name": "app", "image": "v2"}])),
            pod_spec(json!([{"name": "app", "image": "v2", "args": ["--serve"]}])),
        ),
        (
            "initContainers by name",
            json!({"spec": {"initContainers": [{"name": "init", "image": "v1"}]}}),
            json!({"spec": {"initContainers": [{"name": "init", "image": "v2"}]}}),
            json!({"spec": {"initContainers": [{"name": "init", "image": "v2"}]}}),
        ),
        (
            "ports by containerPort",
            pod_spec(
                json!([{"name": "app", "ports": [{"containerPort": 80}, {"containerPort": 443}]}]),
            ),
            pod_spec(json!([{"name": "app", "ports": [{"containerPort": 443, "name": "https"}]}])),
            pod_spec(
                json!([{"name": "app", "ports": [{"containerPort": 80}, {"containerPort": 443, "name": "https"}]}]),
            ),
        ),
        (
            "volumeMounts by mountPath",
            pod_spec(
                json!([{"name": "app", "volumeMounts": [{"name": "data", "mountPath": "/data"}]}]),
            ),
            pod_spec(
                json!([{"name": "app", "volumeMounts": [{"mountPath": "/data", "readOnly": true}]}]),
            ),
            pod_spec(
                json!([{"name": "app", "volumeMounts": [{"name": "data", "mountPath": "/data", "readOnly": true}]}]),
            ),
        ),
        (
            "env by name",
            pod_spec(
                json!([{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}]),
            ),
            pod_spec(json!([{"name": "app", "env": [{"name": "B", "value": "3"}]}])),
            pod_spec(
                json!([{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}]}]),
            ),
        ),
        (
            "volumes by name",
            json!({"spec": {"volumes": [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "a"}}]}}),
            json!({"spec": {"volumes": [{"name": "cfg", "configMap": {"name": "b"}}]}}),
            json!({"spec": {"volumes": [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "b"}}]}}),
        ),
        (
            "imagePullSecrets by name: an existing one is not duplicated",
            json!({"spec": {"imagePullSecrets": [{"name": "regcred"}]}}),
            json!({"spec": {"imagePullSecrets": [{"name": "regcred"}]}}),
            json!({"spec": {"imagePullSecrets": [{"name": "regcred"}]}}),
        ),
        (
            "hostAliases by ip",
            json!({"spec": {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["a"]}]}}),
            json!({"spec": {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["b"]}]}}),
            json!({"spec": {"hostAliases": [{"ip": "10.0.0.1", "hostnames": ["b"]}]}}),
        ),
        (
            "conditions by type, in any status",
            json!({"status": {"conditions": [{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable"}]}}),
            json!({"status": {"conditions": [{"type": "Progressing", "status": "False"}]}}),
            json!({"status": {"conditions": [{"type": "Available", "status": "True"}, {"type": "Progressing", "status": "False", "reason": "NewReplicaSetAvailable"}]}}),
        ),
        (
            "ownerReferences by uid",
            json!({"metadata": {"ownerReferences": [{"uid": "u1", "kind": "ReplicaSet", "name": "rs", "controller": true}]}}),
            json!({"metadata": {"ownerReferences": [{"uid": "u1", "blockOwnerDeletion": true}]}}),
            json!({"metadata": {"ownerReferences": [{"uid": "u1", "kind": "ReplicaSet", "name": "rs", "controller": true, "blockOwnerDeletion": true}]}}),
        ),
        (
            "a Service's ports by port",
            json!({"spec": {"ports": [{"port": 80, "targetPort": 8080}]}}),
            json!({"spec": {"ports": [{"port": 80, "targetPort": 9090}]}}),
            json!({"spec": {"ports": [{"port": 80, "targetPort": 9090}]}}),
        ),
        (
            "finalizers merge as a set",
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"finalizers": ["b", "c"]}}),
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
        ),
        (
            "tolerations have no strategy: replaced",
            json!({"spec": {"tolerations": [{"key": "a", "operator": "Exists"}]}}),
            json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}),
            json!({"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}),
        ),
        (
            "container args have no strategy: replaced",
            pod_spec(json!([{"name": "app", "args": ["a", "b"]}])),
            pod_spec(json!([{"name": "app", "args": ["c"]}])),
            pod_spec(json!([{"name": "app", "args": ["c"]}])),
        ),
        (
            "finalizers outside metadata (a Namespace's spec) are replaced",
            json!({"spec": {"finalizers": ["kubernetes"]}}),
            json!({"spec": {"finalizers": ["other"]}}),
            json!({"spec": {"finalizers": ["other"]}}),
        ),
        (
            "a keyed list the original lacks is taken from the patch, without directives",
            pod_spec(json!([{"name": "app"}])),
            pod_spec(
                json!([{"name": "app", "env": [{"name": "A", "value": "1"}, {"name": "B", "$patch": "delete"}]}]),
            ),
            pod_spec(json!([{"name": "app", "env": [{"name": "A", "value": "1"}]}])),
        ),
        (
            "nulls inside a list item delete fields of the matched item",
            pod_spec(json!([{"name": "app", "image": "v1", "command": ["sh"]}])),
            pod_spec(json!([{"name": "app", "command": null}])),
            pod_spec(json!([{"name": "app", "image": "v1"}])),
        ),
    ];
    for (rule, original, patch, expected) in cases {
        assert_eq!(apply(&original, &patch).ok(), Some(expected), "{rule}");
    }
}

#[test]
fn list_directives() {
    let env = |items: Value| pod_spec(json!([{"name": "app", "env": items}]));
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "$patch: delete removes the item with that merge key",
            env(json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])),
            env(json!([{"name": "A", "$patch": "delete"}])),
            env(json!([{"name": "B", "value": "2"}])),
        ),
        (
            "$patch: delete removes every item with that key (SMP doc note)",
            env(json!([{"name": "A", "value": "1"}, {"name": "B"}, {"name": "A", "value": "dup"}])),
            env(json!([{"name": "A", "$patch": "delete"}])),
            env(json!([{"name": "B"}])),
        ),
        (
            "$patch: delete of an absent key changes nothing",
            env(json!([{"name": "A", "value": "1"}])),
            env(json!([{"name": "Z", "$patch": "delete"}])),
            env(json!([{"name": "A", "value": "1"}])),
        ),
        (
            "$patch: replace makes the other items the whole list",
            env(json!([{"name": "A", "value": "1"}, {"name": "B", "value": "2"}])),
            env(json!([{"name": "C", "value": "3"}, {"$patch": "replace"}])),
            env(json!([{"name": "C", "value": "3"}])),
        ),
        (
            "$setElementOrder/finalizers reorders a set (SMP doc example)",
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
            json!({"metadata": {"$setElementOrder/finalizers": ["b", "c", "a"]}}),
            json!({"metadata": {"finalizers": ["b", "c", "a"]}}),
        ),
        (
            "$setElementOrder/containers reorders by merge key (SMP doc example)",
            pod_spec(
                json!([{"name": "a", "image": "1"}, {"name": "b", "image": "2"}, {"name": "c", "image": "3"}]),
            ),
            json!({"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "c"}, {"name": "a"}]}}),
            pod_spec(
                json!([{"name": "b", "image": "2"}, {"name": "c", "image": "3"}, {"name": "a", "image": "1"}]),
            ),
        ),
        (
            "$setElementOrder: items only the server has keep their live position",
            pod_spec(
                json!([{"name": "injected"}, {"name": "a", "image": "1"}, {"name": "b", "image": "2"}]),
            ),
            json!({"spec": {"$setElementOrder/containers": [{"name": "a"}, {"name": "b"}], "containers": [{"name": "b", "image": "3"}]}}),
            pod_spec(
                json!([{"name": "injected"}, {"name": "a", "image": "1"}, {"name": "b", "image": "3"}]),
            ),
        ),
        (
            "$setElementOrder of a list the original lacks",
            json!({"spec": {}}),
            json!({"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}], "containers": [{"name": "a"}, {"name": "b"}]}}),
            pod_spec(json!([{"name": "b"}, {"name": "a"}])),
        ),
        (
            "$setElementOrder for a list neither side has adds nothing",
            json!({"spec": {}}),
            json!({"spec": {"$setElementOrder/volumes": [{"name": "data"}]}}),
            json!({"spec": {}}),
        ),
        (
            "$deleteFromPrimitiveList/finalizers (SMP doc example)",
            json!({"metadata": {"finalizers": ["a", "b", "c"]}}),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["b", "c"]}}),
            json!({"metadata": {"finalizers": ["a"]}}),
        ),
        (
            "$deleteFromPrimitiveList deletes duplicates too",
            json!({"metadata": {"finalizers": ["a", "b", "a"]}}),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
            json!({"metadata": {"finalizers": ["b"]}}),
        ),
        (
            "$deleteFromPrimitiveList with additions, as kubectl apply sends it",
            json!({"metadata": {"finalizers": ["a", "b"]}}),
            json!({"metadata": {"$setElementOrder/finalizers": ["a", "c"], "$deleteFromPrimitiveList/finalizers": ["b"], "finalizers": ["c"]}}),
            json!({"metadata": {"finalizers": ["a", "c"]}}),
        ),
        (
            "$deleteFromPrimitiveList on a missing list adds nothing",
            json!({"metadata": {"name": "x"}}),
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": ["a"]}}),
            json!({"metadata": {"name": "x"}}),
        ),
    ];
    for (rule, original, patch, expected) in cases {
        assert_eq!(apply(&original, &patch).ok(), Some(expected), "{rule}");
    }
}

/// (rule, live names, patch names, resulting names)
type OrderCase = (
    &'static str,
    &'static [&'static str],
    &'static [&'static str],
    &'static [&'static str],
);

#[test]
fn order_without_set_element_order() {
    let names = |list: &[&str]| {
        pod_spec(Value::Array(
            list.iter().map(|n| json!({"name": n})).collect(),
        ))
    };
    let cases: [OrderCase; 3] = [
        (
            "a merged item keeps its place",
            &["a", "b", "c"],
            &["b"],
            &["a", "b", "c"],
        ),
        (
            "a new item goes before the live ones",
            &["a", "b"],
            &["c"],
            &["c", "a", "b"],
        ),
        (
            "the patch's order wins for the items it names",
            &["a", "b", "c"],
            &["c", "a"],
            &["b", "c", "a"],
        ),
    ];
    for (rule, live, patch, expected) in cases {
        assert_eq!(
            apply(&names(live), &names(patch)).ok(),
            Some(names(expected)),
            "{rule}"
        );
    }
}
