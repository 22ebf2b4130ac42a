//! CRD-time checks of `x-kubernetes-list-type`, `x-kubernetes-list-map-keys` and
//! `x-kubernetes-map-type`: the identity of list items (merge keys for server-side apply,
//! correlation for transition rules) must be well defined.

use super::errors::{child, forbidden, invalid, key, not_supported, required};
use super::go_format::{go_quote, go_string_slice};
use super::props::{self, Schema};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaPropsOrArray;

pub(crate) fn map_and_list_types(s: &Schema, path: &str, out: &mut Vec<String>) {
    let t = props::type_of(s);
    let type_path = child(path, "type");
    let wrong_type = |expected: &str, what: &str| {
        let detail = format!("must be {expected} if {what} is specified");
        match t {
            "" => required(&type_path, &detail),
            _ => invalid(&type_path, &go_quote(t), &detail),
        }
    };
    if let Some(map_type) = s.x_kubernetes_map_type.as_deref() {
        if t != "object" {
            out.push(wrong_type("object", "x-kubernetes-map-type"));
        }
        if map_type != "atomic" && map_type != "granular" {
            out.push(not_supported(
                &child(path, "x-kubernetes-map-type"),
                map_type,
                &["atomic", "granular"],
            ));
        }
    }
    let list_type = s.x_kubernetes_list_type.as_deref();
    if let Some(lt) = list_type {
        if t != "array" {
            out.push(wrong_type("array", "x-kubernetes-list-type"));
        } else if lt == "set" {
            atomic_set_items(s, path, out);
        }
        if !["atomic", "set", "map"].contains(&lt) {
            out.push(not_supported(
                &child(path, "x-kubernetes-list-type"),
                lt,
                &["atomic", "set", "map"],
            ));
        }
    }
    let keys = props::list_map_keys(s);
    if !keys.is_empty() && list_type != Some("map") {
        let detail = "must be map if x-kubernetes-list-map-keys is non-empty";
        let lt_path = child(path, "x-kubernetes-list-type");
        out.push(match list_type {
            None => required(&lt_path, detail),
            Some(lt) => invalid(&lt_path, &go_quote(lt), detail),
        });
    }
    if list_type == Some("map") {
        map_list(s, keys, path, out);
    }
}

/// Items of a set must be atomic: a set of granular objects or lists has no identity.
fn atomic_set_items(s: &Schema, path: &str, out: &mut Vec<String>) {
    let Some(item) = props::items(s) else { return };
    let detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
    // The apiserver prints the item's list type here even for the map-type error.
    let shown = item
        .x_kubernetes_list_type
        .as_deref()
        .map(go_quote)
        .unwrap_or_else(|| go_quote("null"));
    match props::type_of(item) {
        "array"
            if item
                .x_kubernetes_list_type
                .as_deref()
                .is_some_and(|lt| lt != "atomic") =>
        {
            out.push(invalid(
                &child(&child(path, "items"), "x-kubernetes-list-type"),
                &shown,
                detail,
            ));
        }
        "object" if item.x_kubernetes_map_type.as_deref() != Some("atomic") => {
            out.push(invalid(
                &child(&child(path, "items"), "x-kubernetes-map-type"),
                &shown,
                detail,
            ));
        }
        _ => {}
    }
    if props::nullable(item) {
        out.push(forbidden(
            &child(&child(path, "items"), "nullable"),
            "cannot be nullable when x-kubernetes-list-type is set",
        ));
    }
}

fn map_list(s: &Schema, keys: &[String], path: &str, out: &mut Vec<String>) {
    let keys_path = child(path, "x-kubernetes-list-map-keys");
    if keys.is_empty() {
        out.push(required(
            &keys_path,
            "must not be empty if x-kubernetes-list-type is map",
        ));
    }
    let item = match &s.items {
        None => {
            out.push(required(
                &child(path, "items"),
                "must have a schema if x-kubernetes-list-type is map",
            ));
            return;
        }
        Some(JSONSchemaPropsOrArray::Schemas(_)) => {
            let detail = "must only have a single schema if x-kubernetes-list-type is map";
            out.push(invalid(&child(path, "items"), "[...]", detail));
            return;
        }
        Some(JSONSchemaPropsOrArray::Schema(item)) => item,
    };
    let items_path = child(path, "items");
    if props::type_of(item) != "object" {
        let detail = "must be object if parent array's x-kubernetes-list-type is map";
        out.push(invalid(
            &child(&items_path, "type"),
            &go_quote(props::type_of(item)),
            detail,
        ));
        return;
    }
    let shown_keys = go_string_slice(keys);
    for (i, k) in keys.iter().enumerate() {
        let key_path = key(&child(&items_path, "properties"), k);
        match props::property(item, k) {
            Some(p) => {
                if matches!(props::type_of(p), "array" | "object") {
                    let detail =
                        "must be a scalar type if parent array's x-kubernetes-list-type is map";
                    out.push(invalid(
                        &child(&key_path, "type"),
                        &go_quote("object"),
                        detail,
                    ));
                }
                if !props::required(item).contains(k) && p.default.is_none() {
                    let detail = "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property";
                    out.push(required(&child(&key_path, "default"), detail));
                }
                if props::nullable(p) {
                    let detail =
                        "this property is in x-kubernetes-list-map-keys, so it cannot be nullable";
                    out.push(forbidden(&child(&key_path, "nullable"), detail));
                }
            }
            None => {
                let detail = "entries must all be names of item properties";
                out.push(invalid(&keys_path, &shown_keys, detail));
            }
        }
        if keys[..i].contains(k) {
            out.push(invalid(
                &keys_path,
                &shown_keys,
                "must not contain duplicate entries",
            ));
        }
    }
    if props::nullable(item) {
        out.push(forbidden(
            &child(&items_path, "nullable"),
            "cannot be nullable when x-kubernetes-list-type is map",
        ));
    }
}
