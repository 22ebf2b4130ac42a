//! PodDisruptionBudget status and the eviction subresource's decision, computed the way
//! kube-apiserver (the `pods/eviction` REST handler) and kube-controller-manager's disruption
//! controller compute them in Kubernetes 1.32.
//!
//! Pure logic: the sandbox's API server finds the pods a budget selects, the budgets that cover
//! a pod and the scale of the pods' controllers, passes the current time in, and does the
//! writes. Nothing here reads a clock or a store.

mod condition;
mod disrupted_pods;
mod eviction;
mod expected_pods;
mod pod_health;
mod refusal;
mod scaled_value;
mod status;
mod timestamps;

#[cfg(test)]
mod fixtures;

pub use disrupted_pods::{DELETION_TIMEOUT_SECONDS, next_recheck};
pub use eviction::{BudgetUpdate, EvictionDecision, eviction_decision};
pub use expected_pods::{
    BudgetError, BudgetTarget, ControllerScale, ControllerScales, expected_pods,
};
pub use refusal::Refusal;
pub use status::pdb_status;
