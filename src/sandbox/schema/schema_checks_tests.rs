//! Decision tables for the per-node schema checks and the CRD-time checks of rules.

use super::*;
use serde_json::{Value, json};

const P: &str = "spec.versions[0].schema.openAPIV3Schema";

fn findings(schema: Value) -> (Vec<String>, Vec<String>) {
    let s: Schema =
        serde_json::from_value(schema).unwrap_or_else(|e| panic!("bad test schema: {e}"));
    let f = check(&s, P);
    (f.schema, f.cel)
}

fn at(path: &str, rest: &str) -> String {
    format!("{P}{path}: {rest}")
}

/// `{type: object, properties: {spec: <spec>}}`.
fn with_spec(spec: Value) -> Value {
    json!({"type": "object", "properties": {"spec": spec}})
}

#[test]
fn unsupported_keywords() {
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        ("plain schema", with_spec(json!({"type": "object"})), vec![]),
        (
            "$ref",
            with_spec(json!({"type": "object", "$ref": "#/definitions/x"})),
            vec![at(
                ".properties[spec].$ref",
                "Forbidden: $ref is not supported",
            )],
        ),
        (
            "uniqueItems",
            with_spec(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})),
            vec![at(
                ".properties[spec].uniqueItems",
                "Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic",
            )],
        ),
        (
            "additionalProperties false",
            with_spec(json!({"type": "object", "additionalProperties": false})),
            vec![at(
                ".properties[spec].additionalProperties",
                "Forbidden: additionalProperties cannot be set to false",
            )],
        ),
        (
            "properties and additionalProperties together",
            with_spec(
                json!({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
            ),
            vec![at(
                ".properties[spec].additionalProperties",
                "Forbidden: additionalProperties and properties are mutual exclusive",
            )],
        ),
        (
            "unknown type",
            with_spec(json!({"type": "int"})),
            vec![at(
                ".properties[spec].type",
                r#"Unsupported value: "int": supported values: "array", "boolean", "integer", "number", "object", "string""#,
            )],
        ),
        (
            "tuple items",
            with_spec(json!({"type": "array", "items": [{"type": "string"}]})),
            vec![at(
                ".properties[spec].items",
                "Forbidden: items must be a schema object and not an array",
            )],
        ),
        (
            "invalid pattern",
            with_spec(json!({"type": "string", "pattern": "+"})),
            vec![at(
                ".properties[spec].pattern",
                r#"Invalid value: "+": must be a valid regular expression, but isn't: error parsing regexp: repetition operator missing expression"#,
            )],
        ),
        (
            "no defaults in top-level metadata",
            json!({"type": "object", "properties": {"metadata": {"type": "object", "default": {}}}}),
            vec![at(
                ".properties[metadata].default",
                "Forbidden: must not be set in top-level metadata",
            )],
        ),
        (
            "preserve-unknown-fields false",
            with_spec(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": false})),
            vec![at(
                ".properties[spec].x-kubernetes-preserve-unknown-fields",
                "Invalid value: false: must be true or undefined",
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        assert_eq!(findings(schema).0, expected, "{rule}");
    }
}

#[test]
fn list_and_map_types() {
    let item = |props: Value, required: Value| json!({"type": "object", "properties": props, "required": required});
    let map_list = |keys: Value, item: Value| {
        with_spec(
            json!({"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": keys, "items": item}),
        )
    };
    let name = || json!({"name": {"type": "string"}});
    let cases: Vec<(&str, Value, Vec<String>)> = vec![
        (
            "map list keyed by a required scalar",
            map_list(json!(["name"]), item(name(), json!(["name"]))),
            vec![],
        ),
        (
            "map list key with a default",
            map_list(
                json!(["name"]),
                item(
                    json!({"name": {"type": "string", "default": "x"}}),
                    json!([]),
                ),
            ),
            vec![],
        ),
        (
            "map list needs keys",
            map_list(json!([]), item(name(), json!(["name"]))),
            vec![at(
                ".properties[spec].x-kubernetes-list-map-keys",
                "Required value: must not be empty if x-kubernetes-list-type is map",
            )],
        ),
        (
            "keys must name item properties",
            map_list(json!(["id"]), item(name(), json!(["name"]))),
            vec![at(
                ".properties[spec].x-kubernetes-list-map-keys",
                r#"Invalid value: []string{"id"}: entries must all be names of item properties"#,
            )],
        ),
        (
            "keys must be scalars",
            map_list(
                json!(["name"]),
                item(json!({"name": {"type": "object"}}), json!(["name"])),
            ),
            vec![at(
                ".properties[spec].items.properties[name].type",
                r#"Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map"#,
            )],
        ),
        (
            "keys must be required or defaulted",
            map_list(json!(["name"]), item(name(), json!([]))),
            vec![at(
                ".properties[spec].items.properties[name].default",
                "Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            )],
        ),
        (
            "map list items must be objects",
            map_list(json!(["name"]), json!({"type": "string"})),
            vec![at(
                ".properties[spec].items.type",
                r#"Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map"#,
            )],
        ),
        (
            "list type values",
            with_spec(
                json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-type": "bag"}),
            ),
            vec![at(
                ".properties[spec].x-kubernetes-list-type",
                r#"Unsupported value: "bag": supported values: "atomic", "set", "map""#,
            )],
        ),
        (
            "list type needs an array",
            with_spec(json!({"type": "object", "x-kubernetes-list-type": "set"})),
            vec![at(
                ".properties[spec].type",
                r#"Invalid value: "object": must be array if x-kubernetes-list-type is specified"#,
            )],
        ),
        (
            "list-map-keys need list type map",
            with_spec(
                json!({"type": "array", "items": {"type": "string"}, "x-kubernetes-list-map-keys": ["a"]}),
            ),
            vec![at(
                ".properties[spec].x-kubernetes-list-type",
                "Required value: must be map if x-kubernetes-list-map-keys is non-empty",
            )],
        ),
        (
            "set items must be atomic objects",
            with_spec(
                json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "object"}}),
            ),
            vec![at(
                ".properties[spec].items.x-kubernetes-map-type",
                r#"Invalid value: "null": must be atomic as item of a list with x-kubernetes-list-type=set"#,
            )],
        ),
        (
            "map type values",
            with_spec(json!({"type": "object", "x-kubernetes-map-type": "deep"})),
            vec![at(
                ".properties[spec].x-kubernetes-map-type",
                r#"Unsupported value: "deep": supported values: "atomic", "granular""#,
            )],
        ),
    ];
    for (rule, schema, expected) in cases {
        assert_eq!(findings(schema).0, expected, "{rule}");
    }
}

fn ruled(rules: Value, extra: Value) -> Value {
    let mut spec = json!({"type": "object", "properties": {
        "strategy": {"type": "string"},
        "list": {"type": "array", "items": {"type": "object", "properties": {"v": {"type": "string", "x-kubernetes-validations": extra}}}}
    }, "x-kubernetes-validations": rules});
    if spec["properties"]["list"]["items"]["properties"]["v"]["x-kubernetes-validations"]
        == json!([])
    {
        spec["properties"]["list"]["items"]["properties"]["v"]
            .as_object_mut()
            .map(|o| o.remove("x-kubernetes-validations"));
    }
    with_spec(spec)
}

#[test]
fn rules_must_compile_and_fit_the_schema() {
    let rp = ".properties[spec].x-kubernetes-validations[0]";
    let cases: Vec<(&str, Value, Vec<String>, Vec<String>)> = vec![
        (
            "a good rule",
            ruled(json!([{"rule": "has(self.strategy)"}]), json!([])),
            vec![],
            vec![],
        ),
        (
            "empty rule",
            ruled(json!([{"rule": " "}]), json!([])),
            vec![at(
                &format!("{rp}.rule"),
                "Required value: rule is not specified",
            )],
            vec![],
        ),
        (
            "multi-line rule needs a message",
            ruled(json!([{"rule": "true &&\ntrue"}]), json!([])),
            vec![at(
                &format!("{rp}.message"),
                "Required value: message must be specified if rule contains line breaks",
            )],
            vec![],
        ),
        (
            "unknown reason",
            ruled(json!([{"rule": "true", "reason": "Bad"}]), json!([])),
            vec![at(
                &format!("{rp}.reason"),
                r#"Unsupported value: "Bad": supported values: "FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired""#,
            )],
            vec![],
        ),
        (
            "fieldPath must exist",
            ruled(json!([{"rule": "true", "fieldPath": ".nope"}]), json!([])),
            vec![at(
                &format!("{rp}.fieldPath"),
                r#"Invalid value: ".nope": fieldPath must be a valid path"#,
            )],
            vec![],
        ),
        (
            "fieldPath to a field",
            ruled(
                json!([{"rule": "true", "fieldPath": ".strategy"}]),
                json!([]),
            ),
            vec![],
            vec![],
        ),
        (
            "undefined field is a compile error",
            ruled(json!([{"rule": "has(self.stratgy)"}]), json!([])),
            vec![],
            vec![at(
                &format!("{rp}.rule"),
                "Invalid value: \"has(self.stratgy)\": compilation failed: ERROR: <input>:1:4: undefined field 'stratgy'\n | has(self.stratgy)\n | ...^",
            )],
        ),
        (
            "undeclared function is a compile error",
            ruled(json!([{"rule": "self.strategy.isSorted()"}]), json!([])),
            vec![],
            vec![at(
                &format!("{rp}.rule"),
                "Invalid value: \"self.strategy.isSorted()\": compilation failed: ERROR: <input>:1:23: undeclared reference to 'isSorted' (in container '')\n | self.strategy.isSorted()\n | ......................^",
            )],
        ),
        (
            "messageExpression must compile",
            ruled(
                json!([{"rule": "true", "messageExpression": "'a' +"}]),
                json!([]),
            ),
            vec![],
            vec![format!(
                "{P}{rp}.messageExpression: Invalid value: \"'a' +\": messageExpression compilation failed: ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting {{'[', '{{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}}\n | 'a' +\n | .....^"
            )],
        ),
        (
            "oldSelf is not usable under atomic list items",
            ruled(json!([]), json!([{"rule": "self == oldSelf"}])),
            vec![],
            vec![at(
                ".properties[spec].properties[list].items.properties[v].x-kubernetes-validations[0].rule",
                &format!(
                    r#"Invalid value: "self == oldSelf": oldSelf cannot be used on the uncorrelatable portion of the schema within {P}.properties[spec].properties[list]"#
                ),
            )],
        ),
    ];
    for (rule, schema, schema_errors, cel_errors) in cases {
        let (s, c) = findings(schema);
        assert_eq!(s, schema_errors, "{rule}");
        assert_eq!(c, cel_errors, "{rule}");
    }
}
