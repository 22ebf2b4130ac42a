//! Table cells as kube-apiserver fills them: the CRD convertor's typed cells and the
//! generic convertor's name and creation time.

use super::age::age;
use super::go_text::{go_json, go_number_text};
use super::jsonpath::{CompiledPath, JsonPathError};
use super::rfc3339::{GO_ZERO_TIME, format_rfc3339, parse_rfc3339};
use serde_json::{Number, Value};

/// The cell of a printer column: the first value the path selects, printed for the
/// column's type; no value (or an evaluation error) is a null cell.
pub(super) fn path_cell(column_type: &str, path: &CompiledPath, object: &Value, now: i64) -> Value {
    let results: Result<Vec<&Value>, JsonPathError> = path.evaluate(object);
    let Some(value) = results.ok().and_then(|r| r.into_iter().next()) else {
        return Value::Null;
    };
    if column_type == "string" {
        return Value::String(printed_text(value));
    }
    typed_cell(column_type, value, now)
}

/// What kubectl's JSONPath printer writes for one value: strings raw, maps and lists as
/// compact JSON, numbers and booleans as Go prints them, null as `<no value>`.
pub(super) fn printed_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Null => "<no value>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number_text(n),
        Value::Array(_) | Value::Object(_) => go_json(value),
    }
}

/// `integer`, `number`, `boolean` and `date` cells; a value of the wrong type is null.
fn typed_cell(column_type: &str, value: &Value, now: i64) -> Value {
    match (column_type, value) {
        ("integer", Value::Number(n)) => Value::from(integer_of(n)),
        ("number", Value::Number(n)) => float_cell(n.as_f64().unwrap_or(f64::NAN)),
        ("boolean", Value::Bool(b)) => Value::Bool(*b),
        ("date", Value::String(s)) => Value::String(date_text(s, now)),
        _ => Value::Null,
    }
}

/// Go converts a float64 to int64 by truncation.
fn integer_of(n: &Number) -> i64 {
    n.as_i64()
        .unwrap_or_else(|| n.as_f64().unwrap_or(0.0) as i64)
}

/// A float64 cell as Go's JSON encoder writes it: integral values without a fraction.
fn float_cell(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 1e15 {
        return Value::from(f as i64);
    }
    Number::from_f64(f).map_or(Value::Null, Value::Number)
}

/// metav1.Time's query-parameter parsing: `""` and `"null"` are the zero time (age
/// `<unknown>`), anything else must be RFC 3339 or the cell says `<invalid>`.
fn date_text(text: &str, now: i64) -> String {
    if text.is_empty() || text == "null" {
        return age(GO_ZERO_TIME, now);
    }
    match parse_rfc3339(text) {
        Some(instant) => age(instant, now),
        None => "<invalid>".to_string(),
    }
}

/// `metadata.name`, or `""`.
pub(super) fn name_cell(object: &Value) -> Value {
    let name = object.pointer("/metadata/name").and_then(Value::as_str);
    Value::String(name.unwrap_or_default().to_string())
}

/// The generic convertor's "Created At": the creation time in UTC, RFC 3339 to the second,
/// Go's zero time when unset.
pub(super) fn created_at_cell(object: &Value) -> Value {
    let created = object
        .pointer("/metadata/creationTimestamp")
        .and_then(Value::as_str)
        .and_then(parse_rfc3339)
        .unwrap_or(GO_ZERO_TIME);
    Value::String(format_rfc3339(created.secs))
}
