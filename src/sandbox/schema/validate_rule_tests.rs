//! Decision tables for the CEL side of `validate`: the rules this project relies on,
//! transition rules and their correlation, messages, reasons, field paths, root rules and
//! the blocking-error rule.

use super::tests::{case, messages, resource, rule, run, schema, update};
use serde_json::{Value, json};

#[test]
fn the_required_cel_rules() {
    let percent = "type(self) == string ? self.matches('^(100|[0-9]{1,2})%$') : self >= 0";
    let budget = || {
        resource(json!({
            "maxUnavailable": {"x-kubernetes-int-or-string": true,
                "x-kubernetes-validations": [rule(percent, Some("must be a percentage or a non-negative integer"))]}
        }))
    };
    let exclusive = || {
        schema(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"maxUnavailable": {"type": "integer"}, "minAvailable": {"type": "integer"}},
            "x-kubernetes-validations": [rule("!(has(self.maxUnavailable) && has(self.minAvailable))", None)]}}}),
        )
    };
    let conditions = || {
        resource(json!({
            "evictionConditions": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}},
                "x-kubernetes-validations": [rule("self.all(c, !(c.name in ['Valid', 'Executed']))", Some("reserved condition name"))]}
        }))
    };
    let no_migration = || {
        schema(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"podMigration": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
            "x-kubernetes-validations": [rule("!has(self.podMigration)", Some("podMigration is not supported yet"))]}}}),
        )
    };
    let unique = || {
        resource(json!({
            "names": {"type": "array", "items": {"type": "string"},
                "x-kubernetes-validations": [rule("self.all(t, self.filter(u, u == t).size() == 1)", Some("names must be unique"))]}
        }))
    };
    let pct_error =
        r#"spec.maxUnavailable: Invalid value: "": must be a percentage or a non-negative integer"#;
    run(vec![
        case(
            "percent string passes",
            budget(),
            json!({"maxUnavailable": "50%"}),
            vec![],
        ),
        case(
            "non-negative integer passes",
            budget(),
            json!({"maxUnavailable": 5}),
            vec![],
        ),
        case(
            "zero passes (int, not uint)",
            budget(),
            json!({"maxUnavailable": 0}),
            vec![],
        ),
        case(
            "negative integer fails",
            budget(),
            json!({"maxUnavailable": -1}),
            vec![pct_error],
        ),
        case(
            "101% fails",
            budget(),
            json!({"maxUnavailable": "101%"}),
            vec![pct_error],
        ),
        case(
            "rule on an absent property does not run",
            budget(),
            json!({}),
            vec![],
        ),
        case(
            "one of the two",
            exclusive(),
            json!({"maxUnavailable": 1}),
            vec![],
        ),
        case(
            "both set fails with the default message",
            exclusive(),
            json!({"maxUnavailable": 1, "minAvailable": 1}),
            vec![
                r#"spec: Invalid value: "object": failed rule: !(has(self.maxUnavailable) && has(self.minAvailable))"#,
            ],
        ),
        case(
            "allowed condition names",
            conditions(),
            json!({"evictionConditions": [{"name": "Approved"}]}),
            vec![],
        ),
        case(
            "reserved condition name",
            conditions(),
            json!({"evictionConditions": [{"name": "Approved"}, {"name": "Valid"}]}),
            vec![r#"spec.evictionConditions: Invalid value: "array": reserved condition name"#],
        ),
        case("no podMigration", no_migration(), json!({}), vec![]),
        case(
            "podMigration rejected",
            no_migration(),
            json!({"podMigration": {}}),
            vec![r#"spec: Invalid value: "object": podMigration is not supported yet"#],
        ),
        case(
            "unique names",
            unique(),
            json!({"names": ["a", "b"]}),
            vec![],
        ),
        case(
            "repeated names",
            unique(),
            json!({"names": ["a", "b", "a"]}),
            vec![r#"spec.names: Invalid value: "array": names must be unique"#],
        ),
    ]);
}

#[test]
fn transition_rules() {
    let immutable = || {
        resource(json!({
            "clusterName": {"type": "string", "x-kubernetes-validations": [rule("self == oldSelf", Some("The ClusterName field is immutable"))]}
        }))
    };
    let strategy_rule = "has(self.strategy) == has(oldSelf.strategy) && (!has(self.strategy) || self.strategy == oldSelf.strategy)";
    let strategy = || {
        schema(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"strategy": {"type": "string"}, "other": {"type": "string"}},
            "x-kubernetes-validations": [rule(strategy_rule, Some("strategy is immutable"))]}}}),
        )
    };
    let keyed = || {
        resource(json!({
            "conds": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                "items": {"type": "object", "required": ["name"],
                    "properties": {"name": {"type": "string"}, "v": {"type": "integer", "x-kubernetes-validations": [rule("self >= oldSelf", Some("v may only grow"))]}}}},
            "atomic": {"type": "array", "items": {"type": "object", "properties": {
                "v": {"type": "integer", "x-kubernetes-validations": [rule("self == oldSelf", None)]}}}},
            "labels": {"type": "object", "additionalProperties": {"type": "string",
                "x-kubernetes-validations": [rule("self == oldSelf", Some("label values are immutable"))]}}
        }))
    };
    let immutable_error =
        r#"spec.clusterName: Invalid value: "string": The ClusterName field is immutable"#;
    let strategy_error = r#"spec: Invalid value: "object": strategy is immutable"#;
    run(vec![
        case(
            "create: transition rules do not run",
            immutable(),
            json!({"clusterName": "a"}),
            vec![],
        ),
        update(
            "unchanged value passes",
            immutable(),
            json!({"clusterName": "a"}),
            json!({"clusterName": "a"}),
            vec![],
        ),
        update(
            "changed value fails",
            immutable(),
            json!({"clusterName": "a"}),
            json!({"clusterName": "b"}),
            vec![immutable_error],
        ),
        update(
            "added where absent before: no old value, no run",
            immutable(),
            json!({}),
            json!({"clusterName": "b"}),
            vec![],
        ),
        update(
            "strategy kept",
            strategy(),
            json!({"strategy": "Delete"}),
            json!({"strategy": "Delete", "other": "x"}),
            vec![],
        ),
        update(
            "strategy both absent",
            strategy(),
            json!({"other": "x"}),
            json!({"other": "y"}),
            vec![],
        ),
        update(
            "strategy added",
            strategy(),
            json!({}),
            json!({"strategy": "Delete"}),
            vec![strategy_error],
        ),
        update(
            "strategy removed",
            strategy(),
            json!({"strategy": "Delete"}),
            json!({}),
            vec![strategy_error],
        ),
        update(
            "strategy changed",
            strategy(),
            json!({"strategy": "Delete"}),
            json!({"strategy": "External"}),
            vec![strategy_error],
        ),
        update(
            "map-list items correlate by key, whatever their order",
            keyed(),
            json!({"conds": [{"name": "a", "v": 1}, {"name": "b", "v": 5}]}),
            json!({"conds": [{"name": "b", "v": 4}, {"name": "a", "v": 2}]}),
            vec![r#"spec.conds[0].v: Invalid value: "integer": v may only grow"#],
        ),
        update(
            "new map-list items have no old value",
            keyed(),
            json!({"conds": []}),
            json!({"conds": [{"name": "a", "v": 0}]}),
            vec![],
        ),
        update(
            "atomic list items do not correlate",
            keyed(),
            json!({"atomic": [{"v": 1}]}),
            json!({"atomic": [{"v": 2}]}),
            vec![],
        ),
        update(
            "additionalProperties correlate by key, paths use [key]",
            keyed(),
            json!({"labels": {"a": "x", "b": "y"}}),
            json!({"labels": {"a": "x", "b": "z", "c": "new"}}),
            vec![r#"spec.labels[b]: Invalid value: "string": label values are immutable"#],
        ),
    ]);
}

#[test]
fn rule_messages_reasons_and_field_paths() {
    let s = |extra: Value| {
        let mut r = json!({"rule": "self.a > 0"});
        if let (Value::Object(r), Value::Object(extra)) = (&mut r, extra) {
            r.extend(extra);
        }
        schema(
            json!({"type": "object", "properties": {"spec": {"type": "object",
            "properties": {"a": {"type": "integer"}}, "x-kubernetes-validations": [r]}}}),
        )
    };
    let bad = json!({"a": 0});
    run(vec![
        case(
            "messageExpression is preferred",
            s(json!({"message": "static", "messageExpression": "'a is ' + string(self.a)"})),
            bad.clone(),
            vec![r#"spec: Invalid value: "object": a is 0"#],
        ),
        case(
            "a failing messageExpression falls back to message",
            s(json!({"message": "static", "messageExpression": "self.nope"})),
            bad.clone(),
            vec![r#"spec: Invalid value: "object": static"#],
        ),
        case(
            "fieldPath moves the error",
            s(json!({"message": "m", "fieldPath": ".a"})),
            bad.clone(),
            vec![r#"spec.a: Invalid value: "object": m"#],
        ),
        case(
            "reason Forbidden",
            s(json!({"message": "m", "reason": "FieldValueForbidden"})),
            bad.clone(),
            vec!["spec: Forbidden: m"],
        ),
        case(
            "reason Required",
            s(json!({"message": "m", "reason": "FieldValueRequired"})),
            bad.clone(),
            vec!["spec: Required value: m"],
        ),
        case(
            "reason Duplicate drops the message",
            s(json!({"message": "m", "reason": "FieldValueDuplicate"})),
            bad.clone(),
            vec![r#"spec: Duplicate value: "object""#],
        ),
        case(
            "a rule that does not compile (CRD not checked) fails loudly, not silently",
            s(json!({"rule": "self.a >"})),
            bad.clone(),
            vec![
                "spec: Invalid value: \"object\": compilation failed: ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n | self.a >\n | ........^",
            ],
        ),
        case(
            "evaluation errors count as failures and say so",
            s(json!({})),
            json!({}),
            vec![r#"spec: Invalid value: "object": no such key: a evaluating rule: self.a > 0"#],
        ),
    ]);
}

#[test]
fn rules_at_the_root_and_blocking_errors() {
    let root = schema(json!({"type": "object",
        "properties": {"metadata": {"type": "object"}, "spec": {"type": "object", "required": ["x"], "properties": {"x": {"type": "string"}}}},
        "x-kubernetes-validations": [{"rule": "self.metadata.name.startsWith('a')", "message": "name must start with a"}]}));
    let cases = [
        (
            "root rules report at <nil>",
            json!({"metadata": {"name": "b"}, "spec": {"x": "1"}}),
            vec![r#"<nil>: Invalid value: "object": name must start with a"#],
        ),
        (
            "root rules see metadata.name",
            json!({"metadata": {"name": "abc"}, "spec": {"x": "1"}}),
            vec![],
        ),
        (
            "a blocking schema error skips the rules, and says so",
            json!({"metadata": {"name": "b"}, "spec": {}}),
            vec![
                "spec.x: Required value",
                r#"<nil>: Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"#,
            ],
        ),
    ];
    for (name, new, expected) in cases {
        assert_eq!(messages(&root, new, None), expected, "{name}");
    }
}

#[test]
fn optional_old_self_runs_on_create() {
    let s = resource(json!({
        "v": {"type": "integer", "x-kubernetes-validations": [
            {"rule": "!oldSelf.hasValue() || self >= oldSelf.value()", "message": "may only grow", "optionalOldSelf": true},
            {"rule": "oldSelf.hasValue() || self < 10", "message": "starts below 10", "optionalOldSelf": true}
        ]}
    }));
    let cases = [
        ("create below 10", json!({"v": 5}), None, vec![]),
        (
            "create at 10 fails the create-time rule",
            json!({"v": 10}),
            None,
            vec![r#"spec.v: Invalid value: "integer": starts below 10"#],
        ),
        (
            "update may not shrink",
            json!({"v": 4}),
            Some(json!({"spec": {"v": 5}})),
            vec![r#"spec.v: Invalid value: "integer": may only grow"#],
        ),
    ];
    for (name, spec, old, expected) in cases {
        assert_eq!(messages(&s, json!({"spec": spec}), old), expected, "{name}");
    }
}
