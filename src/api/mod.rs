//! The wire contract: CRD types (serde + schemars + kube-derive) and the keys we own. No logic.

pub mod budget;
pub mod crds;
pub mod duration;
pub mod eviction;
pub mod gate;
pub mod go_quote;
pub mod keys;
pub mod kubefleet;
pub mod migration;
pub mod profile;
mod rules;
mod schema;
pub mod wanted_condition;
mod wire_enum;

pub use budget::{BudgetSpec, ClusterResourcePlacementDisruptionBudget};
pub use eviction::{
    ClusterResourcePlacementEviction, EvictionSpec, EvictionStatus, EvictionStrategy,
    PodMigrationSpec, PodMigrationSummary, Reservation, TargetBinding,
};
pub use gate::EvictionCondition;
pub use kubefleet::{
    BindingSpec, BindingState, BindingStatus, ClusterResourceBinding, ClusterResourcePlacement,
    MemberCluster, MemberClusterSpec, PlacementPolicy, PlacementSpec, PlacementType,
};
pub use migration::{
    PodMigrationJob, PodMigrationJobCondition, PodMigrationJobMode, PodMigrationJobPhase,
    PodMigrationJobSpec, PodMigrationJobStatus,
};
pub use profile::{PodMigrationJobProfile, PodMigrationJobProfileSpec};
