//! The wire strings of fleet-eviction.md §3 and §5.3, spelled out as the spec spells them,
//! for the decision tables: a drift in `messages.rs` fails those tables instead of following
//! along.

pub const REASON_INVALID: &str = "ClusterResourcePlacementEvictionInvalid";

pub const REASON_VALID: &str = "ClusterResourcePlacementEvictionValid";

pub const REASON_EXECUTED: &str = "ClusterResourcePlacementEvictionExecuted";

pub const REASON_NOT_EXECUTED: &str = "ClusterResourcePlacementEvictionNotExecuted";

pub const MISSING_CRP: &str = "Failed to find ClusterResourcePlacement targeted by eviction";

pub const DELETING_CRP: &str = "Found deleting ClusterResourcePlacement targeted by eviction";

pub const PICK_FIXED: &str =
    "Found ClusterResourcePlacement with PickFixed placement type targeted by eviction";

pub const MISSING_CRB: &str =
    "Failed to find scheduler decision for placement in cluster targeted by eviction";

pub const MULTIPLE_CRB: &str =
    "Found more than one scheduler decision for placement in cluster targeted by eviction";

pub const VALID: &str = "Eviction is valid";

pub const NO_PDB: &str =
    "Eviction is allowed, no ClusterResourcePlacementDisruptionBudget specified";

pub const PLACEMENT_REMOVED: &str = "Eviction is allowed, resources propagated by placement is currently being removed from cluster targeted by eviction";

pub const PLACEMENT_FAILED: &str = "Eviction is allowed, placement has failed";

pub const MISSING_PLACEMENT: &str =
    "Eviction is blocked, placement has not propagated resources to target cluster yet";

pub const MISCONFIGURED_PDB: &str = "Eviction is blocked by misconfigured ClusterResourcePlacementDisruptionBudget, either MaxUnavailable is specified or MinAvailable is specified as a percentage for PickAll ClusterResourcePlacement";

pub const IN_PROGRESS: &str = "Eviction is blocked, another eviction is in progress for the scheduler decision of cluster targeted by eviction";

pub fn allowed_message(a: i64, t: i64) -> String {
    format!(
        "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: {a}, totalPlacements: {t}"
    )
}

pub fn blocked_message(a: i64, t: i64) -> String {
    format!(
        "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: {a}, totalPlacements: {t}"
    )
}

pub const WITHDRAWING: &str =
    "Eviction is removing the placement from cluster targeted by eviction";

pub const WAITING_FOR_EXTERNAL: &str = "Eviction is waiting for an external controller to remove the placement from cluster targeted by eviction";

pub const RESERVED: &str =
    "Budget reserved for the scheduler decision of cluster targeted by eviction";

pub const RELEASED: &str = "Budget reservation released";

pub const EXTERNAL_REQUESTED: &str =
    "External evacuation of the placement from cluster targeted by eviction requested";

pub const EXTERNAL_REMOVED: &str = "Eviction is allowed, an external controller removed the placement from cluster targeted by eviction";

pub const FINALIZER: &str = "fleet-eviction.io/cleanup";

pub fn waiting_for_budget(a: i64, t: i64) -> String {
    format!(
        "Eviction is waiting for the ClusterResourcePlacementDisruptionBudget, availablePlacements: {a}, totalPlacements: {t}"
    )
}
