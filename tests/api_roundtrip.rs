//! Every example parses into its typed kind and serializes back to exactly what it was:
//! the Rust types lose and invent nothing on the wire.

mod support;

use fleet_eviction::api::{
    ClusterResourcePlacementDisruptionBudget, ClusterResourcePlacementEviction, EvictionStrategy,
    PodMigrationJob, PodMigrationJobMode, PodMigrationJobPhase, PodMigrationJobProfile,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn round_trip<T: DeserializeOwned + Serialize>(original: &Value) -> Value {
    let typed: T = serde_json::from_value(original.clone()).expect("deserializes");
    serde_json::to_value(&typed).expect("serializes")
}

#[test]
fn every_example_round_trips_through_its_type() {
    let files = support::example_files();
    assert!(
        files.len() >= 9,
        "expected the seed examples, found {files:?}"
    );
    for path in files {
        let original = support::read_yaml(&path);
        let kind = original["kind"].as_str().unwrap_or_default().to_string();
        let back = match kind.as_str() {
            "ClusterResourcePlacementEviction" => {
                round_trip::<ClusterResourcePlacementEviction>(&original)
            }
            "ClusterResourcePlacementDisruptionBudget" => {
                round_trip::<ClusterResourcePlacementDisruptionBudget>(&original)
            }
            "PodMigrationJob" => round_trip::<PodMigrationJob>(&original),
            "PodMigrationJobProfile" => round_trip::<PodMigrationJobProfile>(&original),
            other => panic!("{}: unexpected kind {other:?}", path.display()),
        };
        assert_eq!(back, original, "{} changed in a round trip", path.display());
    }
}

#[test]
fn status_round_trips_with_foreign_conditions_and_extension_fields() {
    let eviction = json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacementEviction",
        "metadata": {"name": "e", "generation": 1, "finalizers": ["fleet-eviction.io/cleanup"]},
        "spec": {"placementName": "p", "clusterName": "c", "evictionConditions": [{"name": "TrafficShifted"}]},
        "status": {
            "conditions": [
                {"type": "Valid", "status": "True", "reason": "ClusterResourcePlacementEvictionValid",
                 "message": "Eviction is valid", "observedGeneration": 1, "lastTransitionTime": "2026-11-22T10:00:00Z"},
                {"type": "TrafficShifted", "status": "Unknown", "reason": "Shifting",
                 "message": "", "lastTransitionTime": "2026-11-22T10:00:01Z"}
            ],
            "targetBinding": {"name": "p-c-abcdef12", "uid": "u-1"},
            "reservation": {"binding": "p-c-abcdef12", "reservedAt": "2026-11-22T10:00:00Z"},
            "deadline": "2026-11-22T11:00:00Z"
        }
    });
    assert_eq!(
        round_trip::<ClusterResourcePlacementEviction>(&eviction),
        eviction
    );

    let job = json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJob",
        "metadata": {"name": "j"},
        "spec": {"podRef": {"namespace": "ns", "name": "p", "uid": "u"}},
        "status": {
            "phase": "Succeeded", "status": "Complete", "reason": "", "message": "Pod \"ns/p\" has been evicted",
            "conditions": [{"type": "Eviction", "status": "True", "reason": "EvictComplete",
                            "lastTransitionTime": "2026-11-22T10:00:00Z"}],
            "nodeName": "node-1",
            "preemptedPodsReservation": [{"name": "r", "phase": "Available"}]
        }
    });
    assert_eq!(round_trip::<PodMigrationJob>(&job), job);
}

#[test]
fn unknown_enum_values_deserialize_and_are_kept() {
    let eviction: ClusterResourcePlacementEviction = serde_json::from_value(json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacementEviction",
        "metadata": {"name": "e"},
        "spec": {"placementName": "p", "clusterName": "c", "strategy": "Drain"}
    }))
    .expect("an unknown strategy must not fail deserialization");
    assert_eq!(
        eviction.spec.strategy,
        Some(EvictionStrategy::Other("Drain".into()))
    );
    assert_eq!(
        serde_json::to_value(&eviction).expect("serializes")["spec"]["strategy"],
        "Drain"
    );

    let job: PodMigrationJob = serde_json::from_value(json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJob",
        "metadata": {"name": "j"},
        "spec": {"mode": "Teleport"},
        "status": {"phase": "Succeed"}
    }))
    .expect("unknown mode and a job without podRef must deserialize");
    assert_eq!(
        job.spec.mode,
        Some(PodMigrationJobMode::Other("Teleport".into()))
    );
    assert_eq!(job.spec.pod_ref, None);
    let phase = job.status.and_then(|s| s.phase);
    assert_eq!(
        phase,
        Some(PodMigrationJobPhase::SucceedLegacy),
        "old spelling is recognised"
    );
}
