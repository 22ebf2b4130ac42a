//! The wire contract of the eviction's status: condition types, reasons and messages exactly
//! as KubeFleet writes them (fleet-eviction.md §3) and as our extensions add them (§5.3).
//! Every string a user or a KubeFleet tool may compare lives here and nowhere else.

use super::budget::Counts;

// Condition types.
pub const VALID: &str = "Valid";
pub const EXECUTED: &str = "Executed";
pub const PROGRESSING: &str = "Progressing";
pub const BUDGET_RESERVED: &str = "BudgetReserved";
pub const EXTERNAL_EVACUATION: &str = "ExternalEvacuation";

// KubeFleet's reasons.
pub const REASON_INVALID: &str = "ClusterResourcePlacementEvictionInvalid";
pub const REASON_VALID: &str = "ClusterResourcePlacementEvictionValid";
pub const REASON_EXECUTED: &str = "ClusterResourcePlacementEvictionExecuted";
pub const REASON_NOT_EXECUTED: &str = "ClusterResourcePlacementEvictionNotExecuted";

// KubeFleet's messages (§3).
pub const MISSING_CRP: &str = "Failed to find ClusterResourcePlacement targeted by eviction";
pub const DELETING_CRP: &str = "Found deleting ClusterResourcePlacement targeted by eviction";
pub const PICK_FIXED: &str =
    "Found ClusterResourcePlacement with PickFixed placement type targeted by eviction";
pub const MISSING_CRB: &str =
    "Failed to find scheduler decision for placement in cluster targeted by eviction";
pub const MULTIPLE_CRB: &str =
    "Found more than one scheduler decision for placement in cluster targeted by eviction";
pub const VALID_MESSAGE: &str = "Eviction is valid";
pub const NO_PDB: &str =
    "Eviction is allowed, no ClusterResourcePlacementDisruptionBudget specified";
pub const PLACEMENT_REMOVED: &str = "Eviction is allowed, resources propagated by placement is currently being removed from cluster targeted by eviction";
pub const PLACEMENT_FAILED: &str = "Eviction is allowed, placement has failed";
pub const MISSING_PLACEMENT: &str =
    "Eviction is blocked, placement has not propagated resources to target cluster yet";
pub const MISCONFIGURED_PDB: &str = "Eviction is blocked by misconfigured ClusterResourcePlacementDisruptionBudget, either MaxUnavailable is specified or MinAvailable is specified as a percentage for PickAll ClusterResourcePlacement";

/// `Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, ...`
pub fn allowed_by_budget(counts: Counts) -> String {
    format!(
        "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: {}, totalPlacements: {}",
        counts.available, counts.total
    )
}

/// `Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, ...`
pub fn blocked_by_budget(counts: Counts) -> String {
    format!(
        "Eviction is blocked by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: {}, totalPlacements: {}",
        counts.available, counts.total
    )
}

// Our additions to the Executed condition (§5.1, §5.3).
pub const ANOTHER_EVICTION_IN_PROGRESS: &str = "Eviction is blocked, another eviction is in progress for the scheduler decision of cluster targeted by eviction";
pub const EXTERNAL_REMOVED: &str = "Eviction is allowed, an external controller removed the placement from cluster targeted by eviction";
pub const REASON_CONDITION_DENIED: &str = "EvictionConditionDenied";
pub const REASON_EXTERNAL_FAILED: &str = "ExternalEvacuationFailed";
pub const REASON_TIMEOUT: &str = "Timeout";

pub fn condition_denied(gate: &str, message: &str) -> String {
    format!("Eviction is blocked, eviction condition {gate} was denied: {message}")
}

pub fn external_failed(message: &str) -> String {
    format!("Eviction is blocked, external evacuation failed: {message}")
}

pub fn timeout(ttl: &str, stage: &str) -> String {
    format!("Eviction is blocked, ttl {ttl} expired while {stage}")
}

/// An eviction whose `strategy` this version does not know (the CRD's enum normally refuses
/// it at admission; an older CRD may not).
pub fn unknown_strategy(strategy: &str) -> String {
    format!("Eviction strategy {strategy:?} is not supported, expected Delete or External")
}

// Stages: the reasons of `Progressing` (§5.3).
pub const STAGE_WAITING_FOR_BUDGET: &str = "WaitingForBudget";
pub const STAGE_WAITING_FOR_CONDITIONS: &str = "WaitingForConditions";
pub const STAGE_WITHDRAWING: &str = "Withdrawing";
pub const STAGE_WAITING_FOR_EXTERNAL: &str = "WaitingForExternal";
/// Our addition: a second extended eviction of the same placement and cluster waits for the
/// first to end (§5.1 names the behaviour, not a reason).
pub const STAGE_WAITING_FOR_EVICTION: &str = "WaitingForEviction";
pub const STAGE_SUCCEEDED: &str = "Succeeded";
pub const STAGE_FAILED: &str = "Failed";
/// The stage named in a timeout message when no stage was ever recorded.
pub const STAGE_PENDING: &str = "Pending";

pub fn waiting_for_budget(counts: Counts) -> String {
    format!(
        "Eviction is waiting for the ClusterResourcePlacementDisruptionBudget, availablePlacements: {}, totalPlacements: {}",
        counts.available, counts.total
    )
}

pub fn waiting_for_conditions(gates: &[String]) -> String {
    format!(
        "Eviction is waiting for eviction conditions: {}",
        gates.join(", ")
    )
}

pub const WITHDRAWING: &str =
    "Eviction is removing the placement from cluster targeted by eviction";
pub const WAITING_FOR_EXTERNAL: &str = "Eviction is waiting for an external controller to remove the placement from cluster targeted by eviction";
pub const WAITING_FOR_EVICTION: &str = "Eviction is waiting for another eviction in progress for the scheduler decision of cluster targeted by eviction";

// BudgetReserved and ExternalEvacuation.
pub const REASON_RESERVED: &str = "Reserved";
pub const RESERVED: &str =
    "Budget reserved for the scheduler decision of cluster targeted by eviction";
pub const REASON_RELEASED: &str = "Released";
pub const RELEASED: &str = "Budget reservation released";
pub const REASON_REQUESTED: &str = "Requested";
pub const EXTERNAL_REQUESTED: &str =
    "External evacuation of the placement from cluster targeted by eviction requested";
/// Event reason when the hand-off signal is raised on the binding.
pub const EVENT_EXTERNAL_REQUESTED: &str = "ExternalEvacuationRequested";
