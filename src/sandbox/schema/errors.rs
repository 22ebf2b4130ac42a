//! Field errors as the apiserver reports them.
//!
//! kubectl users and our tests read these strings, so the rendering follows
//! `k8s.io/apimachinery/pkg/util/validation/field` (Kubernetes 1.32) to the character:
//! `<field>: <type string>[: <bad value>][: <detail>]`, with the bad value printed the way
//! Go's `fmt` prints the `interface{}` the apiserver holds.

use super::go_format::{go_quote, go_value};
use serde_json::Value;
use std::fmt;

/// The kinds of field error a CRD-backed object can get (`field.ErrorType`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldErrorKind {
    Required,
    Invalid,
    NotSupported,
    TooLong,
    TooMany,
    Duplicate,
    TypeInvalid,
    Forbidden,
}

impl FieldErrorKind {
    /// The text the apiserver prints for this kind (`ErrorType.String()`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Required => "Required value",
            // TypeInvalid prints as "Invalid value" too: only the cause type tells them apart.
            Self::Invalid | Self::TypeInvalid => "Invalid value",
            Self::NotSupported => "Unsupported value",
            Self::TooLong => "Too long",
            Self::TooMany => "Too many",
            Self::Duplicate => "Duplicate value",
            Self::Forbidden => "Forbidden",
        }
    }

    /// The `reason` of a `StatusCause` carrying this error (`metav1.CauseType`).
    pub fn cause_type(self) -> &'static str {
        match self {
            Self::Required => "FieldValueRequired",
            Self::Invalid => "FieldValueInvalid",
            Self::NotSupported => "FieldValueNotSupported",
            Self::TooLong => "FieldValueTooLong",
            Self::TooMany => "FieldValueTooMany",
            Self::Duplicate => "FieldValueDuplicate",
            Self::TypeInvalid => "FieldValueTypeInvalid",
            Self::Forbidden => "FieldValueForbidden",
        }
    }

    /// Kinds whose message never shows the offending value (the value may be huge or secret).
    fn omits_value(self) -> bool {
        matches!(self, Self::Required | Self::Forbidden | Self::TooLong)
    }
}

/// One validation failure of an object against a CRD version's schema.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// The field path, e.g. `spec.maxUnavailable` or `spec.evictionConditions[0].name`;
    /// `<nil>` for the object itself, as the apiserver prints a nil `*field.Path`.
    pub field: String,
    pub kind: FieldErrorKind,
    pub detail: String,
    /// The value printed after the kind; `Value::Null` prints as `"null"` like Go's nil.
    pub bad_value: Option<Value>,
}

impl FieldError {
    pub(crate) fn new(
        field: &str,
        kind: FieldErrorKind,
        bad_value: Option<Value>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            field: render_path(field),
            kind,
            detail: detail.into(),
            bad_value,
        }
    }

    /// The full message, e.g. `spec.clusterName: Required value`.
    pub fn to_message(&self) -> String {
        format!("{}: {}", self.field, self.body())
    }

    /// The message without the field (`ErrorBody()`), as used in a `StatusCause`.
    pub fn body(&self) -> String {
        let mut s = self.kind.as_str().to_string();
        if !self.kind.omits_value()
            && let Some(value) = &self.bad_value
        {
            s.push_str(": ");
            s.push_str(&go_value(value));
        }
        if !self.detail.is_empty() {
            s.push_str(": ");
            s.push_str(&self.detail);
        }
        s
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_message())
    }
}

/// The aggregate message of an Invalid status (`ErrorList.ToAggregate().Error()`): one
/// message alone, several in brackets, duplicates dropped.
pub fn aggregate_message(errors: &[FieldError]) -> String {
    let mut seen: Vec<String> = Vec::new();
    for message in errors.iter().map(FieldError::to_message) {
        if !seen.contains(&message) {
            seen.push(message);
        }
    }
    match seen.len() {
        1 => seen.remove(0),
        _ => format!("[{}]", seen.join(", ")),
    }
}

/// A message whose bad value is already rendered (CRD acceptance reports values such as
/// `[]string{...}` that are not JSON).
pub(crate) fn text(path: &str, kind: FieldErrorKind, value: Option<&str>, detail: &str) -> String {
    let mut s = format!("{}: {}", render_path(path), kind.as_str());
    if let Some(v) = value.filter(|_| !kind.omits_value()) {
        s.push_str(": ");
        s.push_str(v);
    }
    if !detail.is_empty() {
        s.push_str(": ");
        s.push_str(detail);
    }
    s
}

pub(crate) fn required(path: &str, detail: &str) -> String {
    text(path, FieldErrorKind::Required, None, detail)
}

pub(crate) fn forbidden(path: &str, detail: &str) -> String {
    text(path, FieldErrorKind::Forbidden, None, detail)
}

pub(crate) fn invalid(path: &str, value: &str, detail: &str) -> String {
    text(path, FieldErrorKind::Invalid, Some(value), detail)
}

pub(crate) fn not_supported(path: &str, value: &str, supported: &[&str]) -> String {
    let quoted: Vec<String> = supported.iter().map(|s| go_quote(s)).collect();
    let detail = format!("supported values: {}", quoted.join(", "));
    text(
        path,
        FieldErrorKind::NotSupported,
        Some(&go_quote(value)),
        &detail,
    )
}

/// A nil `*field.Path` prints as `<nil>`; every other path prints as built.
pub(crate) fn render_path(path: &str) -> String {
    if path.is_empty() {
        "<nil>".to_string()
    } else {
        path.to_string()
    }
}

/// `field.Path.Child`: `a.b`, or `b` at the root.
pub(crate) fn child(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// `field.Path.Index`: `a[3]`.
pub(crate) fn index(path: &str, i: usize) -> String {
    format!("{path}[{i}]")
}

/// `field.Path.Key`: `a[key]`.
pub(crate) fn key(path: &str, k: &str) -> String {
    format!("{path}[{k}]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(field: &str, kind: FieldErrorKind, value: Option<Value>, detail: &str) -> FieldError {
        FieldError::new(field, kind, value, detail)
    }

    #[test]
    fn messages_match_the_apiserver_wording() {
        use FieldErrorKind::*;
        let cases = [
            (
                "required has no value",
                err("spec.clusterName", Required, None, ""),
                "spec.clusterName: Required value",
            ),
            (
                "not supported quotes value and choices",
                err(
                    "spec.strategy",
                    NotSupported,
                    Some(json!("Drain")),
                    r#"supported values: "Delete", "External""#,
                ),
                r#"spec.strategy: Unsupported value: "Drain": supported values: "Delete", "External""#,
            ),
            (
                "too long never shows the value",
                err(
                    "spec.placementName",
                    TooLong,
                    Some(json!("x")),
                    "may not be more than 255 bytes",
                ),
                "spec.placementName: Too long: may not be more than 255 bytes",
            ),
            (
                "too many shows the count",
                err(
                    "spec.list",
                    TooMany,
                    Some(json!(4)),
                    "must have at most 3 items",
                ),
                "spec.list: Too many: 4: must have at most 3 items",
            ),
            (
                "type invalid prints as invalid value",
                err(
                    "spec.x",
                    TypeInvalid,
                    Some(json!("string")),
                    r#"spec.x in body must be of type integer: "string""#,
                ),
                r#"spec.x: Invalid value: "string": spec.x in body must be of type integer: "string""#,
            ),
            (
                "root path prints as <nil> and nil as \"null\"",
                err("", Invalid, Some(Value::Null), "some rule"),
                r#"<nil>: Invalid value: "null": some rule"#,
            ),
            (
                "forbidden has no value",
                err(
                    "spec.podMigration",
                    Forbidden,
                    Some(json!("object")),
                    "not yet",
                ),
                "spec.podMigration: Forbidden: not yet",
            ),
            (
                "duplicate of a map-list key prints a Go map",
                err(
                    "spec.c[1]",
                    Duplicate,
                    Some(json!({"name": "a", "b": 1})),
                    "",
                ),
                r#"spec.c[1]: Duplicate value: map[string]interface {}{"b":1, "name":"a"}"#,
            ),
            (
                "numbers print plain",
                err("spec.n", Invalid, Some(json!(1.5)), "d"),
                "spec.n: Invalid value: 1.5: d",
            ),
        ];
        for (rule, error, expected) in cases {
            assert_eq!(error.to_message(), expected, "{rule}");
        }
    }

    #[test]
    fn aggregate_brackets_several_and_drops_duplicates() {
        let a = err("a", FieldErrorKind::Required, None, "");
        let b = err("b", FieldErrorKind::Required, None, "");
        let cases = [
            ("one error alone", vec![a.clone()], "a: Required value"),
            (
                "several in brackets",
                vec![a.clone(), b.clone(), a.clone()],
                "[a: Required value, b: Required value]",
            ),
        ];
        for (rule, errors, expected) in cases {
            assert_eq!(aggregate_message(&errors), expected, "{rule}");
        }
    }
}
