//! One tick's read of the hub: placements, bindings, member clusters, and what each
//! simulated placement puts on its members.

use super::placed::{self, Placed, PlacedKind};
use crate::api::keys::{PARENT_CRP_LABEL, SANDBOX_SIMULATE_LABEL};
use crate::api::kubefleet::{ClusterResourceBinding, ClusterResourcePlacement, MemberCluster};
use kube::api::{Api, DynamicObject, ListParams};
use kube::{Client, ResourceExt};
use serde_json::Value;
use std::collections::BTreeMap;

/// Whether an object carries `sandbox.fleet-eviction.io/simulate: "true"`.
pub fn is_simulated<K: ResourceExt>(object: &K) -> bool {
    object
        .labels()
        .get(SANDBOX_SIMULATE_LABEL)
        .is_some_and(|v| v == "true")
}

/// The placement a binding names in `kubernetes-fleet.io/parent-CRP`.
pub fn parent_placement(binding: &ClusterResourceBinding) -> Option<&str> {
    binding.labels().get(PARENT_CRP_LABEL).map(String::as_str)
}

#[derive(Debug, Default)]
pub struct HubView {
    pub placements: BTreeMap<String, ClusterResourcePlacement>,
    pub bindings: Vec<ClusterResourceBinding>,
    pub members: Vec<MemberCluster>,
}

impl HubView {
    pub async fn read(hub: &Client) -> Result<HubView, kube::Error> {
        let lp = ListParams::default();
        let placements = Api::<ClusterResourcePlacement>::all(hub.clone())
            .list(&lp)
            .await?
            .items
            .into_iter()
            .map(|crp| (crp.name_any(), crp))
            .collect();
        let bindings = Api::<ClusterResourceBinding>::all(hub.clone())
            .list(&lp)
            .await?
            .items;
        let members = Api::<MemberCluster>::all(hub.clone())
            .list(&lp)
            .await?
            .items;
        Ok(HubView {
            placements,
            bindings,
            members,
        })
    }

    /// The simulated placement of that name.
    pub fn simulated_placement(&self, name: &str) -> Option<&ClusterResourcePlacement> {
        self.placements.get(name).filter(|crp| is_simulated(*crp))
    }

    /// The bindings this simulation manages: those labelled for it.
    pub fn managed_bindings(&self) -> impl Iterator<Item = &ClusterResourceBinding> {
        self.bindings.iter().filter(|b| is_simulated(*b))
    }

    pub fn has_member(&self, name: &str) -> bool {
        self.members.iter().any(|m| m.name_any() == name)
    }
}

/// What each simulated placement with managed bindings puts on a member, or why the hub
/// could not be read for it.
pub type Desired = BTreeMap<String, Result<Vec<Placed>, String>>;

pub async fn desired_objects(hub: &Client, view: &HubView) -> Desired {
    let wanted: Vec<&ClusterResourcePlacement> = view
        .managed_bindings()
        .filter_map(parent_placement)
        .filter_map(|name| view.simulated_placement(name))
        .collect();
    let mut desired = Desired::new();
    if wanted.is_empty() {
        return desired;
    }
    let namespaces = match list_values(hub, PlacedKind::Namespace, None).await {
        Ok(namespaces) => namespaces,
        Err(error) => {
            let why = format!("reading hub namespaces: {error}");
            for crp in wanted {
                desired.insert(crp.name_any(), Err(why.clone()));
            }
            return desired;
        }
    };
    for crp in wanted {
        if desired.contains_key(&crp.name_any()) {
            continue;
        }
        let objects = placement_objects(hub, crp, &namespaces)
            .await
            .map_err(|error| format!("reading hub objects: {error}"));
        desired.insert(crp.name_any(), objects);
    }
    desired
}

/// The selected namespaces and their content, namespaces first.
async fn placement_objects(
    hub: &Client,
    crp: &ClusterResourcePlacement,
    hub_namespaces: &[Value],
) -> Result<Vec<Placed>, kube::Error> {
    let selectors = serde_json::to_value(&crp.spec.resource_selectors)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default();
    let name = crp.name_any();
    let selected = placed::selected_namespaces(&selectors, hub_namespaces);
    let mut objects: Vec<Placed> = hub_namespaces
        .iter()
        .filter(|ns| {
            selected
                .iter()
                .any(|s| ns["metadata"]["name"] == s.as_str())
        })
        .map(|ns| placed::placed_copy(PlacedKind::Namespace, ns, &name))
        .collect();
    for namespace in &selected {
        for kind in PlacedKind::CONTENT {
            let mut items = list_values(hub, kind, Some(namespace)).await?;
            items.retain(|item| placed::is_copied(kind, item));
            objects.extend(items.iter().map(|o| placed::placed_copy(kind, o, &name)));
        }
    }
    Ok(objects)
}

/// Lists one kind as plain JSON, in one namespace or cluster-wide.
pub async fn list_values(
    client: &Client,
    kind: PlacedKind,
    namespace: Option<&str>,
) -> Result<Vec<Value>, kube::Error> {
    list_selected(client, kind, namespace, &ListParams::default()).await
}

pub async fn list_selected(
    client: &Client,
    kind: PlacedKind,
    namespace: Option<&str>,
    lp: &ListParams,
) -> Result<Vec<Value>, kube::Error> {
    let resource = kind.api_resource();
    let api: Api<DynamicObject> = match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    };
    let list = api.list(lp).await?;
    Ok(list
        .items
        .iter()
        .filter_map(|item| serde_json::to_value(item).ok())
        .collect())
}
