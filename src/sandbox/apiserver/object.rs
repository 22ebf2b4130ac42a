//! Reading and writing the metadata of objects held as JSON.

use serde_json::{Map, Value};

pub fn metadata(object: &Value) -> Option<&Map<String, Value>> {
    object.get("metadata")?.as_object()
}

/// The metadata map, created when missing or not an object.
pub fn metadata_mut(object: &mut Value) -> &mut Map<String, Value> {
    if !object.is_object() {
        *object = Value::Object(Map::new());
    }
    let Value::Object(root) = object else {
        unreachable!("made an object above")
    };
    let meta = root
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    match meta {
        Value::Object(m) => m,
        _ => unreachable!("made an object above"),
    }
}

pub fn meta_str<'a>(object: &'a Value, field: &str) -> Option<&'a str> {
    metadata(object)?.get(field)?.as_str()
}

pub fn name(object: &Value) -> &str {
    meta_str(object, "name").unwrap_or("")
}

pub fn namespace(object: &Value) -> &str {
    meta_str(object, "namespace").unwrap_or("")
}

pub fn uid(object: &Value) -> &str {
    meta_str(object, "uid").unwrap_or("")
}

pub fn resource_version(object: &Value) -> &str {
    meta_str(object, "resourceVersion").unwrap_or("")
}

pub fn labels(object: &Value) -> Option<&Map<String, Value>> {
    metadata(object)?.get("labels")?.as_object()
}

pub fn is_deleting(object: &Value) -> bool {
    metadata(object).is_some_and(|m| m.get("deletionTimestamp").is_some_and(|t| !t.is_null()))
}

pub fn finalizers(object: &Value) -> Vec<String> {
    metadata(object)
        .and_then(|m| m.get("finalizers"))
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .filter_map(|f| f.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

pub fn set_finalizers(object: &mut Value, finalizers: Vec<String>) {
    let meta = metadata_mut(object);
    if finalizers.is_empty() {
        meta.remove("finalizers");
    } else {
        meta.insert("finalizers".into(), Value::from(finalizers));
    }
}

/// Whether something still holds a deleting object: its finalizers, for a namespace the
/// `spec.finalizers` its content controller clears, for a pod its grace period (its kubelet
/// finishes the deletion).
pub fn is_held(object: &Value) -> bool {
    let spec_finalizers = object
        .pointer("/spec/finalizers")
        .and_then(Value::as_array)
        .is_some_and(|f| !f.is_empty());
    let grace = metadata(object)
        .and_then(|m| m.get("deletionGracePeriodSeconds"))
        .and_then(Value::as_i64)
        .is_some_and(|g| g > 0);
    !finalizers(object).is_empty() || spec_finalizers || grace
}

/// The uids of the object's owners.
pub fn owner_uids(object: &Value) -> Vec<String> {
    metadata(object)
        .and_then(|m| m.get("ownerReferences"))
        .and_then(Value::as_array)
        .map(|refs| {
            refs.iter()
                .filter_map(|r| r.get("uid").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// The object with everything but status, metadata and the type fields: what
/// `metadata.generation` counts changes of.
pub fn generation_relevant(object: &Value) -> Map<String, Value> {
    object
        .as_object()
        .map(|m| {
            m.iter()
                .filter(|(k, _)| {
                    !matches!(k.as_str(), "metadata" | "status" | "apiVersion" | "kind")
                })
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        })
        .unwrap_or_default()
}

/// Store key: `namespace/name`, with an empty namespace for cluster-scoped objects, so
/// that one namespace is one contiguous range of the ordered table.
pub fn store_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}
