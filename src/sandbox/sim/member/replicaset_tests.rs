use super::plan;
use crate::sandbox::sim::member::actions::{Action, Op};
use crate::sandbox::sim::member::fixtures::*;
use crate::sandbox::sim::member::versions::Kind;
use k8s_openapi::api::apps::v1::ReplicaSetStatus;
use serde_json::{Value, json};

fn replica_set(replicas: i32) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
           "metadata": {"name": "web", "namespace": "default", "uid": "uid-web", "generation": 4},
           "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}}, "template": template()}})
}

fn owned(name: &str) -> Value {
    controlled_by(pod(name), "ReplicaSet", "web")
}

fn ready(name: &str, node: &str) -> Value {
    running(on(owned(name), node), true)
}

fn actions(rs: Value, pods: &[Value]) -> Vec<Action> {
    let mut view = view_of(&[node(1), node(2)], pods);
    view.replica_sets = vec![typed(rs)];
    plan(&view)
}

/// The pods created and deleted, in order; the status write apart.
fn pod_changes(actions: &[Action]) -> Vec<String> {
    actions
        .iter()
        .filter(|a| a.kind == Kind::Pod)
        .map(|a| match &a.op {
            Op::Create(p) => format!(
                "create {}",
                p["metadata"]["generateName"].as_str().unwrap_or("?")
            ),
            Op::Delete {
                grace_period_seconds: None,
                ..
            } => format!("delete {}", a.name),
            other => format!("{other:?}"),
        })
        .collect()
}

fn status_written(actions: &[Action]) -> Option<ReplicaSetStatus> {
    actions
        .iter()
        .find(|a| a.kind == Kind::ReplicaSet)
        .map(|a| {
            let Op::PatchStatus(p) = &a.op else {
                panic!("status patch: {a:?}")
            };
            serde_json::from_value(p["status"].clone()).expect("status")
        })
}

#[test]
fn replica_rules() {
    let mut succeeded = ready("done", "node-1");
    succeeded["status"]["phase"] = json!("Succeeded");
    #[rustfmt::skip]
    let rows: Vec<(&str, i32, Vec<Value>, Vec<&str>)> = vec![
        ("missing pods are created from the template", 3, vec![ready("a", "node-1")],
         vec!["create web-", "create web-"]),
        ("a terminating pod does not count: its replacement is created", 2,
         vec![ready("a", "node-1"), terminating(ready("b", "node-2"), NOW)], vec!["create web-"]),
        ("a finished pod does not count", 1, vec![succeeded], vec!["create web-"]),
        ("pods of another controller do not count", 1,
         vec![running(on(controlled_by(pod("x"), "ReplicaSet", "other"), "node-1"), true)], vec!["create web-"]),
        ("an unscheduled pod is deleted before a scheduled one", 1,
         vec![ready("a", "node-1"), created(owned("b"), EARLIER)], vec!["delete b"]),
        ("an unready pod is deleted before a ready one", 1,
         vec![ready("a", "node-1"), running(on(owned("b"), "node-1"), false)], vec!["delete b"]),
        ("among equals the newest is deleted first", 2,
         vec![created(ready("old", "node-1"), EARLIER), created(ready("new", "node-1"), NOW),
              created(ready("mid", "node-2"), "2026-03-01T11:30:00Z")], vec!["delete new"]),
        ("at scale nothing changes", 2, vec![ready("a", "node-1"), ready("b", "node-2")], vec![]),
    ];
    for (rule, replicas, pods, expected) in rows {
        assert_eq!(
            pod_changes(&actions(replica_set(replicas), &pods)),
            expected,
            "{rule}"
        );
    }
}

#[test]
fn created_pods_carry_the_template_and_the_controller_reference() {
    let all = actions(replica_set(1), &[]);
    let Some(Op::Create(pod)) = all.first().map(|a| &a.op) else {
        panic!("a create: {all:?}")
    };
    assert_eq!(pod["metadata"]["labels"], json!({"app": "web"}));
    assert_eq!(pod["metadata"]["ownerReferences"][0]["uid"], "uid-web");
    assert_eq!(pod["metadata"]["ownerReferences"][0]["controller"], true);
    assert_eq!(all[0].manager, "replicaset-controller");
}

#[test]
fn status_counts_active_ready_and_available_pods() {
    let mut rs = replica_set(3);
    rs["spec"]["minReadySeconds"] = json!(60);
    let mut just_ready = ready("c", "node-2");
    just_ready["status"]["conditions"][0]["lastTransitionTime"] = json!(NOW);
    let pods = [
        ready("a", "node-1"),
        running(on(owned("b"), "node-1"), false),
        just_ready,
        terminating(ready("d", "node-2"), NOW),
    ];
    let status = status_written(&actions(rs, &pods)).expect("status written");
    assert_eq!(status.replicas, 3, "active pods");
    assert_eq!(
        status.fully_labeled_replicas,
        Some(3),
        "all carry the template labels"
    );
    assert_eq!(status.ready_replicas, Some(2), "running and ready");
    assert_eq!(
        status.available_replicas,
        Some(1),
        "ready for minReadySeconds"
    );
    assert_eq!(status.observed_generation, Some(4));
}

#[test]
fn a_current_status_is_not_rewritten_and_a_deleting_set_does_nothing() {
    let mut rs = replica_set(1);
    rs["status"] = json!({"replicas": 1, "fullyLabeledReplicas": 1, "readyReplicas": 1,
                          "availableReplicas": 1, "observedGeneration": 4});
    assert_eq!(actions(rs.clone(), &[ready("a", "node-1")]), vec![]);
    rs["metadata"]["deletionTimestamp"] = json!(NOW);
    assert_eq!(
        actions(rs, &[]),
        vec![],
        "a ReplicaSet being deleted creates nothing"
    );
}

#[test]
fn counts_that_drop_to_zero_are_removed_from_the_status() {
    let mut rs = replica_set(0);
    rs["status"] =
        json!({"replicas": 1, "readyReplicas": 1, "availableReplicas": 1, "observedGeneration": 4});
    let all = actions(rs, &[]);
    let patch = all.iter().find_map(|a| match &a.op {
        Op::PatchStatus(p) => Some(p.clone()),
        _ => None,
    });
    let patch = patch.expect("status patch");
    assert_eq!(patch["status"]["replicas"], 0);
    assert!(
        patch["status"]["readyReplicas"].is_null()
            && patch["status"].get("readyReplicas").is_some(),
        "sent as null so the merge patch removes it: {patch}"
    );
}
