//! Pruning and defaulting, as the apiserver applies them to custom resources on every
//! write (and defaulting again on read): unknown fields disappear, absent fields with a
//! schema `default` appear.

use super::errors;
use super::props::{self, Schema};
use serde_json::Value;

/// Kept at a resource root (the object itself and embedded resources): they are validated
/// by the object-meta code, not by the schema.
const META_FIELDS: [&str; 3] = ["apiVersion", "kind", "metadata"];

/// Removes every field the schema does not specify, except under
/// `x-kubernetes-preserve-unknown-fields`, in `additionalProperties` maps, and the
/// `apiVersion`/`kind`/`metadata` of the object and of embedded resources. Returns the
/// removed paths, sorted (e.g. `spec.foo`, `spec.list[0].bar`), for
/// `fieldValidation=Strict` (`unknown field "spec.foo"`) and for warnings.
pub fn prune(schema: &Schema, value: &mut Value) -> Vec<String> {
    prune_with(schema, value, true)
}

/// `prune` of a value that is a resource root only if `resource_root` (a CRD's default
/// value is one only under `x-kubernetes-embedded-resource`).
pub(crate) fn prune_with(schema: &Schema, value: &mut Value, resource_root: bool) -> Vec<String> {
    let mut pruned = Vec::new();
    prune_node(Some(schema), value, "", resource_root, &mut pruned);
    pruned.sort();
    pruned
}

/// `keep_meta`: this node is a resource root.
fn prune_node(
    s: Option<&Schema>,
    v: &mut Value,
    path: &str,
    keep_meta: bool,
    out: &mut Vec<String>,
) {
    if let Some(s) = s.filter(|s| props::preserves_unknown(s)) {
        prune_preserving(s, v, path, out);
        return;
    }
    match v {
        Value::Object(fields) => {
            let Some(s) = s else {
                out.extend(fields.keys().map(|k| errors::child(path, k)));
                fields.clear();
                return;
            };
            let keys: Vec<String> = fields.keys().cloned().collect();
            for k in keys {
                if keep_meta && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                let child_path = errors::child(path, &k);
                let child_schema = if let Some(p) = props::property(s, &k) {
                    Some(p)
                } else if props::has_additional(s) {
                    props::additional(s)
                } else {
                    if !META_FIELDS.contains(&k.as_str()) || !path.is_empty() {
                        out.push(child_path);
                    }
                    fields.remove(&k);
                    continue;
                };
                let embedded = child_schema.is_some_and(props::embedded);
                if let Some(child) = fields.get_mut(&k) {
                    prune_node(child_schema, child, &child_path, embedded, out);
                }
            }
        }
        Value::Array(items) => {
            let item_schema = s.and_then(props::items);
            let embedded = item_schema.is_some_and(props::embedded);
            for (i, item) in items.iter_mut().enumerate() {
                prune_node(item_schema, item, &errors::index(path, i), embedded, out);
            }
        }
        _ => {}
    }
}

/// Below `x-kubernetes-preserve-unknown-fields`, unknown fields stay, but specified ones
/// are still pruned inside.
fn prune_preserving(s: &Schema, v: &mut Value, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(fields) => {
            for (k, child) in fields.iter_mut() {
                if props::embedded(s) && META_FIELDS.contains(&k.as_str()) {
                    continue;
                }
                let child_path = errors::child(path, k);
                if let Some(p) = props::property(s, k) {
                    prune_node(Some(p), child, &child_path, props::embedded(p), out);
                } else if props::has_additional(s) {
                    let a = props::additional(s);
                    prune_node(a, child, &child_path, a.is_some_and(props::embedded), out);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = props::items(s) {
                for (i, item) in items.iter_mut().enumerate() {
                    prune_preserving(item_schema, item, &errors::index(path, i), out);
                }
            }
        }
        _ => {}
    }
}

/// Sets absent (or null but non-nullable) properties that have a `default`, recursively,
/// including inside defaults just applied; then drops the remaining nulls of non-nullable
/// properties, which the apiserver treats as absent.
pub fn apply_defaults(schema: &Schema, value: &mut Value) {
    default_node(schema, value);
    drop_nulls(schema, value);
}

fn default_of(s: &Schema) -> Option<Value> {
    s.default.as_ref().map(|d| d.0.clone())
}

fn default_node(s: &Schema, v: &mut Value) {
    match v {
        Value::Object(fields) => {
            for (name, p) in s.properties.iter().flatten() {
                let Some(default) = default_of(p) else {
                    continue;
                };
                let absent = match fields.get(name) {
                    None => true,
                    Some(Value::Null) => !props::nullable(p),
                    Some(_) => false,
                };
                if absent {
                    fields.insert(name.clone(), default);
                }
            }
            for (k, child) in fields.iter_mut() {
                if let Some(p) = props::property(s, k) {
                    default_node(p, child);
                } else if let Some(a) = props::additional(s) {
                    fill_null(a, child);
                    default_node(a, child);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = props::items(s) {
                for item in items.iter_mut() {
                    fill_null(item_schema, item);
                    default_node(item_schema, item);
                }
            }
        }
        _ => {}
    }
}

fn fill_null(s: &Schema, v: &mut Value) {
    if v.is_null()
        && !props::nullable(s)
        && let Some(default) = default_of(s)
    {
        *v = default;
    }
}

fn drop_nulls(s: &Schema, v: &mut Value) {
    match v {
        Value::Object(fields) => {
            fields.retain(|k, x| {
                let droppable = props::property(s, k)
                    .is_some_and(|p| p.default.is_none() && !props::nullable(p));
                !(x.is_null() && droppable)
            });
            for (k, child) in fields.iter_mut() {
                if let Some(p) = props::property(s, k) {
                    drop_nulls(p, child);
                } else if let Some(a) = props::additional(s) {
                    drop_nulls(a, child);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = props::items(s) {
                items
                    .iter_mut()
                    .for_each(|item| drop_nulls(item_schema, item));
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Schema {
        serde_json::from_value(json!({
            "type": "object",
            "properties": {
                "spec": {
                    "type": "object",
                    "properties": {
                        "strategy": {"type": "string", "default": "Delete"},
                        "limit": {"type": "integer"},
                        "nullableField": {"type": "string", "nullable": true},
                        "options": {
                            "type": "object",
                            "default": {},
                            "properties": {"grace": {"type": "integer", "default": 30}}
                        },
                        "list": {
                            "type": "array",
                            "items": {"type": "object", "properties": {"name": {"type": "string"}}}
                        },
                        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                        "raw": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": true,
                            "properties": {"known": {"type": "object", "properties": {"a": {"type": "string"}}}}
                        },
                        "template": {
                            "type": "object",
                            "x-kubernetes-embedded-resource": true,
                            "properties": {"spec": {"type": "object"}}
                        }
                    }
                }
            }
        }))
        .unwrap_or_default()
    }

    #[test]
    fn prune_removes_what_the_schema_does_not_specify() {
        let cases = [
            (
                "root keeps apiVersion, kind and metadata",
                json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "a", "x": 1}, "extra": 1}),
                json!({"apiVersion": "v", "kind": "K", "metadata": {"name": "a", "x": 1}}),
                vec!["extra"],
            ),
            (
                "unknown nested fields are removed with their paths",
                json!({"spec": {"foo": 1, "list": [{"name": "a", "bar": 2}]}}),
                json!({"spec": {"list": [{"name": "a"}]}}),
                vec!["spec.foo", "spec.list[0].bar"],
            ),
            (
                "additionalProperties keeps every key",
                json!({"spec": {"labels": {"a": "b"}}}),
                json!({"spec": {"labels": {"a": "b"}}}),
                vec![],
            ),
            (
                "preserve-unknown-fields keeps unknown keys but prunes inside specified ones",
                json!({"spec": {"raw": {"any": {"deep": 1}, "known": {"a": "x", "b": "y"}}}}),
                json!({"spec": {"raw": {"any": {"deep": 1}, "known": {"a": "x"}}}}),
                vec!["spec.raw.known.b"],
            ),
            (
                "embedded resources keep their type and object meta",
                json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}, "status": {}}}}),
                json!({"spec": {"template": {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {}}}}),
                vec!["spec.template.status"],
            ),
        ];
        for (rule, mut input, expected, paths) in cases {
            let pruned = prune(&schema(), &mut input);
            assert_eq!(input, expected, "{rule}");
            assert_eq!(pruned, paths, "{rule}");
        }
    }

    #[test]
    fn defaults_fill_absent_fields() {
        let cases = [
            (
                "absent property gets its default, recursively into the default",
                json!({"spec": {}}),
                json!({"spec": {"strategy": "Delete", "options": {"grace": 30}}}),
            ),
            (
                "present values are kept",
                json!({"spec": {"strategy": "External", "options": {"grace": 5}}}),
                json!({"spec": {"strategy": "External", "options": {"grace": 5}}}),
            ),
            (
                "null of a non-nullable property with a default is defaulted",
                json!({"spec": {"strategy": null, "options": {}}}),
                json!({"spec": {"strategy": "Delete", "options": {"grace": 30}}}),
            ),
            (
                "null of a non-nullable property without default is dropped",
                json!({"spec": {"limit": null, "nullableField": null}}),
                json!({"spec": {"strategy": "Delete", "options": {"grace": 30}, "nullableField": null}}),
            ),
            (
                "no spec, no defaults inside it",
                json!({"kind": "K"}),
                json!({"kind": "K"}),
            ),
        ];
        for (rule, mut input, expected) in cases {
            apply_defaults(&schema(), &mut input);
            assert_eq!(input, expected, "{rule}");
        }
    }
}
