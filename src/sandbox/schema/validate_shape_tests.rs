//! Decision tables for `validate` on composite shapes: int-or-string, preserved and map
//! fields, value validations under junctors, and list types.

use super::tests::{case, resource, run};
use serde_json::json;

#[test]
fn int_or_string_and_preserved_fields() {
    let s = || {
        resource(json!({
            "maxUnavailable": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}]},
            "raw": {"type": "object", "x-kubernetes-preserve-unknown-fields": true},
            "labels": {"type": "object", "additionalProperties": {"type": "string", "maxLength": 3}}
        }))
    };
    run(vec![
        case(
            "int-or-string accepts an integer",
            s(),
            json!({"maxUnavailable": 5}),
            vec![],
        ),
        case(
            "int-or-string accepts a string",
            s(),
            json!({"maxUnavailable": "50%"}),
            vec![],
        ),
        case(
            "int-or-string rejects a boolean",
            s(),
            json!({"maxUnavailable": true}),
            vec![
                r#"spec.maxUnavailable: Invalid value: "boolean": spec.maxUnavailable in body must be of type integer,string: "boolean""#,
            ],
        ),
        case(
            "anything goes below preserve-unknown-fields",
            s(),
            json!({"raw": {"a": [1, {"b": null}]}}),
            vec![],
        ),
        case(
            "unknown fields are not errors",
            s(),
            json!({"unknown": 1}),
            vec![],
        ),
        case(
            "map values are checked, named with dots",
            s(),
            json!({"labels": {"k": "long"}}),
            vec!["spec.labels.k: Too long: may not be more than 3 bytes"],
        ),
    ]);
}

#[test]
fn junctors_validate_values() {
    let s = || {
        resource(json!({
            "delta": {"type": "string",
                "anyOf": [{"maxLength": 2}, {"pattern": "^x"}]},
            "one": {"type": "integer", "oneOf": [{"minimum": 0}, {"maximum": 10}]},
            "not": {"type": "string", "not": {"pattern": "^bad"}},
            "all": {"type": "integer", "allOf": [{"minimum": 1}, {"maximum": 2}]}
        }))
    };
    run(vec![
        case(
            "anyOf: one branch is enough",
            s(),
            json!({"delta": "xyz"}),
            vec![],
        ),
        case(
            "anyOf: no branch",
            s(),
            json!({"delta": "abc"}),
            vec![
                r#"spec.delta: Invalid value: "": spec.delta must validate at least one schema (anyOf)"#,
                "spec.delta: Too long: may not be more than 2 bytes",
            ],
        ),
        case(
            "oneOf: both branches",
            s(),
            json!({"one": 5}),
            vec![
                r#"spec.one: Invalid value: "": spec.one must validate one and only one schema (oneOf)"#,
            ],
        ),
        case(
            "not",
            s(),
            json!({"not": "bad1"}),
            vec![r#"spec.not: Invalid value: "": spec.not must not validate the schema (not)"#],
        ),
        case(
            "allOf: every branch",
            s(),
            json!({"all": 3}),
            vec!["spec.all: Invalid value: 3: spec.all in body should be less than or equal to 2"],
        ),
    ]);
}

#[test]
fn list_types() {
    let s = || {
        resource(json!({
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "conds": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}},
            "atomic": {"type": "array", "items": {"type": "string"}}
        }))
    };
    run(vec![
        case(
            "set without duplicates",
            s(),
            json!({"tags": ["a", "b"]}),
            vec![],
        ),
        case(
            "set duplicates are reported once, at the second occurrence",
            s(),
            json!({"tags": ["a", "b", "a", "a"]}),
            vec![r#"spec.tags[2]: Duplicate value: "a""#],
        ),
        case(
            "map-list duplicate keys",
            s(),
            json!({"conds": [{"name": "x", "v": 1}, {"name": "x", "v": 2}]}),
            vec![r#"spec.conds[1]: Duplicate value: map[string]interface {}{"name":"x"}"#],
        ),
        case(
            "atomic lists may repeat",
            s(),
            json!({"atomic": ["a", "a"]}),
            vec![],
        ),
    ]);
}
