//! Component schemas: custom resources' CRD schemas as the real server publishes them, open
//! schemas for built-in kinds, and the `meta/v1` types operations refer to.

use super::reference;
use crate::sandbox::apiserver::resource::{ResourceType, Shape};
use serde_json::{Map, Value, json};

pub(super) const META: &str = "io.k8s.apimachinery.pkg.apis.meta.v1";
pub(super) const EVICTION_SCHEMA: &str = "io.k8s.api.policy.v1.Eviction";

/// The real server's names: `<group reversed>.<version>.<Kind>` for custom resources
/// (`io.kubernetes-fleet.placement.v1beta1.ClusterResourcePlacementEviction`), the Go package
/// path for built-ins (`io.k8s.api.core.v1.Pod`).
pub(super) fn schema_name(t: &ResourceType, kind: &str) -> String {
    let version = &t.version;
    if t.is_custom() {
        let reversed: Vec<&str> = t.group.split('.').rev().collect();
        return format!("{}.{version}.{kind}", reversed.join("."));
    }
    match t.group.as_str() {
        "" => format!("io.k8s.api.core.{version}.{kind}"),
        "apiextensions.k8s.io" => {
            format!("io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.{version}.{kind}")
        }
        group => {
            let package = group.split('.').next().unwrap_or(group);
            format!("io.k8s.api.{package}.{version}.{kind}")
        }
    }
}

pub(super) fn add_schemas(schemas: &mut Map<String, Value>, t: &ResourceType) {
    let list_kind = format!("{}List", t.kind);
    let (object, list) = if t.is_custom() {
        (custom_schema(t), custom_list_schema(t, &list_kind))
    } else {
        (builtin_schema(&t.kind), builtin_schema(&list_kind))
    };
    schemas.insert(schema_name(t, &t.kind), object);
    schemas.insert(schema_name(t, &list_kind), list);
    if t.subresources.iter().any(|s| s == "eviction") {
        schemas.insert(EVICTION_SCHEMA.into(), builtin_schema("Eviction"));
    }
}

/// Open, and naming no kind on purpose: kubectl's client-side apply computes a strategic
/// merge patch from the schema tagged with the object's kind when there is one, and an open
/// schema would make it fail (and warn) on every nested field. Untagged, kubectl uses its
/// compiled-in types, which carry the real patch strategies. Field validation is the
/// server's job, so nothing else is lost for `apply`; `explain` does not work on built-ins.
fn builtin_schema(kind: &str) -> Value {
    open_object(&format!("{kind}: fields are checked by the server."))
}

pub(super) fn open_object(description: &str) -> Value {
    json!({
        "description": description,
        "type": "object",
        "x-kubernetes-preserve-unknown-fields": true,
    })
}

fn gvk_list(t: &ResourceType, kind: &str) -> Value {
    json!([{"group": t.group, "version": t.version, "kind": kind}])
}

/// The CRD version's schema, with `x-kubernetes-int-or-string` unfolded and `apiVersion`,
/// `kind` and `metadata` set as the real server publishes them.
fn custom_schema(t: &ResourceType) -> Value {
    let mut schema = match &t.shape {
        Shape::Custom(props) => serde_json::to_value(props.as_ref()).unwrap_or(Value::Null),
        Shape::Builtin(_) => Value::Null,
    };
    if !schema.is_object() {
        schema = json!({"type": "object"});
    }
    unfold_int_or_string(&mut schema);
    if let Value::Object(map) = &mut schema {
        let properties = map.entry("properties").or_insert_with(|| json!({}));
        if let Value::Object(properties) = properties {
            properties.extend(type_meta());
            let metadata = json!({
                "$ref": format!("#/components/schemas/{META}.ObjectMeta"),
                "description": "Standard object metadata.",
            });
            properties.insert("metadata".into(), metadata);
        }
        map.insert(
            "x-kubernetes-group-version-kind".into(),
            gvk_list(t, &t.kind),
        );
    }
    schema
}

fn custom_list_schema(t: &ResourceType, list_kind: &str) -> Value {
    let mut properties = type_meta();
    properties.insert(
        "items".into(),
        json!({
            "description": format!("List of {}.", t.resource),
            "type": "array",
            "items": reference(&schema_name(t, &t.kind)),
        }),
    );
    properties.insert(
        "metadata".into(),
        json!({"$ref": format!("#/components/schemas/{META}.ListMeta"), "description": "Standard list metadata."}),
    );
    json!({
        "description": format!("{list_kind} is a list of {}", t.kind),
        "required": ["items"],
        "properties": properties,
        "x-kubernetes-group-version-kind": gvk_list(t, list_kind),
    })
}

fn type_meta() -> Map<String, Value> {
    let mut properties = Map::new();
    let string = |description: &str| json!({"description": description, "type": "string"});
    properties.insert(
        "apiVersion".into(),
        string("Group and version of the schema."),
    );
    properties.insert("kind".into(), string("The kind of object, in CamelCase."));
    properties
}

/// The real server publishes `x-kubernetes-int-or-string` with the `anyOf` it stands for.
/// Walks the structural parts only (properties, items, additionalProperties).
fn unfold_int_or_string(node: &mut Value) {
    let Value::Object(map) = node else { return };
    let int_or_string = map.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    if int_or_string && !map.contains_key("anyOf") {
        let any_of = json!([{"type": "integer"}, {"type": "string"}]);
        map.insert("anyOf".into(), any_of);
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties.values_mut().for_each(unfold_int_or_string);
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            unfold_int_or_string(child);
        }
    }
}

/// The `meta/v1` schemas the operations and custom schemas refer to, with their main fields.
pub(super) fn meta_schemas() -> Map<String, Value> {
    let string = json!({"type": "string"});
    let time = json!({"type": "string", "format": "date-time"});
    let int64 = json!({"type": "integer", "format": "int64"});
    let strings_map = json!({"type": "object", "additionalProperties": {"type": "string"}});
    let open_list = json!({"type": "array", "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}});
    let schemas = json!({
        "ObjectMeta": {
            "description": "Metadata every persisted object has.",
            "type": "object",
            "properties": {
                "annotations": strings_map, "creationTimestamp": time,
                "deletionGracePeriodSeconds": int64, "deletionTimestamp": time,
                "finalizers": {"type": "array", "items": string},
                "generateName": string, "generation": int64, "labels": strings_map,
                "managedFields": open_list, "name": string, "namespace": string,
                "ownerReferences": open_list, "resourceVersion": string, "selfLink": string,
                "uid": string,
            },
        },
        "ListMeta": {
            "description": "Metadata of a list.",
            "type": "object",
            "properties": {
                "continue": string, "remainingItemCount": int64,
                "resourceVersion": string, "selfLink": string,
            },
        },
        "Status": open_object("The outcome of a call that returns no object."),
        "DeleteOptions": open_object("Options of a delete request."),
        "Patch": {"description": "A patch in one of the accepted patch formats.", "type": "object"},
    });
    let Value::Object(schemas) = schemas else {
        return Map::new();
    };
    schemas
        .into_iter()
        .map(|(name, schema)| (format!("{META}.{name}"), schema))
        .collect()
}
