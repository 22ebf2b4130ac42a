//! The inputs of one eviction's decision, gathered by the controller from its caches, its
//! ledger and (for the budget) the API.

use super::view::{BindingView, PlacementView};
use crate::api::budget::BudgetSpec;
use crate::api::eviction::{ClusterResourcePlacementEviction, EvictionStrategy};
use crate::api::keys::CLEANUP_FINALIZER;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::Timestamp;
use std::time::Duration;

/// The budget, read from the API only when a decision needs it (§3 d).
#[derive(Debug, Clone, PartialEq)]
pub enum BudgetRead {
    NotRead,
    Absent,
    Present(BudgetSpec),
}

/// A budget reservation held by an in-flight extended eviction of the same placement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldReservation {
    pub eviction: String,
    pub binding: String,
}

#[derive(Debug, Clone)]
pub struct Facts<'a> {
    pub eviction: &'a ClusterResourcePlacementEviction,
    pub placement: Option<&'a PlacementView>,
    /// Every binding of the placement, with the ledger's own deletes applied.
    pub bindings: &'a [BindingView],
    /// Reservations of the placement's other evictions.
    pub others: &'a [HeldReservation],
    pub budget: BudgetRead,
    pub now: Timestamp,
    /// The ttl of an extended eviction that sets none (`--extended-ttl-default`).
    pub default_ttl: Duration,
}

impl Facts<'_> {
    pub fn name(&self) -> &str {
        self.eviction.metadata.name.as_deref().unwrap_or_default()
    }

    pub fn condition(&self, type_: &str) -> Option<&Condition> {
        condition(self.eviction, type_)
    }

    pub fn has_finalizer(&self) -> bool {
        has_cleanup_finalizer(self.eviction)
    }

    /// Bindings other evictions hold reservations on.
    pub fn reserved_by_others(&self) -> impl Iterator<Item = &str> + Clone {
        self.others.iter().map(|r| r.binding.as_str())
    }
}

/// Carries `fleet-eviction.io/cleanup`: we still hold something to clean up.
pub fn has_cleanup_finalizer(eviction: &ClusterResourcePlacementEviction) -> bool {
    eviction
        .metadata
        .finalizers
        .as_ref()
        .is_some_and(|f| f.iter().any(|f| f == CLEANUP_FINALIZER))
}

pub fn condition<'a>(
    eviction: &'a ClusterResourcePlacementEviction,
    type_: &str,
) -> Option<&'a Condition> {
    eviction
        .status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == type_))
}

fn condition_is(eviction: &ClusterResourcePlacementEviction, type_: &str, status: &str) -> bool {
    condition(eviction, type_).is_some_and(|c| c.status == status)
}

/// `Valid=False` or any `Executed`: the verdict is final (§3).
pub fn is_decided(eviction: &ClusterResourcePlacementEviction) -> bool {
    condition_is(eviction, super::messages::VALID, "False")
        || condition(eviction, super::messages::EXECUTED).is_some()
}

/// Holds a reservation: `BudgetReserved=True` and no `Executed` (the rebuild rule of §4.3).
pub fn holds_reservation(eviction: &ClusterResourcePlacementEviction) -> bool {
    condition_is(eviction, super::messages::BUDGET_RESERVED, "True")
        && condition(eviction, super::messages::EXECUTED).is_none()
}

/// First come, first served (§5 waitForBudget): evictions of a placement are decided in
/// order of creationTimestamp, then name.
pub fn arrival_order(
    a: &ClusterResourcePlacementEviction,
    b: &ClusterResourcePlacementEviction,
) -> std::cmp::Ordering {
    let key = |e: &ClusterResourcePlacementEviction| {
        (
            e.metadata.creation_timestamp.as_ref().map(|t| t.0),
            e.metadata.name.clone().unwrap_or_default(),
        )
    };
    key(a).cmp(&key(b))
}

/// Extended means any of gates, External, waitForBudget or a pod drain (§5); ttl alone does
/// not make an eviction extended. An unknown strategy is treated as extended so it gets a
/// clear status instead of silently running as Delete.
pub fn is_extended(eviction: &ClusterResourcePlacementEviction) -> bool {
    let spec = &eviction.spec;
    spec.eviction_conditions
        .as_ref()
        .is_some_and(|g| !g.is_empty())
        || matches!(
            spec.strategy,
            Some(EvictionStrategy::External | EvictionStrategy::Other(_))
        )
        || spec.wait_for_budget == Some(true)
        || spec.pod_migration.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn eviction(name: &str, created: &str) -> ClusterResourcePlacementEviction {
        serde_json::from_value(json!({
            "apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterResourcePlacementEviction",
            "metadata": {"name": name, "creationTimestamp": created},
            "spec": {"placementName": "web", "clusterName": "member-1"}
        }))
        .expect("eviction")
    }

    #[test]
    fn arrival_order_table() {
        let rows = [
            (
                "older first, whatever the name",
                ("b", "2026-01-01T00:00:00Z"),
                ("a", "2026-01-01T00:00:01Z"),
                "b",
            ),
            (
                "same second: by name",
                ("b", "2026-01-01T00:00:00Z"),
                ("a", "2026-01-01T00:00:00Z"),
                "a",
            ),
        ];
        for (rule, first, second, want) in rows {
            let mut list = [eviction(first.0, first.1), eviction(second.0, second.1)];
            list.sort_by(arrival_order);
            assert_eq!(list[0].metadata.name.as_deref(), Some(want), "rule: {rule}");
        }
    }
}
