//! Values printed the way the apiserver's Go code prints them (`%q`, `%v`, `%#v`), so
//! that our messages match kube-apiserver's character for character.

use serde_json::Value;

/// A bad value as the apiserver prints it: strings quoted (`%q`), numbers and booleans
/// plain (`%v`), nil as `"null"`, maps and slices in Go syntax (`%#v`).
pub(crate) fn go_value(value: &Value) -> String {
    match value {
        Value::Null => go_quote("null"),
        Value::String(s) => go_quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number(n),
        Value::Array(_) | Value::Object(_) => go_sharp_v(value),
    }
}

/// Go's `%#v` of a decoded JSON value (`map[string]interface {}{...}`, `[]interface {}{...}`).
pub(crate) fn go_sharp_v(value: &Value) -> String {
    match value {
        Value::Null => "interface {}(nil)".to_string(),
        Value::String(s) => go_quote(s),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => go_number(n),
        Value::Array(items) => {
            let inner: Vec<String> = items.iter().map(go_sharp_v).collect();
            format!("[]interface {{}}{{{}}}", inner.join(", "))
        }
        Value::Object(map) => {
            // Go prints map keys sorted; serde_json's map may keep insertion order.
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let inner: Vec<String> = keys
                .into_iter()
                .map(|k| format!("{}:{}", go_quote(k), go_sharp_v(&map[k])))
                .collect();
            format!("map[string]interface {{}}{{{}}}", inner.join(", "))
        }
    }
}

/// Go's `%#v` of a `[]string`.
pub(crate) fn go_string_slice(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| go_quote(s)).collect();
    format!("[]string{{{}}}", inner.join(", "))
}

fn go_number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        i.to_string()
    } else if let Some(u) = n.as_u64() {
        u.to_string()
    } else {
        go_float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// Go's `%v` of a float64: shortest representation, exponent form outside [1e-4, 1e21).
pub(crate) fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.to_string();
    }
    let abs = f.abs();
    if f == 0.0 || (1e-4..1e21).contains(&abs) {
        // Rust's Display is the shortest round-trip form without an exponent, as Go's here.
        return format!("{f}");
    }
    let sci = format!("{f:e}");
    match sci.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => sci,
    }
}

pub(crate) use crate::sandbox::go_quote::go_quote;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_formatting_rules() {
        let cases = [
            ("integral float prints without fraction", go_float(2.0), "2"),
            ("large float uses exponent", go_float(1e21), "1e+21"),
            ("small float uses exponent", go_float(0.00001), "1e-05"),
            ("ordinary float", go_float(0.25), "0.25"),
            (
                "quote escapes control",
                go_quote("a\"b\n\u{1}"),
                r#""a\"b\n\x01""#,
            ),
            ("quote keeps unicode", go_quote("µs"), "\"µs\""),
            (
                "string slice",
                go_string_slice(&["a".into(), "b".into()]),
                r#"[]string{"a", "b"}"#,
            ),
            (
                "nested slice",
                go_sharp_v(&json!([1, null])),
                "[]interface {}{1, interface {}(nil)}",
            ),
        ];
        for (rule, got, expected) in cases {
            assert_eq!(got, expected, "{rule}");
        }
    }
}
