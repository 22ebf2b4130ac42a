//! JSON → CEL values, typed by the schema the way the apiserver types them.
//!
//! The `cel` crate's own conversion (via serde) turns non-negative JSON integers into
//! `uint`, which breaks rules written for Kubernetes: `self >= 0` compares uint with int,
//! and `type(self) == int` is false. Kubernetes decides by schema: `integer` (and
//! int-or-string, and untyped JSON) integers are `int`, `number`s are `double`, strings of
//! some formats are timestamps, durations or bytes.

use super::cel_engine;
use super::props::{self, Schema};
use cel::Value as CelValue;
use cel::objects::{Key, Map};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// Converts `value`, typed by `schema` (`None` below preserve-unknown-fields). At a
/// resource root (the object itself or an embedded resource) `metadata` shows only `name`
/// and `generateName`, as in Kubernetes.
pub(crate) fn to_cel(schema: Option<&Schema>, value: &Value, resource_root: bool) -> CelValue {
    match value {
        Value::Null => CelValue::Null,
        Value::Bool(b) => CelValue::Bool(*b),
        Value::Number(n) => number(schema, n),
        Value::String(s) => string(schema, s),
        Value::Array(items) => {
            let item_schema = schema.and_then(props::items);
            let embedded = item_schema.is_some_and(props::embedded);
            CelValue::List(Arc::new(
                items
                    .iter()
                    .map(|x| to_cel(item_schema, x, embedded))
                    .collect(),
            ))
        }
        Value::Object(fields) => {
            let mut map = HashMap::with_capacity(fields.len());
            for (k, v) in fields {
                let converted = if resource_root && k == "metadata" {
                    visible_metadata(v)
                } else {
                    let child = schema.and_then(|s| props::child(s, k));
                    to_cel(child, v, child.is_some_and(props::embedded))
                };
                map.insert(Key::String(Arc::new(k.clone())), converted);
            }
            CelValue::Map(Map { map: Arc::new(map) })
        }
    }
}

fn number(schema: Option<&Schema>, n: &serde_json::Number) -> CelValue {
    let declared = schema.map(props::type_of).unwrap_or("");
    if declared == "number" {
        return CelValue::Float(n.as_f64().unwrap_or(f64::NAN));
    }
    if let Some(i) = n.as_i64() {
        return CelValue::Int(i);
    }
    let f = n.as_f64().unwrap_or(f64::NAN);
    // `5.0` passes `type: integer` validation; the rule should see the integer it is.
    let integral = f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64;
    let integer_node = declared == "integer" || schema.is_some_and(props::int_or_string);
    if integer_node && integral {
        CelValue::Int(f as i64)
    } else {
        CelValue::Float(f)
    }
}

fn string(schema: Option<&Schema>, s: &str) -> CelValue {
    if let Some(format) = schema
        .filter(|sc| props::type_of(sc) == "string")
        .and_then(|sc| sc.format.as_deref())
        && let Some(converted) = cel_engine::convert_format(format, s)
    {
        return converted;
    }
    CelValue::String(Arc::new(s.to_string()))
}

fn visible_metadata(metadata: &Value) -> CelValue {
    let mut map = HashMap::new();
    for name in ["name", "generateName"] {
        if let Some(Value::String(s)) = metadata.get(name) {
            map.insert(
                Key::String(Arc::new(name.to_string())),
                CelValue::String(Arc::new(s.clone())),
            );
        }
    }
    CelValue::Map(Map { map: Arc::new(map) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema(v: Value) -> Schema {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn values_are_typed_by_schema() {
        let int = schema(json!({"type": "integer"}));
        let num = schema(json!({"type": "number"}));
        let ios = schema(json!({"x-kubernetes-int-or-string": true}));
        let ts = schema(json!({"type": "string", "format": "date-time"}));
        let cases: Vec<(&str, Option<&Schema>, Value, &str)> = vec![
            ("integer is int, not uint", Some(&int), json!(5), "int"),
            ("negative integer is int", Some(&int), json!(-1), "int"),
            (
                "integral float at an integer node is int",
                Some(&int),
                json!(5.0),
                "int",
            ),
            (
                "number is double even when integral",
                Some(&num),
                json!(5),
                "float",
            ),
            ("int-or-string integer is int", Some(&ios), json!(5), "int"),
            (
                "int-or-string string is string",
                Some(&ios),
                json!("50%"),
                "string",
            ),
            ("untyped JSON integer is int", None, json!(7), "int"),
            ("untyped JSON float is double", None, json!(0.5), "float"),
            (
                "date-time is a timestamp",
                Some(&ts),
                json!("2024-01-01T00:00:00Z"),
                "timestamp",
            ),
            (
                "bad date-time stays a string",
                Some(&ts),
                json!("yesterday"),
                "string",
            ),
            ("object is a map", None, json!({"a": 1}), "map"),
            ("array is a list", None, json!([1]), "list"),
            ("null is null", None, Value::Null, "null"),
        ];
        for (rule, s, value, kind) in cases {
            assert_eq!(
                to_cel(s, &value, false).type_of().to_string(),
                kind,
                "{rule}"
            );
        }
    }

    #[test]
    fn root_metadata_shows_only_names() {
        let object =
            json!({"metadata": {"name": "a", "namespace": "n", "labels": {"x": "y"}}, "kind": "K"});
        let CelValue::Map(root) = to_cel(None, &object, true) else {
            panic!("root is not a map");
        };
        let metadata = root.map.get(&Key::String(Arc::new("metadata".into())));
        let Some(CelValue::Map(metadata)) = metadata else {
            panic!("metadata is not a map");
        };
        let mut keys: Vec<String> = metadata.map.keys().map(|k| format!("{k:?}")).collect();
        keys.sort();
        assert_eq!(keys, vec![r#"String("name")"#.to_string()]);
    }
}
