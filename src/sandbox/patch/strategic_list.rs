//! Lists in a strategic merge patch: replaced, merged as a set of scalars, or merged item
//! by item on a merge key, with `$patch: delete | replace` items; and the ordering that
//! `$setElementOrder/<field>` asks for.

use super::list_order::{Identity, normalize, partition};
use super::merge_keys::{ListStrategy, list_strategy};
use super::strategic::{PATCH, merge_map};
use super::{PatchError, go_kind};
use serde_json::{Map, Value};

/// Merges the patch's list `patch` into `original`, the list in `field` of an object held
/// by `parent`.
pub(super) fn merge_list(
    parent: Option<&str>,
    field: &str,
    original: Vec<Value>,
    patch: &[Value],
) -> Result<Vec<Value>, PatchError> {
    match list_strategy(parent, field) {
        ListStrategy::Replace => patch.iter().map(|item| clean_item(field, item)).collect(),
        ListStrategy::MergeScalars => merge_scalars(field, original, patch),
        ListStrategy::MergeByKey(key) => merge_by_key(field, key, original, patch),
    }
}

/// The list `field` merged with the patch's list (if any), then ordered by `order`, the
/// `$setElementOrder/<field>` list: its items first in its order, items only the server
/// had interleaved by their live positions. `None` when neither side has the list.
/// Lists without a merge strategy are not reordered.
pub(super) fn ordered_merge(
    parent: Option<&str>,
    field: &str,
    original: Option<Value>,
    patch: Option<&Value>,
    order: &[Value],
) -> Result<Option<Vec<Value>>, PatchError> {
    let original = original.map(|list| expect_list(field, list)).transpose()?;
    let patch = patch
        .map(|list| expect_list(field, list.clone()))
        .transpose()?;
    let identity = match list_strategy(parent, field) {
        ListStrategy::Replace => None,
        ListStrategy::MergeScalars => Some(Identity::Value),
        ListStrategy::MergeByKey(key) => {
            require_merge_key(key, order)?;
            Some(Identity::MergeKey(key))
        }
    };
    let server_order = original.clone().unwrap_or_default();
    let merged = match (original, &patch) {
        (None, None) => return Ok(None),
        (Some(current), None) => current,
        (current, Some(items)) => merge_list(parent, field, current.unwrap_or_default(), items)?,
    };
    let Some(identity) = identity else {
        return Ok(Some(merged));
    };
    let (named, server_only) = partition(merged, order, identity);
    Ok(Some(normalize(
        named,
        server_only,
        order,
        &server_order,
        identity,
    )))
}

/// A set of scalars (`finalizers`): the union without duplicates.
fn merge_scalars(
    field: &str,
    original: Vec<Value>,
    patch: &[Value],
) -> Result<Vec<Value>, PatchError> {
    check_item_types(field, &original, patch)?;
    if let Some(object) = original.iter().chain(patch).find(|item| item.is_object()) {
        return Err(PatchError::Unprocessable(format!(
            "{field:?} is merged as a list of scalars and cannot hold {object}"
        )));
    }
    let mut merged: Vec<Value> = Vec::with_capacity(original.len() + patch.len());
    for item in original.iter().chain(patch) {
        if !merged.contains(item) {
            merged.push(item.clone());
        }
    }
    let (named, server_only) = partition(merged, patch, Identity::Value);
    Ok(normalize(
        named,
        server_only,
        patch,
        &original,
        Identity::Value,
    ))
}

/// Objects matched on `key`: a patch item merges into the original item with the same key
/// value or is added; `$patch: delete` items remove every match; a `$patch: replace` item
/// makes the patch's other items the whole list.
fn merge_by_key(
    field: &str,
    key: &str,
    original: Vec<Value>,
    patch: &[Value],
) -> Result<Vec<Value>, PatchError> {
    check_item_types(field, &original, patch)?;
    if let Some(scalar) = original.iter().chain(patch).find(|item| !item.is_object()) {
        return Err(PatchError::Unprocessable(format!(
            "{field:?} is merged by {key:?}, so its items must be objects, not {scalar}"
        )));
    }
    let server_order = original.clone();
    let Special {
        kept,
        plain,
        replace,
    } = special_items(key, original, patch)?;
    if replace {
        let items = plain
            .iter()
            .map(|item| fresh_item(field, item))
            .collect::<Result<Vec<_>, _>>()?;
        require_merge_key(key, &items)?;
        return Ok(items);
    }
    let merged = merge_plain_items(field, key, kept, &plain)?;
    require_merge_key(key, &merged)?;
    let patch_order: Vec<Value> = plain
        .iter()
        .map(|item| Value::Object((*item).clone()))
        .collect();
    let (named, server_only) = partition(merged, &patch_order, Identity::MergeKey(key));
    Ok(normalize(
        named,
        server_only,
        &patch_order,
        &server_order,
        Identity::MergeKey(key),
    ))
}

/// The patch items split by their `$patch` directive, deletions already applied.
struct Special<'p> {
    kept: Vec<Value>,
    plain: Vec<&'p Map<String, Value>>,
    replace: bool,
}

fn special_items<'p>(
    key: &str,
    original: Vec<Value>,
    patch: &'p [Value],
) -> Result<Special<'p>, PatchError> {
    let mut special = Special {
        kept: original,
        plain: Vec::new(),
        replace: false,
    };
    for item in patch.iter().filter_map(Value::as_object) {
        let Some(directive) = item.get(PATCH) else {
            special.plain.push(item);
            continue;
        };
        match directive.as_str() {
            Some("delete") => {
                let doomed = merge_key_value(key, item)?;
                special
                    .kept
                    .retain(|candidate| candidate.get(key) != Some(doomed));
            }
            Some("replace") => special.replace = true,
            Some("merge") => {
                return Err(PatchError::Unprocessable(
                    "merging lists cannot yet be specified in the patch".to_string(),
                ));
            }
            _ => {
                return Err(PatchError::Unprocessable(format!(
                    "unknown patch type: {directive} in map: {}",
                    Value::Object(item.clone())
                )));
            }
        }
    }
    Ok(special)
}

fn merge_plain_items(
    field: &str,
    key: &str,
    mut merged: Vec<Value>,
    plain: &[&Map<String, Value>],
) -> Result<Vec<Value>, PatchError> {
    for item in plain {
        let wanted = merge_key_value(key, item)?;
        let slot = merged
            .iter_mut()
            .find(|candidate| candidate.get(key) == Some(wanted));
        match slot {
            Some(Value::Object(current)) => {
                let current_fields = std::mem::take(current);
                *current = merge_map(Some(field), current_fields, item)?;
            }
            _ => merged.push(fresh_item(field, item)?),
        }
    }
    Ok(merged)
}

/// An item of a replaced list, without nulls or directives in its objects.
fn clean_item(field: &str, item: &Value) -> Result<Value, PatchError> {
    match item {
        Value::Object(fields) => fresh_item(field, fields),
        other => Ok(other.clone()),
    }
}

/// A patch item merged into nothing: its nulls and directives disappear.
fn fresh_item(field: &str, item: &Map<String, Value>) -> Result<Value, PatchError> {
    Ok(Value::Object(merge_map(Some(field), Map::new(), item)?))
}

fn merge_key_value<'m>(key: &str, item: &'m Map<String, Value>) -> Result<&'m Value, PatchError> {
    item.get(key).ok_or_else(|| no_merge_key(key, item))
}

fn require_merge_key(key: &str, items: &[Value]) -> Result<(), PatchError> {
    match items
        .iter()
        .filter_map(Value::as_object)
        .find(|item| !item.contains_key(key))
    {
        Some(item) => Err(no_merge_key(key, item)),
        None => Ok(()),
    }
}

fn no_merge_key(key: &str, item: &Map<String, Value>) -> PatchError {
    PatchError::Unprocessable(format!(
        "map: {} does not contain declared merge key: {key}",
        Value::Object(item.clone())
    ))
}

/// A merged list holds items of one JSON type, never lists and never null.
fn check_item_types(field: &str, original: &[Value], patch: &[Value]) -> Result<(), PatchError> {
    let mut items = original.iter().chain(patch);
    if items.clone().any(Value::is_null) {
        return Err(PatchError::Unprocessable(format!(
            "{field:?}: a merged list cannot hold null"
        )));
    }
    if items.clone().any(Value::is_array) {
        return Err(PatchError::Unprocessable(format!(
            "{field:?}: lists of lists are not supported"
        )));
    }
    let first_kind = items.next().map(go_kind);
    if items.any(|item| Some(go_kind(item)) != first_kind) {
        return Err(PatchError::Unprocessable(format!(
            "{field:?}: list element types are not identical"
        )));
    }
    Ok(())
}

fn expect_list(field: &str, value: Value) -> Result<Vec<Value>, PatchError> {
    match value {
        Value::Array(items) => Ok(items),
        other => Err(PatchError::Unprocessable(format!(
            "{field:?} has $setElementOrder but is a {}, not a list",
            go_kind(&other)
        ))),
    }
}

#[cfg(test)]
#[path = "strategic_list_tests.rs"]
mod tests;
