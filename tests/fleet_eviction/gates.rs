//! Gated and budget-waiting evictions (§5, §5.1, §5.3, §5.4).

use super::harness::*;
use serde_json::{Value, json};

async fn three(hub: &Hub, name: &str) {
    hub.placement(name, Value::Null).await;
    hub.available_bindings(name, 3, true).await;
}

fn finalizers(e: &fleet_eviction::api::ClusterResourcePlacementEviction) -> Vec<String> {
    e.metadata.finalizers.clone().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gated_eviction_waits_then_opens_on_true() {
    let hub = Hub::start().await;
    three(&hub, "web").await;
    hub.budget("web", json!({"minAvailable": 1})).await;
    hub.eviction(
        "gated",
        "web",
        "member-1",
        json!({"evictionConditions": [{"name": "TrafficShifted"}, {"name": "example.com/Approved"}]}),
    )
    .await;
    let waiting = hub.stage("gated", "WaitingForConditions").await;
    assert_eq!(
        finalizers(&waiting),
        vec!["fleet-eviction.io/cleanup".to_string()]
    );
    let progressing = condition(&waiting, "Progressing").expect("stage");
    assert_eq!(progressing.status, "True");
    assert_eq!(
        progressing.message,
        "Eviction is waiting for eviction conditions: TrafficShifted, example.com/Approved"
    );
    let reserved = condition(&waiting, "BudgetReserved").expect("reserved");
    assert_eq!(
        (
            reserved.status.as_str(),
            reserved.reason.as_str(),
            reserved.message.as_str()
        ),
        (
            "True",
            "Reserved",
            "Budget reserved for the scheduler decision of cluster targeted by eviction"
        )
    );
    let status = waiting.status.as_ref().expect("status");
    assert_eq!(
        status.reservation.as_ref().map(|r| r.binding.as_str()),
        Some("web-member-1")
    );
    assert_eq!(
        status.target_binding.as_ref().map(|t| t.name.as_str()),
        Some("web-member-1")
    );
    let created = waiting
        .metadata
        .creation_timestamp
        .as_ref()
        .expect("created")
        .0;
    assert_eq!(
        status.deadline.as_ref().map(|d| d.0),
        Some(created + k8s_openapi::jiff::SignedDuration::from_hours(1)),
        "default ttl of an extended eviction: 1h"
    );
    assert!(
        condition(&waiting, "Executed").is_none(),
        "never Executed=Unknown or early"
    );

    hub.set_condition("gated", "TrafficShifted", "True", "moved")
        .await;
    hub.wait_for("gated", "only the second gate left", |e| {
        condition(e, "Progressing").is_some_and(|c| {
            c.message == "Eviction is waiting for eviction conditions: example.com/Approved"
        })
    })
    .await;
    assert!(
        hub.binding_exists("web-member-1")
            .await
            .expect("binding")
            .metadata
            .deletion_timestamp
            .is_none()
    );

    hub.set_condition("gated", "example.com/Approved", "True", "change 42")
        .await;
    let done = hub.verdict("gated").await;
    assert_eq!(
        conditions(&done),
        vec![
            ("Valid".into(), "True".into(), "ClusterResourcePlacementEvictionValid".into(), "Eviction is valid".into()),
            ("Progressing".into(), "False".into(), "Succeeded".into(), "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3".into()),
            ("BudgetReserved".into(), "False".into(), "Released".into(), "Budget reservation released".into()),
            ("TrafficShifted".into(), "True".into(), "SetByTest".into(), "moved".into()),
            ("example.com/Approved".into(), "True".into(), "SetByTest".into(), "change 42".into()),
            ("Executed".into(), "True".into(), "ClusterResourcePlacementEvictionExecuted".into(), "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3".into()),
        ]
    );
    assert!(
        hub.binding_exists("web-member-1")
            .await
            .expect("lingers")
            .metadata
            .deletion_timestamp
            .is_some()
    );
    let done = hub
        .wait_for("gated", "the finalizer removed", |e| {
            finalizers(e).is_empty()
        })
        .await;
    assert_eq!(done.status.and_then(|s| s.reservation), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_gate_ends_the_eviction_and_keeps_the_binding() {
    let hub = Hub::start().await;
    three(&hub, "web").await;
    hub.eviction(
        "gated",
        "web",
        "member-2",
        json!({"evictionConditions": [{"name": "Approved"}]}),
    )
    .await;
    hub.stage("gated", "WaitingForConditions").await;
    hub.set_condition("gated", "Approved", "False", "change window closed")
        .await;
    let done = hub.verdict("gated").await;
    let executed = condition(&done, "Executed").expect("verdict");
    assert_eq!(
        (
            executed.status.as_str(),
            executed.reason.as_str(),
            executed.message.as_str()
        ),
        (
            "False",
            "EvictionConditionDenied",
            "Eviction is blocked, eviction condition Approved was denied: change window closed"
        )
    );
    assert_eq!(
        condition(&done, "Progressing").map(|c| c.reason.as_str()),
        Some("Failed")
    );
    assert!(
        hub.binding_exists("web-member-2")
            .await
            .expect("binding")
            .metadata
            .deletion_timestamp
            .is_none()
    );
    hub.wait_for("gated", "the finalizer removed", |e| {
        finalizers(e).is_empty()
    })
    .await;
}

/// waitForBudget: blocked evictions wait instead of failing, and are served first come,
/// first served when the budget frees up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn budget_waiters_proceed_in_arrival_order() {
    let hub = Hub::start().await;
    three(&hub, "web").await;
    hub.set_binding_conditions(
        "web-member-3",
        &[("Available", "False", "NotAllWorkAreAvailable")],
    )
    .await;
    hub.budget("web", json!({"minAvailable": 2})).await;
    hub.eviction("first", "web", "member-1", json!({"waitForBudget": true}))
        .await;
    let waiting = hub.stage("first", "WaitingForBudget").await;
    assert_eq!(
        condition(&waiting, "Progressing").map(|c| c.message.as_str()),
        Some(
            "Eviction is waiting for the ClusterResourcePlacementDisruptionBudget, availablePlacements: 2, totalPlacements: 3"
        )
    );
    assert!(
        condition(&waiting, "BudgetReserved").is_none(),
        "no slot taken while waiting"
    );
    hub.advance(1);
    hub.eviction("second", "web", "member-2", json!({"waitForBudget": true}))
        .await;
    hub.stage("second", "WaitingForBudget").await;

    // One slot frees up: the earlier waiter takes it, the later one keeps waiting.
    hub.set_binding_conditions(
        "web-member-3",
        &[("Available", "True", "AllWorkAreAvailable")],
    )
    .await;
    let first = hub.verdict("first").await;
    assert_eq!(
        condition(&first, "Executed").map(|c| c.status.as_str()),
        Some("True")
    );
    let second = hub.stage("second", "WaitingForBudget").await;
    assert_eq!(
        condition(&second, "Progressing").map(|c| c.message.as_str()),
        Some(
            "Eviction is waiting for the ClusterResourcePlacementDisruptionBudget, availablePlacements: 2, totalPlacements: 3"
        ),
        "first's deleting binding counts as unavailable"
    );
}

/// An external controller writing its gate and other conditions while we write ours:
/// read-modify-write with resourceVersion loses nothing on either side (§5.4).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_racing_gate_writer_loses_nothing() {
    let hub = Hub::start().await;
    three(&hub, "web").await;
    hub.budget("web", json!({"minAvailable": 2})).await;
    hub.set_binding_conditions(
        "web-member-3",
        &[("Available", "False", "NotAllWorkAreAvailable")],
    )
    .await;
    hub.eviction(
        "raced",
        "web",
        "member-1",
        json!({"evictionConditions": [{"name": "Approved"}], "waitForBudget": true}),
    )
    .await;
    let writer = async {
        for i in 0..40 {
            hub.set_condition("raced", "Observed", "True", &format!("tick {i}"))
                .await;
            if i == 10 {
                hub.set_binding_conditions(
                    "web-member-3",
                    &[("Available", "True", "AllWorkAreAvailable")],
                )
                .await;
            }
        }
        hub.set_condition("raced", "Approved", "True", "go").await;
    };
    writer.await;
    let done = hub.verdict("raced").await;
    let observed = condition(&done, "Observed").expect("foreign condition kept");
    assert_eq!(observed.message, "tick 39");
    assert_eq!(
        condition(&done, "Approved").map(|c| c.status.as_str()),
        Some("True")
    );
    assert_eq!(
        condition(&done, "Executed").map(|c| c.status.as_str()),
        Some("True")
    );
    assert_eq!(
        condition(&done, "BudgetReserved").map(|c| c.reason.as_str()),
        Some("Released")
    );
}
