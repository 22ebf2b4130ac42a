//! Evaluating a printer-column path as client-go's `JSONPath.FindResults` does with
//! `AllowMissingKeys(true)` (what kube-apiserver sets): missing fields give no result,
//! while type mismatches (indexing a map, filtering a non-list, comparing a string with a
//! number) are errors, which the server shows as an empty cell.

use super::jsonpath::{
    CompiledPath, Filter, FilterTest, JsonPathError, Slice, SliceEnd, Step, fail,
};
use serde_json::Value;
use std::cmp::Ordering;

impl CompiledPath {
    /// All values the path selects in `root`, in order (map entries by sorted key where
    /// Go's order would be random). Literal steps yield values owned by the path.
    pub fn evaluate<'a>(&'a self, root: &'a Value) -> Result<Vec<&'a Value>, JsonPathError> {
        eval_steps(&self.steps, vec![root])
    }
}

fn eval_steps<'a>(
    steps: &'a [Step],
    mut current: Vec<&'a Value>,
) -> Result<Vec<&'a Value>, JsonPathError> {
    for step in steps {
        current = eval_step(step, current)?;
    }
    Ok(current)
}

fn eval_step<'a>(step: &'a Step, input: Vec<&'a Value>) -> Result<Vec<&'a Value>, JsonPathError> {
    match step {
        Step::Field(name) => Ok(input
            .into_iter()
            .filter_map(|v| v.as_object()?.get(name))
            .collect()),
        Step::Wildcard => Ok(input.into_iter().flat_map(children).collect()),
        Step::Recursive => Ok(descendants(input)),
        Step::Slice(slice) => eval_slice(slice, input),
        Step::Filter(filter) => eval_filter(filter, input),
        Step::Literal(value) => Ok(input.iter().map(|_| value).collect()),
        Step::Unknown(name) => fail(format!("unrecognized identifier {name}")),
    }
}

/// Map values and list items; scalars have none. (client-go also walks the bytes of a
/// string here; no printer column relies on that.)
fn children(value: &Value) -> Vec<&Value> {
    match value {
        Value::Object(map) => map.values().collect(),
        Value::Array(items) => items.iter().collect(),
        _ => Vec::new(),
    }
}

/// `..`: every map or list at or below each input, parents before their contents.
fn descendants(input: Vec<&Value>) -> Vec<&Value> {
    let mut found = Vec::new();
    for value in input {
        let below = children(value);
        if !below.is_empty() {
            found.push(value);
            found.extend(descendants(below));
        }
    }
    found
}

fn eval_slice<'a>(slice: &Slice, input: Vec<&'a Value>) -> Result<Vec<&'a Value>, JsonPathError> {
    let mut found = Vec::new();
    for value in input {
        let items = match value {
            Value::Null => continue,
            Value::Array(items) => items,
            other => return fail(format!("{} is not array or slice", go_type(other))),
        };
        let len = i64::try_from(items.len()).unwrap_or(i64::MAX);
        let Some((start, end)) = slice_bounds(slice, len)? else {
            // client-go stops at the first empty selection, dropping later inputs too.
            return Ok(found);
        };
        let step = match slice.step {
            Some(step) if step <= 0 => return fail("step must be > 0"),
            Some(step) => usize::try_from(step).unwrap_or(usize::MAX),
            None => 1,
        };
        let range = usize::try_from(start).unwrap_or(0)..usize::try_from(end).unwrap_or(0);
        found.extend(range.step_by(step).filter_map(|i| items.get(i)));
    }
    Ok(found)
}

/// The checked `[start, end)` of a slice over `len` items; `None` when it selects nothing.
fn slice_bounds(slice: &Slice, len: i64) -> Result<Option<(i64, i64)>, JsonPathError> {
    let mut start = slice.start.unwrap_or(0);
    if start < 0 {
        start += len;
    }
    let mut end = match slice.end {
        SliceEnd::Open => len,
        SliceEnd::Given(end) => end,
        SliceEnd::AfterStart(end) => end,
    };
    let derived_zero = matches!(slice.end, SliceEnd::AfterStart(0));
    if end < 0 || derived_zero {
        end += len;
    }
    if end == start {
        return Ok(None);
    }
    if start >= len || start < 0 {
        return fail(format!(
            "array index out of bounds: index {start}, length {len}"
        ));
    }
    if end > len || end < 0 {
        let last = end.saturating_sub(1);
        return fail(format!(
            "array index out of bounds: index {last}, length {len}"
        ));
    }
    if start > end {
        return fail(format!(
            "starting index {start} is greater than ending index {end}"
        ));
    }
    Ok(Some((start, end)))
}

fn eval_filter<'a>(
    filter: &'a Filter,
    input: Vec<&'a Value>,
) -> Result<Vec<&'a Value>, JsonPathError> {
    let mut kept = Vec::new();
    for value in input {
        let Value::Array(items) = value else {
            return fail(format!(
                "{} is not array or slice and cannot be filtered",
                go_type(value)
            ));
        };
        for item in items {
            if passes(filter, item)? {
                kept.push(item);
            }
        }
    }
    Ok(kept)
}

fn passes(filter: &Filter, item: &Value) -> Result<bool, JsonPathError> {
    let lefts = eval_steps(&filter.left, vec![item]);
    let (operator, right) = match &filter.test {
        FilterTest::Exists => return Ok(lefts.is_ok_and(|l| !l.is_empty())),
        FilterTest::Compare { operator, right } => (operator, right),
    };
    // An item without the compared field is skipped, not an error.
    let Some(left) = single(lefts?)? else {
        return Ok(false);
    };
    let Some(right) = single(eval_steps(right, vec![item])?)? else {
        return Ok(false);
    };
    compare(operator, left, right)
}

fn single(values: Vec<&Value>) -> Result<Option<&Value>, JsonPathError> {
    match values.as_slice() {
        [] => Ok(None),
        [only] => Ok(Some(only)),
        _ => fail("can only compare one element at a time"),
    }
}

/// The Go kinds client-go's template comparisons know; maps, lists and nil have none.
#[derive(PartialEq, PartialOrd)]
enum Scalar<'a> {
    Bool(bool),
    Int(i64),
    Float(f64),
    Text(&'a str),
}

fn scalar(value: &Value) -> Result<Scalar<'_>, JsonPathError> {
    match value {
        Value::Bool(b) => Ok(Scalar::Bool(*b)),
        Value::String(s) => Ok(Scalar::Text(s)),
        // The apiserver decodes integers beyond int64 as float64.
        Value::Number(n) => Ok(n.as_i64().map_or_else(
            || Scalar::Float(n.as_f64().unwrap_or(f64::NAN)),
            Scalar::Int,
        )),
        _ => fail("invalid type for comparison"),
    }
}

fn compare(operator: &str, left: &Value, right: &Value) -> Result<bool, JsonPathError> {
    if !matches!(operator, "==" | "!=" | "<" | "<=" | ">" | ">=") {
        return fail(format!("unrecognized filter operator {operator}"));
    }
    let (left, right) = (scalar(left)?, scalar(right)?);
    if std::mem::discriminant(&left) != std::mem::discriminant(&right) {
        return fail("incompatible types for comparison");
    }
    let equal = left == right;
    match operator {
        "==" => return Ok(equal),
        "!=" => return Ok(!equal),
        _ if matches!(left, Scalar::Bool(_)) => return fail("invalid type for comparison"),
        _ => {}
    }
    // Go derives the orderings from < and == alone (so NaN counts as greater).
    let less = left.partial_cmp(&right) == Some(Ordering::Less);
    Ok(match operator {
        "<" => less,
        "<=" => less || equal,
        ">" => !(less || equal),
        _ => !less,
    })
}

/// Go's name for the type of a decoded JSON value, for messages.
fn go_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "<nil>",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}
