//! Values printed the way kube-apiserver's Go code prints them: `%q` for quoted strings in
//! messages, `%v` for numbers in printer-column text, `encoding/json` for maps and lists.
//!
//! Clients compare these strings (kubectl shows them as they come), so the rules follow Go's
//! `fmt`, `strconv` and `encoding/json` rather than Rust's defaults.

use serde_json::{Number, Value};

pub(crate) use crate::sandbox::go_quote::go_quote;

/// Go's `%v` of a decoded JSON number: integers as they are; everything else is a float64
/// in Go (the apiserver decodes integers beyond int64 as floats).
pub(crate) fn go_number_text(n: &Number) -> String {
    match n.as_i64() {
        Some(i) => i.to_string(),
        None => go_float_text(n.as_f64().unwrap_or(f64::NAN)),
    }
}

/// Go's `%v` of a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): the shortest digits,
/// in exponent form when the decimal exponent is below -4 or at least 6.
pub(crate) fn go_float_text(f: f64) -> String {
    if let Some(special) = non_finite(f) {
        return special;
    }
    let (digits, exp) = shortest_digits(f);
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if !(-4..6).contains(&exp) {
        format!("{sign}{}", exponent_form(&digits, exp))
    } else {
        format!("{sign}{}", positional_form(&digits, exp))
    }
}

/// Go's `json.Marshal` of a decoded JSON value, compact: object keys sorted, `<`, `>` and
/// `&` escaped as `\u003c`-style sequences, floats in the ES6-like form Go uses.
pub(crate) fn go_json(value: &Value) -> String {
    let mut out = String::new();
    write_json(value, &mut out);
    out
}

fn write_json(value: &Value, out: &mut String) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&go_json_number(n)),
        Value::String(s) => write_json_string(s, out),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Go sorts map keys; do not depend on serde_json's map ordering feature.
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(key, out);
                out.push(':');
                if let Some(item) = map.get(key) {
                    write_json(item, out);
                }
            }
            out.push('}');
        }
    }
}

fn write_json_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `encoding/json`'s float64: positional unless the magnitude is below 1e-6 or at least
/// 1e21, and then `1e-7` / `1e+21` (negative exponents lose their leading zero).
fn go_json_number(n: &Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let (digits, exp) = shortest_digits(f);
        let sign = if f.is_sign_negative() { "-" } else { "" };
        let text = exponent_form(&digits, exp);
        return format!("{sign}{}", text.replace("e-0", "e-"));
    }
    let (digits, exp) = shortest_digits(f);
    let sign = if f.is_sign_negative() && f != 0.0 {
        "-"
    } else {
        ""
    };
    format!("{sign}{}", positional_form(&digits, exp))
}

fn non_finite(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".to_string())
    } else if f.is_infinite() {
        Some(if f > 0.0 { "+Inf" } else { "-Inf" }.to_string())
    } else {
        None
    }
}

/// The shortest round-trip decimal digits of |f| and the exponent of the first digit
/// (1234.5 → ("12345", 3)). Rust's `{:e}` already yields the shortest round-trip form.
fn shortest_digits(f: f64) -> (String, i32) {
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    (digits, exp.parse().unwrap_or(0))
}

/// `d.ddde±XX`, at least two exponent digits, as Go's `%e` with the shortest precision.
fn exponent_form(digits: &str, exp: i32) -> String {
    let (first, rest) = digits.split_at(digits.len().min(1));
    let fraction = if rest.is_empty() {
        String::new()
    } else {
        format!(".{rest}")
    };
    let exp_sign = if exp < 0 { '-' } else { '+' };
    format!("{first}{fraction}e{exp_sign}{:02}", exp.unsigned_abs())
}

/// Plain positional notation of the digits with the first digit at 10^exp.
fn positional_form(digits: &str, exp: i32) -> String {
    let point = exp + 1; // digits before the decimal point
    if point <= 0 {
        let zeros = "0".repeat(point.unsigned_abs() as usize);
        return format!("0.{zeros}{digits}");
    }
    let point = point as usize;
    if point >= digits.len() {
        format!("{digits}{}", "0".repeat(point - digits.len()))
    } else {
        let (int_part, frac_part) = digits.split_at(point);
        format!("{int_part}.{frac_part}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn go_printing_rules() {
        let cases = [
            ("%v float: ordinary fraction", go_float_text(0.25), "0.25"),
            ("%v float: integral value", go_float_text(2.0), "2"),
            (
                "%v float: exponent 5 stays positional",
                go_float_text(123456.5),
                "123456.5",
            ),
            (
                "%v float: exponent 6 switches to e-form",
                go_float_text(1234567.5),
                "1.2345675e+06",
            ),
            (
                "%v float: 1e-4 stays positional",
                go_float_text(0.0001),
                "0.0001",
            ),
            (
                "%v float: below 1e-4 uses e-form",
                go_float_text(0.00001),
                "1e-05",
            ),
            ("%v float: negative", go_float_text(-1.5), "-1.5"),
            (
                "%v number: integer",
                go_number_text(&Number::from(42)),
                "42",
            ),
            (
                "%v number: beyond int64 is a float",
                go_number_text(&Number::from(u64::MAX)),
                "1.8446744073709552e+19",
            ),
            (
                "json: keys sorted, compact",
                go_json(&json!({"b": 1, "a": [true, null]})),
                r#"{"a":[true,null],"b":1}"#,
            ),
            (
                "json: HTML characters escaped",
                go_json(&json!("<a&b>")),
                r#""\u003ca\u0026b\u003e""#,
            ),
            (
                "json: control characters",
                go_json(&json!("a\nb\u{1}")),
                r#""a\nb\u0001""#,
            ),
            ("json: float positional", go_json(&json!(1.5)), "1.5"),
            (
                "json: tiny float drops exponent zero",
                go_json(&json!(1e-7)),
                "1e-7",
            ),
            (
                "json: huge float keeps plus sign",
                go_json(&json!(1e21)),
                "1e+21",
            ),
            (
                "quote: escapes quotes and controls",
                go_quote("a\"b\n\u{1}"),
                r#""a\"b\n\x01""#,
            ),
            ("quote: keeps printable unicode", go_quote("µs"), "\"µs\""),
        ];
        for (rule, got, expected) in cases {
            assert_eq!(got, expected, "{rule}");
        }
    }
}
