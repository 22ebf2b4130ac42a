//! Strategic merge patch, as kube-apiserver applies it to built-in objects: a recursive
//! merge where `null` deletes a field, lists merge by the strategy of `merge_keys`, and the
//! directives `$patch`, `$retainKeys`, `$setElementOrder/<list>` and
//! `$deleteFromPrimitiveList/<list>` steer the merge. Directives never reach the result.
//!
//! Error classes follow the real server: what it answers with 400 (unreadable body, a
//! directive in the wrong shape) is `Malformed`; everything else it refuses (a missing
//! merge key, an unknown `$patch` value, mixed list items) is `Unprocessable`.

use super::strategic_list::{merge_list, ordered_merge};
use super::{PatchError, go_kind};
use serde_json::{Map, Value};

/// `$patch: replace | delete` in a map or a list item.
pub(super) const PATCH: &str = "$patch";
const RETAIN_KEYS: &str = "$retainKeys";
const SET_ELEMENT_ORDER: &str = "$setElementOrder";
const DELETE_FROM_PRIMITIVE_LIST: &str = "$deleteFromPrimitiveList";

/// The patched copy of `original`. A `null` patch changes nothing (as Go decodes it).
pub(super) fn apply(original: &Value, patch: &Value) -> Result<Value, PatchError> {
    match patch {
        Value::Object(patch) => {
            let base = original.as_object().cloned().unwrap_or_default();
            merge_map(None, base, patch).map(Value::Object)
        }
        Value::Null => Ok(original.clone()),
        other => Err(PatchError::Malformed(format!(
            "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
            go_kind(other)
        ))),
    }
}

/// Merges `patch` into `original`, an object held by the field `parent` (`None` for the
/// document root; for a list item, the list's field), which picks the strategy of the
/// lists inside it.
pub(super) fn merge_map(
    parent: Option<&str>,
    mut original: Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<Map<String, Value>, PatchError> {
    if let Some(directive) = patch.get(PATCH) {
        return map_directive(parent, directive, patch);
    }
    retain_keys(&mut original, patch)?;
    let ordered = set_element_orders(parent, &mut original, patch)?;
    for (key, value) in patch {
        if !is_directive(key) && !ordered.contains(key) {
            merge_field(parent, &mut original, key, value)?;
        }
    }
    delete_from_primitive_lists(&mut original, patch)?;
    Ok(original)
}

/// The patch value for a field the original does not have (or has with another JSON
/// type): the patch merged into nothing, so its nulls and directives disappear.
fn fresh_value(parent: Option<&str>, field: &str, patch: &Value) -> Result<Value, PatchError> {
    Ok(match patch {
        Value::Object(fields) => Value::Object(merge_map(Some(field), Map::new(), fields)?),
        Value::Array(items) => Value::Array(merge_list(parent, field, Vec::new(), items)?),
        scalar => scalar.clone(),
    })
}

/// `null`, or a map holding `$patch: delete`: the field goes.
fn deletes_field(patch: &Value) -> bool {
    patch.is_null() || patch.get(PATCH).and_then(Value::as_str) == Some("delete")
}

/// `$patch: replace` takes the map as the patch gives it. `$patch: delete` in a field's
/// map removes the field (see `deletes_field`); where there is no field to remove (the
/// document root, an item of a list without merge strategy) it leaves an empty object. No other value is allowed: `merge` exists only as a strategy of Go
/// struct tags, not in patches.
fn map_directive(
    parent: Option<&str>,
    directive: &Value,
    patch: &Map<String, Value>,
) -> Result<Map<String, Value>, PatchError> {
    match directive.as_str() {
        Some("replace") => {
            let mut rest = patch.clone();
            rest.remove(PATCH);
            merge_map(parent, Map::new(), &rest)
        }
        Some("delete") => Ok(Map::new()),
        _ => Err(PatchError::Unprocessable(format!(
            "unknown patch type: {directive} in map: {}",
            Value::Object(patch.clone())
        ))),
    }
}

fn merge_field(
    parent: Option<&str>,
    original: &mut Map<String, Value>,
    key: &str,
    patch: &Value,
) -> Result<(), PatchError> {
    if deletes_field(patch) {
        original.remove(key);
        return Ok(());
    }
    let merged = match (original.remove(key), patch) {
        (Some(Value::Object(current)), Value::Object(fields)) => {
            Value::Object(merge_map(Some(key), current, fields)?)
        }
        (Some(Value::Array(current)), Value::Array(items)) => {
            Value::Array(merge_list(parent, key, current, items)?)
        }
        _ => fresh_value(parent, key, patch)?,
    };
    original.insert(key.to_string(), merged);
    Ok(())
}

/// Keys that carry directives rather than fields.
fn is_directive(key: &str) -> bool {
    key == RETAIN_KEYS
        || key.starts_with(SET_ELEMENT_ORDER)
        || key.starts_with(DELETE_FROM_PRIMITIVE_LIST)
}

/// The list a `<prefix>/<field>` directive key is about; `None` for other keys.
fn directive_target<'k>(key: &'k str, prefix: &str) -> Result<Option<&'k str>, PatchError> {
    let Some(rest) = key.strip_prefix(prefix) else {
        return Ok(None);
    };
    match rest.strip_prefix('/') {
        Some(field) => Ok(Some(field)),
        None => Err(PatchError::Malformed(format!(
            "invalid patch format of {prefix}: {key:?} must be {prefix}/<field>"
        ))),
    }
}

/// `$retainKeys: [names]`: fields of the original not listed are cleared before merging;
/// every field the patch sets must be listed.
fn retain_keys(
    original: &mut Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<(), PatchError> {
    let Some(listed) = patch.get(RETAIN_KEYS) else {
        return Ok(());
    };
    let Value::Array(listed) = listed else {
        return Err(bad_retain_keys("$retainKeys must be a list of field names"));
    };
    let is_listed = |key: &str| listed.iter().any(|name| name.as_str() == Some(key));
    if let Some((unlisted, _)) = patch
        .iter()
        .find(|(key, value)| !value.is_null() && !is_directive(key) && !is_listed(key))
    {
        return Err(bad_retain_keys(&format!(
            "{unlisted:?} is set but not in $retainKeys"
        )));
    }
    original.retain(|key, _| is_listed(key));
    Ok(())
}

fn bad_retain_keys(detail: &str) -> PatchError {
    PatchError::Malformed(format!("invalid patch format of retainKeys: {detail}"))
}

/// Merges each list named by a `$setElementOrder/<field>` directive together with the
/// patch's `<field>` (if any) and orders it; returns the fields done here.
fn set_element_orders(
    parent: Option<&str>,
    original: &mut Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<Vec<String>, PatchError> {
    let mut done = Vec::new();
    for (key, order) in patch {
        let Some(field) = directive_target(key, SET_ELEMENT_ORDER)? else {
            continue;
        };
        let Value::Array(order) = order else {
            return Err(PatchError::Malformed(format!(
                "invalid patch format of setElementOrder list: {key:?} must be a list"
            )));
        };
        if let Some(list) = ordered_merge(
            parent,
            field,
            original.remove(field),
            patch.get(field),
            order,
        )? {
            original.insert(field.to_string(), Value::Array(list));
        }
        done.push(field.to_string());
    }
    Ok(done)
}

/// `$deleteFromPrimitiveList/<field>: [values]` removes every occurrence of those values
/// from the original list, after the patch's own `<field>` is merged. Nothing to delete
/// from when the original has no such list.
fn delete_from_primitive_lists(
    original: &mut Map<String, Value>,
    patch: &Map<String, Value>,
) -> Result<(), PatchError> {
    for (key, values) in patch {
        let Some(field) = directive_target(key, DELETE_FROM_PRIMITIVE_LIST)? else {
            continue;
        };
        let Value::Array(values) = values else {
            return Err(PatchError::Malformed(format!(
                "invalid patch format of primitive list: {key:?} must be a list"
            )));
        };
        if let Some(Value::Array(items)) = original.get_mut(field) {
            items.retain(|item| !values.contains(item));
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "strategic_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "strategic_kubectl_tests.rs"]
mod kubectl_tests;
