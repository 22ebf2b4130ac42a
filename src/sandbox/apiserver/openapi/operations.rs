//! Paths and operations of a group-version document: per resource its collection, item,
//! cross-namespace list and subresource paths, each operation tagged with the kind it acts on
//! and its `x-kubernetes-action`, as the real server's are.

use super::parameters::{path_parameters, query_parameters, request_body};
use super::response;
use super::schemas::{EVICTION_SCHEMA, META, schema_name};
use crate::sandbox::apiserver::resource::ResourceType;
use serde_json::{Map, Value, json};

/// What an operation reads or writes: its kind and that kind's schema.
pub(super) struct Subject {
    pub(super) group: String,
    pub(super) version: String,
    pub(super) kind: String,
    pub(super) schema: String,
}

impl Subject {
    fn own(t: &ResourceType) -> Subject {
        Subject {
            group: t.group.clone(),
            version: t.version.clone(),
            kind: t.kind.clone(),
            schema: schema_name(t, &t.kind),
        }
    }

    fn eviction() -> Subject {
        Subject {
            group: "policy".into(),
            version: "v1".into(),
            kind: "Eviction".into(),
            schema: EVICTION_SCHEMA.into(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    List,
    ListAllNamespaces,
    Create,
    DeleteCollection,
    Read,
    Replace,
    Patch,
    Delete,
}

impl Action {
    /// HTTP method, `x-kubernetes-action`, and the verb its operation ID starts with.
    fn words(self) -> [&'static str; 3] {
        match self {
            Action::List | Action::ListAllNamespaces => ["get", "list", "list"],
            Action::Create => ["post", "post", "create"],
            Action::DeleteCollection => ["delete", "deletecollection", "delete"],
            Action::Read => ["get", "get", "read"],
            Action::Replace => ["put", "put", "replace"],
            Action::Patch => ["patch", "patch", "patch"],
            Action::Delete => ["delete", "delete", "delete"],
        }
    }
}

pub(super) fn add_paths(paths: &mut Map<String, Value>, t: &ResourceType) {
    let root = if t.group.is_empty() {
        format!("/api/{}", t.version)
    } else {
        format!("/apis/{}/{}", t.group, t.version)
    };
    let scope = if t.namespaced {
        format!("{root}/namespaces/{{namespace}}")
    } else {
        root.clone()
    };
    let collection = format!("{scope}/{}", t.resource);
    let item = format!("{collection}/{{name}}");
    let own = Subject::own(t);
    let ops = |actions: &[Action], sub: &str, subject: &Subject| -> Vec<(Action, Value)> {
        let op = |a: &Action| (*a, operation(t, *a, sub, subject));
        actions.iter().map(op).collect()
    };
    let scope_params = |named: bool| path_parameters(t, named);
    use Action::*;
    let collection_ops = ops(&[List, Create, DeleteCollection], "", &own);
    paths.insert(collection, path_item(collection_ops, scope_params(false)));
    let item_ops = ops(&[Read, Replace, Patch, Delete], "", &own);
    paths.insert(item.clone(), path_item(item_ops, scope_params(true)));
    if t.namespaced {
        let all = ops(&[ListAllNamespaces], "", &own);
        paths.insert(format!("{root}/{}", t.resource), path_item(all, vec![]));
    }
    for sub in &t.subresources {
        let sub_ops = match sub.as_str() {
            "status" => ops(&[Read, Replace, Patch], sub, &own),
            "eviction" => ops(&[Create], sub, &Subject::eviction()),
            _ => continue,
        };
        paths.insert(
            format!("{item}/{sub}"),
            path_item(sub_ops, scope_params(true)),
        );
    }
}

fn path_item(operations: Vec<(Action, Value)>, parameters: Vec<Value>) -> Value {
    let mut item: Map<String, Value> = operations
        .into_iter()
        .map(|(action, op)| (action.words()[0].to_string(), op))
        .collect();
    if !parameters.is_empty() {
        item.insert("parameters".into(), Value::Array(parameters));
    }
    Value::Object(item)
}

fn operation(t: &ResourceType, action: Action, sub: &str, subject: &Subject) -> Value {
    let mut op = Map::new();
    op.insert("tags".into(), json!([tag(t)]));
    op.insert(
        "description".into(),
        json!(description(action, sub, &t.kind)),
    );
    op.insert("operationId".into(), json!(operation_id(t, action, sub)));
    op.insert("parameters".into(), query_parameters(action));
    if let Some(body) = request_body(t, action, subject) {
        op.insert("requestBody".into(), body);
    }
    op.insert("responses".into(), responses(t, action, subject));
    op.insert("x-kubernetes-action".into(), json!(action.words()[1]));
    // An object here, unlike the list on schemas: kubectl decodes it as a single map.
    let gvk = json!({"group": subject.group, "version": subject.version, "kind": subject.kind});
    op.insert("x-kubernetes-group-version-kind".into(), gvk);
    Value::Object(op)
}

fn description(action: Action, sub: &str, kind: &str) -> String {
    let target = if sub.is_empty() {
        kind.to_string()
    } else {
        format!("{sub} of {kind}")
    };
    match action {
        Action::List => format!("list or watch {target} objects"),
        Action::ListAllNamespaces => format!("list or watch {target} objects in all namespaces"),
        Action::Create => format!("create {target}"),
        Action::DeleteCollection => format!("delete a collection of {target}"),
        Action::Read => format!("read {target}"),
        Action::Replace => format!("replace {target}"),
        Action::Patch => format!("partially update {target}"),
        Action::Delete => format!("delete {target}"),
    }
}

/// Built like the real server's: `readCoreV1NamespacedPodStatus`,
/// `deleteAppsV1CollectionNamespacedDeployment`, `listCoreV1PodForAllNamespaces`.
fn operation_id(t: &ResourceType, action: Action, sub: &str) -> String {
    let collection = if action == Action::DeleteCollection {
        "Collection"
    } else {
        ""
    };
    let all = action == Action::ListAllNamespaces;
    let namespaced = if t.namespaced && !all {
        "Namespaced"
    } else {
        ""
    };
    let for_all = if all { "ForAllNamespaces" } else { "" };
    format!(
        "{}{}{}{collection}{namespaced}{}{}{for_all}",
        action.words()[2],
        group_id(&t.group),
        capitalize(&t.version),
        t.kind,
        capitalize(sub),
    )
}

/// `Core` for the core group; otherwise the group without `.k8s.io`, camel-cased at dots and
/// dashes (`placement.kubernetes-fleet.io` → `PlacementKubernetesFleetIo`).
fn group_id(group: &str) -> String {
    if group.is_empty() {
        return "Core".into();
    }
    let group = group.strip_suffix(".k8s.io").unwrap_or(group);
    group.split(['.', '-']).map(capitalize).collect()
}

fn tag(t: &ResourceType) -> String {
    let id = group_id(&t.group);
    let mut chars = id.chars();
    let first = chars.next().map(|c| c.to_ascii_lowercase().to_string());
    format!(
        "{}{}_{}",
        first.unwrap_or_default(),
        chars.as_str(),
        t.version
    )
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

fn responses(t: &ResourceType, action: Action, subject: &Subject) -> Value {
    let status = format!("{META}.Status");
    let list = schema_name(t, &format!("{}List", t.kind));
    let mut out = Map::new();
    let mut add = |code: &str, description: &str, schema: &str| {
        out.insert(code.to_string(), response(description, schema));
    };
    match action {
        Action::List | Action::ListAllNamespaces => add("200", "OK", &list),
        Action::Read => add("200", "OK", &subject.schema),
        Action::Replace | Action::Patch | Action::Create => {
            add("200", "OK", &subject.schema);
            add("201", "Created", &subject.schema);
            if action == Action::Create {
                add("202", "Accepted", &subject.schema);
            }
        }
        Action::Delete | Action::DeleteCollection => {
            add("200", "OK", &status);
            if action == Action::Delete {
                add("202", "Accepted", &status);
            }
        }
    }
    out.insert("401".into(), json!({"description": "Unauthorized"}));
    Value::Object(out)
}
