//! The budget under concurrency (§4.3): in-flight disruptions count, decisions for one
//! placement are serialised and different placements decided in parallel.

use super::harness::*;
use fleet_eviction::sandbox::apiserver::faults::FaultSettings;
use serde_json::{Value, json};
use std::collections::BTreeMap;

fn executed(e: &fleet_eviction::api::ClusterResourcePlacementEviction) -> bool {
    condition(e, "Executed").is_some_and(|c| c.status == "True")
}

async fn lingering_bindings(hub: &Hub, placement: &str, clusters: usize) {
    hub.available_bindings(placement, clusters, true).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_quick_evictions_of_lingering_bindings_execute_exactly_once() {
    let hub = Hub::start().await;
    hub.placement("web", Value::Null).await;
    lingering_bindings(&hub, "web", 3).await;
    hub.budget("web", json!({"minAvailable": 2})).await;
    // Created together: KubeFleet's arithmetic would count the first, still-deleting binding
    // as available and let both through.
    tokio::join!(
        hub.eviction("evict-1", "web", "member-1", json!({})),
        hub.eviction("evict-2", "web", "member-2", json!({})),
    );
    let first = hub.verdict("evict-1").await;
    let second = hub.verdict("evict-2").await;
    let verdicts = [executed(&first), executed(&second)];
    assert_eq!(
        verdicts.iter().filter(|v| **v).count(),
        1,
        "exactly one executes: {verdicts:?}"
    );
    let blocked = if verdicts[0] { &second } else { &first };
    assert_eq!(
        condition(blocked, "Executed").map(|c| c.message.as_str()),
        Some(
            "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 2, totalPlacements: 3"
        ),
        "the deleting binding is counted as unavailable but still in T"
    );
    let mut deleting = 0;
    for cluster in ["member-1", "member-2", "member-3"] {
        let b = hub
            .binding_exists(&format!("web-{cluster}"))
            .await
            .expect("lingers");
        deleting += usize::from(b.metadata.deletion_timestamp.is_some());
    }
    assert_eq!(deleting, 1);
}

/// 200 evictions across 50 placements of 4 bindings with `minAvailable: 2`, all created at
/// once with 5 ms of latency on every request: each placement loses exactly two clusters,
/// the rest are blocked with the numbers actually used, and the request log shows writes for
/// different placements in flight at the same time.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_evictions_across_fifty_placements() {
    let overlap = evict_fifty_placements(8).await;
    assert!(
        overlap > 1,
        "writes for different placements never overlapped (peak {overlap})"
    );
}

/// The control: with one worker, the same measure shows no overlap at all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_worker_decides_one_placement_at_a_time() {
    assert_eq!(evict_fifty_placements(1).await, 1);
}

/// Runs the burst and checks every verdict; returns the peak number of placements with
/// writes in flight at once.
async fn evict_fifty_placements(workers: usize) -> usize {
    let mut hub = Hub::without_controller(11).await;
    hub.workers = workers;
    hub.start_controller().await;
    let placements: Vec<String> = (1..=50).map(|i| format!("p{i:02}")).collect();
    for p in &placements {
        hub.placement(p, Value::Null).await;
        lingering_bindings(&hub, p, 4).await;
        hub.budget(p, json!({"minAvailable": 2})).await;
    }
    hub.server.reset_accounting();
    hub.server.set_faults(FaultSettings {
        latency_ms: 5,
        ..FaultSettings::default()
    });
    let creates = placements.iter().flat_map(|p| {
        (1..=4).map(move |i| (format!("evict-{p}-{i}"), p.clone(), format!("member-{i}")))
    });
    let hub_ref = &hub;
    futures::future::join_all(creates.map(|(name, p, cluster)| async move {
        hub_ref.eviction(&name, &p, &cluster, json!({})).await
    }))
    .await;
    for p in &placements {
        let mut executed_count = 0;
        for i in 1..=4 {
            let e = hub.verdict(&format!("evict-{p}-{i}")).await;
            let verdict = condition(&e, "Executed").expect("verdict");
            if verdict.status == "True" {
                executed_count += 1;
                assert!(
                    verdict.message.starts_with(
                        "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget"
                    ),
                    "{p}: {}",
                    verdict.message
                );
            } else {
                assert_eq!(
                    verdict.message,
                    "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 2, totalPlacements: 4",
                    "{p}"
                );
            }
        }
        assert_eq!(
            executed_count, 2,
            "{p}: exactly the budget's two disruptions"
        );
        let standing = 4 - hub.deleting_bindings(p, 4).await;
        assert!(
            standing >= 2,
            "{p}: budget violated, {standing} bindings left"
        );
    }
    peak_overlap_across_placements(&hub)
}

/// The most writes (binding deletes, eviction status updates) for different placements in
/// flight at one instant, from the server's request log.
fn peak_overlap_across_placements(hub: &Hub) -> usize {
    let mut edges: Vec<(u64, i32, String)> = Vec::new();
    for r in hub.server.request_log() {
        let placement = match (r.verb.as_str(), r.resource.as_str()) {
            ("delete", "clusterresourcebindings") => r.name.split("-member-").next(),
            ("update", "clusterresourceplacementevictions/status") => r
                .name
                .strip_prefix("evict-")
                .and_then(|n| n.rsplit_once('-'))
                .map(|(p, _)| p),
            _ => None,
        };
        if let Some(p) = placement {
            edges.push((r.start_us, 1, p.to_string()));
            edges.push((r.end_us, -1, p.to_string()));
        }
    }
    edges.sort_by_key(|(t, delta, _)| (*t, *delta));
    let mut in_flight: BTreeMap<String, i32> = BTreeMap::new();
    let mut peak = 0;
    for (_, delta, p) in edges {
        *in_flight.entry(p).or_default() += delta;
        let placements = in_flight.values().filter(|n| **n > 0).count();
        peak = peak.max(placements);
    }
    peak
}
