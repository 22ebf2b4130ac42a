//! Builds the hub of a plan: CRDs, 1,000 registered idle members, placements, budgets and
//! hand-made bindings with static conditions. Members are registered through the API as the
//! sandbox fleet does; the ~110k placement objects are written straight into the sandbox's
//! store (its library API: the same schema validation as an API create, no HTTP, no
//! accounting), which is the quickest way in.

use super::plan::{Placement, Plan, Policy, binding_name};
use fleet_eviction::api::keys::PARENT_CRP_LABEL;
use fleet_eviction::sandbox::apiserver::front::client;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::apiserver::write::WriteOptions;
use fleet_eviction::sandbox::fleet::kubeconfig::kubeconfig_yaml;
use fleet_eviction::sandbox::fleet::registration::{
    create_system_namespace, install_hub_crds, register_member,
};
use futures::StreamExt;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};

const GROUP: &str = "placement.kubernetes-fleet.io";
const VERSION: &str = "v1beta1";
/// KubeFleet's work-cleanup finalizer: a deleted binding lingers as deleting.
pub const WORK_CLEANUP: &str = "kubernetes-fleet.io/work-cleanup";
/// Members are idle: nothing listens here, and the fleet-level controller never calls them.
pub const IDLE_MEMBER_URL: &str = "http://127.0.0.1:1";
/// Concurrent member registrations.
const REGISTRATION_CONCURRENCY: usize = 64;

pub struct Hub {
    pub server: Arc<ApiServer>,
    pub setup: Duration,
}

pub async fn build(plan: &Plan, seed: u64) -> Result<Hub, String> {
    let started = Instant::now();
    let server = ApiServer::new(ServerConfig {
        name: "hub".into(),
        seed,
        ..ServerConfig::default()
    });
    let hub = client(&server);
    install_hub_crds(&hub)
        .await
        .map_err(|e| format!("installing the hub's CRDs: {e}"))?;
    create_system_namespace(&hub)
        .await
        .map_err(|e| format!("creating the system namespace: {e}"))?;
    register_members(&hub, &plan.members).await?;
    for placement in &plan.placements {
        store_placement(&server, placement)?;
    }
    Ok(Hub {
        server,
        setup: started.elapsed(),
    })
}

/// A MemberCluster and its kubeconfig Secret per member, concurrently.
async fn register_members(hub: &kube::Client, members: &[String]) -> Result<(), String> {
    let mut pending = futures::stream::iter(members.iter().map(|name| async move {
        let kubeconfig = kubeconfig_yaml(name, IDLE_MEMBER_URL);
        register_member(hub, name, &kubeconfig)
            .await
            .map_err(|e| format!("registering {name}: {e}"))
    }))
    .buffer_unordered(REGISTRATION_CONCURRENCY);
    while let Some(result) = pending.next().await {
        result?;
    }
    Ok(())
}

/// The placement, its budget, and its bindings with their conditions.
fn store_placement(server: &ApiServer, placement: &Placement) -> Result<(), String> {
    create(
        server,
        ("clusterresourceplacements", "ClusterResourcePlacement"),
        placement_object(placement),
    )?;
    create(
        server,
        (
            "clusterresourceplacementdisruptionbudgets",
            "ClusterResourcePlacementDisruptionBudget",
        ),
        json!({"metadata": {"name": placement.name}, "spec": placement.budget}),
    )?;
    for cluster in &placement.clusters {
        let name = binding_name(&placement.name, cluster);
        let created = create(
            server,
            ("clusterresourcebindings", "ClusterResourceBinding"),
            binding_object(&placement.name, cluster),
        )?;
        let generation = created["metadata"]["generation"]
            .as_i64()
            .ok_or_else(|| format!("binding {name} was stored without a generation"))?;
        set_status(server, &name, healthy_status(generation))?;
    }
    Ok(())
}

fn placement_object(placement: &Placement) -> Value {
    let policy = match placement.policy {
        Policy::PickAll => json!({"placementType": "PickAll"}),
        Policy::PickN(n) => json!({"placementType": "PickN", "numberOfClusters": n}),
    };
    json!({
        "metadata": {"name": placement.name},
        "spec": {
            "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": placement.name}],
            "policy": policy,
        },
    })
}

fn binding_object(placement: &str, cluster: &str) -> Value {
    json!({
        "metadata": {
            "name": binding_name(placement, cluster),
            "labels": {PARENT_CRP_LABEL: placement},
            "finalizers": [WORK_CLEANUP],
        },
        "spec": {"state": "Bound", "targetCluster": cluster},
    })
}

/// What KubeFleet reports for a binding whose work is applied and available, for the
/// binding's current generation.
fn healthy_status(generation: i64) -> Value {
    let condition = |type_: &str, reason: &str| {
        json!({"type": type_, "status": "True", "reason": reason, "message": "",
               "observedGeneration": generation, "lastTransitionTime": "2026-03-01T10:00:00Z"})
    };
    json!({"conditions": [
        condition("Overridden", "NoOverrideSpecified"),
        condition("WorkSynchronized", "AllWorkSynced"),
        condition("Applied", "AllWorkHaveBeenApplied"),
        condition("Available", "AllWorkAreAvailable"),
    ]})
}

/// Creates `object` as a `(plural, kind)` of the placement group, cluster-scoped.
fn create(
    server: &ApiServer,
    (plural, kind): (&str, &str),
    mut object: Value,
) -> Result<Arc<Value>, String> {
    let mut state = server.state();
    let rt = state
        .registry
        .get(GROUP, VERSION, plural)
        .ok_or_else(|| format!("the hub does not serve {plural}"))?;
    object["apiVersion"] = json!(format!("{GROUP}/{VERSION}"));
    object["kind"] = json!(kind);
    let options = WriteOptions {
        field_manager: "fleet-scale-bench".into(),
        ..WriteOptions::default()
    };
    let name = object["metadata"]["name"].clone();
    state
        .create(&rt, None, object, &options)
        .map(|written| written.object)
        .map_err(|e| format!("creating {plural} {name}: {} {}", e.code, e.message))
}

fn set_status(server: &ApiServer, binding: &str, status: Value) -> Result<(), String> {
    let mut state = server.state();
    let rt = state
        .registry
        .get(GROUP, VERSION, "clusterresourcebindings")
        .ok_or("the hub does not serve clusterresourcebindings")?;
    state.replace_status(&rt.storage_key(), "", binding, status);
    Ok(())
}
