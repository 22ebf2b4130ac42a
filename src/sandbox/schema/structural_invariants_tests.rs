//! Decision tables for the structural-schema invariants.

use super::*;
use serde_json::{Value, json};

const P: &str = "spec.versions[0].schema.openAPIV3Schema";

fn violations(schema: Value) -> Vec<String> {
    let s: Schema =
        serde_json::from_value(schema).unwrap_or_else(|e| panic!("bad test schema: {e}"));
    check(&s, P)
}

fn at(path: &str, rest: &str) -> String {
    format!("{P}{path}: {rest}")
}

#[test]
fn every_specified_node_has_a_type() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "typed schema",
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            vec![],
        ),
        (
            "root needs a type",
            json!({"properties": {"a": {"type": "string"}}}),
            vec![at(".type", "Required value: must not be empty at the root")],
        ),
        (
            "root must be an object",
            json!({"type": "integer"}),
            vec![at(
                ".type",
                r#"Invalid value: "integer": must be object at the root"#,
            )],
        ),
        (
            "a property needs a type",
            json!({"type": "object", "properties": {"spec": {"properties": {"a": {"type": "string"}}}}}),
            vec![at(
                ".properties[spec].type",
                "Required value: must not be empty for specified object fields",
            )],
        ),
        (
            "array items need a type",
            json!({"type": "object", "properties": {"l": {"type": "array", "items": {}}}}),
            vec![at(
                ".properties[l].items.type",
                "Required value: must not be empty for specified array items",
            )],
        ),
        (
            "an array needs items",
            json!({"type": "object", "properties": {"l": {"type": "array"}}}),
            vec![at(
                ".properties[l].items",
                "Required value: must be specified",
            )],
        ),
        (
            "map values need a type",
            json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}}),
            vec![at(
                ".properties[m].additionalProperties.type",
                "Required value: must not be empty for specified object fields",
            )],
        ),
        (
            "int-or-string needs no type",
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true}}}),
            vec![],
        ),
        (
            "preserve-unknown-fields needs no type",
            json!({"type": "object", "properties": {"raw": {"x-kubernetes-preserve-unknown-fields": true}}}),
            vec![],
        ),
        (
            "additionalProperties is forbidden at the root",
            json!({"type": "object", "additionalProperties": {"type": "string"}}),
            vec![at(
                ".additionalProperties",
                "Forbidden: must not be used at the root",
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        assert_eq!(violations(schema), expected, "{rule}");
    }
}

#[test]
fn int_or_string_shapes() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "anyOf integer, string",
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string"}]}}}),
            vec![],
        ),
        (
            "allOf whose first anyOf is integer, string",
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^a"}]}}}),
            vec![],
        ),
        (
            "string, integer in the other order is not the shape",
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "string"}, {"type": "integer"}]}}}),
            vec![
                at(
                    ".properties[p].anyOf[0].type",
                    "Forbidden: must be empty to be structural",
                ),
                at(
                    ".properties[p].anyOf[1].type",
                    "Forbidden: must be empty to be structural",
                ),
            ],
        ),
        (
            "extra constraints inside the branches are not the shape",
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "anyOf": [{"type": "integer"}, {"type": "string", "pattern": "a"}]}}}),
            vec![
                at(
                    ".properties[p].anyOf[0].type",
                    "Forbidden: must be empty to be structural",
                ),
                at(
                    ".properties[p].anyOf[1].type",
                    "Forbidden: must be empty to be structural",
                ),
            ],
        ),
        (
            "int-or-string cannot preserve unknown fields",
            json!({"type": "object", "properties": {"p": {"x-kubernetes-int-or-string": true,
                "x-kubernetes-preserve-unknown-fields": true}}}),
            vec![at(
                ".properties[p].x-kubernetes-preserve-unknown-fields",
                "Invalid value: true: must be false if x-kubernetes-int-or-string is true",
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        assert_eq!(violations(schema), expected, "{rule}");
    }
}

#[test]
fn junctors_hold_value_validations_only() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "value validations in junctors are fine",
            json!({"type": "object", "properties": {"a": {"type": "string"}},
                "anyOf": [{"required": ["a"]}], "not": {"properties": {"a": {"pattern": "^x"}}}}),
            vec![],
        ),
        (
            "no type, default, description, nullable or additionalProperties in a junctor",
            json!({"type": "object", "properties": {"a": {"type": "string"}},
                "allOf": [{"properties": {"a": {"type": "string", "default": "x", "description": "d", "nullable": true}}}],
                "oneOf": [{"additionalProperties": {"type": "string"}}]}),
            vec![
                at(
                    ".allOf[0].properties[a].default",
                    "Forbidden: must be undefined to be structural",
                ),
                at(
                    ".allOf[0].properties[a].description",
                    "Forbidden: must be empty to be structural",
                ),
                at(
                    ".allOf[0].properties[a].nullable",
                    "Forbidden: must be false to be structural",
                ),
                at(
                    ".allOf[0].properties[a].type",
                    "Forbidden: must be empty to be structural",
                ),
                at(
                    ".oneOf[0].additionalProperties",
                    "Forbidden: must be undefined to be structural",
                ),
            ],
        ),
        (
            "no metadata in a junctor",
            json!({"type": "object", "properties": {"metadata": {"type": "object"}}, "not": {"properties": {"metadata": {}}}}),
            vec![at(
                ".not.properties[metadata]",
                "Forbidden: must not be specified in a nested context",
            )],
        ),
        (
            "junctor fields must exist structurally",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"properties": {"b": {}}}]}),
            vec![at(
                ".properties[b]",
                &format!("Required value: because it is defined in {P}.anyOf[0].properties[b]"),
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        assert_eq!(violations(schema), expected, "{rule}");
    }
}

#[test]
fn metadata_and_embedded_resources() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "metadata may restrict name and generateName",
            json!({"type": "object", "properties": {"metadata": {"type": "object",
                "properties": {"name": {"type": "string", "maxLength": 20}, "generateName": {"type": "string"}}}}}),
            vec![],
        ),
        (
            "metadata may not restrict labels",
            json!({"type": "object", "properties": {"metadata": {"type": "object",
                "properties": {"labels": {"type": "object"}}}}}),
            vec![at(
                ".properties[metadata]",
                "Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified",
            )],
        ),
        (
            "metadata must be an object",
            json!({"type": "object", "properties": {"metadata": {"type": "string"}}}),
            vec![at(
                ".properties[metadata].type",
                r#"Invalid value: "string": must be object"#,
            )],
        ),
        (
            "kind must be a string",
            json!({"type": "object", "properties": {"kind": {"type": "integer"}}}),
            vec![at(
                ".properties[kind].type",
                r#"Invalid value: "integer": must be string"#,
            )],
        ),
        (
            "embedded resources are objects",
            json!({"type": "object", "properties": {"t": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true}}}),
            vec![at(
                ".properties[t].type",
                r#"Invalid value: "array": must be object if x-kubernetes-embedded-resource is true"#,
            )],
        ),
        (
            "embedded resources need properties or preserved fields",
            json!({"type": "object", "properties": {"t": {"type": "object", "x-kubernetes-embedded-resource": true}}}),
            vec![at(
                ".properties[t].properties",
                "Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        assert_eq!(violations(schema), expected, "{rule}");
    }
}
