//! PodMigrationJobProfile: gates injected into every matching PodMigrationJob
//! (pod-migration.md §1, §3). Our kind, in Koordinator's group.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kube::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

use super::gate::{EvictionCondition, POD_GATE_NAMES_MESSAGE, POD_GATE_NAMES_RULE};

/// Applies to a job when both selectors match (the pod's namespace labels and the pod's
/// labels); an absent selector matches everything.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kube(
    group = "scheduling.koordinator.sh",
    version = "v1alpha1",
    kind = "PodMigrationJobProfile",
    doc = "Eviction conditions added to every matching PodMigrationJob.",
    shortname = "pmjp",
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct PodMigrationJobProfileSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,

    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,

    /// Gates added to matching jobs when they start running.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 16), extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    #[x_kube(validation = Rule::new(POD_GATE_NAMES_RULE).message(POD_GATE_NAMES_MESSAGE))]
    pub eviction_conditions: Option<Vec<EvictionCondition>>,
}
