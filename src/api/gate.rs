//! The gate list shared by fleet evictions, PodMigrationJobs and their profiles.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The Kubernetes condition-type pattern (`metav1.Condition.type`), which gate names follow
/// because a gate is opened by a condition of that type.
pub const CONDITION_TYPE_PATTERN: &str = r"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$";

/// Most gates one object may list.
pub const MAX_GATES: usize = 16;

/// Fleet-level gates may not reuse the condition types the eviction controller writes.
pub const FLEET_GATE_NAMES_RULE: &str = "self.all(c, !(c.name in ['Valid', 'Executed', 'Progressing', 'BudgetReserved', 'ExternalEvacuation']))";
pub const FLEET_GATE_NAMES_MESSAGE: &str = "Eviction condition names must not be one of Valid, Executed, Progressing, BudgetReserved, ExternalEvacuation";

/// Pod-level gates may not reuse the condition types a PodMigrationJob's steps write.
pub const POD_GATE_NAMES_RULE: &str = "self.all(c, !(c.name in ['ReservationCreated', 'ReservationScheduled', 'Preemption', 'Eviction', 'PodScheduled', 'PodBoundReservation', 'BoundPodReady', 'ReservationBound', 'ExternalEvacuation']))";
pub const POD_GATE_NAMES_MESSAGE: &str = "Eviction condition names must not be one of ReservationCreated, ReservationScheduled, Preemption, Eviction, PodScheduled, PodBoundReservation, BoundPodReady, ReservationBound, ExternalEvacuation";

/// One gate: an external controller opens it by setting the status condition of this type to
/// `True` (`False` denies the eviction).
#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Eq)]
pub struct EvictionCondition {
    /// The condition type that opens this gate.
    #[schemars(length(max = 316), pattern(CONDITION_TYPE_PATTERN))]
    pub name: String,
}

impl EvictionCondition {
    pub fn new(name: impl Into<String>) -> Self {
        Self { name: name.into() }
    }
}
