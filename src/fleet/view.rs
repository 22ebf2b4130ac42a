//! What the decisions read from KubeFleet's objects, stripped to those fields (§1 "What we
//! read"). The controller caches these views, not the objects: a fleet has ~100k bindings.

use crate::api::keys::{EVACUATION_REQUESTED, PREVIOUS_BINDING_STATE_ANNOTATION};
use crate::api::kubefleet::{
    BindingState, ClusterResourceBinding, ClusterResourcePlacement, PlacementType,
};

/// How a placement picks its clusters, as far as budgets care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlacementKind {
    PickAll,
    /// PickN with its `numberOfClusters` (0 when absent).
    PickN(i64),
    PickFixed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlacementView {
    pub name: String,
    pub deleting: bool,
    pub kind: PlacementKind,
}

impl PlacementView {
    pub fn from_placement(crp: &ClusterResourcePlacement) -> PlacementView {
        let policy = crp.spec.policy.as_ref();
        let kind = match policy.and_then(|p| p.placement_type.as_ref()) {
            Some(PlacementType::PickN) => PlacementKind::PickN(
                policy
                    .and_then(|p| p.number_of_clusters)
                    .map_or(0, i64::from),
            ),
            Some(PlacementType::PickFixed) => PlacementKind::PickFixed,
            // A missing policy means PickAll. A type this version does not know gets PickAll's
            // rules too: they are the strictest (percentages and maxUnavailable block).
            Some(PlacementType::PickAll | PlacementType::Other(_)) | None => PlacementKind::PickAll,
        };
        PlacementView {
            name: crp.metadata.name.clone().unwrap_or_default(),
            deleting: crp.metadata.deletion_timestamp.is_some(),
            kind,
        }
    }
}

/// One binding condition the decisions read. A fleet has ~100k bindings with four or five
/// conditions each, so the type and status are interned and the reason is kept only where
/// §3 c reads it (a False status).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingCondition {
    pub type_: &'static str,
    /// `True`, `False`, or `Unknown` for anything else.
    pub status: &'static str,
    /// The reason of a `False` condition.
    pub reason: Option<Box<str>>,
    pub observed_generation: Option<i64>,
}

impl BindingCondition {
    /// `None` for a condition type the decisions do not read.
    pub fn new(
        type_: &str,
        status: &str,
        reason: &str,
        observed_generation: Option<i64>,
    ) -> Option<Self> {
        let type_ = *READ_CONDITIONS.iter().find(|t| **t == type_)?;
        let status = match status {
            "True" => "True",
            "False" => "False",
            _ => "Unknown",
        };
        Some(BindingCondition {
            type_,
            status,
            reason: (status == "False").then(|| reason.into()),
            observed_generation,
        })
    }
}

/// The binding condition types §3 and §4 read; the rest are dropped from the cache.
const READ_CONDITIONS: [&str; 5] = [
    "Overridden",
    "WorkSynchronized",
    "Applied",
    "Available",
    "DiffReported",
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingView {
    pub name: String,
    pub uid: String,
    pub resource_version: String,
    pub generation: i64,
    /// Has a deletionTimestamp (or, in the ledger's view, was deleted by us).
    pub deleting: bool,
    pub target_cluster: String,
    /// `None` when the binding carries no state (reported, never guessed).
    pub state: Option<BindingState>,
    /// `kubernetes-fleet.io/previous-binding-state`.
    pub previous_state: Option<String>,
    /// `fleet-eviction.io/evacuation-requested`: the eviction that signalled this binding.
    pub signal: Option<String>,
    pub conditions: Vec<BindingCondition>,
}

impl BindingView {
    pub fn from_binding(crb: &ClusterResourceBinding) -> BindingView {
        let meta = &crb.metadata;
        let annotation = |key: &str| meta.annotations.as_ref().and_then(|a| a.get(key)).cloned();
        let conditions = crb
            .status
            .as_ref()
            .map(|s| {
                s.conditions
                    .iter()
                    .filter_map(|c| {
                        BindingCondition::new(&c.type_, &c.status, &c.reason, c.observed_generation)
                    })
                    .collect()
            })
            .unwrap_or_default();
        BindingView {
            name: meta.name.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            resource_version: meta.resource_version.clone().unwrap_or_default(),
            generation: meta.generation.unwrap_or(0),
            deleting: meta.deletion_timestamp.is_some(),
            target_cluster: crb.spec.target_cluster.clone(),
            state: crb.spec.state.clone(),
            previous_state: annotation(PREVIOUS_BINDING_STATE_ANNOTATION),
            signal: annotation(EVACUATION_REQUESTED),
            conditions,
        }
    }

    /// The condition of `type_` if it speaks for the binding's current generation.
    pub fn current_condition(&self, type_: &str) -> Option<&BindingCondition> {
        self.conditions
            .iter()
            .find(|c| c.type_ == type_ && c.observed_generation == Some(self.generation))
    }

    /// `Available` is True for the current generation (§4 `A`).
    pub fn is_available(&self) -> bool {
        self.current_condition("Available")
            .is_some_and(|c| c.status == "True")
    }
}

#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// A Bound binding `name` on `cluster`, generation 1, Available for its generation.
    pub fn bound(name: &str, cluster: &str) -> BindingView {
        BindingView {
            name: name.into(),
            uid: format!("uid-{name}"),
            resource_version: "1".into(),
            generation: 1,
            deleting: false,
            target_cluster: cluster.into(),
            state: Some(BindingState::Bound),
            previous_state: None,
            signal: None,
            conditions: vec![condition("Available", "True", "AllWorkAreAvailable", 1)],
        }
    }

    pub fn condition(type_: &str, status: &str, reason: &str, generation: i64) -> BindingCondition {
        BindingCondition::new(type_, status, reason, Some(generation))
            .unwrap_or_else(|| panic!("{type_} is not a condition the decisions read"))
    }

    pub fn placement(kind: PlacementKind) -> PlacementView {
        PlacementView {
            name: "web".into(),
            deleting: false,
            kind,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;
    use serde_json::json;

    #[test]
    fn availability_needs_the_current_generation() {
        let rows = [
            ("Available True, current generation", "True", 1, true),
            ("Available True, stale observedGeneration", "True", 0, false),
            ("Available False", "False", 1, false),
            ("Available Unknown", "Unknown", 1, false),
        ];
        for (rule, status, observed, want) in rows {
            let mut b = bound("b", "member-1");
            b.conditions = vec![condition("Available", status, "r", observed)];
            assert_eq!(b.is_available(), want, "rule: {rule}");
        }
    }

    #[test]
    fn binding_view_keeps_what_decisions_read() {
        let crb: ClusterResourceBinding = serde_json::from_value(json!({
            "apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterResourceBinding",
            "metadata": {"name": "web-member-1-abcdefgh", "uid": "u1", "resourceVersion": "7", "generation": 2,
                         "deletionTimestamp": "2026-01-01T00:00:00Z",
                         "annotations": {"kubernetes-fleet.io/previous-binding-state": "Bound",
                                         "fleet-eviction.io/evacuation-requested": "evict-1", "other": "x"}},
            "spec": {"state": "Unscheduled", "targetCluster": "member-1"},
            "status": {"conditions": [
                {"type": "Available", "status": "True", "reason": "AllWorkAreAvailable", "observedGeneration": 2,
                 "lastTransitionTime": "2026-01-01T00:00:00Z", "message": "long text"},
                {"type": "SomethingElse", "status": "True", "reason": "x", "lastTransitionTime": "2026-01-01T00:00:00Z", "message": ""}
            ]}
        }))
        .expect("binding");
        let view = BindingView::from_binding(&crb);
        assert_eq!(view.name, "web-member-1-abcdefgh");
        assert_eq!(view.uid, "u1");
        assert_eq!(view.resource_version, "7");
        assert!(view.deleting);
        assert_eq!(view.state, Some(BindingState::Unscheduled));
        assert_eq!(view.previous_state.as_deref(), Some("Bound"));
        assert_eq!(view.signal.as_deref(), Some("evict-1"));
        assert_eq!(
            view.conditions,
            vec![condition("Available", "True", "AllWorkAreAvailable", 2)]
        );
        assert!(view.is_available());
    }

    #[test]
    fn placement_kinds() {
        let rows = [
            (
                "missing policy means PickAll",
                json!({}),
                PlacementKind::PickAll,
            ),
            (
                "missing type means PickAll",
                json!({"policy": {}}),
                PlacementKind::PickAll,
            ),
            (
                "PickN carries its number",
                json!({"policy": {"placementType": "PickN", "numberOfClusters": 4}}),
                PlacementKind::PickN(4),
            ),
            (
                "PickN without a number scales against 0",
                json!({"policy": {"placementType": "PickN"}}),
                PlacementKind::PickN(0),
            ),
            (
                "PickFixed",
                json!({"policy": {"placementType": "PickFixed", "clusterNames": ["a"]}}),
                PlacementKind::PickFixed,
            ),
            (
                "unknown type gets PickAll's strict rules",
                json!({"policy": {"placementType": "PickSome"}}),
                PlacementKind::PickAll,
            ),
        ];
        for (rule, spec, want) in rows {
            let crp: ClusterResourcePlacement = serde_json::from_value(json!({
                "apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterResourcePlacement",
                "metadata": {"name": "web"}, "spec": spec
            }))
            .expect("placement");
            assert_eq!(
                PlacementView::from_placement(&crp).kind,
                want,
                "rule: {rule}"
            );
        }
    }
}
