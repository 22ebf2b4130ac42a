//! OpenAPI v3: the index (`/openapi/v3`) and one document per group-version. Minimal on
//! purpose. kubectl 1.32's `apply` reads them for two things: whether a kind's PATCH takes a
//! `fieldValidation` query parameter (then validation is left to the server, otherwise it
//! wants `/openapi/v2`, which we do not serve), and whether PATCH accepts strategic merge
//! patches. Custom resources carry their CRD schema as the real server publishes it; built-in
//! kinds get an open object schema (see `schemas::builtin_schema` for why it names no kind).

use super::registry::Registry;
use serde_json::{Map, Value, json};

mod operations;
mod parameters;
mod schemas;

use operations::add_paths;
use schemas::{META, add_schemas, meta_schemas, open_object};

const KUBERNETES_VERSION: &str = "v1.32.0";

/// `/openapi/v3`: where each document lives, with a hash that changes with the document so
/// clients may cache by URL.
pub fn openapi_index(registry: &Registry) -> Value {
    let mut paths = Map::new();
    for path in document_paths(registry) {
        if let Some(document) = openapi_document(registry, &path) {
            let url = format!("/openapi/v3/{path}?hash={}", document_hash(&document));
            paths.insert(path, json!({"serverRelativeURL": url}));
        }
    }
    json!({"paths": paths})
}

/// `/openapi/v3/<path>` for `api`, `apis`, `api/<version>` or `apis/<group>/<version>`;
/// `None` for anything else, including group-versions the server does not serve.
pub fn openapi_document(registry: &Registry, path: &str) -> Option<Value> {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    match segments.as_slice() {
        ["api"] => Some(versions_document(
            "/api/",
            "getCoreAPIVersions",
            "APIVersions",
        )),
        ["apis"] => Some(versions_document(
            "/apis/",
            "getAPIVersions",
            "APIGroupList",
        )),
        ["api", version] => group_version_document(registry, "", version),
        ["apis", group, version] if !group.is_empty() => {
            group_version_document(registry, group, version)
        }
        _ => None,
    }
}

/// FNV-1a (64 bits) of the document's JSON, as 16 upper-case hex digits. Serialization is
/// stable because objects keep their keys sorted. Also usable as the document's ETag.
pub fn document_hash(document: &Value) -> String {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let hash = document
        .to_string()
        .bytes()
        .fold(OFFSET, |h, b| (h ^ u64::from(b)).wrapping_mul(PRIME));
    format!("{hash:016X}")
}

fn document_paths(registry: &Registry) -> Vec<String> {
    let mut paths = vec!["api".to_string(), "apis".to_string()];
    paths.extend(registry.group_versions().iter().map(|(g, v)| {
        if g.is_empty() {
            format!("api/{v}")
        } else {
            format!("apis/{g}/{v}")
        }
    }));
    paths
}

fn document(paths: Map<String, Value>, schemas: Map<String, Value>) -> Value {
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Kubernetes", "version": KUBERNETES_VERSION},
        "paths": paths,
        "components": {"schemas": schemas},
    })
}

/// The documents for the discovery roots: one GET each.
fn versions_document(path: &str, operation_id: &str, kind: &str) -> Value {
    let schema = format!("{META}.{kind}");
    let get = json!({
        "description": "list the available API versions",
        "operationId": operation_id,
        "responses": {"200": ok(&schema), "401": {"description": "Unauthorized"}},
    });
    let mut schemas = Map::new();
    schemas.insert(
        schema,
        open_object(&format!("{kind} as served by discovery.")),
    );
    document(single(path, json!({"get": get})), schemas)
}

fn group_version_document(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let types = registry.in_group_version(group, version);
    if types.is_empty() {
        return None;
    }
    let mut paths = Map::new();
    let mut schemas = meta_schemas();
    for t in &types {
        add_paths(&mut paths, t);
        add_schemas(&mut schemas, t);
    }
    Some(document(paths, schemas))
}

fn ok(schema: &str) -> Value {
    response("OK", schema)
}

fn response(description: &str, schema: &str) -> Value {
    let content = json!({"schema": reference(schema)});
    json!({
        "description": description,
        "content": {"application/json": content, "application/yaml": content},
    })
}

fn reference(schema: &str) -> Value {
    json!({"$ref": format!("#/components/schemas/{schema}")})
}

fn single(key: &str, value: Value) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert(key.to_string(), value);
    map
}

#[cfg(test)]
#[path = "openapi_tests.rs"]
mod tests;
