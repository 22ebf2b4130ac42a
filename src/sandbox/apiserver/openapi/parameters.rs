//! What operations take: path and query parameters, and request bodies.

use super::operations::{Action, Subject};
use super::reference;
use super::schemas::META;
use crate::sandbox::apiserver::resource::ResourceType;
use serde_json::{Map, Value, json};

pub(super) fn path_parameters(t: &ResourceType, named: bool) -> Vec<Value> {
    let mut params = Vec::new();
    if named {
        params.push(path_parameter("name", &format!("name of the {}", t.kind)));
    }
    if t.namespaced {
        params.push(path_parameter("namespace", "namespace holding the object"));
    }
    params
}

fn path_parameter(name: &str, description: &str) -> Value {
    json!({
        "name": name,
        "in": "path",
        "description": description,
        "required": true,
        "schema": {"type": "string", "uniqueItems": true},
    })
}

/// Query parameters and their JSON types. What they mean is documented upstream; kubectl
/// looks only for their names.
const QUERY_PARAMETERS: &[(&str, &str)] = &[
    ("pretty", "string"),
    ("dryRun", "string"),
    ("fieldManager", "string"),
    ("fieldValidation", "string"),
    ("force", "boolean"),
    ("gracePeriodSeconds", "integer"),
    ("orphanDependents", "boolean"),
    ("propagationPolicy", "string"),
    ("allowWatchBookmarks", "boolean"),
    ("continue", "string"),
    ("fieldSelector", "string"),
    ("labelSelector", "string"),
    ("limit", "integer"),
    ("resourceVersion", "string"),
    ("resourceVersionMatch", "string"),
    ("sendInitialEvents", "boolean"),
    ("timeoutSeconds", "integer"),
    ("watch", "boolean"),
];

const LIST_PARAMETERS: &[&str] = &[
    "allowWatchBookmarks",
    "continue",
    "fieldSelector",
    "labelSelector",
    "limit",
    "resourceVersion",
    "resourceVersionMatch",
    "sendInitialEvents",
    "timeoutSeconds",
    "watch",
];
const WRITE_PARAMETERS: &[&str] = &["dryRun", "fieldManager", "fieldValidation"];
const DELETE_PARAMETERS: &[&str] = &[
    "dryRun",
    "gracePeriodSeconds",
    "orphanDependents",
    "propagationPolicy",
];

pub(super) fn query_parameters(action: Action) -> Value {
    let mut names = vec!["pretty"];
    match action {
        Action::Read => {}
        Action::List | Action::ListAllNamespaces => names.extend(LIST_PARAMETERS),
        Action::Create | Action::Replace => names.extend(WRITE_PARAMETERS),
        Action::Patch => names.extend(WRITE_PARAMETERS.iter().chain(&["force"])),
        Action::Delete => names.extend(DELETE_PARAMETERS),
        Action::DeleteCollection => names.extend(DELETE_PARAMETERS.iter().chain(LIST_PARAMETERS)),
    }
    let parameter = |name: &&str| {
        let (_, kind) = QUERY_PARAMETERS.iter().find(|(n, _)| n == name)?;
        let schema = json!({"type": kind, "uniqueItems": true});
        Some(json!({"name": name, "in": "query", "schema": schema}))
    };
    Value::Array(names.iter().filter_map(parameter).collect())
}

pub(super) fn request_body(t: &ResourceType, action: Action, subject: &Subject) -> Option<Value> {
    let body = |types: &[&str], schema: &str| -> Map<String, Value> {
        let content = json!({"schema": reference(schema)});
        types
            .iter()
            .map(|m| (m.to_string(), content.clone()))
            .collect()
    };
    let content = match action {
        Action::Create | Action::Replace => body(&["*/*"], &subject.schema),
        // The real server takes strategic merge patches for built-in kinds only; kubectl
        // reads this list to choose between a strategic and a JSON merge patch.
        Action::Patch if t.is_custom() => body(CUSTOM_PATCH_TYPES, &format!("{META}.Patch")),
        Action::Patch => body(BUILTIN_PATCH_TYPES, &format!("{META}.Patch")),
        Action::Delete | Action::DeleteCollection => {
            let content = body(&["*/*"], &format!("{META}.DeleteOptions"));
            return Some(json!({"content": content}));
        }
        Action::List | Action::ListAllNamespaces | Action::Read => return None,
    };
    Some(json!({"content": content, "required": true}))
}

const CUSTOM_PATCH_TYPES: &[&str] = &[
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
];
const BUILTIN_PATCH_TYPES: &[&str] = &[
    "application/apply-patch+yaml",
    "application/json-patch+json",
    "application/merge-patch+json",
    "application/strategic-merge-patch+json",
];
