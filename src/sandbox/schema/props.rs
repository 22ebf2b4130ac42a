//! Read-only accessors on `JSONSchemaProps`: the typed struct is all `Option`s, and every
//! checker here needs the apiserver's reading of them (absent = empty / false).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    JSONSchemaProps, JSONSchemaPropsOrArray, JSONSchemaPropsOrBool, ValidationRule,
};

pub(crate) type Schema = JSONSchemaProps;

pub(crate) fn type_of(s: &Schema) -> &str {
    s.type_.as_deref().unwrap_or("")
}

pub(crate) fn is_true(flag: Option<bool>) -> bool {
    flag.unwrap_or(false)
}

pub(crate) fn nullable(s: &Schema) -> bool {
    is_true(s.nullable)
}

pub(crate) fn int_or_string(s: &Schema) -> bool {
    is_true(s.x_kubernetes_int_or_string)
}

pub(crate) fn preserves_unknown(s: &Schema) -> bool {
    is_true(s.x_kubernetes_preserve_unknown_fields)
}

pub(crate) fn embedded(s: &Schema) -> bool {
    is_true(s.x_kubernetes_embedded_resource)
}

/// `x-kubernetes-list-type`; an unset list is atomic.
pub(crate) fn list_type(s: &Schema) -> &str {
    s.x_kubernetes_list_type.as_deref().unwrap_or("atomic")
}

pub(crate) fn list_map_keys(s: &Schema) -> &[String] {
    s.x_kubernetes_list_map_keys.as_deref().unwrap_or(&[])
}

pub(crate) fn rules(s: &Schema) -> &[ValidationRule] {
    s.x_kubernetes_validations.as_deref().unwrap_or(&[])
}

pub(crate) fn required(s: &Schema) -> &[String] {
    s.required.as_deref().unwrap_or(&[])
}

pub(crate) fn property<'a>(s: &'a Schema, name: &str) -> Option<&'a Schema> {
    s.properties.as_ref().and_then(|p| p.get(name))
}

pub(crate) fn has_properties(s: &Schema) -> bool {
    s.properties.as_ref().is_some_and(|p| !p.is_empty())
}

/// The item schema of an array (a tuple `items: [...]` is not structural and has none).
pub(crate) fn items(s: &Schema) -> Option<&Schema> {
    match &s.items {
        Some(JSONSchemaPropsOrArray::Schema(item)) => Some(item),
        _ => None,
    }
}

/// The schema of map values, if `additionalProperties` is a schema.
pub(crate) fn additional(s: &Schema) -> Option<&Schema> {
    match &s.additional_properties {
        Some(JSONSchemaPropsOrBool::Schema(value)) => Some(value),
        _ => None,
    }
}

/// Whether `additionalProperties` is specified at all (a schema, `true` or `false`).
pub(crate) fn has_additional(s: &Schema) -> bool {
    s.additional_properties.is_some()
}

/// The schema that applies to `key` of an object: a declared property, else the map-value
/// schema.
pub(crate) fn child<'a>(s: &'a Schema, key: &str) -> Option<&'a Schema> {
    property(s, key).or_else(|| additional(s))
}

/// Whether any `x-kubernetes-validations` rule exists in this schema or below it.
pub(crate) fn has_rules(s: &Schema) -> bool {
    !rules(s).is_empty()
        || s.properties
            .as_ref()
            .is_some_and(|p| p.values().any(has_rules))
        || items(s).is_some_and(has_rules)
        || additional(s).is_some_and(has_rules)
}
