use super::*;
use crate::api::crds;
use crate::sandbox::apiserver::resource::{Shape, Wire};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::{
    CustomResourceDefinition, JSONSchemaProps,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{APIGroupList, APIResourceList};
use k8s_openapi::apimachinery::pkg::version::Info;
use std::sync::Arc;

/// The resource types a server would serve for a CRD: one per served version.
pub(in crate::sandbox::apiserver) fn custom_types(
    crd: &CustomResourceDefinition,
) -> Vec<ResourceType> {
    let spec = &crd.spec;
    let storage = spec.versions.iter().find(|v| v.storage);
    let storage_version = storage.map(|v| v.name.clone()).unwrap_or_default();
    let served = spec.versions.iter().filter(|v| v.served);
    served
        .map(|v| {
            let schema = v.schema.as_ref().and_then(|s| s.open_api_v3_schema.clone());
            let has_status = v.subresources.as_ref().is_some_and(|s| s.status.is_some());
            ResourceType {
                group: spec.group.clone(),
                version: v.name.clone(),
                resource: spec.names.plural.clone(),
                singular: spec.names.singular.clone().unwrap_or_default(),
                kind: spec.names.kind.clone(),
                namespaced: spec.scope == "Namespaced",
                short_names: spec.names.short_names.clone().unwrap_or_default(),
                categories: spec.names.categories.clone().unwrap_or_default(),
                subresources: if has_status {
                    vec!["status".into()]
                } else {
                    vec![]
                },
                tracks_generation: true,
                wire: Wire::Same,
                shape: Shape::Custom(Arc::new(schema.unwrap_or_default())),
                printer_columns: None,
                storage_version: storage_version.clone(),
                storage_group: spec.group.clone(),
                crd: crd.metadata.name.clone(),
            }
        })
        .collect()
}

/// The default registry plus the served versions of the named CRDs from `crds/`.
pub(in crate::sandbox::apiserver) fn registry_with(crd_names: &[&str]) -> Registry {
    let mut registry = Registry::default();
    for crd in crds::owned() {
        if crd_names.contains(&crd.metadata.name.as_deref().unwrap_or_default()) {
            custom_types(&crd)
                .into_iter()
                .for_each(|t| registry.insert(t));
        }
    }
    registry
}

/// A one-version custom type in `example.com`, for version-order cases.
fn fake_custom(version: &str, storage_version: &str) -> ResourceType {
    ResourceType {
        group: "example.com".into(),
        version: version.into(),
        resource: "widgets".into(),
        singular: "widget".into(),
        kind: "Widget".into(),
        namespaced: true,
        short_names: vec![],
        categories: vec![],
        subresources: vec![],
        tracks_generation: true,
        wire: Wire::Same,
        shape: Shape::Custom(Arc::new(JSONSchemaProps::default())),
        printer_columns: None,
        storage_version: storage_version.into(),
        storage_group: "example.com".into(),
        crd: Some("widgets.example.com".into()),
    }
}

fn names(values: &Value, key: &str, field: &str) -> Vec<String> {
    let items = values.get(key).and_then(Value::as_array).cloned();
    items
        .unwrap_or_default()
        .iter()
        .filter_map(|v| v.get(field).and_then(Value::as_str).map(str::to_string))
        .collect()
}

fn entry<'a>(list: &'a Value, name: &str) -> &'a Value {
    let resources = list["resources"].as_array().expect("resources");
    let found = resources.iter().find(|r| r["name"] == name);
    found.unwrap_or_else(|| panic!("{name} not listed"))
}

#[test]
fn version_info_takes_major_and_minor_from_the_git_version() {
    let rows = [
        ("sandbox version", "v1.32.0-sandbox", "1", "32"),
        ("patch release", "v1.32.3", "1", "32"),
        ("build metadata", "v1.33.0+abc", "1", "33"),
        (
            "unparsable: empty, like an unstamped build",
            "sandbox",
            "",
            "",
        ),
        ("no minor: empty", "v1", "", ""),
    ];
    for (rule, git_version, major, minor) in rows {
        let info = version_info(git_version);
        assert_eq!(info["major"], major, "{rule}");
        assert_eq!(info["minor"], minor, "{rule}");
        assert_eq!(info["gitVersion"], git_version, "{rule}");
    }
}

#[test]
fn version_info_has_every_field_clients_decode() {
    let info: Info = serde_json::from_value(version_info("v1.32.0-sandbox")).expect("Info");
    assert_eq!(info.git_version, "v1.32.0-sandbox");
    assert_eq!(info.git_tree_state, "clean");
    assert_eq!(info.compiler, "gc");
    assert!(info.go_version.starts_with("go1."), "{}", info.go_version);
    assert!(!info.git_commit.is_empty());
    assert!(!info.build_date.is_empty());
    let platform = format!("{}/", std::env::consts::OS);
    assert!(info.platform.starts_with(&platform), "{}", info.platform);
}

#[test]
fn core_versions_lists_v1_and_the_server_address_for_every_client() {
    let body = core_versions("127.0.0.1:6443");
    let expected = json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": "127.0.0.1:6443"}],
    });
    assert_eq!(body, expected);
}

#[test]
fn group_list_orders_groups_by_aggregator_priority_then_name() {
    let registry = registry_with(&[crds::PMJ_CRD_NAME, crds::CRPE_CRD_NAME]);
    let list = group_list(&registry);
    assert_eq!(list["kind"], "APIGroupList");
    assert_eq!(list["apiVersion"], "v1");
    let expected = [
        "apps",                          // 17800
        "events.k8s.io",                 // 17750
        "policy",                        // 17100: kubectl drain needs it to use evictions
        "apiextensions.k8s.io",          // 16700
        "coordination.k8s.io",           // 16500
        "placement.kubernetes-fleet.io", // custom groups: 1000, then by name
        "scheduling.koordinator.sh",
    ];
    assert_eq!(names(&list, "groups", "name"), expected);
    let typed: APIGroupList = serde_json::from_value(list).expect("APIGroupList");
    let policy = typed
        .groups
        .iter()
        .find(|g| g.name == "policy")
        .expect("policy");
    assert_eq!(
        policy
            .preferred_version
            .as_ref()
            .map(|v| v.group_version.as_str()),
        Some("policy/v1")
    );
    assert!(
        typed
            .groups
            .iter()
            .all(|g| g.server_address_by_client_cidrs.is_none())
    );
}

#[test]
fn preferred_version_is_the_highest_by_kubernetes_version_order() {
    let rows: [(&str, &[&str], &str, &[&str]); 4] = [
        (
            "GA beats beta",
            &["v1beta1", "v1"],
            "v1beta1",
            &["v1", "v1beta1"],
        ),
        (
            "not the storage version",
            &["v1alpha1", "v1beta2"],
            "v1alpha1",
            &["v1beta2", "v1alpha1"],
        ),
        (
            "beta2 beats beta1",
            &["v1beta1", "v1beta2"],
            "v1beta1",
            &["v1beta2", "v1beta1"],
        ),
        (
            "stability before major",
            &["v2alpha1", "v1beta1"],
            "v2alpha1",
            &["v1beta1", "v2alpha1"],
        ),
    ];
    for (rule, served, storage, expected) in rows {
        let mut registry = Registry::default();
        served
            .iter()
            .for_each(|v| registry.insert(fake_custom(v, storage)));
        let body = group(&registry, "example.com").expect(rule);
        let versions = names(&body, "versions", "version");
        assert_eq!(versions, expected, "{rule}");
        assert_eq!(body["preferredVersion"]["version"], expected[0], "{rule}");
        let group_version = format!("example.com/{}", expected[0]);
        assert_eq!(
            body["preferredVersion"]["groupVersion"], group_version,
            "{rule}"
        );
    }
}

#[test]
fn group_answers_only_for_served_non_core_groups() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME]);
    let rows = [
        ("built-in group", "policy", Some(vec!["v1"])),
        (
            "custom group, preferred first",
            "placement.kubernetes-fleet.io",
            Some(vec!["v1beta1", "v1alpha1"]),
        ),
        ("core group lives at /api", "", None),
        ("unknown group", "example.com", None),
    ];
    for (rule, name, versions) in rows {
        let body = group(&registry, name);
        assert_eq!(body.is_some(), versions.is_some(), "{rule}");
        if let (Some(body), Some(versions)) = (body, versions) {
            assert_eq!(body["kind"], "APIGroup", "{rule}");
            assert_eq!(body["apiVersion"], "v1", "{rule}");
            assert_eq!(body["name"], name, "{rule}");
            assert_eq!(names(&body, "versions", "version"), versions, "{rule}");
        }
    }
}

#[test]
fn core_resource_list_matches_the_real_server() {
    let list = resource_list(&Registry::default(), "", "v1").expect("/api/v1");
    assert_eq!(list["groupVersion"], "v1");
    assert!(
        list.get("apiVersion").is_none(),
        "the core list names no apiVersion"
    );
    let all_verbs = json!([
        "create",
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "update",
        "watch"
    ]);
    let rows = [
        (
            "eviction takes a policy/v1 Eviction",
            "pods/eviction",
            json!({"name": "pods/eviction", "singularName": "", "namespaced": true, "group": "policy",
                "version": "v1", "kind": "Eviction", "verbs": ["create"]}),
        ),
        (
            "status reads and writes the parent kind",
            "pods/status",
            json!({"name": "pods/status", "singularName": "", "namespaced": true, "kind": "Pod",
                "verbs": ["get", "patch", "update"]}),
        ),
        (
            "short names and categories when set",
            "pods",
            json!({"name": "pods", "singularName": "pod", "namespaced": true, "kind": "Pod",
                "verbs": all_verbs, "shortNames": ["po"], "categories": ["all"]}),
        ),
        (
            "empty lists omitted",
            "secrets",
            json!({"name": "secrets", "singularName": "secret", "namespaced": true, "kind": "Secret",
                "verbs": all_verbs}),
        ),
        (
            "namespaces have no deletecollection",
            "namespaces",
            json!({"name": "namespaces", "singularName": "namespace", "namespaced": false,
                "kind": "Namespace", "verbs": ["create", "delete", "get", "list", "patch", "update", "watch"],
                "shortNames": ["ns"]}),
        ),
    ];
    for (rule, name, expected) in rows {
        assert_eq!(entry(&list, name), &expected, "{rule}");
    }
    let listed: Vec<String> = names(&list, "resources", "name");
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(
        listed, sorted,
        "listed by name, subresources after their parent"
    );
    let _: APIResourceList = serde_json::from_value(list).expect("APIResourceList");
}

#[test]
fn custom_resource_list_uses_the_apiextensions_verb_order() {
    let registry = registry_with(&[crds::CRPE_CRD_NAME]);
    let group = "placement.kubernetes-fleet.io";
    let list = resource_list(&registry, group, "v1beta1").expect("custom list");
    assert_eq!(list["apiVersion"], "v1");
    assert_eq!(
        list["groupVersion"],
        "placement.kubernetes-fleet.io/v1beta1"
    );
    let crpe = entry(&list, "clusterresourceplacementevictions");
    let verbs = json!([
        "delete",
        "deletecollection",
        "get",
        "list",
        "patch",
        "create",
        "update",
        "watch"
    ]);
    assert_eq!(crpe["verbs"], verbs);
    assert_eq!(crpe["kind"], "ClusterResourcePlacementEviction");
    assert_eq!(crpe["namespaced"], false);
    assert_eq!(crpe["singularName"], "clusterresourceplacementeviction");
    assert!(crpe["shortNames"].as_array().is_some_and(|s| !s.is_empty()));
    let status = entry(&list, "clusterresourceplacementevictions/status");
    assert_eq!(status["verbs"], json!(["get", "patch", "update"]));
    assert_eq!(status["kind"], "ClusterResourcePlacementEviction");
    let _: APIResourceList = serde_json::from_value(list).expect("APIResourceList");
}

#[test]
fn resource_list_is_absent_where_nothing_is_served() {
    let registry = Registry::default();
    let rows = [
        ("core group, other version", "", "v2"),
        ("built-in group, other version", "apps", "v1beta1"),
        ("unknown group", "example.com", "v1"),
    ];
    for (rule, group, version) in rows {
        assert!(resource_list(&registry, group, version).is_none(), "{rule}");
    }
}

#[test]
fn kubernetes_version_order() {
    use Ordering::{Greater, Less};
    let rows = [
        ("GA over beta", "v1", "v1beta2", Greater),
        ("higher beta", "v1beta2", "v1beta1", Greater),
        ("beta over alpha", "v1beta1", "v1alpha1", Greater),
        ("stability before major", "v1beta1", "v2alpha1", Greater),
        ("higher major among GA", "v2", "v1", Greater),
        ("numbers, not text", "v10", "v9", Greater),
        ("kube-like over anything else", "v1alpha1", "foo", Greater),
        ("others alphabetically", "abc", "abd", Greater),
        ("missing minor is not kube-like", "v1beta", "v1alpha1", Less),
        ("uppercase is not kube-like", "V1", "v1alpha1", Less),
    ];
    for (rule, a, b, expected) in rows {
        assert_eq!(compare_kube_versions(a, b), expected, "{rule}");
        assert_eq!(
            compare_kube_versions(b, a),
            expected.reverse(),
            "{rule} (mirrored)"
        );
    }
}
