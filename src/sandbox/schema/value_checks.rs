//! The OpenAPI checks of one node (kube-openapi's validators as the apiserver maps their
//! results to field errors): type, nullable, enum, string, number, array and object
//! bounds, the `allOf`/`anyOf`/`oneOf`/`not` value validations, and list-type invariants.
//!
//! Messages name the node by its OpenAPI path (`spec.x in body should match '...'`).

use super::errors::{FieldError, FieldErrorKind};
use super::go_format::{go_float, go_quote};
use super::props::{self, Schema};
use super::validate::{Paths, map_key};
use super::{cel_engine, formats};
use serde_json::Value;
use std::collections::HashMap;

/// Checks `v`'s own constraints. Returns whether its children should be checked too: not
/// when it is null or of the wrong type.
pub(crate) fn check(s: &Schema, v: &Value, p: &Paths, out: &mut Vec<FieldError>) -> bool {
    check_with(s, v, p, out, false)
}

fn check_with(
    s: &Schema,
    v: &Value,
    p: &Paths,
    out: &mut Vec<FieldError>,
    skip_any_of: bool,
) -> bool {
    if !type_ok(s, v, p, out) || v.is_null() {
        return false;
    }
    if let Some(choices) = s.enum_.as_ref().filter(|e| !e.is_empty())
        && !choices.iter().any(|c| json_eq(&c.0, v))
    {
        let supported: Vec<String> = choices
            .iter()
            .map(|c| match &c.0 {
                Value::String(s) => go_quote(s),
                other => go_quote(&other.to_string()),
            })
            .collect();
        let detail = format!("supported values: {}", supported.join(", "));
        out.push(error(p, FieldErrorKind::NotSupported, v.clone(), detail));
    }
    match v {
        Value::String(text) => string_checks(s, text, v, p, out),
        Value::Number(n) => number_checks(s, n.as_f64().unwrap_or(f64::NAN), v, p, out),
        Value::Array(items) => {
            count_checks(s.max_items, s.min_items, items.len(), "items", p, out);
        }
        Value::Object(fields) => {
            count_checks(
                s.max_properties,
                s.min_properties,
                fields.len(),
                "properties",
                p,
                out,
            );
        }
        _ => {}
    }
    junctors(s, v, p, out, skip_any_of);
    true
}

fn error(p: &Paths, kind: FieldErrorKind, value: Value, detail: String) -> FieldError {
    FieldError::new(&p.openapi, kind, Some(value), detail)
}

/// `spec.x in body` — the subject of kube-openapi's messages (`in body` alone at the root).
fn in_body(p: &Paths) -> String {
    if p.openapi.is_empty() {
        "in body".to_string()
    } else {
        format!("{} in body", p.openapi)
    }
}

fn runtime_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn is_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

fn type_ok(s: &Schema, v: &Value, p: &Paths, out: &mut Vec<FieldError>) -> bool {
    let declared = if props::int_or_string(s) {
        "integer,string"
    } else {
        props::type_of(s)
    };
    let ok = match (declared, v) {
        (_, Value::Null) => declared.is_empty() || props::nullable(s),
        ("", _) => true,
        ("integer,string", _) => is_integer(v) || v.is_string(),
        ("object", _) => v.is_object(),
        ("array", _) => v.is_array(),
        ("string", _) => v.is_string(),
        ("boolean", _) => v.is_boolean(),
        // An integral float passes as an integer, and an integer as a number (kube-openapi).
        ("integer", _) => is_integer(v),
        ("number", _) => v.is_number(),
        _ => true,
    };
    if !ok {
        let actual = runtime_type(v);
        let detail = format!(
            "{} must be of type {declared}: {}",
            in_body(p),
            go_quote(actual)
        );
        out.push(error(
            p,
            FieldErrorKind::TypeInvalid,
            Value::from(actual),
            detail,
        ));
    }
    ok
}

fn string_checks(s: &Schema, text: &str, v: &Value, p: &Paths, out: &mut Vec<FieldError>) {
    // maxLength counts characters (code points), as Go's utf8.RuneCountInString.
    let len = text.chars().count() as i64;
    if let Some(max) = s.max_length.filter(|m| len > *m) {
        let unit = if max == 1 { "byte" } else { "bytes" };
        let detail = format!("may not be more than {max} {unit}");
        out.push(error(p, FieldErrorKind::TooLong, v.clone(), detail));
    }
    if let Some(min) = s.min_length.filter(|m| len < *m) {
        let detail = format!("{} should be at least {min} chars long", in_body(p));
        out.push(error(p, FieldErrorKind::Invalid, v.clone(), detail));
    }
    if let Some(format) = s.format.as_deref()
        && props::type_of(s) == "string"
        && !formats::valid(format, text)
    {
        // A format violation is a type error to kube-openapi (and blocks CEL rules).
        let detail = format!(
            "{} must be of type {format}: {}",
            in_body(p),
            go_quote(text)
        );
        out.push(error(p, FieldErrorKind::TypeInvalid, v.clone(), detail));
    }
    if let Some(pattern) = s.pattern.as_deref()
        && !cel_engine::regex_matches(text, pattern).unwrap_or(false)
    {
        let detail = format!("{} should match '{pattern}'", in_body(p));
        out.push(error(p, FieldErrorKind::Invalid, v.clone(), detail));
    }
}

fn number_checks(s: &Schema, f: f64, v: &Value, p: &Paths, out: &mut Vec<FieldError>) {
    if let Some(max) = s.maximum {
        let exclusive = props::is_true(s.exclusive_maximum);
        if (exclusive && f >= max) || f > max {
            let bound = if exclusive {
                "less than"
            } else {
                "less than or equal to"
            };
            let detail = format!("{} should be {bound} {}", in_body(p), go_float(max));
            out.push(error(p, FieldErrorKind::Invalid, v.clone(), detail));
        }
    }
    if let Some(min) = s.minimum {
        let exclusive = props::is_true(s.exclusive_minimum);
        if (exclusive && f <= min) || f < min {
            let bound = if exclusive {
                "greater than"
            } else {
                "greater than or equal to"
            };
            let detail = format!("{} should be {bound} {}", in_body(p), go_float(min));
            out.push(error(p, FieldErrorKind::Invalid, v.clone(), detail));
        }
    }
    if let Some(m) = s.multiple_of.filter(|m| *m > 0.0)
        && (f / m).fract() != 0.0
    {
        let detail = format!("{} should be a multiple of {}", in_body(p), go_float(m));
        out.push(error(p, FieldErrorKind::Invalid, v.clone(), detail));
    }
}

fn count_checks(
    max: Option<i64>,
    min: Option<i64>,
    len: usize,
    what: &str,
    p: &Paths,
    out: &mut Vec<FieldError>,
) {
    let n = len as i64;
    if let Some(max) = max.filter(|m| n > *m) {
        // The apiserver reports maxProperties with the maxItems wording.
        let unit = if max == 1 { "item" } else { "items" };
        let detail = format!("must have at most {max} {unit}");
        out.push(error(p, FieldErrorKind::TooMany, Value::from(n), detail));
    }
    if let Some(min) = min.filter(|m| n < *m) {
        let detail = format!("{} should have at least {min} {what}", in_body(p));
        out.push(error(p, FieldErrorKind::Invalid, Value::from(n), detail));
    }
}

/// JSON equality with numbers compared by value (`1` equals `1.0`).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, a)| y.get(k).is_some_and(|b| json_eq(a, b)))
        }
        _ => a == b,
    }
}

/// `anyOf: [{type: integer}, {type: string}]`, the int-or-string shape: its meaning is
/// already checked by the int-or-string type check.
pub(crate) fn is_int_or_string_any_of(any_of: Option<&Vec<Schema>>) -> bool {
    let only_type = |s: &Schema, t: &str| {
        let mut bare = s.clone();
        bare.type_ = None;
        props::type_of(s) == t && bare == Schema::default()
    };
    matches!(any_of, Some(a) if a.len() == 2 && only_type(&a[0], "integer") && only_type(&a[1], "string"))
}

fn junctors(s: &Schema, v: &Value, p: &Paths, out: &mut Vec<FieldError>, skip_any_of: bool) {
    let subject = if p.openapi.is_empty() {
        String::new()
    } else {
        format!("{} ", p.openapi)
    };
    for (i, sub) in s.all_of.iter().flatten().enumerate() {
        let skip = i == 0 && is_int_or_string_any_of(sub.any_of.as_ref());
        nested(sub, v, p, out, skip);
    }
    let any_of = s.any_of.as_ref().filter(|a| !a.is_empty());
    if let Some(branches) = any_of.filter(|_| !skip_any_of && !is_int_or_string_any_of(any_of)) {
        let results: Vec<Vec<FieldError>> =
            branches.iter().map(|b| nested_errors(b, v, p)).collect();
        if results.iter().all(|r| !r.is_empty()) {
            let detail = format!("{subject}must validate at least one schema (anyOf)");
            out.push(error(p, FieldErrorKind::Invalid, Value::from(""), detail));
            out.extend(fewest(results));
        }
    }
    if let Some(branches) = s.one_of.as_ref().filter(|o| !o.is_empty()) {
        let results: Vec<Vec<FieldError>> =
            branches.iter().map(|b| nested_errors(b, v, p)).collect();
        let passing = results.iter().filter(|r| r.is_empty()).count();
        if passing != 1 {
            let detail = format!("{subject}must validate one and only one schema (oneOf)");
            out.push(error(p, FieldErrorKind::Invalid, Value::from(""), detail));
            if passing == 0 {
                out.extend(fewest(results));
            }
        }
    }
    if let Some(not) = &s.not
        && nested_errors(not, v, p).is_empty()
    {
        let detail = format!("{subject}must not validate the schema (not)");
        out.push(error(p, FieldErrorKind::Invalid, Value::from(""), detail));
    }
}

fn fewest(results: Vec<Vec<FieldError>>) -> Vec<FieldError> {
    results.into_iter().min_by_key(Vec::len).unwrap_or_default()
}

fn nested_errors(s: &Schema, v: &Value, p: &Paths) -> Vec<FieldError> {
    let mut errs = Vec::new();
    nested(s, v, p, &mut errs, false);
    errs
}

/// One `Required value` error for each property the schema requires and the object lacks.
pub(crate) fn missing_required(
    s: &Schema,
    fields: &serde_json::Map<String, Value>,
    p: &Paths,
    out: &mut Vec<FieldError>,
) {
    for name in props::required(s) {
        if !fields.contains_key(name) {
            let path = p.property(name).openapi;
            out.push(FieldError::new(&path, FieldErrorKind::Required, None, ""));
        }
    }
}

/// A value validation under a junctor: the same checks, descending through the junctor's
/// own `properties` and `items` (it has no types of its own, by structural rules).
fn nested(s: &Schema, v: &Value, p: &Paths, out: &mut Vec<FieldError>, skip_any_of: bool) {
    if !check_with(s, v, p, out, skip_any_of) {
        return;
    }
    match v {
        Value::Object(fields) => {
            missing_required(s, fields, p, out);
            for (name, sub) in s.properties.iter().flatten() {
                if let Some(child) = fields.get(name) {
                    nested(sub, child, &p.property(name), out, false);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = props::items(s) {
                for (i, item) in items.iter().enumerate() {
                    nested(item_schema, item, &p.item(i), out, false);
                }
            }
        }
        _ => {}
    }
}

/// `x-kubernetes-list-type` invariants: no repeated value in a set, no repeated key in a
/// map. Each repeated value is reported once, at its second occurrence.
pub(crate) fn list_type(s: &Schema, items: &[Value], p: &Paths, out: &mut Vec<FieldError>) {
    match props::list_type(s) {
        "set" => {
            let mut seen: HashMap<String, usize> = HashMap::new();
            for (i, item) in items.iter().enumerate() {
                let count = seen.entry(item.to_string()).or_insert(0);
                *count += 1;
                if *count == 2 {
                    let path = p.item(i).field;
                    out.push(FieldError::new(
                        &path,
                        FieldErrorKind::Duplicate,
                        Some(item.clone()),
                        "",
                    ));
                }
            }
        }
        "map" => {
            let mut shape_ok = true;
            for (i, item) in items.iter().enumerate() {
                if !item.is_object() && !item.is_null() {
                    shape_ok = false;
                    let detail = "must be an object for an array of list-type map";
                    let path = p.item(i).field;
                    out.push(FieldError::new(
                        &path,
                        FieldErrorKind::Invalid,
                        Some(item.clone()),
                        detail,
                    ));
                }
            }
            if !shape_ok {
                return;
            }
            let mut seen: HashMap<String, usize> = HashMap::new();
            for (i, item) in items.iter().enumerate() {
                let Some(k) = map_key(s, item) else { continue };
                let count = seen.entry(k).or_insert(0);
                *count += 1;
                if *count == 2 {
                    let keys: serde_json::Map<String, Value> = props::list_map_keys(s)
                        .iter()
                        .map(|k| (k.clone(), item.get(k).cloned().unwrap_or(Value::Null)))
                        .collect();
                    let path = p.item(i).field;
                    out.push(FieldError::new(
                        &path,
                        FieldErrorKind::Duplicate,
                        Some(Value::Object(keys)),
                        "",
                    ));
                }
            }
        }
        _ => {}
    }
}
