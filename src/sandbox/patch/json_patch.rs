//! JSON patch (RFC 6902): operations applied in order to a copy of the document; the first
//! one that fails abandons the whole patch (§5), so a failed patch changes nothing.

use super::{PatchError, go_kind, pointer};
use serde_json::{Map, Value};
use std::fmt;

/// One operation as sent. Its members are checked when it is applied, as kube-apiserver
/// does: only a body that is not a list of objects is a bad request (400); an operation
/// that cannot be carried out, well-formed or not, is unprocessable (422).
pub(super) type Operation = Map<String, Value>;

/// Which operation failed and why; kube-apiserver keeps this to itself (it answers with
/// a generic message), the tests read it.
#[derive(Debug, PartialEq)]
pub(super) struct OpFailure {
    /// Position of the operation in the patch, from 0.
    pub index: usize,
    pub reason: String,
}

impl fmt::Display for OpFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "operation {}: {}", self.index, self.reason)
    }
}

/// The body must be a JSON array of objects (a `null` body is an empty patch, as Go's
/// decoder reads it).
pub(super) fn decode(body: &Value) -> Result<Vec<Operation>, PatchError> {
    let items = match body {
        Value::Array(items) => items,
        Value::Null => return Ok(Vec::new()),
        other => return Err(cannot_unmarshal(other, "jsonpatch.Patch")),
    };
    items
        .iter()
        .map(|item| match item {
            Value::Object(operation) => Ok(operation.clone()),
            Value::Null => Ok(Map::new()),
            other => Err(cannot_unmarshal(other, "jsonpatch.Operation")),
        })
        .collect()
}

fn cannot_unmarshal(value: &Value, go_type: &str) -> PatchError {
    PatchError::Malformed(format!(
        "json: cannot unmarshal {} into Go value of type {go_type}",
        go_kind(value)
    ))
}

/// Applies every operation, in order, to a copy of `original`.
pub(super) fn apply_operations(
    original: &Value,
    operations: &[Operation],
) -> Result<Value, OpFailure> {
    let mut doc = original.clone();
    for (index, operation) in operations.iter().enumerate() {
        apply_one(&mut doc, operation).map_err(|reason| OpFailure { index, reason })?;
    }
    Ok(doc)
}

fn apply_one(doc: &mut Value, operation: &Operation) -> Result<(), String> {
    let name = match operation.get("op") {
        Some(Value::String(name)) => name.as_str(),
        Some(_) => return Err("\"op\" must be a string".to_string()),
        None => return Err("the operation has no \"op\"".to_string()),
    };
    let path = member_pointer(operation, "path")?;
    let at = |detail: String| format!("{name} {}: {detail}", path_text(operation));
    match name {
        "add" => add(doc, &path, value_of(operation)?.clone()).map_err(at),
        "remove" => remove(doc, &path).map(drop).map_err(at),
        "replace" => replace(doc, &path, value_of(operation)?.clone()).map_err(at),
        "move" => move_value(doc, &member_pointer(operation, "from")?, &path).map_err(at),
        "copy" => copy_value(doc, &member_pointer(operation, "from")?, &path).map_err(at),
        "test" => test(doc, &path, value_of(operation)?).map_err(at),
        other => Err(format!("unknown operation {other:?}")),
    }
}

/// `path` or `from`: a required string holding a JSON pointer.
fn member_pointer(operation: &Operation, member: &str) -> Result<pointer::Tokens, String> {
    match operation.get(member) {
        Some(Value::String(text)) => pointer::parse(text),
        Some(_) => Err(format!("{member:?} must be a string")),
        None => Err(format!("the operation has no {member:?}")),
    }
}

fn path_text(operation: &Operation) -> &str {
    operation
        .get("path")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// `value` is required for add, replace and test; `null` is a value (RFC 6902 §4.1).
fn value_of(operation: &Operation) -> Result<&Value, String> {
    operation
        .get("value")
        .ok_or_else(|| "the operation has no \"value\"".to_string())
}

/// RFC 6902 §4.1: the parent must exist; in an array the index may be the length (or `-`)
/// to append; an object member is added or replaced; the root is replaced.
fn add(doc: &mut Value, tokens: &[String], value: Value) -> Result<(), String> {
    let Some((last, parent)) = tokens.split_last() else {
        *doc = value;
        return Ok(());
    };
    match pointer::get_mut(doc, parent)? {
        Value::Object(fields) => {
            fields.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(items) => {
            let index = if last == "-" {
                items.len()
            } else {
                pointer::array_index(last)?
            };
            if index > items.len() {
                return Err(pointer::out_of_bounds(index, items.len()));
            }
            items.insert(index, value);
            Ok(())
        }
        scalar => Err(pointer::not_a_container(last, scalar)),
    }
}

/// RFC 6902 §4.2: the target must exist; array elements after it shift left.
fn remove(doc: &mut Value, tokens: &[String]) -> Result<Value, String> {
    let Some((last, parent)) = tokens.split_last() else {
        return Err("the whole document cannot be removed".to_string());
    };
    match pointer::get_mut(doc, parent)? {
        Value::Object(fields) => fields
            .remove(last)
            .ok_or_else(|| pointer::missing_key(last)),
        Value::Array(items) => {
            let index = pointer::array_index(last)?;
            if index >= items.len() {
                return Err(pointer::out_of_bounds(index, items.len()));
            }
            Ok(items.remove(index))
        }
        scalar => Err(pointer::not_a_container(last, scalar)),
    }
}

/// RFC 6902 §4.3: the target must exist.
fn replace(doc: &mut Value, tokens: &[String], value: Value) -> Result<(), String> {
    *pointer::get_mut(doc, tokens)? = value;
    Ok(())
}

/// RFC 6902 §4.4: `from` must exist and must not be a proper prefix of `path`.
fn move_value(doc: &mut Value, from: &[String], path: &[String]) -> Result<(), String> {
    if from == path {
        return pointer::get(doc, from).map(drop);
    }
    if path.starts_with(from) {
        return Err("a value cannot be moved into one of its own children".to_string());
    }
    let value = remove(doc, from)?;
    add(doc, path, value)
}

/// RFC 6902 §4.5: `from` must exist.
fn copy_value(doc: &mut Value, from: &[String], path: &[String]) -> Result<(), String> {
    let value = pointer::get(doc, from)?.clone();
    add(doc, path, value)
}

/// RFC 6902 §4.6: the target must exist and equal `expected`.
fn test(doc: &Value, tokens: &[String], expected: &Value) -> Result<(), String> {
    let actual = pointer::get(doc, tokens)?;
    if json_equal(actual, expected) {
        Ok(())
    } else {
        Err("the value differs from the tested value".to_string())
    }
}

/// Equality per RFC 6902 §4.6: numbers by numeric value (`1` equals `1.0`), objects
/// regardless of member order, arrays element by element.
fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || matches!((x.as_f64(), y.as_f64()), (Some(p), Some(q)) if p == q)
        }
        (Value::Array(xs), Value::Array(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| json_equal(x, y))
        }
        (Value::Object(xs), Value::Object(ys)) => {
            xs.len() == ys.len()
                && xs
                    .iter()
                    .all(|(k, x)| ys.get(k).is_some_and(|y| json_equal(x, y)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
#[path = "json_patch_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "json_patch_failure_tests.rs"]
mod failure_tests;
