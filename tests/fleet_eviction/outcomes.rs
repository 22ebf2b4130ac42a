//! Every §2 and §3 outcome end to end: exact conditions, and the binding deleted exactly when
//! the verdict says so.

use super::harness::*;
use serde_json::{Value, json};

const VALID: (&str, &str, &str, &str) = (
    "Valid",
    "True",
    "ClusterResourcePlacementEvictionValid",
    "Eviction is valid",
);

fn invalid(message: &str) -> Vec<(&str, &str, &str, &str)> {
    vec![(
        "Valid",
        "False",
        "ClusterResourcePlacementEvictionInvalid",
        message,
    )]
}

fn executed(message: &str) -> Vec<(&str, &str, &str, &str)> {
    vec![
        VALID,
        (
            "Executed",
            "True",
            "ClusterResourcePlacementEvictionExecuted",
            message,
        ),
    ]
}

fn not_executed(message: &str) -> Vec<(&str, &str, &str, &str)> {
    vec![
        VALID,
        (
            "Executed",
            "False",
            "ClusterResourcePlacementEvictionNotExecuted",
            message,
        ),
    ]
}

struct Row {
    rule: &'static str,
    placement: &'static str,
    want: Vec<(&'static str, &'static str, &'static str, &'static str)>,
    /// The target binding is deleted by the eviction.
    deletes: bool,
}

/// Three available bindings of `name` on member-1..3.
async fn three(hub: &Hub, name: &str, policy: Value) {
    hub.placement(name, policy).await;
    for cluster in ["member-1", "member-2", "member-3"] {
        hub.binding(name, cluster).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_validation_and_execution_outcome() {
    let hub = Hub::start().await;

    // §2.2: a placement held by a finalizer, then deleted.
    hub.create(
        "clusterresourceplacements",
        "ClusterResourcePlacement",
        json!({
        "metadata": {"name": "deleting", "finalizers": ["kubernetes-fleet.io/crp-cleanup"]},
        "spec": {"resourceSelectors": []}}),
    )
    .await;
    hub.binding("deleting", "member-1").await;
    hub.api("clusterresourceplacements", "ClusterResourcePlacement")
        .delete("deleting", &Default::default())
        .await
        .expect("delete placement");
    hub.placement(
        "fixed",
        json!({"placementType": "PickFixed", "clusterNames": ["member-1"]}),
    )
    .await;
    hub.binding("fixed", "member-1").await;
    hub.placement("elsewhere", Value::Null).await;
    hub.binding("elsewhere", "member-2").await;
    hub.placement("twice", Value::Null).await;
    hub.binding("twice", "member-1").await;
    hub.create("clusterresourcebindings", "ClusterResourceBinding", json!({
        "metadata": {"name": "twice-member-1-again", "labels": {"kubernetes-fleet.io/parent-CRP": "twice"}},
        "spec": {"state": "Bound", "targetCluster": "member-1"}})).await;
    // a: the binding is already being deleted (a finalizer keeps it).
    hub.placement("leaving", Value::Null).await;
    hub.binding_with(
        "leaving",
        "member-1",
        "Bound",
        &[("Available", "True", "AllWorkAreAvailable")],
        true,
    )
    .await;
    hub.bindings()
        .delete("leaving-member-1", &Default::default())
        .await
        .expect("delete binding");
    // b: scheduled, not placed yet.
    hub.placement("scheduled", Value::Null).await;
    hub.binding_with("scheduled", "member-1", "Scheduled", &[], false)
        .await;
    // c: failed to apply; its budget would block, but is not consulted.
    hub.placement("failed", Value::Null).await;
    hub.binding_with(
        "failed",
        "member-1",
        "Bound",
        &[("Applied", "False", "NotAllWorkHaveBeenApplied")],
        false,
    )
    .await;
    hub.budget("failed", json!({"minAvailable": 5})).await;
    // d, e, f, g
    three(&hub, "nobudget", Value::Null).await;
    three(&hub, "misconfigured", json!({"placementType": "PickAll"})).await;
    hub.budget("misconfigured", json!({"maxUnavailable": 1}))
        .await;
    three(&hub, "allowed", Value::Null).await;
    hub.budget("allowed", json!({"minAvailable": 2})).await;
    three(&hub, "blocked", Value::Null).await;
    hub.budget("blocked", json!({"minAvailable": 3})).await;
    three(
        &hub,
        "pickn",
        json!({"placementType": "PickN", "numberOfClusters": 3}),
    )
    .await;
    hub.budget("pickn", json!({"minAvailable": "34%"})).await;

    let rows = vec![
        Row {
            rule: "§2.1 MissingCRP",
            placement: "nope",
            want: invalid("Failed to find ClusterResourcePlacement targeted by eviction"),
            deletes: false,
        },
        Row {
            rule: "§2.2 DeletingCRP",
            placement: "deleting",
            want: invalid("Found deleting ClusterResourcePlacement targeted by eviction"),
            deletes: false,
        },
        Row {
            rule: "§2.3 PickFixed",
            placement: "fixed",
            want: invalid(
                "Found ClusterResourcePlacement with PickFixed placement type targeted by eviction",
            ),
            deletes: false,
        },
        Row {
            rule: "§2.4 MissingCRB",
            placement: "elsewhere",
            want: invalid(
                "Failed to find scheduler decision for placement in cluster targeted by eviction",
            ),
            deletes: false,
        },
        Row {
            rule: "§2.4 MultipleCRB",
            placement: "twice",
            want: invalid(
                "Found more than one scheduler decision for placement in cluster targeted by eviction",
            ),
            deletes: false,
        },
        Row {
            rule: "§3 a PlacementRemoved",
            placement: "leaving",
            want: executed(
                "Eviction is allowed, resources propagated by placement is currently being removed from cluster targeted by eviction",
            ),
            deletes: false,
        },
        Row {
            rule: "§3 b MissingPlacement",
            placement: "scheduled",
            want: not_executed(
                "Eviction is blocked, placement has not propagated resources to target cluster yet",
            ),
            deletes: false,
        },
        Row {
            rule: "§3 c PlacementFailed, budget not consulted",
            placement: "failed",
            want: executed("Eviction is allowed, placement has failed"),
            deletes: true,
        },
        Row {
            rule: "§3 d NoPDB",
            placement: "nobudget",
            want: executed(
                "Eviction is allowed, no ClusterResourcePlacementDisruptionBudget specified",
            ),
            deletes: true,
        },
        Row {
            rule: "§3 e MisconfiguredPDB",
            placement: "misconfigured",
            want: not_executed(
                "Eviction is blocked by misconfigured ClusterResourcePlacementDisruptionBudget, either MaxUnavailable is specified or MinAvailable is specified as a percentage for PickAll ClusterResourcePlacement",
            ),
            deletes: false,
        },
        Row {
            rule: "§3 f allowed by budget",
            placement: "allowed",
            want: executed(
                "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3",
            ),
            deletes: true,
        },
        Row {
            rule: "§3 g blocked by budget",
            placement: "blocked",
            want: not_executed(
                "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3",
            ),
            deletes: false,
        },
        Row {
            rule: "§4 PickN \"34%\" of 3 is 2",
            placement: "pickn",
            want: executed(
                "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3",
            ),
            deletes: true,
        },
    ];
    for row in &rows {
        hub.eviction(
            &format!("evict-{}", row.placement),
            row.placement,
            "member-1",
            json!({}),
        )
        .await;
    }
    for row in &rows {
        let name = format!("evict-{}", row.placement);
        let e = hub.verdict(&name).await;
        let got = conditions(&e);
        let want: Vec<(String, String, String, String)> = row
            .want
            .iter()
            .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
            .collect();
        assert_eq!(got, want, "rule: {}", row.rule);
        for c in &e.status.as_ref().expect("status").conditions {
            assert_eq!(
                c.observed_generation,
                Some(1),
                "rule: {}: observedGeneration on {}",
                row.rule,
                c.type_
            );
        }
        let binding = hub
            .binding_exists(&format!("{}-member-1", row.placement))
            .await;
        let never_existed = ["nope", "elsewhere"].contains(&row.placement);
        let deleted = match &binding {
            Some(b) => b.metadata.deletion_timestamp.is_some(),
            None => !never_existed,
        };
        let already_leaving = row.placement == "leaving";
        assert_eq!(
            deleted && !already_leaving,
            row.deletes,
            "rule: {}: binding deleted",
            row.rule
        );
    }
    // A plain eviction is decided once: a later change does not re-decide it.
    hub.set_binding_conditions(
        "blocked-member-2",
        &[("Available", "False", "NotAllWorkAreAvailable")],
    )
    .await;
    let before = hub.get("evict-blocked").await;
    hub.bindings()
        .delete("blocked-member-3", &Default::default())
        .await
        .expect("delete");
    // A later eviction of the same placement: once it has its verdict, the placement was
    // decided again after the changes.
    hub.eviction("evict-blocked-again", "blocked", "member-2", json!({}))
        .await;
    hub.verdict("evict-blocked-again").await;
    let after = hub.get("evict-blocked").await;
    assert_eq!(
        before.metadata.resource_version, after.metadata.resource_version,
        "terminal plain verdict never rewritten"
    );
    assert!(hub.binding_exists("blocked-member-1").await.is_some());
}
