//! What every write goes through before it is stored: decoding into the kind's shape,
//! unknown-field handling, schema and CEL validation for custom resources, and the checks on
//! metadata the real server makes.

use super::object;
use super::resource::{ResourceType, Shape};
use super::status::ApiError;
use crate::sandbox::schema::{FieldError, FieldErrorKind, apply_defaults, prune, validate};
use serde_json::{Map, Value};

/// The `fieldValidation` query parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FieldValidation {
    Strict,
    /// The server's default: unknown fields dropped, each reported in a `Warning` header.
    #[default]
    Warn,
    Ignore,
}

impl FieldValidation {
    pub fn parse(value: Option<&str>) -> Result<FieldValidation, ApiError> {
        match value {
            None | Some("") | Some("Warn") => Ok(FieldValidation::Warn),
            Some("Strict") => Ok(FieldValidation::Strict),
            Some("Ignore") => Ok(FieldValidation::Ignore),
            Some(other) => Err(ApiError::bad_request(format!(
                "fieldValidation must be one of Ignore, Warn, or Strict, got {other}"
            ))),
        }
    }
}

/// Decodes `object` into the kind's shape: returns the normalised object and the paths of
/// unknown fields it dropped, or refuses it per `validation`.
pub fn normalise(
    rt: &ResourceType,
    object: Value,
    validation: FieldValidation,
) -> Result<(Value, Vec<String>), ApiError> {
    let (out, unknown) = match &rt.shape {
        Shape::Builtin(decode) => {
            let decoded = decode(object.clone())
                .map_err(|e| ApiError::bad_request(format!("error decoding {}: {e}", rt.kind)))?;
            let mut unknown = Vec::new();
            dropped_fields(&object, &decoded, "", &mut unknown);
            (decoded, unknown)
        }
        Shape::Custom(schema) => {
            let mut pruned = object;
            let unknown = prune(schema, &mut pruned);
            apply_defaults(schema, &mut pruned);
            (pruned, unknown)
        }
    };
    if validation == FieldValidation::Strict && !unknown.is_empty() {
        let list: Vec<String> = unknown
            .iter()
            .map(|f| format!("unknown field \"{f}\""))
            .collect();
        return Err(ApiError::bad_request(format!(
            "strict decoding error: {}",
            list.join(", ")
        )));
    }
    Ok((out, unknown))
}

/// Fields present (and not null) in `input` that `output` lost.
fn dropped_fields(input: &Value, output: &Value, path: &str, out: &mut Vec<String>) {
    match (input, output) {
        (Value::Object(i), Value::Object(o)) => {
            for (k, v) in i {
                let child = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match o.get(k) {
                    Some(ov) => dropped_fields(v, ov, &child, out),
                    None if !v.is_null() && !is_empty_container(v) => out.push(child),
                    None => {}
                }
            }
        }
        (Value::Array(i), Value::Array(o)) => {
            for (n, (iv, ov)) in i.iter().zip(o).enumerate() {
                dropped_fields(iv, ov, &format!("{path}[{n}]"), out);
            }
        }
        _ => {}
    }
}

fn is_empty_container(v: &Value) -> bool {
    matches!(v, Value::Object(m) if m.is_empty()) || matches!(v, Value::Array(a) if a.is_empty())
}

/// Schema and CEL validation of a custom resource, plus the metadata checks of every kind.
pub fn validate_object(
    rt: &ResourceType,
    new: &Value,
    old: Option<&Value>,
) -> Result<(), ApiError> {
    if rt.group == "apiextensions.k8s.io" && rt.resource == "customresourcedefinitions" {
        super::crd::validate_crd(new)?;
    }
    let mut errors = metadata_errors(rt, new);
    if let Shape::Custom(schema) = &rt.shape {
        errors.extend(validate(schema, new, old));
    }
    if errors.is_empty() {
        return Ok(());
    }
    Err(ApiError::invalid(
        &rt.kind,
        &rt.group,
        object::name(new),
        &errors,
    ))
}

fn metadata_errors(rt: &ResourceType, object: &Value) -> Vec<FieldError> {
    let name = object::name(object);
    let mut errors = Vec::new();
    let check = if rt.resource == "namespaces" {
        dns_label(name)
    } else {
        dns_subdomain(name)
    };
    if let Err(detail) = check {
        errors.push(FieldError::new(
            "metadata.name",
            FieldErrorKind::Invalid,
            Some(Value::from(name)),
            detail,
        ));
    }
    if let Some(labels) = object::labels(object) {
        errors.extend(label_errors(labels));
    }
    errors
}

fn label_errors(labels: &Map<String, Value>) -> Vec<FieldError> {
    labels
        .iter()
        .filter(|(_, v)| v.as_str().is_none_or(|s| s.len() > 63))
        .map(|(k, v)| {
            FieldError::new(
                "metadata.labels",
                FieldErrorKind::Invalid,
                Some(v.clone()),
                format!("label {k}: must be no more than 63 characters"),
            )
        })
        .collect()
}

const SUBDOMAIN_MESSAGE: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MESSAGE: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

fn dns_label(name: &str) -> Result<(), String> {
    if name.len() > 63 {
        return Err("must be no more than 63 characters".into());
    }
    if label_ok(name) {
        Ok(())
    } else {
        Err(LABEL_MESSAGE.into())
    }
}

fn dns_subdomain(name: &str) -> Result<(), String> {
    if name.len() > 253 {
        return Err("must be no more than 253 characters".into());
    }
    if name.split('.').all(label_ok) {
        Ok(())
    } else {
        Err(SUBDOMAIN_MESSAGE.into())
    }
}

fn label_ok(part: &str) -> bool {
    let b = part.as_bytes();
    let edge = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.first().is_some_and(edge)
        && b.last().is_some_and(edge)
        && b.iter().all(|c| edge(c) || *c == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names() {
        let rows = [
            ("subdomain with dots", dns_subdomain("a.b-c.d"), true),
            ("upper case refused", dns_subdomain("Web"), false),
            ("trailing dash refused", dns_subdomain("web-"), false),
            ("empty refused", dns_subdomain(""), false),
            ("label without dots", dns_label("team-a"), true),
            ("label with dot refused", dns_label("a.b"), false),
        ];
        for (rule, got, ok) in rows {
            assert_eq!(got.is_ok(), ok, "{rule}");
        }
    }

    #[test]
    fn dropped_fields_are_reported_by_path() {
        let input =
            json!({"spec": {"a": 1, "x": 2, "n": null, "e": {}, "list": [{"k": 1, "y": 3}]}});
        let output = json!({"spec": {"a": 1, "list": [{"k": 1}]}});
        let mut out = Vec::new();
        dropped_fields(&input, &output, "", &mut out);
        assert_eq!(
            out,
            vec!["spec.list[0].y".to_string(), "spec.x".to_string()]
        );
    }
}
