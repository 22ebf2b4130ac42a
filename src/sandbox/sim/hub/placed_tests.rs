use super::*;

fn ns(name: &str, labels: Value) -> Value {
    json!({"metadata": {"name": name, "labels": labels}})
}

fn namespace_selector(extra: Value) -> Value {
    let mut selector = json!({"group": "", "version": "v1", "kind": "Namespace"});
    if let (Some(s), Some(e)) = (selector.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    selector
}

#[test]
fn selectors_pick_hub_namespaces() {
    let hub = [
        ns("web", json!({"team": "web"})),
        ns("db", json!({"team": "data"})),
        ns("kube-system", json!({"team": "web"})),
        ns("fleet-system", json!({})),
        json!({"metadata": {"name": "old", "labels": {"team": "web"}, "deletionTimestamp": "2026-01-01T00:00:00Z"}}),
    ];
    let rows: [(&str, Vec<Value>, Vec<&str>); 6] = [
        (
            "by name",
            vec![namespace_selector(json!({"name": "db"}))],
            vec!["db"],
        ),
        (
            "by label selector",
            vec![namespace_selector(
                json!({"labelSelector": {"matchLabels": {"team": "web"}}}),
            )],
            vec!["web"],
        ),
        (
            "neither: every placeable namespace",
            vec![namespace_selector(json!({}))],
            vec!["db", "web"],
        ),
        (
            "reserved namespaces are never selected by name",
            vec![namespace_selector(json!({"name": "kube-system"}))],
            vec![],
        ),
        (
            "other kinds select no namespace",
            vec![
                json!({"group": "rbac.authorization.k8s.io", "version": "v1", "kind": "ClusterRole", "name": "web"}),
            ],
            vec![],
        ),
        (
            "several selectors: the union, once each",
            vec![
                namespace_selector(json!({"name": "web"})),
                namespace_selector(json!({})),
            ],
            vec!["db", "web"],
        ),
    ];
    for (rule, selectors, expected) in rows {
        assert_eq!(selected_namespaces(&selectors, &hub), expected, "{rule}");
    }
}

#[test]
fn a_copy_keeps_only_what_the_member_needs() {
    let hub = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "api", "namespace": "web", "uid": "u", "resourceVersion": "7",
            "generation": 3, "creationTimestamp": "2026-01-01T00:00:00Z", "managedFields": [{}],
            "ownerReferences": [{}], "finalizers": ["x"], "labels": {"app": "api"},
            "annotations": {"note": "kept", "deployment.kubernetes.io/revision": "4",
                "kubectl.kubernetes.io/last-applied-configuration": "{}"}},
        "spec": {"replicas": 2},
        "status": {"readyReplicas": 2}
    });
    let copy = placed_copy(PlacedKind::Deployment, &hub, "web-crp");
    assert_eq!(
        copy.object,
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "api", "namespace": "web",
                "labels": {"app": "api", PLACED_BY_LABEL: "web-crp"},
                "annotations": {"note": "kept"}},
            "spec": {"replicas": 2}})
    );
}

#[test]
fn body_fields_follow_the_kind() {
    let hub = json!({"metadata": {"name": "x", "namespace": "web"}, "data": {"a": "1"}, "immutable": true, "spec": {"finalizers": ["kubernetes"]}});
    let configmap = placed_copy(PlacedKind::ConfigMap, &hub, "p");
    assert_eq!(
        (
            configmap.object["data"].clone(),
            configmap.object["immutable"].clone()
        ),
        (json!({"a": "1"}), json!(true)),
        "ConfigMap: data and immutable"
    );
    assert!(
        configmap.object.get("spec").is_none(),
        "ConfigMap has no spec"
    );
    let namespace = placed_copy(PlacedKind::Namespace, &hub, "p");
    assert!(
        namespace.object.get("spec").is_none() && namespace.object.get("data").is_none(),
        "Namespace: metadata only"
    );
}

#[test]
fn the_cluster_made_configmap_and_terminating_objects_are_not_copied() {
    let rows = [
        (
            "kube-root-ca.crt is the member's own",
            PlacedKind::ConfigMap,
            json!({"metadata": {"name": "kube-root-ca.crt"}}),
            false,
        ),
        (
            "a Deployment of that name is copied",
            PlacedKind::Deployment,
            json!({"metadata": {"name": "kube-root-ca.crt"}}),
            true,
        ),
        (
            "a terminating object is not",
            PlacedKind::ConfigMap,
            json!({"metadata": {"name": "a", "deletionTimestamp": "2026-01-01T00:00:00Z"}}),
            false,
        ),
    ];
    for (rule, kind, object, copied) in rows {
        assert_eq!(is_copied(kind, &object), copied, "{rule}");
    }
}

#[test]
fn updates_are_needed_only_for_what_we_set() {
    let copy = placed_copy(
        PlacedKind::Deployment,
        &json!({"metadata": {"name": "api", "namespace": "web", "labels": {"app": "api"}}, "spec": {"replicas": 2}}),
        "p",
    );
    let member = |labels: Value, annotations: Value, spec: Value| json!({"metadata": {"name": "api", "labels": labels, "annotations": annotations, "resourceVersion": "9"}, "spec": spec, "status": {}});
    let ours = json!({"app": "api", PLACED_BY_LABEL: "p"});
    let rows = [
        (
            "identical",
            member(ours.clone(), json!({}), json!({"replicas": 2})),
            false,
        ),
        (
            "extra keys the member added",
            member(
                json!({"app": "api", PLACED_BY_LABEL: "p", "x": "y"}),
                json!({"deployment.kubernetes.io/revision": "1"}),
                json!({"replicas": 2}),
            ),
            false,
        ),
        (
            "a missing label",
            member(json!({"app": "api"}), json!({}), json!({"replicas": 2})),
            true,
        ),
        (
            "a changed spec",
            member(ours, json!({}), json!({"replicas": 3})),
            true,
        ),
    ];
    for (rule, current, expected) in rows {
        assert_eq!(needs_update(&copy, &current), expected, "{rule}");
    }
}

#[test]
fn an_update_lays_the_copy_over_the_member_object() {
    let copy = placed_copy(
        PlacedKind::Deployment,
        &json!({"metadata": {"name": "api", "labels": {"app": "api"}}, "spec": {"replicas": 2}}),
        "p",
    );
    let current = json!({"metadata": {"name": "api", "resourceVersion": "9", "labels": {"app": "old", "x": "y"}}, "spec": {"replicas": 5}, "status": {"replicas": 5}});
    let updated = updated(&copy, &current);
    assert_eq!(
        updated["metadata"]["labels"],
        json!({"app": "api", "x": "y", PLACED_BY_LABEL: "p"})
    );
    assert_eq!(
        updated["metadata"]["resourceVersion"], "9",
        "kept for the precondition"
    );
    assert_eq!(updated["spec"], json!({"replicas": 2}));
    assert_eq!(
        updated["status"],
        json!({"replicas": 5}),
        "status is the member's"
    );
}
