//! ClusterResourcePlacementDisruptionBudget: how many clusters of a placement voluntary
//! evictions may take down at once. Linked to its placement by equal name (KubeFleet's API).

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kube::{CustomResource, KubeSchema};
use serde::{Deserialize, Serialize};

/// The CEL rule KubeFleet puts on each int-or-string field.
const INT_OR_PERCENT_RULE: &str =
    "type(self) == string ? self.matches('^(100|[0-9]{1,2})%$') : self >= 0";

/// The budget for the placement of the same name. `spec: {}` blocks every eviction.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kube(
    group = "placement.kubernetes-fleet.io",
    version = "v1beta1",
    kind = "ClusterResourcePlacementDisruptionBudget",
    doc = "The disruption budget of the ClusterResourcePlacement with the same name.",
    shortname = "crpdb",
    category = "fleet",
    category = "fleet-placement"
)]
#[serde(rename_all = "camelCase")]
#[x_kube(validation = Rule::new("!(has(self.maxUnavailable) && has(self.minAvailable))")
    .message("Both MaxUnavailable and MinAvailable cannot be specified"))]
pub struct BudgetSpec {
    /// Most clusters that may be unavailable at once (integer or percentage of the placement's
    /// `numberOfClusters`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new(INT_OR_PERCENT_RULE).message(INT_OR_PERCENT_MESSAGE))]
    pub max_unavailable: Option<IntOrString>,

    /// Fewest clusters that must stay available (integer, or percentage for PickN placements).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[x_kube(validation = Rule::new(INT_OR_PERCENT_RULE).message(INT_OR_PERCENT_MESSAGE))]
    pub min_available: Option<IntOrString>,
}

const INT_OR_PERCENT_MESSAGE: &str = "If supplied value is String should match regex '^(100|[0-9]{1,2})%$' or If supplied value is Integer must be greater than or equal to 0";
