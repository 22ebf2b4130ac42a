//! KubeFleet's placement, binding and member-cluster kinds, as far as we read them.
//!
//! On a real hub these CRDs belong to KubeFleet; the subset CRDs generated from these types
//! are installed only by the sandbox and tests (`crds/sandbox/`). Never in the chart: applied
//! to a real hub they would replace KubeFleet's and prune its data.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector};
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::wire_enum::wire_enum;

wire_enum!(
    /// How the scheduler picks clusters for a placement.
    PlacementType, schema_enum = true, {
        PickAll => "PickAll",
        PickN => "PickN",
        PickFixed => "PickFixed",
    }
);

wire_enum!(
    /// Where a binding is in its life.
    BindingState, schema_enum = true, {
        Scheduled => "Scheduled",
        Bound => "Bound",
        Unscheduled => "Unscheduled",
    }
);

wire_enum!(
    /// The effect of a member-cluster taint.
    TaintEffect, schema_enum = true, {
        NoSchedule => "NoSchedule",
    }
);

/// A placement: which hub resources go to which member clusters.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kube(
    group = "placement.kubernetes-fleet.io",
    version = "v1beta1",
    kind = "ClusterResourcePlacement",
    doc = "Sandbox stand-in (subset) for KubeFleet's ClusterResourcePlacement.",
    shortname = "crp",
    category = "fleet",
    category = "fleet-placement",
    status = "PlacementStatus"
)]
#[serde(rename_all = "camelCase")]
pub struct PlacementSpec {
    /// The cluster-scoped hub resources (typically namespaces) the placement propagates.
    #[serde(default)]
    pub resource_selectors: Vec<ResourceSelector>,
    /// Absent means PickAll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PlacementPolicy>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSelector {
    pub group: String,
    pub version: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PlacementPolicy {
    /// Absent means PickAll.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_type: Option<PlacementType>,
    /// PickFixed: the clusters, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_names: Option<Vec<String>>,
    /// PickN: how many clusters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number_of_clusters: Option<i32>,
}

#[derive(Serialize, Deserialize, KubeSchema, Clone, Debug, PartialEq, Default)]
pub struct PlacementStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<Condition>,
}

/// The scheduler's decision to place a placement on one cluster.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kube(
    group = "placement.kubernetes-fleet.io",
    version = "v1beta1",
    kind = "ClusterResourceBinding",
    doc = "Sandbox stand-in (subset) for KubeFleet's ClusterResourceBinding.",
    shortname = "crb",
    category = "fleet",
    category = "fleet-placement",
    status = "BindingStatus",
    printcolumn = r#"{"name":"WorkSynchronized","type":"string","jsonPath":".status.conditions[?(@.type==\"WorkSynchronized\")].status"}"#,
    printcolumn = r#"{"name":"ResourcesApplied","type":"string","jsonPath":".status.conditions[?(@.type==\"Applied\")].status"}"#,
    printcolumn = r#"{"name":"ResourceAvailable","type":"string","priority":1,"jsonPath":".status.conditions[?(@.type==\"Available\")].status"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct BindingSpec {
    /// Optional here so an odd binding is reported, not dropped by a watch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub state: Option<BindingState>,
    #[serde(default)]
    pub target_cluster: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_snapshot_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scheduling_policy_snapshot_name: Option<String>,
}

#[derive(Serialize, Deserialize, KubeSchema, Clone, Debug, PartialEq, Default)]
pub struct BindingStatus {
    /// `Overridden`, `WorkSynchronized`, `Applied`, `Available`, `DiffReported`, each with
    /// `observedGeneration`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<Condition>,
}

/// A member cluster registered with the hub.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kube(
    group = "cluster.kubernetes-fleet.io",
    version = "v1beta1",
    kind = "MemberCluster",
    doc = "Sandbox stand-in (subset) for KubeFleet's MemberCluster.",
    shortname = "cluster",
    category = "fleet",
    category = "fleet-cluster",
    status = "MemberClusterStatus",
    printcolumn = r#"{"name":"Joined","type":"string","jsonPath":".status.conditions[?(@.type==\"Joined\")].status"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct MemberClusterSpec {
    /// The identity the member's agents use on the hub.
    #[serde(default)]
    pub identity: Subject,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeat_period_seconds: Option<i32>,
    /// `drain` adds a NoSchedule taint so the scheduler does not pick the cluster again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taints: Option<Vec<Taint>>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct Subject {
    pub kind: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq)]
pub struct Taint {
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub effect: TaintEffect,
}

#[derive(Serialize, Deserialize, KubeSchema, Clone, Debug, PartialEq, Default)]
pub struct MemberClusterStatus {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[x_kube(merge_strategy = ListMerge::Map(vec!["type".into()]))]
    pub conditions: Vec<Condition>,
}
