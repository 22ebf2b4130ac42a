//! ClusterResourcePlacementEviction: KubeFleet's eviction of one placement from one member
//! cluster, plus our optional extensions (fleet-eviction.md §1, §5).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    Condition, DeleteOptions, LabelSelector, Time,
};
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::gate::{
    EvictionCondition, FLEET_GATE_NAMES_MESSAGE, FLEET_GATE_NAMES_RULE, POD_GATE_NAMES_MESSAGE,
    POD_GATE_NAMES_RULE,
};
use super::rules::immutable;
use super::wire_enum::wire_enum;

wire_enum!(
    /// How the placement is taken off the cluster once the eviction may proceed.
    EvictionStrategy, schema_enum = true, {
        /// We delete the binding (KubeFleet behaviour).
        Delete => "Delete",
        /// We signal the binding and an external controller tears the placement down.
        External => "External",
    }
);

/// The eviction of a placement from one member cluster. Without extension fields it behaves
/// exactly as KubeFleet's eviction.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq)]
#[kube(
    group = "placement.kubernetes-fleet.io",
    version = "v1beta1",
    kind = "ClusterResourcePlacementEviction",
    doc = "Evicts a placement from one member cluster (KubeFleet API with fleet-eviction extensions).",
    shortname = "crpe",
    category = "fleet",
    category = "fleet-placement",
    status = "EvictionStatus",
    printcolumn = r#"{"name":"Valid","type":"string","jsonPath":".status.conditions[?(@.type==\"Valid\")].status"}"#,
    printcolumn = r#"{"name":"Executed","type":"string","jsonPath":".status.conditions[?(@.type==\"Executed\")].status"}"#,
    printcolumn = r#"{"name":"Stage","type":"string","jsonPath":".status.conditions[?(@.type==\"Progressing\")].reason"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#,
    printcolumn = r#"{"name":"Strategy","type":"string","priority":1,"jsonPath":".spec.strategy"}"#
)]
#[serde(rename_all = "camelCase")]
#[x_kube(
    validation = Rule::new(immutable!("evictionConditions")).message("The EvictionConditions field is immutable"),
    validation = Rule::new(immutable!("strategy")).message("The Strategy field is immutable"),
    validation = Rule::new(immutable!("ttl")).message("The TTL field is immutable"),
    validation = Rule::new(immutable!("waitForBudget")).message("The WaitForBudget field is immutable"),
    validation = Rule::new(immutable!("podMigration")).message("The PodMigration field is immutable"),
    validation = Rule::new("!has(self.podMigration)").message("podMigration is not supported yet")
)]
pub struct EvictionSpec {
    /// The name of the placement to evict from the cluster.
    #[schemars(length(max = 255))]
    #[x_kube(validation = Rule::new("self == oldSelf").message("The PlacementName field is immutable"))]
    pub placement_name: String,

    /// The member cluster to evict the placement from.
    #[schemars(length(max = 255))]
    #[x_kube(validation = Rule::new("self == oldSelf").message("The ClusterName field is immutable"))]
    pub cluster_name: String,

    /// Gates: condition types external controllers must set to True before the eviction acts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 16), extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    #[x_kube(validation = Rule::new(FLEET_GATE_NAMES_RULE).message(FLEET_GATE_NAMES_MESSAGE))]
    pub eviction_conditions: Option<Vec<EvictionCondition>>,

    /// `Delete` (default behaviour) or `External` (hand-off to an external controller).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<EvictionStrategy>,

    /// Go duration from creation after which an unfinished eviction ends with `Timeout`;
    /// `0s` means none. Has no effect on a plain (non-extended) eviction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(super::duration::PATTERN))]
    pub ttl: Option<String>,

    /// Wait for the budget instead of ending blocked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_for_budget: Option<bool>,

    /// Drain the placement's pods on the member before withdrawal (not supported yet: the CRD
    /// rejects it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_migration: Option<PodMigrationSpec>,
}

/// The pod drain requested by an eviction (pod-migration.md §6; a later milestone).
#[derive(Serialize, Deserialize, KubeSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PodMigrationSpec {
    /// Narrows the pods drained to those matching; absent = every pod the placement owns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_selector: Option<LabelSelector>,
    /// Pods handed to an external controller (policy External) instead of soft eviction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_pod_selector: Option<LabelSelector>,
    /// Pod-level gates put on every job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 16), extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    #[x_kube(validation = Rule::new(POD_GATE_NAMES_RULE).message(POD_GATE_NAMES_MESSAGE))]
    pub eviction_conditions: Option<Vec<EvictionCondition>>,
    /// Delete options passed to every job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_options: Option<DeleteOptions>,
}

/// Observed state of an eviction.
#[derive(Serialize, Deserialize, KubeSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct EvictionStatus {
    /// `Valid`, `Executed` and, for extended evictions, `Progressing`, `BudgetReserved`,
    /// `ExternalEvacuation`; gate conditions written by external controllers live here too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<Condition>,
    /// The binding this eviction acts on, pinned by name and uid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_binding: Option<TargetBinding>,
    /// Present exactly while `BudgetReserved=True`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation: Option<Reservation>,
    /// Creation time plus the effective ttl.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadline: Option<Time>,
    /// Summary of the pod drain's jobs (later milestone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_migration: Option<PodMigrationSummary>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Eq)]
pub struct TargetBinding {
    pub name: String,
    pub uid: String,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Reservation {
    /// The binding whose availability is reserved.
    pub binding: String,
    pub reserved_at: Time,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Eq, Default)]
pub struct PodMigrationSummary {
    pub total: i32,
    pub waiting: i32,
    pub running: i32,
    pub succeeded: i32,
    pub failed: i32,
}
