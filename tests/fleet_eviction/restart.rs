//! Crashes and restarts (§4.3): reservations live in status, so a new controller rebuilds the
//! ledger from the API; nothing is lost and no binding is deleted twice.

use super::harness::*;
use fleet_eviction::api::ClusterResourcePlacementEviction;
use serde_json::{Value, json};

async fn lingering(hub: &Hub, placement: &str, clusters: usize) {
    hub.placement(placement, Value::Null).await;
    hub.available_bindings(placement, clusters, true).await;
    hub.budget(placement, json!({"minAvailable": 2})).await;
}

fn reserved_at(e: &ClusterResourcePlacementEviction) -> Option<k8s_openapi::jiff::Timestamp> {
    e.status
        .as_ref()?
        .reservation
        .as_ref()
        .map(|r| r.reserved_at.0)
}

/// Binding deletes the server accepted (a delete refused on its preconditions acted on
/// nothing).
fn deletes(hub: &Hub) -> u64 {
    let binding_deletes = |accepted: bool| {
        hub.server
            .request_counts()
            .into_iter()
            .filter(move |(k, _)| {
                k.verb == "delete"
                    && k.resource == "clusterresourcebindings"
                    && (k.code < 300) == accepted
            })
    };
    println!(
        "refused binding deletes: {:?}",
        binding_deletes(false).collect::<Vec<_>>()
    );
    binding_deletes(true).map(|(_, n)| n).sum()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_controller_keeps_every_reservation_and_repeats_nothing() {
    let mut hub = Hub::start().await;
    lingering(&hub, "app", 4).await;
    let gated = json!({"evictionConditions": [{"name": "Approved"}], "waitForBudget": true});
    for i in 1..=3 {
        hub.eviction(
            &format!("e{i}"),
            "app",
            &format!("member-{i}"),
            gated.clone(),
        )
        .await;
        hub.advance(1);
    }
    let e1 = hub.stage("e1", "WaitingForConditions").await;
    let e2 = hub.stage("e2", "WaitingForConditions").await;
    hub.stage("e3", "WaitingForBudget").await;

    hub.kill_controller();
    // Created while no controller runs: the new one must count e1's and e2's reservations.
    hub.eviction("e4", "app", "member-4", json!({})).await;
    hub.start_controller().await;
    let e4 = hub.verdict("e4").await;
    assert_eq!(
        condition(&e4, "Executed").map(|c| c.message.as_str()),
        Some(
            "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 2, totalPlacements: 4"
        ),
        "reservations rebuilt from status"
    );
    assert_eq!(reserved_at(&hub.get("e1").await), reserved_at(&e1));
    assert_eq!(reserved_at(&hub.get("e2").await), reserved_at(&e2));
    assert!(condition(&hub.get("e3").await, "BudgetReserved").is_none());

    hub.set_condition("e1", "Approved", "True", "ok").await;
    hub.verdict("e1").await;
    hub.set_condition("e2", "Approved", "True", "ok").await;
    hub.kill_controller(); // possibly between e2's delete and its status write
    hub.start_controller().await;
    let e2 = hub.verdict("e2").await;
    assert_eq!(
        condition(&e2, "Executed").map(|c| c.status.as_str()),
        Some("True")
    );
    let e3 = hub.stage("e3", "WaitingForBudget").await;
    assert_eq!(
        condition(&e3, "Progressing").map(|c| c.message.as_str()),
        Some(
            "Eviction is waiting for the ClusterResourcePlacementDisruptionBudget, availablePlacements: 2, totalPlacements: 4"
        )
    );
    assert_eq!(deletes(&hub), 2, "each binding deleted once");
}

/// Ten placements, four gated waiting evictions each, gates opened while the controller is
/// killed and restarted again and again: every placement loses exactly its budget's two
/// clusters, never more, and no binding is deleted twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kills_during_a_burst_never_break_the_budget() {
    let seed: u64 = std::env::var("FLEET_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20261123);
    println!("seed: {seed} (FLEET_TEST_SEED to repeat)");
    let mut rng = seed;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut hub = Hub::start().await;
    let placements: Vec<String> = (0..10).map(|i| format!("q{i}")).collect();
    for p in &placements {
        lingering(&hub, p, 4).await;
    }
    let spec = json!({"evictionConditions": [{"name": "Approved"}], "waitForBudget": true});
    let mut names = Vec::new();
    for p in &placements {
        for i in 1..=4 {
            let name = format!("{p}-e{i}");
            hub.eviction(&name, p, &format!("member-{i}"), spec.clone())
                .await;
            names.push(name);
        }
    }
    for (n, name) in names.iter().enumerate() {
        hub.set_condition(name, "Approved", "True", "ok").await;
        if next() % 8 == 0 || n == names.len() - 1 {
            hub.kill_controller();
            tokio::time::sleep(std::time::Duration::from_millis(next() % 20)).await;
            hub.start_controller().await;
        }
    }
    for p in &placements {
        let mut executed = 0;
        for i in 1..=4 {
            let name = format!("{p}-e{i}");
            let e = hub
                .wait_for(&name, "executed or waiting for budget", |e| {
                    condition(e, "Executed").is_some()
                        || condition(e, "Progressing")
                            .is_some_and(|c| c.reason == "WaitingForBudget")
                })
                .await;
            executed += usize::from(condition(&e, "Executed").is_some_and(|c| c.status == "True"));
        }
        assert_eq!(
            executed, 2,
            "{p}: exactly the budget's two disruptions (seed {seed})"
        );
        let deleting = hub.deleting_bindings(p, 4).await;
        assert_eq!(deleting, 2, "{p}: budget kept (seed {seed})");
    }
    assert_eq!(deletes(&hub), 20, "no binding deleted twice (seed {seed})");
}
