//! One tick of one managed binding: withdraw it if it is being deleted, otherwise place its
//! placement on its member and report how that went in its conditions.

use super::HubSim;
use super::apply::{self, Unreachable};
use super::conditions;
use super::hub_view::{Desired, HubView, parent_placement};
use super::scheduling::WORK_CLEANUP_FINALIZER;
use super::withdraw;
use crate::api::kubefleet::{BindingState, ClusterResourceBinding, ClusterResourcePlacement};
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams};
use serde_json::json;

pub async fn reconcile(
    sim: &HubSim,
    view: &HubView,
    desired: &Desired,
    binding: &ClusterResourceBinding,
) {
    let name = binding.name_any();
    let Some(placement) = parent_placement(binding) else {
        tracing::debug!(binding = %name, "managed binding without a parent placement; left alone");
        return;
    };
    if binding.metadata.deletion_timestamp.is_some() {
        return finish_deletion(sim, view, binding, placement).await;
    }
    if !view.placements.contains_key(placement) {
        // KubeFleet's scheduler removes the bindings of a placement that is gone.
        return delete_orphan(sim, &name, placement).await;
    }
    let Some(crp_desired) = desired.get(placement) else {
        return; // The placement is not simulated (any more): left alone.
    };
    let placing = matches!(
        binding.spec.state,
        Some(BindingState::Bound | BindingState::Unscheduled)
    );
    if !placing {
        return;
    }
    if !holds_cleanup_finalizer(binding) {
        return set_finalizers(sim, binding, with_cleanup_finalizer(binding)).await;
    }
    let objects = match crp_desired {
        Ok(objects) => objects,
        Err(why) => return tracing::warn!(binding = %name, "{why}; retrying"),
    };
    let target = &binding.spec.target_cluster;
    let Some(member) = sim.inner.members.get(target) else {
        return tracing::debug!(binding = %name, member = %target, "no client for the member yet");
    };
    match apply::apply_and_observe(&member, placement, objects).await {
        Ok(observed) => write_conditions(sim, binding, &observed).await,
        Err(Unreachable(error)) => {
            tracing::info!(binding = %name, member = %target, %error, "member unreachable; conditions kept")
        }
    }
}

/// Withdraws the placement from the member, then lets the binding go.
async fn finish_deletion(
    sim: &HubSim,
    view: &HubView,
    binding: &ClusterResourceBinding,
    placement: &str,
) {
    if !holds_cleanup_finalizer(binding) {
        return;
    }
    let target = binding.spec.target_cluster.as_str();
    // Another live binding of the placement on the same member still wants the objects.
    let still_placed = view.managed_bindings().any(|other| {
        other.metadata.deletion_timestamp.is_none()
            && other.spec.target_cluster == target
            && parent_placement(other) == Some(placement)
    });
    match sim.inner.members.get(target) {
        Some(member) if !still_placed => {
            if let Err(error) = withdraw::withdraw(&member, placement).await {
                let name = binding.name_any();
                return tracing::info!(binding = %name, member = %target, %error, "withdrawal failed; retrying");
            }
        }
        // A member known to the hub but not reachable yet: wait for it.
        None if view.has_member(target) => return,
        _ => {}
    }
    let remaining = binding
        .finalizers()
        .iter()
        .filter(|f| *f != WORK_CLEANUP_FINALIZER)
        .cloned()
        .collect();
    set_finalizers(sim, binding, remaining).await;
}

fn holds_cleanup_finalizer(binding: &ClusterResourceBinding) -> bool {
    binding
        .finalizers()
        .iter()
        .any(|f| f == WORK_CLEANUP_FINALIZER)
}

fn with_cleanup_finalizer(binding: &ClusterResourceBinding) -> Vec<String> {
    let mut finalizers = binding.finalizers().to_vec();
    finalizers.push(WORK_CLEANUP_FINALIZER.into());
    finalizers
}

/// Replaces the finalizers, on the resourceVersion we read (a conflict retries next tick).
async fn set_finalizers(sim: &HubSim, binding: &ClusterResourceBinding, finalizers: Vec<String>) {
    let api: Api<ClusterResourceBinding> = Api::all(sim.inner.hub.clone());
    let patch = json!({"metadata": {"resourceVersion": binding.resource_version(), "finalizers": finalizers}});
    if let Err(error) = api
        .patch(
            &binding.name_any(),
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
    {
        tracing::info!(binding = %binding.name_any(), %error, "finalizer update failed; retrying");
    }
}

/// Deletes a binding whose placement is gone, after checking with the API (the view's lists
/// are not one snapshot: the placement may have been created since).
async fn delete_orphan(sim: &HubSim, name: &str, placement: &str) {
    let placements: Api<ClusterResourcePlacement> = Api::all(sim.inner.hub.clone());
    if !matches!(placements.get_opt(placement).await, Ok(None)) {
        return;
    }
    let api: Api<ClusterResourceBinding> = Api::all(sim.inner.hub.clone());
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) | Err(kube::Error::Api(_)) => {}
        Err(error) => tracing::info!(binding = %name, %error, "deleting an orphan binding failed"),
    }
}

/// Writes our conditions through the status subresource when they changed, keeping the
/// other condition types, on the resourceVersion we read.
async fn write_conditions(
    sim: &HubSim,
    binding: &ClusterResourceBinding,
    observed: &conditions::Observed,
) {
    let existing = binding
        .status
        .as_ref()
        .map(|s| s.conditions.as_slice())
        .unwrap_or_default();
    let generation = binding.metadata.generation.unwrap_or(0);
    let now = sim.inner.clock.now();
    let updated = conditions::binding_conditions(existing, generation, observed, now);
    if updated == existing {
        return;
    }
    let api: Api<ClusterResourceBinding> = Api::all(sim.inner.hub.clone());
    let patch = json!({"metadata": {"resourceVersion": binding.resource_version()}, "status": {"conditions": updated}});
    if let Err(error) = api
        .patch_status(
            &binding.name_any(),
            &PatchParams::default(),
            &Patch::Merge(&patch),
        )
        .await
    {
        tracing::info!(binding = %binding.name_any(), %error, "status write failed; retrying");
    }
}
