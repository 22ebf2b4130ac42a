//! Failure answers as the real server writes them: a `Status` body with reason, code and
//! details, so that kube-rs and kubectl classify them as they would against Kubernetes.

use super::resource::StorageKey;
use crate::sandbox::schema::{FieldError, aggregate_message};
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: u16,
    pub reason: &'static str,
    pub message: String,
    pub details: Option<Value>,
}

fn details(key: &StorageKey, name: &str) -> Value {
    let mut d = Map::new();
    if !name.is_empty() {
        d.insert("name".into(), json!(name));
    }
    if !key.group.is_empty() {
        d.insert("group".into(), json!(key.group));
    }
    d.insert("kind".into(), json!(key.resource));
    Value::Object(d)
}

impl ApiError {
    fn new(code: u16, reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            reason,
            message: message.into(),
            details: None,
        }
    }

    fn with_details(mut self, details: Value) -> ApiError {
        self.details = Some(details);
        self
    }

    pub fn not_found(key: &StorageKey, name: &str) -> ApiError {
        let message = format!("{} \"{name}\" not found", key.qualified());
        ApiError::new(404, "NotFound", message).with_details(details(key, name))
    }

    /// A path the server does not serve at all.
    pub fn no_route() -> ApiError {
        ApiError::new(
            404,
            "NotFound",
            "the server could not find the requested resource",
        )
        .with_details(json!({}))
    }

    pub fn already_exists(key: &StorageKey, name: &str) -> ApiError {
        let message = format!("{} \"{name}\" already exists", key.qualified());
        ApiError::new(409, "AlreadyExists", message).with_details(details(key, name))
    }

    pub fn conflict(key: &StorageKey, name: &str, why: &str) -> ApiError {
        let message = format!(
            "Operation cannot be fulfilled on {} \"{name}\": {why}",
            key.qualified()
        );
        ApiError::new(409, "Conflict", message).with_details(details(key, name))
    }

    /// The optimistic-concurrency refusal.
    pub fn modified(key: &StorageKey, name: &str) -> ApiError {
        ApiError::conflict(
            key,
            name,
            "the object has been modified; please apply your changes to the latest version and try again",
        )
    }

    /// 422 with one cause per field error; `kind` and `group` name the object's kind.
    pub fn invalid(kind: &str, group: &str, name: &str, errors: &[FieldError]) -> ApiError {
        let qualified = if group.is_empty() {
            kind.to_string()
        } else {
            format!("{kind}.{group}")
        };
        let message = format!(
            "{qualified} \"{name}\" is invalid: {}",
            aggregate_message(errors)
        );
        let causes: Vec<Value> = errors
            .iter()
            .map(|e| json!({"reason": e.kind.cause_type(), "message": e.body(), "field": e.field}))
            .collect();
        let mut d = json!({"name": name, "kind": kind, "causes": causes});
        if !group.is_empty() {
            d["group"] = json!(group);
        }
        ApiError::new(422, "Invalid", message).with_details(d)
    }

    /// 422 from already-rendered `field: message` texts (as the CRD checks produce them).
    pub fn invalid_messages(kind: &str, group: &str, name: &str, messages: &[String]) -> ApiError {
        let aggregate = match messages {
            [one] => one.clone(),
            many => format!("[{}]", many.join(", ")),
        };
        let message = format!("{kind}.{group} \"{name}\" is invalid: {aggregate}");
        let causes: Vec<Value> = messages
            .iter()
            .map(|m| {
                let (field, body) = m.split_once(": ").unwrap_or(("", m));
                json!({"reason": "FieldValueInvalid", "message": body, "field": field})
            })
            .collect();
        ApiError::new(422, "Invalid", message)
            .with_details(json!({"name": name, "group": group, "kind": kind, "causes": causes}))
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(400, "BadRequest", message)
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(403, "Forbidden", message)
    }

    pub fn method_not_allowed(message: impl Into<String>) -> ApiError {
        ApiError::new(405, "MethodNotAllowed", message)
    }

    pub fn gone(message: impl Into<String>) -> ApiError {
        ApiError::new(410, "Expired", message)
    }

    pub fn unsupported_media_type(content_type: &str) -> ApiError {
        let message = format!(
            "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json; got {content_type}"
        );
        ApiError::new(415, "UnsupportedMediaType", message)
    }

    pub fn unprocessable(message: impl Into<String>) -> ApiError {
        ApiError::new(422, "Invalid", message)
    }

    pub fn too_many_requests(message: impl Into<String>, causes: Vec<Value>) -> ApiError {
        let mut e = ApiError::new(429, "TooManyRequests", message);
        if !causes.is_empty() {
            e.details = Some(json!({"causes": causes}));
        }
        e
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(500, "InternalError", message)
    }

    /// Any code and reason, for injected faults and the eviction subresource.
    pub fn custom(code: u16, reason: &'static str, message: impl Into<String>) -> ApiError {
        ApiError::new(code, reason, message)
    }

    pub fn with_causes(mut self, causes: Vec<Value>) -> ApiError {
        let mut d = self.details.take().unwrap_or_else(|| json!({}));
        d["causes"] = Value::Array(causes);
        self.details = Some(d);
        self
    }

    /// The `Status` object of this failure.
    pub fn status(&self) -> Value {
        let mut s = json!({
            "kind": "Status",
            "apiVersion": "v1",
            "metadata": {},
            "status": "Failure",
            "message": self.message,
            "reason": self.reason,
            "code": self.code,
        });
        if let Some(d) = &self.details {
            s["details"] = d.clone();
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_match_the_real_server() {
        let pods = StorageKey::new("", "pods");
        let crpe = StorageKey::new(
            "placement.kubernetes-fleet.io",
            "clusterresourceplacementevictions",
        );
        let rows = [
            (
                "NotFound core",
                ApiError::not_found(&pods, "p").status(),
                json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"pods \"p\" not found","reason":"NotFound","details":{"name":"p","kind":"pods"},"code":404}),
            ),
            (
                "Conflict on a group resource",
                ApiError::modified(&crpe, "e").status(),
                json!({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",
                    "message":"Operation cannot be fulfilled on clusterresourceplacementevictions.placement.kubernetes-fleet.io \"e\": the object has been modified; please apply your changes to the latest version and try again",
                    "reason":"Conflict","details":{"name":"e","group":"placement.kubernetes-fleet.io","kind":"clusterresourceplacementevictions"},"code":409}),
            ),
            (
                "AlreadyExists",
                ApiError::already_exists(&pods, "p").status()["message"].clone(),
                json!("pods \"p\" already exists"),
            ),
        ];
        for (rule, got, want) in rows {
            assert_eq!(got, want, "{rule}");
        }
    }
}
