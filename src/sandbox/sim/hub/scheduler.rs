//! The stand-in scheduler: binds a simulated placement once, when it first appears, and
//! again only when a scenario asks ([`super::HubSim::reschedule`]).
//!
//! "Scheduled once" is kept on the placement itself, as KubeFleet does: its
//! `ClusterResourcePlacementScheduled` condition. A placement without one is scheduled; a
//! deleted binding is not replaced until a reschedule.

use super::HubSim;
use super::conditions::{self, CRP_SCHEDULED, REASON_SCHEDULE_SUCCEEDED};
use super::hub_view::{HubView, is_simulated};
use super::scheduling::{binding_name, clusters_to_bind, new_binding};
use crate::api::keys::PARENT_CRP_LABEL;
use crate::api::kubefleet::{ClusterResourceBinding, ClusterResourcePlacement, MemberCluster};
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams};
use serde_json::json;
use std::sync::PoisonError;

/// Why a reschedule did not happen.
#[derive(Debug, thiserror::Error)]
pub enum ScheduleError {
    #[error("ClusterResourcePlacement {0} not found")]
    NotFound(String),
    #[error("ClusterResourcePlacement {0} is not labelled sandbox.fleet-eviction.io/simulate=true")]
    NotSimulated(String),
    #[error(transparent)]
    Api(#[from] kube::Error),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Only a placement that was never scheduled.
    Initial,
    /// Whatever bindings the policy is missing now.
    Reschedule,
}

/// Schedules the simulated placements seen for the first time.
pub async fn schedule_new(sim: &HubSim, view: &HubView) {
    let fresh = view.placements.values().filter(|crp| {
        is_simulated(*crp) && crp.metadata.deletion_timestamp.is_none() && !was_scheduled(crp)
    });
    for crp in fresh {
        if let Err(error) = schedule(sim, &crp.name_any(), Mode::Initial).await {
            tracing::info!(placement = %crp.name_any(), %error, "scheduling failed; retrying");
        }
    }
}

fn was_scheduled(crp: &ClusterResourcePlacement) -> bool {
    crp.status
        .as_ref()
        .is_some_and(|s| s.conditions.iter().any(|c| c.type_ == CRP_SCHEDULED))
}

/// Creates the bindings the placement's policy is missing; returns their names.
pub async fn schedule(
    sim: &HubSim,
    placement: &str,
    mode: Mode,
) -> Result<Vec<String>, ScheduleError> {
    let _one_at_a_time = sim.inner.scheduling.lock().await;
    let hub = &sim.inner.hub;
    let crp = Api::<ClusterResourcePlacement>::all(hub.clone())
        .get_opt(placement)
        .await?
        .ok_or_else(|| ScheduleError::NotFound(placement.into()))?;
    if !is_simulated(&crp) {
        return Err(ScheduleError::NotSimulated(placement.into()));
    }
    if crp.metadata.deletion_timestamp.is_some() || (mode == Mode::Initial && was_scheduled(&crp)) {
        return Ok(Vec::new());
    }
    let members = Api::<MemberCluster>::all(hub.clone())
        .list(&ListParams::default())
        .await?
        .items;
    let mine = ListParams::default().labels(&format!("{PARENT_CRP_LABEL}={placement}"));
    let bindings = Api::<ClusterResourceBinding>::all(hub.clone())
        .list(&mine)
        .await?
        .items;
    let mut created = Vec::new();
    for cluster in clusters_to_bind(crp.spec.policy.as_ref(), &members, &bindings) {
        created.push(create_binding(sim, placement, &cluster).await?);
    }
    mark_scheduled(sim, &crp).await?;
    Ok(created)
}

/// Creates one binding; a name already taken draws another suffix.
async fn create_binding(
    sim: &HubSim,
    placement: &str,
    cluster: &str,
) -> Result<String, kube::Error> {
    let api: Api<ClusterResourceBinding> = Api::all(sim.inner.hub.clone());
    let mut attempts = 0;
    loop {
        let name = {
            let mut rng = sim
                .inner
                .names
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            binding_name(placement, cluster, &mut rng)
        };
        attempts += 1;
        match api
            .create(
                &PostParams::default(),
                &new_binding(&name, placement, cluster),
            )
            .await
        {
            Ok(_) => return Ok(name),
            Err(kube::Error::Api(status)) if status.code == 409 && attempts < 3 => continue,
            Err(error) => return Err(error),
        }
    }
}

/// Sets `ClusterResourcePlacementScheduled=True` for the placement's generation, keeping
/// its other conditions.
async fn mark_scheduled(sim: &HubSim, crp: &ClusterResourcePlacement) -> Result<(), kube::Error> {
    let mut list = crp
        .status
        .as_ref()
        .map(|s| s.conditions.clone())
        .unwrap_or_default();
    let scheduled = conditions::condition(
        CRP_SCHEDULED,
        true,
        REASON_SCHEDULE_SUCCEEDED,
        "The placement's clusters are picked".into(),
        crp.metadata.generation.unwrap_or(0),
        sim.inner.clock.now(),
    );
    conditions::set_condition(&mut list, scheduled);
    let patch = json!({"metadata": {"resourceVersion": crp.resource_version()}, "status": {"conditions": list}});
    let api: Api<ClusterResourcePlacement> = Api::all(sim.inner.hub.clone());
    api.patch_status(
        &crp.name_any(),
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )
    .await?;
    Ok(())
}
