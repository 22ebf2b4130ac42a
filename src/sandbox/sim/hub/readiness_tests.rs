use super::*;
use crate::sandbox::sim::hub::placed::{PlacedKind, placed_copy};
use serde_json::json;

fn pod(name: &str, labels: Value, ready: &str, extra: Value) -> Value {
    let mut pod = json!({"metadata": {"name": name, "namespace": "web", "labels": labels},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": ready}]}});
    if let (Some(p), Some(e)) = (pod["metadata"].as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    pod
}

fn workload(kind: PlacedKind, replicas: Option<i64>) -> Placed {
    let mut spec = json!({"selector": {"matchLabels": {"app": "api"}}});
    if let Some(r) = replicas {
        spec["replicas"] = json!(r);
    }
    placed_copy(
        kind,
        &json!({"metadata": {"name": "api", "namespace": "web"}, "spec": spec}),
        "p",
    )
}

#[test]
fn serving_pods_are_ready_live_and_unfinished() {
    let rows = [
        (
            "Ready=True serves",
            pod("a", json!({}), "True", json!({})),
            true,
        ),
        (
            "Ready=False does not",
            pod("a", json!({}), "False", json!({})),
            false,
        ),
        (
            "terminating does not",
            pod(
                "a",
                json!({}),
                "True",
                json!({"deletionTimestamp": "2026-01-01T00:00:00Z"}),
            ),
            false,
        ),
        (
            "Succeeded does not",
            json!({"metadata": {}, "status": {"phase": "Succeeded", "conditions": [{"type": "Ready", "status": "True"}]}}),
            false,
        ),
        ("no status does not", json!({"metadata": {}}), false),
    ];
    for (rule, pod, serving) in rows {
        assert_eq!(is_serving(&pod), serving, "{rule}");
    }
}

#[test]
fn a_workload_counts_serving_pods_matching_its_selector() {
    let api = json!({"app": "api"});
    let rows = [
        (
            "enough ready pods",
            Some(2),
            vec![
                pod("a", api.clone(), "True", json!({})),
                pod("b", api.clone(), "True", json!({})),
            ],
            true,
        ),
        (
            "one short",
            Some(2),
            vec![
                pod("a", api.clone(), "True", json!({})),
                pod("b", api.clone(), "False", json!({})),
            ],
            false,
        ),
        (
            "other labels do not count",
            Some(1),
            vec![pod("a", json!({"app": "db"}), "True", json!({}))],
            false,
        ),
        (
            "replicas default to 1",
            None,
            vec![pod("a", api.clone(), "True", json!({}))],
            true,
        ),
        ("zero replicas need nothing", Some(0), vec![], true),
        (
            "more than enough is fine",
            Some(1),
            vec![
                pod("a", api.clone(), "True", json!({})),
                pod("b", api, "True", json!({})),
            ],
            true,
        ),
    ];
    for (rule, replicas, pods, available) in rows {
        for kind in [PlacedKind::Deployment, PlacedKind::StatefulSet] {
            let short = shortfall(&workload(kind, replicas), &pods);
            assert_eq!(short.is_none(), available, "{rule} ({kind:?}): {short:?}");
        }
    }
}

#[test]
fn pods_of_another_namespace_do_not_count() {
    let mut other = pod("a", json!({"app": "api"}), "True", json!({}));
    other["metadata"]["namespace"] = json!("elsewhere");
    assert!(shortfall(&workload(PlacedKind::Deployment, Some(1)), &[other]).is_some());
}

#[test]
fn availability_needs_every_workload_and_ignores_other_kinds() {
    let ready = vec![pod("a", json!({"app": "api"}), "True", json!({}))];
    let configmap = placed_copy(
        PlacedKind::ConfigMap,
        &json!({"metadata": {"name": "c", "namespace": "web"}}),
        "p",
    );
    assert_eq!(
        availability(
            &[configmap.clone(), workload(PlacedKind::Deployment, Some(1))],
            &ready
        ),
        Availability::All
    );
    let two = workload(PlacedKind::StatefulSet, Some(2));
    assert_eq!(
        availability(
            &[configmap, workload(PlacedKind::Deployment, Some(1)), two],
            &ready
        ),
        Availability::NotAll("StatefulSet web/api has 1 of 2 replicas ready".into())
    );
}
