use super::plan;
use crate::sandbox::sim::member::BROKEN_ANNOTATION;
use crate::sandbox::sim::member::actions::{Action, Op};
use crate::sandbox::sim::member::fixtures::*;
use k8s_openapi::api::core::v1::{Pod, PodStatus};
use serde_json::{Value, json};

fn only(actions: Vec<Action>) -> Action {
    let [action] = <[Action; 1]>::try_from(actions).expect("exactly one action");
    action
}

fn reported_status(nodes: &[Value], pod: Value) -> PodStatus {
    let action = only(plan(&view_of(nodes, &[pod])));
    assert_eq!(action.manager, "kubelet");
    let Op::PatchStatus(patch) = action.op else {
        panic!("a status report: {action:?}")
    };
    serde_json::from_value(patch["status"].clone()).expect("pod status")
}

fn condition(status: &PodStatus, kind: &str) -> (String, Option<String>, String) {
    let c = status
        .conditions
        .iter()
        .flatten()
        .find(|c| c.type_ == kind)
        .unwrap_or_else(|| panic!("{kind} condition"));
    let since = c
        .last_transition_time
        .as_ref()
        .map(|t| t.0.to_string())
        .unwrap_or_default();
    (c.status.clone(), c.reason.clone(), since)
}

#[test]
fn a_bound_pod_starts_running_and_ready() {
    let status = reported_status(&[node(1), node(2)], on(pod("p"), "node-2"));
    assert_eq!(status.phase.as_deref(), Some("Running"));
    assert_eq!(
        status.host_ip.as_deref(),
        Some("10.0.0.3"),
        "the node's InternalIP"
    );
    let ip = status.pod_ip.clone().unwrap_or_default();
    assert!(
        ip.starts_with("10.244.1."),
        "the second node's pod range: {ip}"
    );
    assert_eq!(
        status
            .start_time
            .as_ref()
            .map(|t| t.0.to_string())
            .as_deref(),
        Some(NOW)
    );
    for kind in [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ] {
        assert_eq!(
            condition(&status, kind),
            ("True".into(), None, NOW.into()),
            "{kind}"
        );
    }
    let containers = status.container_statuses.unwrap_or_default();
    assert_eq!(containers.len(), 1);
    assert!(containers[0].ready && containers[0].started == Some(true));
    assert!(
        containers[0]
            .state
            .as_ref()
            .and_then(|s| s.running.as_ref())
            .is_some()
    );
}

#[test]
fn a_broken_pod_runs_unready_and_recovers_when_repaired() {
    let mut broken = on(pod("p"), "node-1");
    broken["metadata"]["annotations"] = json!({BROKEN_ANNOTATION: "true"});
    let status = reported_status(&[node(1)], broken.clone());
    assert_eq!(status.phase.as_deref(), Some("Running"), "still running");
    assert_eq!(
        condition(&status, "Ready").1.as_deref(),
        Some("ContainersNotReady")
    );
    assert_eq!(condition(&status, "Ready").0, "False");
    assert_eq!(condition(&status, "ContainersReady").0, "False");
    assert!(!status.container_statuses.unwrap_or_default()[0].ready);

    let mut unready = broken.clone();
    unready["status"] = serde_json::to_value(reported_status(&[node(1)], broken)).expect("json");
    unready["status"]["conditions"][1]["lastTransitionTime"] = json!(EARLIER);
    unready["metadata"]["annotations"] = json!({});
    let repaired = reported_status(&[node(1)], unready);
    assert_eq!(condition(&repaired, "Ready").0, "True", "ready again");
    assert_eq!(
        condition(&repaired, "Initialized").2,
        EARLIER,
        "unchanged conditions keep their time"
    );
}

#[test]
fn a_pod_already_reporting_its_status_gets_no_write() {
    let bound = on(pod("p"), "node-1");
    let mut current = bound.clone();
    current["status"] = serde_json::to_value(reported_status(&[node(1)], bound)).expect("json");
    let pod: Pod = serde_json::from_value(current.clone()).expect("pod");
    assert!(pod.status.is_some());
    assert_eq!(plan(&view_of(&[node(1)], &[current])), vec![]);
}

#[test]
fn graceful_deletions_finish_when_the_clock_passes_the_deadline() {
    let due = terminating(running(on(pod("p"), "node-1"), true), NOW);
    let action = only(plan(&view_of(&[node(1)], &[due])));
    assert_eq!(action.name, "p");
    assert_eq!(
        action.op,
        Op::Delete {
            uid: "uid-p".into(),
            grace_period_seconds: Some(0)
        },
        "deleted for good, only if still the same pod"
    );
    let later = terminating(
        running(on(pod("p"), "node-1"), true),
        "2026-03-01T12:00:01Z",
    );
    assert_eq!(
        plan(&view_of(&[node(1)], &[later])),
        vec![],
        "before the deadline: wait"
    );
}

#[test]
fn pods_without_a_working_kubelet_are_left_alone() {
    let mut down = node(1);
    down["status"]["conditions"][3]["status"] = json!("Unknown");
    let mut finished = on(pod("done"), "node-2");
    finished["status"]["phase"] = json!("Succeeded");
    let pods = [
        on(pod("a"), "node-1"),
        on(pod("b"), "node-9"),
        pod("pending"),
        finished,
    ];
    assert_eq!(
        plan(&view_of(&[down, node(2)], &pods)),
        vec![],
        "NotReady node, unknown node, unbound, finished"
    );
}
