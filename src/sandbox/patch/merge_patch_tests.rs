//! RFC 7386: the examples of Appendix A, plus the merge patches kubectl sends.

use super::*;
use serde_json::json;

#[test]
fn rfc7386_appendix_a() {
    let cases: Vec<(&str, Value, Value, Value)> = vec![
        (
            "A.1 a member is replaced",
            json!({"a": "b"}),
            json!({"a": "c"}),
            json!({"a": "c"}),
        ),
        (
            "A.2 a member is added",
            json!({"a": "b"}),
            json!({"b": "c"}),
            json!({"a": "b", "b": "c"}),
        ),
        (
            "A.3 null removes a member",
            json!({"a": "b"}),
            json!({"a": null}),
            json!({}),
        ),
        (
            "A.4 null removes only that member",
            json!({"a": "b", "b": "c"}),
            json!({"a": null}),
            json!({"b": "c"}),
        ),
        (
            "A.5 a scalar replaces an array",
            json!({"a": ["b"]}),
            json!({"a": "c"}),
            json!({"a": "c"}),
        ),
        (
            "A.6 an array replaces a scalar",
            json!({"a": "c"}),
            json!({"a": ["b"]}),
            json!({"a": ["b"]}),
        ),
        (
            "A.7 objects merge recursively",
            json!({"a": {"b": "c"}}),
            json!({"a": {"b": "d", "c": null}}),
            json!({"a": {"b": "d"}}),
        ),
        (
            "A.8 arrays are replaced, not merged",
            json!({"a": [{"b": "c"}]}),
            json!({"a": [1]}),
            json!({"a": [1]}),
        ),
        (
            "A.9 an array patch replaces an array",
            json!(["a", "b"]),
            json!(["c", "d"]),
            json!(["c", "d"]),
        ),
        (
            "A.10 an array patch replaces an object",
            json!({"a": "b"}),
            json!(["c"]),
            json!(["c"]),
        ),
        (
            "A.11 a null patch replaces the document",
            json!({"a": "foo"}),
            json!(null),
            json!(null),
        ),
        (
            "A.12 a scalar patch replaces the document",
            json!({"a": "foo"}),
            json!("bar"),
            json!("bar"),
        ),
        (
            "A.13 nulls already in the target stay",
            json!({"e": null}),
            json!({"a": 1}),
            json!({"e": null, "a": 1}),
        ),
        (
            "A.14 an object patch on an array starts from an empty object",
            json!([1, 2]),
            json!({"a": "b", "c": null}),
            json!({"a": "b"}),
        ),
        (
            "A.15 nulls inside a new member are dropped",
            json!({}),
            json!({"a": {"bb": {"ccc": null}}}),
            json!({"a": {"bb": {}}}),
        ),
        (
            "nulls inside arrays are values, not deletions",
            json!({"a": 1}),
            json!({"a": [null]}),
            json!({"a": [null]}),
        ),
    ];
    for (rule, target, patch, expected) in cases {
        assert_eq!(merge(&target, &patch), expected, "{rule}");
    }
}

#[test]
fn kubectl_merge_patches() {
    let deployment = json!({
        "metadata": {"name": "web", "labels": {"app": "web", "tier": "frontend"}},
        "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "v1"}, {"name": "sidecar", "image": "s1"}]}}}
    });
    let cases: Vec<(&str, Value, Value)> = vec![
        (
            "kubectl label tier- sends null for the label",
            json!({"metadata": {"labels": {"tier": null}}}),
            json!({
                "metadata": {"name": "web", "labels": {"app": "web"}},
                "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "v1"}, {"name": "sidecar", "image": "s1"}]}}}
            }),
        ),
        (
            "kubectl scale-like patch changes one scalar",
            json!({"spec": {"replicas": 5}}),
            json!({
                "metadata": {"name": "web", "labels": {"app": "web", "tier": "frontend"}},
                "spec": {"replicas": 5, "template": {"spec": {"containers": [{"name": "app", "image": "v1"}, {"name": "sidecar", "image": "s1"}]}}}
            }),
        ),
        (
            "--type=merge on containers replaces the whole list",
            json!({"spec": {"template": {"spec": {"containers": [{"name": "app", "image": "v2"}]}}}}),
            json!({
                "metadata": {"name": "web", "labels": {"app": "web", "tier": "frontend"}},
                "spec": {"replicas": 2, "template": {"spec": {"containers": [{"name": "app", "image": "v2"}]}}}
            }),
        ),
    ];
    for (rule, patch, expected) in cases {
        assert_eq!(merge(&deployment, &patch), expected, "{rule}");
    }
}
