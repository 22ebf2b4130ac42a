//! Decision tables for `validate`: each row names the rule it checks, the schema (a node
//! under `spec` unless the row says otherwise), the new and old values, and the exact
//! messages the apiserver would give.

use super::*;
use serde_json::{Value, json};

pub(super) fn schema(v: Value) -> Schema {
    serde_json::from_value(v).unwrap_or_else(|e| panic!("bad test schema: {e}"))
}

/// A resource whose `spec` has the given properties.
pub(super) fn resource(spec_props: Value) -> Schema {
    schema(json!({
        "type": "object",
        "properties": {
            "apiVersion": {"type": "string"},
            "kind": {"type": "string"},
            "metadata": {"type": "object"},
            "spec": {"type": "object", "properties": spec_props}
        }
    }))
}

pub(super) fn messages(s: &Schema, new: Value, old: Option<Value>) -> Vec<String> {
    validate(s, &new, old.as_ref())
        .iter()
        .map(FieldError::to_message)
        .collect()
}

pub(super) struct Case {
    pub rule: &'static str,
    schema: Schema,
    new: Value,
    old: Option<Value>,
    expected: Vec<&'static str>,
}

pub(super) fn case(
    rule: &'static str,
    schema: Schema,
    spec: Value,
    expected: Vec<&'static str>,
) -> Case {
    Case {
        rule,
        schema,
        new: json!({"spec": spec}),
        old: None,
        expected,
    }
}

pub(super) fn update(
    rule: &'static str,
    schema: Schema,
    old: Value,
    new: Value,
    expected: Vec<&'static str>,
) -> Case {
    Case {
        rule,
        schema,
        new: json!({"spec": new}),
        old: Some(json!({"spec": old})),
        expected,
    }
}

pub(super) fn run(cases: Vec<Case>) {
    for c in cases {
        assert_eq!(messages(&c.schema, c.new, c.old), c.expected, "{}", c.rule);
    }
}

#[test]
fn types_and_nullable() {
    let s = || {
        resource(json!({
            "i": {"type": "integer"}, "n": {"type": "number"}, "s": {"type": "string"},
            "b": {"type": "boolean"}, "o": {"type": "object"}, "a": {"type": "array", "items": {"type": "string"}},
            "nul": {"type": "string", "nullable": true}
        }))
    };
    run(vec![
        case("integer accepts an integer", s(), json!({"i": 3}), vec![]),
        case(
            "integer accepts an integral float",
            s(),
            json!({"i": 3.0}),
            vec![],
        ),
        case(
            "integer rejects a fraction",
            s(),
            json!({"i": 3.5}),
            vec![
                r#"spec.i: Invalid value: "number": spec.i in body must be of type integer: "number""#,
            ],
        ),
        case(
            "integer rejects a string",
            s(),
            json!({"i": "3"}),
            vec![
                r#"spec.i: Invalid value: "string": spec.i in body must be of type integer: "string""#,
            ],
        ),
        case("number accepts an integer", s(), json!({"n": 3}), vec![]),
        case(
            "string rejects a boolean",
            s(),
            json!({"s": true}),
            vec![
                r#"spec.s: Invalid value: "boolean": spec.s in body must be of type string: "boolean""#,
            ],
        ),
        case(
            "boolean rejects a string",
            s(),
            json!({"b": "true"}),
            vec![
                r#"spec.b: Invalid value: "string": spec.b in body must be of type boolean: "string""#,
            ],
        ),
        case(
            "object rejects an array",
            s(),
            json!({"o": []}),
            vec![
                r#"spec.o: Invalid value: "array": spec.o in body must be of type object: "array""#,
            ],
        ),
        case(
            "array rejects an object, items are checked",
            s(),
            json!({"a": ["x", 1]}),
            vec![
                r#"spec.a[1]: Invalid value: "integer": spec.a[1] in body must be of type string: "integer""#,
            ],
        ),
        case(
            "null is rejected unless nullable",
            s(),
            json!({"s": null, "nul": null}),
            vec![r#"spec.s: Invalid value: "null": spec.s in body must be of type string: "null""#],
        ),
    ]);
}

#[test]
fn required_enum_and_strings() {
    let s = || {
        resource(json!({
            "strategy": {"type": "string", "enum": ["Delete", "External"]},
            "count": {"type": "integer", "enum": [1, 2]},
            "placementName": {"type": "string", "maxLength": 255},
            "one": {"type": "string", "maxLength": 1},
            "short": {"type": "string", "minLength": 3},
            "x": {"type": "string", "pattern": "^[a-z]+$"},
            "t": {"type": "string", "format": "date-time"}
        }))
    };
    let mut required = s();
    if let Some(spec) = required.properties.as_mut().and_then(|p| p.get_mut("spec")) {
        spec.required = Some(vec!["clusterName".into(), "placementName".into()]);
    }
    let long = "é".repeat(256);
    run(vec![
        case(
            "required fields must be present",
            required,
            json!({"placementName": "p"}),
            vec!["spec.clusterName: Required value"],
        ),
        case(
            "enum lists the supported values",
            s(),
            json!({"strategy": "Drain"}),
            vec![
                r#"spec.strategy: Unsupported value: "Drain": supported values: "Delete", "External""#,
            ],
        ),
        case(
            "enum accepts a member",
            s(),
            json!({"strategy": "External"}),
            vec![],
        ),
        case(
            "non-string enum values are quoted JSON",
            s(),
            json!({"count": 3}),
            vec![r#"spec.count: Unsupported value: 3: supported values: "1", "2""#],
        ),
        case(
            "maxLength counts characters, not bytes",
            s(),
            json!({"placementName": "é".repeat(255)}),
            vec![],
        ),
        case(
            "maxLength rejects with the 1.32 wording",
            s(),
            json!({"placementName": long}),
            vec!["spec.placementName: Too long: may not be more than 255 bytes"],
        ),
        case(
            "maxLength of one says byte",
            s(),
            json!({"one": "ab"}),
            vec!["spec.one: Too long: may not be more than 1 byte"],
        ),
        case(
            "minLength",
            s(),
            json!({"short": "ab"}),
            vec![
                r#"spec.short: Invalid value: "ab": spec.short in body should be at least 3 chars long"#,
            ],
        ),
        case(
            "pattern mismatch",
            s(),
            json!({"x": "abc1"}),
            vec![r#"spec.x: Invalid value: "abc1": spec.x in body should match '^[a-z]+$'"#],
        ),
        case("pattern match", s(), json!({"x": "abc"}), vec![]),
        case(
            "date-time format",
            s(),
            json!({"t": "2024-01-02T03:04:05Z"}),
            vec![],
        ),
        case(
            "date-time format violation is a type error",
            s(),
            json!({"t": "yesterday"}),
            vec![
                r#"spec.t: Invalid value: "yesterday": spec.t in body must be of type date-time: "yesterday""#,
            ],
        ),
    ]);
}

#[test]
fn numbers_and_counts() {
    let s = || {
        resource(json!({
            "pct": {"type": "integer", "minimum": 0, "maximum": 100},
            "ex": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "maximum": 1, "exclusiveMaximum": true},
            "list": {"type": "array", "maxItems": 2, "minItems": 1, "items": {"type": "integer"}},
            "single": {"type": "array", "maxItems": 1, "items": {"type": "integer"}},
            "m": {"type": "object", "maxProperties": 1, "additionalProperties": {"type": "string"}}
        }))
    };
    run(vec![
        case("within bounds", s(), json!({"pct": 100, "ex": 0.5}), vec![]),
        case(
            "maximum",
            s(),
            json!({"pct": 101}),
            vec![
                "spec.pct: Invalid value: 101: spec.pct in body should be less than or equal to 100",
            ],
        ),
        case(
            "minimum",
            s(),
            json!({"pct": -1}),
            vec![
                "spec.pct: Invalid value: -1: spec.pct in body should be greater than or equal to 0",
            ],
        ),
        case(
            "exclusive bounds (draft-4 booleans)",
            s(),
            json!({"ex": 0}),
            vec!["spec.ex: Invalid value: 0: spec.ex in body should be greater than 0"],
        ),
        case(
            "exclusive maximum",
            s(),
            json!({"ex": 1}),
            vec!["spec.ex: Invalid value: 1: spec.ex in body should be less than 1"],
        ),
        case(
            "maxItems",
            s(),
            json!({"list": [1, 2, 3]}),
            vec!["spec.list: Too many: 3: must have at most 2 items"],
        ),
        case(
            "maxItems of one says item",
            s(),
            json!({"single": [1, 2]}),
            vec!["spec.single: Too many: 2: must have at most 1 item"],
        ),
        case(
            "minItems",
            s(),
            json!({"list": []}),
            vec!["spec.list: Invalid value: 0: spec.list in body should have at least 1 items"],
        ),
        case(
            "maxProperties uses the items wording",
            s(),
            json!({"m": {"a": "1", "b": "2"}}),
            vec!["spec.m: Too many: 2: must have at most 1 item"],
        ),
    ]);
}

/// An `x-kubernetes-validations` entry.
pub(super) fn rule(r: &str, message: Option<&str>) -> Value {
    match message {
        Some(m) => json!({"rule": r, "message": m}),
        None => json!({"rule": r}),
    }
}

#[test]
fn ratcheting_tolerates_unchanged_invalid_values() {
    let s = || {
        resource(json!({
            "name": {"type": "string", "maxLength": 3},
            "other": {"type": "string"},
            "positive": {"type": "integer", "x-kubernetes-validations": [rule("self > 0", Some("must be positive"))]}
        }))
    };
    run(vec![
        update(
            "unchanged too-long value is tolerated",
            s(),
            json!({"name": "toolong"}),
            json!({"name": "toolong", "other": "x"}),
            vec![],
        ),
        update(
            "changed too-long value is not (and, blocking, it skips the rules)",
            s(),
            json!({"name": "toolong"}),
            json!({"name": "toolonger"}),
            vec![
                "spec.name: Too long: may not be more than 3 bytes",
                r#"<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"#,
            ],
        ),
        update(
            "unchanged rule failure is tolerated",
            s(),
            json!({"positive": 0}),
            json!({"positive": 0, "other": "y"}),
            vec![],
        ),
        update(
            "changed rule failure is not",
            s(),
            json!({"positive": 0}),
            json!({"positive": -1}),
            vec![r#"spec.positive: Invalid value: "integer": must be positive"#],
        ),
    ]);
}

#[test]
fn garbage_never_panics() {
    let schemas = [
        schema(json!({})),
        schema(
            json!({"type": "bogus", "items": [{"type": "string"}], "x-kubernetes-list-type": "map"}),
        ),
        schema(
            json!({"type": "object", "properties": {"a": {"pattern": "(", "type": "string",
            "x-kubernetes-validations": [{"rule": "self ==="}, {"rule": "1 / 0 == 1"}, {"rule": "'x'"}]}}}),
        ),
    ];
    let values = [
        json!(null),
        json!({"a": "x"}),
        json!({"a": [1, {"b": null}]}),
        json!([{"a": 1e308}, -9223372036854775808i64, 18446744073709551615u64]),
    ];
    for s in &schemas {
        for v in &values {
            let _ = validate(s, v, Some(v));
            let _ = validate(s, v, None);
        }
    }
}
