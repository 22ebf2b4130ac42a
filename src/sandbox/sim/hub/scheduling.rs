//! The stand-in scheduler's decisions, without IO: which clusters a placement still needs a
//! binding on, and the binding it creates there.
//!
//! - PickAll (or no policy): every MemberCluster without a `NoSchedule` taint.
//! - PickN: the first `numberOfClusters` such members by name, counting the placement's
//!   bindings that are not being deleted.
//! - PickFixed: the `clusterNames` that exist as MemberClusters (taints do not apply).
//!
//! Members being deleted are never picked, and neither is a cluster that already has a
//! binding of the placement (deleting or not): one cluster, one binding.

use crate::api::keys::{PARENT_CRP_LABEL, SANDBOX_SIMULATE_LABEL};
use crate::api::kubefleet::{
    BindingSpec, BindingState, ClusterResourceBinding, MemberCluster, PlacementPolicy,
    PlacementType, TaintEffect,
};
use crate::sandbox::apiserver::rng::Rng;
use kube::api::ObjectMeta;
use std::collections::{BTreeMap, BTreeSet};

/// KubeFleet's work generator holds this on every binding until the placed resources are
/// withdrawn from the member (`WorkFinalizer` in KubeFleet `apis/placement/v1beta1`).
pub const WORK_CLEANUP_FINALIZER: &str = "kubernetes-fleet.io/work-cleanup";

/// The clusters to bind now, sorted by name.
pub fn clusters_to_bind(
    policy: Option<&PlacementPolicy>,
    members: &[MemberCluster],
    bindings: &[ClusterResourceBinding],
) -> Vec<String> {
    let bound: BTreeSet<&str> = bindings
        .iter()
        .map(|b| b.spec.target_cluster.as_str())
        .collect();
    let live = bindings
        .iter()
        .filter(|b| b.metadata.deletion_timestamp.is_none())
        .count();
    let present: BTreeMap<&str, &MemberCluster> = members
        .iter()
        .filter(|m| m.metadata.deletion_timestamp.is_none())
        .filter_map(|m| m.metadata.name.as_deref().map(|name| (name, m)))
        .collect();
    let schedulable = present
        .iter()
        .filter(|(_, m)| !has_no_schedule_taint(m))
        .map(|(name, _)| *name);
    let placement_type = policy
        .and_then(|p| p.placement_type.clone())
        .unwrap_or(PlacementType::PickAll);
    let picked: Vec<&str> = match placement_type {
        PlacementType::PickAll => schedulable.filter(|c| !bound.contains(c)).collect(),
        PlacementType::PickN => {
            let wanted = policy.and_then(|p| p.number_of_clusters).unwrap_or(0);
            let missing = usize::try_from(wanted).unwrap_or(0).saturating_sub(live);
            schedulable
                .filter(|c| !bound.contains(c))
                .take(missing)
                .collect()
        }
        PlacementType::PickFixed => {
            let named: BTreeSet<&str> = policy
                .and_then(|p| p.cluster_names.as_ref())
                .into_iter()
                .flatten()
                .map(String::as_str)
                .collect();
            named
                .into_iter()
                .filter(|c| present.contains_key(c) && !bound.contains(c))
                .collect()
        }
        // An unknown placement type: KubeFleet's webhook would have refused it.
        PlacementType::Other(_) => Vec::new(),
    };
    picked.into_iter().map(str::to_string).collect()
}

fn has_no_schedule_taint(member: &MemberCluster) -> bool {
    member
        .spec
        .taints
        .iter()
        .flatten()
        .any(|t| t.effect == TaintEffect::NoSchedule)
}

/// `<placement>-<cluster>-<8 lowercase alphanumerics>`, as KubeFleet's scheduler names them.
pub fn binding_name(placement: &str, cluster: &str, rng: &mut Rng) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let suffix: String = (0..8)
        .map(|_| {
            let index = (rng.next_u64() % ALPHABET.len() as u64) as usize;
            ALPHABET.get(index).map_or('x', |b| char::from(*b))
        })
        .collect();
    format!("{placement}-{cluster}-{suffix}")
}

/// A Bound binding of the placement on the cluster, labelled for its placement and for
/// this simulation, holding the work-cleanup finalizer.
pub fn new_binding(name: &str, placement: &str, cluster: &str) -> ClusterResourceBinding {
    let labels = BTreeMap::from([
        (PARENT_CRP_LABEL.to_string(), placement.to_string()),
        (SANDBOX_SIMULATE_LABEL.to_string(), "true".to_string()),
    ]);
    let mut binding = ClusterResourceBinding::new(
        name,
        BindingSpec {
            state: Some(BindingState::Bound),
            target_cluster: cluster.into(),
            ..BindingSpec::default()
        },
    );
    binding.metadata = ObjectMeta {
        name: Some(name.into()),
        labels: Some(labels),
        finalizers: Some(vec![WORK_CLEANUP_FINALIZER.into()]),
        ..ObjectMeta::default()
    };
    binding
}

#[cfg(test)]
#[path = "scheduling_tests.rs"]
mod tests;
