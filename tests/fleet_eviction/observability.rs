//! What operators see (§6): Events with the condition's reason and message, the metrics of
//! quality.md, and the API writes a plain eviction costs.

use super::harness::*;
use k8s_openapi::api::events::v1::Event;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};

async fn events_of(hub: &Hub, eviction: &str) -> Vec<(String, String, String)> {
    let events: Api<Event> = Api::namespaced(hub.client.clone(), "default");
    events
        .list(&ListParams::default())
        .await
        .expect("events")
        .items
        .into_iter()
        .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(eviction))
        .map(|e| {
            (
                e.type_.unwrap_or_default(),
                e.reason.unwrap_or_default(),
                e.note.unwrap_or_default(),
            )
        })
        .collect()
}

async fn wait_events(hub: &Hub, eviction: &str, n: usize) -> Vec<(String, String, String)> {
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let events = events_of(hub, eviction).await;
        if events.len() >= n {
            return events;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{eviction}: {events:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

fn ev(type_: &str, reason: &str, note: &str) -> (String, String, String) {
    (type_.into(), reason.into(), note.into())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_report_every_stage_and_verdict() {
    let hub = Hub::start().await;
    hub.placement("web", Value::Null).await;
    for cluster in ["member-1", "member-2", "member-3"] {
        hub.binding("web", cluster).await;
    }
    hub.budget("web", json!({"minAvailable": 3})).await;
    hub.eviction("plain", "web", "member-1", json!({})).await;
    hub.verdict("plain").await;
    assert_eq!(
        wait_events(&hub, "plain", 1).await,
        vec![ev(
            "Warning",
            "ClusterResourcePlacementEvictionNotExecuted",
            "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3"
        )]
    );
    hub.eviction("invalid", "nope", "member-1", json!({})).await;
    hub.verdict("invalid").await;
    assert_eq!(
        wait_events(&hub, "invalid", 1).await,
        vec![ev(
            "Warning",
            "ClusterResourcePlacementEvictionInvalid",
            "Failed to find ClusterResourcePlacement targeted by eviction"
        )]
    );
    hub.placement("api", Value::Null).await;
    hub.binding("api", "member-2").await;
    hub.eviction(
        "gated",
        "api",
        "member-2",
        json!({"evictionConditions": [{"name": "Approved"}]}),
    )
    .await;
    hub.stage("gated", "WaitingForConditions").await;
    hub.set_condition("gated", "Approved", "False", "no").await;
    hub.verdict("gated").await;
    let events = wait_events(&hub, "gated", 2).await;
    assert_eq!(
        events,
        vec![
            ev(
                "Normal",
                "WaitingForConditions",
                "Eviction is waiting for eviction conditions: Approved"
            ),
            ev(
                "Warning",
                "EvictionConditionDenied",
                "Eviction is blocked, eviction condition Approved was denied: no"
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_eviction_costs_three_writes() {
    let hub = Hub::start().await;
    hub.placement("web", Value::Null).await;
    for cluster in ["member-1", "member-2", "member-3"] {
        hub.binding("web", cluster).await;
    }
    hub.budget("web", json!({"minAvailable": 1})).await;
    hub.server.reset_accounting();
    hub.eviction("plain", "web", "member-1", json!({})).await;
    hub.verdict("plain").await;
    wait_events(&hub, "plain", 1).await;
    let writes: Vec<(String, String)> = hub
        .server
        .request_log()
        .into_iter()
        .filter(|r| matches!(r.verb.as_str(), "create" | "update" | "patch" | "delete"))
        .map(|r| (r.verb, r.resource))
        .collect();
    let mut writes = writes;
    writes.sort();
    assert_eq!(
        writes,
        vec![
            (
                "create".to_string(),
                "clusterresourceplacementevictions".to_string()
            ),
            ("create".into(), "events".into()),
            ("delete".into(), "clusterresourcebindings".into()),
            (
                "update".into(),
                "clusterresourceplacementevictions/status".into()
            ),
        ],
        "the test's create, then the controller's three writes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_follow_the_evictions() {
    let hub = Hub::start().await;
    hub.placement("web", Value::Null).await;
    for cluster in ["member-1", "member-2", "member-3"] {
        hub.binding("web", cluster).await;
    }
    hub.budget("web", json!({"minAvailable": 2})).await;
    hub.eviction("allowed", "web", "member-1", json!({})).await;
    hub.verdict("allowed").await;
    hub.eviction("blocked", "web", "member-2", json!({})).await;
    hub.verdict("blocked").await;
    hub.placement("api", Value::Null).await;
    hub.binding("api", "member-3").await;
    hub.eviction(
        "gated",
        "api",
        "member-3",
        json!({"evictionConditions": [{"name": "Approved"}]}),
    )
    .await;
    hub.stage("gated", "WaitingForConditions").await;
    // The pass that wrote the stage updates the gauges as it ends.
    let expected = [
        "fleet_eviction_evictions_total{outcome=\"executed\",reason=\"ClusterResourcePlacementEvictionExecuted\"} 1",
        "fleet_eviction_evictions_total{outcome=\"not_executed\",reason=\"ClusterResourcePlacementEvictionNotExecuted\"} 1",
        "fleet_eviction_budget_decisions_total{decision=\"allowed\"}",
        "fleet_eviction_budget_decisions_total{decision=\"blocked\"} 1",
        "fleet_eviction_budget_reservations{placement=\"api\"} 1",
        "fleet_workload_eviction_complete{isCompleted=\"true\",isValid=\"true\",name=\"allowed\"}",
        "fleet_workload_eviction_complete{isCompleted=\"false\",isValid=\"true\",name=\"gated\"}",
        "controller_runtime_reconcile_total{controller=\"clusterresourceplacementeviction-controller\",result=",
        "controller_runtime_reconcile_time_seconds_count{controller=\"clusterresourceplacementeviction-controller\"}",
        "controller_runtime_active_workers{controller=\"clusterresourceplacementeviction-controller\"}",
    ];
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let text = hub.metrics.render().expect("render");
        let missing: Vec<&&str> = expected
            .iter()
            .filter(|line| !text.lines().any(|l| l.starts_with(**line)))
            .collect();
        if missing.is_empty() {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "missing {missing:?}\n{text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    hub.set_condition("gated", "Approved", "True", "ok").await;
    hub.verdict("gated").await;
    hub.evictions()
        .delete("allowed", &Default::default())
        .await
        .expect("delete");
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let text = hub.metrics.render().expect("render");
        let gone = !text.contains("name=\"allowed\"");
        let gate_wait = text.contains("fleet_eviction_gate_wait_seconds_count{level=\"fleet\"} 1");
        if gone && gate_wait {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "series of a deleted eviction removed, gate wait observed:\n{text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}
