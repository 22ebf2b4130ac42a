//! Strategic merge patch on maps and its map directives, and the patches it refuses.
//! Lists: `strategic_list_tests.rs`; kubectl's patches: `strategic_kubectl_tests.rs`.

use super::*;
use serde_json::json;

fn patched(original: &Value, patch: &Value) -> Result<Value, PatchError> {
    apply(original, patch)
}

#[test]
fn map_rules() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "null deletes a field",
            json!({"a": 1, "b": 2}),
            json!({"a": null}),
            json!({"b": 2}),
        ),
        (
            "maps merge recursively",
            json!({"metadata": {"name": "web", "annotations": {"a": "1"}}}),
            json!({"metadata": {"annotations": {"b": "2"}}}),
            json!({"metadata": {"name": "web", "annotations": {"a": "1", "b": "2"}}}),
        ),
        (
            "scalars are replaced",
            json!({"spec": {"replicas": 1}}),
            json!({"spec": {"replicas": 3}}),
            json!({"spec": {"replicas": 3}}),
        ),
        (
            "a null for a field the original lacks is dropped",
            json!({"metadata": {"name": "web"}}),
            json!({"metadata": {"labels": {"gone": null, "app": "web"}}}),
            json!({"metadata": {"name": "web", "labels": {"app": "web"}}}),
        ),
        (
            "a value of another JSON type replaces the original",
            json!({"a": [1, 2]}),
            json!({"a": {"b": 1}}),
            json!({"a": {"b": 1}}),
        ),
        (
            "$patch: replace takes the map as given",
            json!({"metadata": {"labels": {"a": "1", "b": "2"}}}),
            json!({"metadata": {"labels": {"$patch": "replace", "c": "3"}}}),
            json!({"metadata": {"labels": {"c": "3"}}}),
        ),
        (
            "$patch: delete deletes the map (rollingUpdate example of the SMP doc)",
            json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}),
            json!({"spec": {"strategy": {"rollingUpdate": {"$patch": "delete"}}}}),
            json!({"spec": {"strategy": {"type": "RollingUpdate"}}}),
        ),
        (
            "$patch: delete of a missing map leaves nothing behind",
            json!({"spec": {}}),
            json!({"spec": {"securityContext": {"$patch": "delete"}}}),
            json!({"spec": {}}),
        ),
        (
            "$retainKeys clears unlisted fields (kubectl patch docs, Deployment strategy)",
            json!({"spec": {"strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 1}}}}),
            json!({"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate"}}}),
            json!({"spec": {"strategy": {"type": "Recreate"}}}),
        ),
        (
            "$retainKeys keeps and merges the listed fields (union example of the SMP doc)",
            json!({"union": {"foo": "a", "other": "b"}}),
            json!({"union": {"$retainKeys": ["another", "bar"], "another": "d", "bar": "c"}}),
            json!({"union": {"another": "d", "bar": "c"}}),
        ),
        (
            "$retainKeys: a listed field kept from the original",
            json!({"volume": {"name": "data", "emptyDir": {}, "hostPath": {"path": "/x"}}}),
            json!({"volume": {"$retainKeys": ["name", "emptyDir"], "name": "data"}}),
            json!({"volume": {"name": "data", "emptyDir": {}}}),
        ),
        (
            "a null patch changes nothing",
            json!({"a": 1}),
            json!(null),
            json!({"a": 1}),
        ),
        (
            "an empty patch changes nothing",
            json!({"a": 1}),
            json!({}),
            json!({"a": 1}),
        ),
    ];
    for (rule, original, patch, expected) in cases {
        assert_eq!(patched(&original, &patch).ok(), Some(expected), "{rule}");
    }
}

#[test]
fn refused_patches() {
    // (rule, patch, Malformed (400) or not (422), words of the message)
    let cases: Vec<(&str, Value, bool, &str)> = vec![
        (
            "the patch must be an object",
            json!([1]),
            true,
            "cannot unmarshal array",
        ),
        (
            "$retainKeys must be a list",
            json!({"spec": {"$retainKeys": "type"}}),
            true,
            "retainKeys",
        ),
        (
            "every field set must be listed in $retainKeys",
            json!({"spec": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": {}}}),
            true,
            "\"rollingUpdate\"",
        ),
        (
            "$setElementOrder must be a list",
            json!({"spec": {"$setElementOrder/containers": {}}}),
            true,
            "setElementOrder",
        ),
        (
            "$deleteFromPrimitiveList must be a list",
            json!({"metadata": {"$deleteFromPrimitiveList/finalizers": "a"}}),
            true,
            "primitive list",
        ),
        (
            "a directive needs /<field>",
            json!({"metadata": {"$setElementOrder": []}}),
            true,
            "setElementOrder",
        ),
        (
            "$patch: merge is a struct-tag strategy, not a map directive",
            json!({"metadata": {"labels": {"$patch": "merge", "a": "1"}}}),
            false,
            "unknown patch type: \"merge\"",
        ),
        (
            "an unknown $patch value",
            json!({"metadata": {"$patch": "upsert"}}),
            false,
            "unknown patch type",
        ),
    ];
    for (rule, patch, malformed, words) in cases {
        let original =
            json!({"metadata": {"name": "worker-1"}, "spec": {"podCIDR": "10.244.1.0/24"}});
        match patched(&original, &patch) {
            Err(PatchError::Malformed(message)) => {
                assert!(malformed, "{rule}: Malformed({message})");
                assert!(message.contains(words), "{rule}: {message}");
            }
            Err(PatchError::Unprocessable(message)) => {
                assert!(!malformed, "{rule}: Unprocessable({message})");
                assert!(message.contains(words), "{rule}: {message}");
            }
            Ok(value) => panic!("{rule}: applied, giving {value}"),
        }
    }
}

fn pod_spec(containers: Value) -> Value {
    json!({"spec": {"containers": containers}})
}

#[test]
fn lists_that_cannot_be_merged() {
    // (rule, original, patch, words of the 422 message)
    let cases: Vec<(&str, Value, Value, &str)> = vec![
        (
            "an item without its merge key",
            pod_spec(json!([{"name": "app"}])),
            pod_spec(json!([{"image": "v2"}])),
            r#"map: {"image":"v2"} does not contain declared merge key: name"#,
        ),
        (
            "$patch: delete without the merge key",
            pod_spec(json!([{"name": "app"}])),
            pod_spec(json!([{"$patch": "delete"}])),
            "does not contain declared merge key: name",
        ),
        (
            "a live item without the merge key cannot be placed",
            pod_spec(json!([{"image": "v1"}])),
            pod_spec(json!([{"name": "app"}])),
            "does not contain declared merge key: name",
        ),
        (
            "$setElementOrder items need the merge key",
            pod_spec(json!([{"name": "app"}])),
            json!({"spec": {"$setElementOrder/containers": [{"image": "v1"}]}}),
            "does not contain declared merge key: name",
        ),
        (
            "a null item in a keyed list",
            pod_spec(json!([{"name": "app"}])),
            pod_spec(json!([null])),
            "null",
        ),
        (
            "a scalar item in a keyed list",
            pod_spec(json!([])),
            pod_spec(json!(["app"])),
            "must be objects",
        ),
        (
            "$patch: merge in a list",
            pod_spec(json!([{"name": "app"}])),
            pod_spec(json!([{"$patch": "merge"}])),
            "merging lists cannot yet be specified in the patch",
        ),
        (
            "an unknown $patch in a list",
            pod_spec(json!([{"name": "app"}])),
            pod_spec(json!([{"name": "app", "$patch": "upsert"}])),
            "unknown patch type",
        ),
        (
            "lists of lists",
            json!({"metadata": {"finalizers": ["a"]}}),
            json!({"metadata": {"finalizers": [["b"]]}}),
            "lists of lists are not supported",
        ),
        (
            "items of different types in a set",
            json!({"metadata": {"finalizers": ["a"]}}),
            json!({"metadata": {"finalizers": [1]}}),
            "list element types are not identical",
        ),
        (
            "objects in a set of scalars",
            json!({"metadata": {"finalizers": []}}),
            json!({"metadata": {"finalizers": [{"name": "a"}]}}),
            "list of scalars",
        ),
        (
            "$setElementOrder for a field that is not a list",
            json!({"spec": {"containers": {"name": "app"}}}),
            json!({"spec": {"$setElementOrder/containers": [{"name": "app"}]}}),
            "not a list",
        ),
    ];
    for (rule, original, patch, words) in cases {
        match patched(&original, &patch) {
            Err(PatchError::Unprocessable(message)) => {
                assert!(message.contains(words), "{rule}: {message}")
            }
            other => panic!("{rule}: {other:?}"),
        }
    }
}
