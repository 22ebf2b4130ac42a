use super::*;
use crate::api::crds;
use crate::sandbox::apiserver::discovery::tests::{custom_types, registry_with};
use crate::sandbox::apiserver::resource::ResourceType;

const PLACEMENT_V1BETA1: &str = "apis/placement.kubernetes-fleet.io/v1beta1";
const CRPE_SCHEMA: &str = "io.kubernetes-fleet.placement.v1beta1.ClusterResourcePlacementEviction";

fn doc(registry: &Registry, path: &str) -> Value {
    openapi_document(registry, path).unwrap_or_else(|| panic!("no document at {path}"))
}

fn index_url(registry: &Registry, path: &str) -> String {
    let index = openapi_index(registry);
    let url = index["paths"][path]["serverRelativeURL"].as_str();
    url.unwrap_or_else(|| panic!("{path} not indexed"))
        .to_string()
}

fn gv_path(t: &ResourceType) -> String {
    if t.group.is_empty() {
        format!("api/{}", t.version)
    } else {
        format!("apis/{}/{}", t.group, t.version)
    }
}

/// kubectl's lookup: the PATCH operations whose GVK object names this kind.
fn patch_operations<'a>(document: &'a Value, t: &ResourceType) -> Vec<&'a Value> {
    let gvk = json!({"group": t.group, "version": t.version, "kind": t.kind});
    let paths = document["paths"].as_object().expect("paths");
    let patches = paths.values().filter_map(|item| item.get("patch"));
    patches
        .filter(|op| op["x-kubernetes-group-version-kind"] == gvk)
        .collect()
}

fn has_query_parameter(op: &Value, name: &str) -> bool {
    let params = op["parameters"].as_array().expect("parameters");
    params
        .iter()
        .any(|p| p["name"] == name && p["in"] == "query")
}

fn refs(node: &Value, out: &mut Vec<String>) {
    match node {
        Value::Object(map) => {
            if let Some(Value::String(r)) = map.get("$ref") {
                out.push(r.clone());
            }
            map.values().for_each(|v| refs(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| refs(v, out)),
        _ => {}
    }
}

#[test]
fn index_names_one_document_per_group_version_plus_the_roots() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME]);
    let index = openapi_index(&registry);
    let mut listed: Vec<&String> = index["paths"].as_object().expect("paths").keys().collect();
    listed.sort();
    let expected = [
        "api",
        "api/v1",
        "apis",
        "apis/apiextensions.k8s.io/v1",
        "apis/apps/v1",
        "apis/coordination.k8s.io/v1",
        "apis/events.k8s.io/v1",
        "apis/placement.kubernetes-fleet.io/v1alpha1",
        "apis/placement.kubernetes-fleet.io/v1beta1",
        "apis/policy/v1",
    ];
    assert_eq!(listed, expected);
    for path in expected {
        let document = doc(&registry, path);
        let url = format!("/openapi/v3/{path}?hash={}", document_hash(&document));
        assert_eq!(
            index_url(&registry, path),
            url,
            "{path}: URL carries its document's hash"
        );
        assert_eq!(document["openapi"], "3.0.0", "{path}");
        assert_eq!(
            document["info"],
            json!({"title": "Kubernetes", "version": "v1.32.0"})
        );
    }
}

#[test]
fn hash_changes_with_the_document_only() {
    let before = registry_with(&[crds::CRPE_CRD_NAME]);
    let mut after = before.clone();
    let crpdb = crds::owned()
        .into_iter()
        .find(|c| c.metadata.name.as_deref() == Some(crds::CRPDB_CRD_NAME));
    custom_types(&crpdb.expect("CRPDB"))
        .into_iter()
        .for_each(|t| after.insert(t));
    let rows = [
        ("a kind added to the group-version", PLACEMENT_V1BETA1, true),
        ("other group-versions untouched", "api/v1", false),
        ("roots untouched", "apis", false),
    ];
    for (rule, path, changes) in rows {
        let (old, new) = (index_url(&before, path), index_url(&after, path));
        assert_eq!(old != new, changes, "{rule}: {old} vs {new}");
    }
    let hash = document_hash(&doc(&after, PLACEMENT_V1BETA1));
    assert_eq!(hash.len(), 16);
    assert!(hash.chars().all(|c| c.is_ascii_hexdigit()));
    assert_eq!(
        hash,
        document_hash(&doc(&after, PLACEMENT_V1BETA1)),
        "stable"
    );
}

#[test]
fn every_kind_declares_field_validation_on_patch_as_kubectl_looks_for_it() {
    // kubectl 1.32 takes the first PATCH operation whose GVK object matches (in map order),
    // so every matching one must carry the parameter; otherwise it wants /openapi/v2.
    let registry = registry_with(&[crds::CRPE_CRD_NAME, crds::PMJ_CRD_NAME]);
    for t in registry.all() {
        let document = doc(&registry, &gv_path(t));
        let patches = patch_operations(&document, t);
        assert!(!patches.is_empty(), "{}: no PATCH for its kind", t.kind);
        for op in patches {
            assert!(
                has_query_parameter(op, "fieldValidation"),
                "{}",
                op["operationId"]
            );
            assert!(has_query_parameter(op, "dryRun"), "{}", op["operationId"]);
            assert_eq!(op["x-kubernetes-action"], "patch");
            // Strategic merge only for built-ins: kubectl sends custom resources a JSON merge patch.
            let content = &op["requestBody"]["content"];
            let strategic = content
                .get("application/strategic-merge-patch+json")
                .is_some();
            assert_eq!(strategic, !t.is_custom(), "{}", op["operationId"]);
            assert!(content.get("application/merge-patch+json").is_some());
        }
    }
}

#[test]
fn paths_follow_the_resource_scope() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME]);
    let rows: [(&str, &str, &str, &[&str]); 8] = [
        (
            "namespaced item",
            "api/v1",
            "/api/v1/namespaces/{namespace}/pods/{name}",
            &["delete", "get", "parameters", "patch", "put"],
        ),
        (
            "namespaced collection",
            "api/v1",
            "/api/v1/namespaces/{namespace}/pods",
            &["delete", "get", "parameters", "post"],
        ),
        ("list across namespaces", "api/v1", "/api/v1/pods", &["get"]),
        (
            "status subresource",
            "api/v1",
            "/api/v1/namespaces/{namespace}/pods/{name}/status",
            &["get", "parameters", "patch", "put"],
        ),
        (
            "eviction subresource",
            "api/v1",
            "/api/v1/namespaces/{namespace}/pods/{name}/eviction",
            &["parameters", "post"],
        ),
        (
            "cluster-scoped item",
            "api/v1",
            "/api/v1/nodes/{name}",
            &["delete", "get", "parameters", "patch", "put"],
        ),
        (
            "group item",
            "apis/apps/v1",
            "/apis/apps/v1/namespaces/{namespace}/deployments/{name}",
            &["delete", "get", "parameters", "patch", "put"],
        ),
        (
            "custom cluster-scoped item",
            PLACEMENT_V1BETA1,
            "/apis/placement.kubernetes-fleet.io/v1beta1/clusterresourceplacementevictions/{name}",
            &["delete", "get", "parameters", "patch", "put"],
        ),
    ];
    for (rule, document, path, keys) in rows {
        let item = &doc(&registry, document)["paths"][path];
        let item = item
            .as_object()
            .unwrap_or_else(|| panic!("{rule}: {path} missing"));
        let found: Vec<&String> = item.keys().collect();
        assert_eq!(found, keys, "{rule}");
    }
    let nodes = &doc(&registry, "api/v1")["paths"]["/api/v1/nodes/{name}"]["parameters"];
    assert_eq!(
        nodes.as_array().map(Vec::len),
        Some(1),
        "cluster-scoped: name only"
    );
}

#[test]
fn eviction_is_posted_as_a_policy_v1_eviction() {
    let document = doc(&Registry::default(), "api/v1");
    let post = &document["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]["post"];
    let gvk = json!({"group": "policy", "version": "v1", "kind": "Eviction"});
    assert_eq!(post["x-kubernetes-group-version-kind"], gvk);
    assert_eq!(post["x-kubernetes-action"], "post");
    assert_eq!(post["operationId"], "createCoreV1NamespacedPodEviction");
    let body = &post["requestBody"]["content"]["*/*"]["schema"]["$ref"];
    assert_eq!(body, "#/components/schemas/io.k8s.api.policy.v1.Eviction");
}

#[test]
fn custom_schema_is_the_crd_schema_as_the_real_server_publishes_it() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME]);
    let schemas = doc(&registry, PLACEMENT_V1BETA1)["components"]["schemas"].clone();
    let schema = &schemas[CRPE_SCHEMA];
    let gvk = json!([{"group": "placement.kubernetes-fleet.io", "version": "v1beta1", "kind": "ClusterResourcePlacementEviction"}]);
    assert_eq!(
        schema["x-kubernetes-group-version-kind"], gvk,
        "a list on schemas"
    );
    let metadata = &schema["properties"]["metadata"]["$ref"];
    assert_eq!(
        metadata,
        "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
    );
    assert_eq!(schema["properties"]["apiVersion"]["type"], "string");
    assert_eq!(schema["properties"]["kind"]["type"], "string");
    assert!(
        schema["properties"]["spec"]["properties"].is_object(),
        "CRD fields kept"
    );
    let list = &schemas[&format!("{CRPE_SCHEMA}List")];
    assert_eq!(
        list["x-kubernetes-group-version-kind"][0]["kind"],
        "ClusterResourcePlacementEvictionList"
    );
    assert_eq!(
        list["properties"]["items"]["items"]["$ref"],
        format!("#/components/schemas/{CRPE_SCHEMA}")
    );
    let object_meta = &schemas["io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"];
    assert_eq!(object_meta["properties"]["name"]["type"], "string");
}

#[test]
fn int_or_string_fields_are_published_with_their_any_of() {
    let registry = registry_with(&[crds::CRPDB_CRD_NAME]);
    let document = doc(&registry, PLACEMENT_V1BETA1);
    let name = "io.kubernetes-fleet.placement.v1beta1.ClusterResourcePlacementDisruptionBudget";
    let field = &document["components"]["schemas"][name]["properties"]["spec"]["properties"]["maxUnavailable"];
    assert_eq!(field["x-kubernetes-int-or-string"], true);
    assert_eq!(
        field["anyOf"],
        json!([{"type": "integer"}, {"type": "string"}])
    );
}

#[test]
fn built_in_schemas_name_no_kind_so_kubectl_patches_with_its_own_types() {
    // kubectl's client-side apply builds a strategic merge patch from a schema tagged with the
    // object's kind if it finds one; open schemas must not be found.
    let document = doc(&Registry::default(), "api/v1");
    let schemas = document["components"]["schemas"]
        .as_object()
        .expect("schemas");
    assert!(schemas.contains_key("io.k8s.api.core.v1.Pod"));
    for (name, schema) in schemas {
        assert!(
            schema.get("x-kubernetes-group-version-kind").is_none(),
            "{name}"
        );
    }
}

#[test]
fn every_reference_resolves_within_its_document() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME, crds::PMJ_CRD_NAME]);
    let index = openapi_index(&registry);
    for path in index["paths"].as_object().expect("paths").keys() {
        let document = doc(&registry, path);
        let mut found = Vec::new();
        refs(&document, &mut found);
        assert!(!found.is_empty(), "{path}");
        for r in found {
            let name = r
                .strip_prefix("#/components/schemas/")
                .unwrap_or_else(|| panic!("{r}"));
            assert!(
                document["components"]["schemas"].get(name).is_some(),
                "{path}: {r}"
            );
        }
    }
}

#[test]
fn operations_carry_kind_and_action_like_the_real_server() {
    let document = doc(&Registry::default(), "apis/apps/v1");
    let paths = &document["paths"];
    let gvk = json!({"group": "apps", "version": "v1", "kind": "Deployment"});
    let item = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}";
    let collection = "/apis/apps/v1/namespaces/{namespace}/deployments";
    let rows = [
        ("read", item, "get", "get", "readAppsV1NamespacedDeployment"),
        (
            "replace",
            item,
            "put",
            "put",
            "replaceAppsV1NamespacedDeployment",
        ),
        (
            "patch",
            item,
            "patch",
            "patch",
            "patchAppsV1NamespacedDeployment",
        ),
        (
            "delete",
            item,
            "delete",
            "delete",
            "deleteAppsV1NamespacedDeployment",
        ),
        (
            "list",
            collection,
            "get",
            "list",
            "listAppsV1NamespacedDeployment",
        ),
        (
            "create",
            collection,
            "post",
            "post",
            "createAppsV1NamespacedDeployment",
        ),
        (
            "delete collection",
            collection,
            "delete",
            "deletecollection",
            "deleteAppsV1CollectionNamespacedDeployment",
        ),
        (
            "list everywhere",
            "/apis/apps/v1/deployments",
            "get",
            "list",
            "listAppsV1DeploymentForAllNamespaces",
        ),
    ];
    for (rule, path, method, action, id) in rows {
        let op = &paths[path][method];
        assert_eq!(op["x-kubernetes-group-version-kind"], gvk, "{rule}");
        assert_eq!(op["x-kubernetes-action"], action, "{rule}");
        assert_eq!(op["operationId"], id, "{rule}");
        assert_eq!(op["tags"], json!(["apps_v1"]), "{rule}");
    }
    let create = &paths[collection]["post"];
    assert!(
        has_query_parameter(create, "fieldValidation"),
        "post validates fields too"
    );
    assert!(
        has_query_parameter(&paths[collection]["get"], "watch"),
        "lists can watch"
    );
}

#[test]
fn documents_exist_only_for_served_group_versions() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME]);
    let rows = [
        ("core group", "api/v1", true),
        ("leading and trailing slashes", "/apis/apps/v1/", true),
        ("custom group", PLACEMENT_V1BETA1, true),
        ("core, unserved version", "api/v2", false),
        ("unserved group", "apis/example.com/v1", false),
        ("group without version", "apis/apps", false),
        ("too deep", "apis/apps/v1/deployments", false),
        ("empty group", "apis//v1", false),
        ("nothing", "", false),
    ];
    for (rule, path, exists) in rows {
        assert_eq!(
            openapi_document(&registry, path).is_some(),
            exists,
            "{rule}"
        );
    }
}
