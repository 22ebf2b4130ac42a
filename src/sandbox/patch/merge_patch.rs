//! JSON merge patch (RFC 7386).

use serde_json::{Map, Value};

/// The patched copy of `target`.
pub(super) fn merge(target: &Value, patch: &Value) -> Value {
    let mut doc = target.clone();
    merge_into(&mut doc, patch);
    doc
}

/// RFC 7386 §2: a patch that is not an object replaces the target; otherwise each member
/// is merged into the target (an object, or an empty one if the target is not): `null`
/// removes the member, an object merges recursively, anything else (arrays included)
/// replaces it.
fn merge_into(target: &mut Value, patch: &Value) {
    let Value::Object(patch_members) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = Value::Object(Map::new());
    }
    let Value::Object(members) = target else {
        return;
    };
    for (key, patch_value) in patch_members {
        if patch_value.is_null() {
            members.remove(key);
        } else {
            merge_into(
                members.entry(key.clone()).or_insert(Value::Null),
                patch_value,
            );
        }
    }
}

#[cfg(test)]
#[path = "merge_patch_tests.rs"]
mod tests;
