use super::plan;
use crate::sandbox::sim::member::actions::{Action, Op};
use crate::sandbox::sim::member::fixtures::*;
use crate::sandbox::sim::member::versions::Kind;
use k8s_openapi::api::apps::v1::StatefulSetStatus;
use serde_json::{Value, json};

fn set(replicas: i32, policy: &str) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
           "metadata": {"name": "db", "namespace": "default", "uid": "uid-db", "generation": 1},
           "spec": {"replicas": replicas, "serviceName": "db", "podManagementPolicy": policy,
                    "selector": {"matchLabels": {"app": "web"}}, "template": template()}})
}

fn member(ordinal: usize, ready: bool) -> Value {
    running(
        on(
            controlled_by(pod(&format!("db-{ordinal}")), "StatefulSet", "db"),
            "node-1",
        ),
        ready,
    )
}

fn actions(s: Value, pods: &[Value]) -> Vec<Action> {
    let mut view = view_of(&[node(1)], pods);
    view.stateful_sets = vec![typed(s)];
    plan(&view)
}

fn pod_changes(all: &[Action]) -> Vec<String> {
    all.iter()
        .filter(|a| a.kind == Kind::Pod)
        .map(|a| match &a.op {
            Op::Create(_) => format!("create {}", a.name),
            Op::Delete { .. } => format!("delete {}", a.name),
            other => format!("{other:?}"),
        })
        .collect()
}

#[test]
fn ordinal_rules() {
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, Vec<Value>, Vec<&str>)> = vec![
        ("OrderedReady starts with ordinal 0 only", set(3, "OrderedReady"), vec![], vec!["create db-0"]),
        ("OrderedReady creates the next once the previous is ready", set(3, "OrderedReady"),
         vec![member(0, true)], vec!["create db-1"]),
        ("OrderedReady waits for an unready predecessor", set(3, "OrderedReady"),
         vec![member(0, false)], vec![]),
        ("Parallel creates every missing ordinal", set(3, "Parallel"), vec![member(1, false)],
         vec!["create db-0", "create db-2"]),
        ("a deleted ordinal is re-created under its name", set(3, "OrderedReady"),
         vec![member(0, true), member(2, true)], vec!["create db-1"]),
        ("a terminating pod holds its name until it is gone", set(2, "Parallel"),
         vec![member(0, true), terminating(member(1, true), NOW)], vec![]),
        ("scale down removes the highest ordinal first, one at a time", set(1, "OrderedReady"),
         vec![member(0, true), member(1, true), member(2, true)], vec!["delete db-2"]),
        ("scale down waits while a pod terminates", set(1, "OrderedReady"),
         vec![member(0, true), member(1, true), terminating(member(2, true), NOW)], vec![]),
        ("Parallel scale down removes every extra", set(1, "Parallel"),
         vec![member(0, true), member(1, true), member(2, true)], vec!["delete db-2", "delete db-1"]),
    ];
    for (rule, s, pods, expected) in rows {
        assert_eq!(pod_changes(&actions(s, &pods)), expected, "{rule}");
    }
}

#[test]
fn created_pods_are_named_labelled_and_owned() {
    let all = actions(set(1, "OrderedReady"), &[]);
    let Some(Op::Create(pod)) = all.first().map(|a| &a.op) else {
        panic!("create: {all:?}")
    };
    assert_eq!(pod["metadata"]["name"], "db-0");
    assert_eq!(
        pod["metadata"]["labels"]["statefulset.kubernetes.io/pod-name"],
        "db-0"
    );
    assert_eq!(
        pod["metadata"]["labels"]["apps.kubernetes.io/pod-index"],
        "0"
    );
    assert_eq!(pod["metadata"]["labels"]["app"], "web");
    assert_eq!(pod["metadata"]["ownerReferences"][0]["kind"], "StatefulSet");
    assert_eq!(
        (&pod["spec"]["hostname"], &pod["spec"]["subdomain"]),
        (&json!("db-0"), &json!("db"))
    );
}

#[test]
fn status_counts_created_and_ready_pods() {
    let pods = [
        member(0, true),
        member(1, false),
        terminating(member(2, true), NOW),
    ];
    let all = actions(set(3, "Parallel"), &pods);
    let patch = all.iter().find_map(|a| match (&a.kind, &a.op) {
        (Kind::StatefulSet, Op::PatchStatus(p)) => Some(p["status"].clone()),
        _ => None,
    });
    let s: StatefulSetStatus = serde_json::from_value(patch.expect("status")).expect("status");
    assert_eq!(
        (s.replicas, s.ready_replicas, s.available_replicas),
        (3, Some(2), Some(2))
    );
    assert_eq!(s.observed_generation, Some(1));
}
