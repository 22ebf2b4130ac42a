//! The CRDs generated from the types: the four we own (`crds/`, the chart, `fleet-eviction
//! crds`) and the KubeFleet stand-ins for the sandbox only (`crds/sandbox/`).

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::CustomResourceExt;
use serde_json::Value;

use super::{
    ClusterResourceBinding, ClusterResourcePlacement, ClusterResourcePlacementDisruptionBudget,
    ClusterResourcePlacementEviction, MemberCluster, PodMigrationJob, PodMigrationJobProfile,
};

pub const CRPE_CRD_NAME: &str = "clusterresourceplacementevictions.placement.kubernetes-fleet.io";
pub const CRPDB_CRD_NAME: &str =
    "clusterresourceplacementdisruptionbudgets.placement.kubernetes-fleet.io";
pub const PMJ_CRD_NAME: &str = "podmigrationjobs.scheduling.koordinator.sh";
pub const PMJP_CRD_NAME: &str = "podmigrationjobprofiles.scheduling.koordinator.sh";

/// The CRDs whose schema we own: CRPE and CRPDB (supersets of KubeFleet's), PodMigrationJob
/// (a superset of Koordinator's) and PodMigrationJobProfile.
pub fn owned() -> Vec<CustomResourceDefinition> {
    [
        with_alpha_version(ClusterResourcePlacementEviction::crd()),
        with_alpha_version(ClusterResourcePlacementDisruptionBudget::crd()),
        PodMigrationJob::crd(),
        PodMigrationJobProfile::crd(),
    ]
    .into_iter()
    .map(without_nullable)
    .collect()
}

/// Subset CRDs of KubeFleet's placement, binding and member-cluster kinds, for the sandbox.
pub fn sandbox_stand_ins() -> Vec<CustomResourceDefinition> {
    [
        ClusterResourcePlacement::crd(),
        ClusterResourceBinding::crd(),
        MemberCluster::crd(),
    ]
    .into_iter()
    .map(without_nullable)
    .collect()
}

/// KubeFleet serves its eviction and budget at `v1alpha1` too, with the same schema; `v1beta1`
/// stays the storage version. Upstream's `v1alpha1` has no printer columns, so ours has none.
fn with_alpha_version(mut crd: CustomResourceDefinition) -> CustomResourceDefinition {
    let Some(beta) = crd.spec.versions.first().cloned() else {
        return crd;
    };
    let mut alpha = beta;
    alpha.name = "v1alpha1".into();
    alpha.storage = false;
    alpha.additional_printer_columns = None;
    crd.spec.versions.push(alpha);
    crd
}

/// The derives mark every `Option` field `nullable` (and add `null` to optional enums). We
/// never send nulls, and a non-nullable field's null is pruned by the server, which is what
/// KubeFleet's and Koordinator's CRDs do: so the schemas drop both, to read like theirs.
fn without_nullable(crd: CustomResourceDefinition) -> CustomResourceDefinition {
    fn tidy(node: &mut Value) {
        match node {
            Value::Object(map) => {
                map.remove("nullable");
                if let Some(Value::Array(values)) = map.get_mut("enum") {
                    values.retain(|value| !value.is_null());
                }
                map.values_mut().for_each(tidy);
            }
            Value::Array(items) => items.iter_mut().for_each(tidy),
            _ => {}
        }
    }
    let Ok(mut value) = serde_json::to_value(&crd) else {
        return crd;
    };
    tidy(&mut value);
    serde_json::from_value(value).unwrap_or(crd)
}

/// The file a CRD is kept in under `crds/` (or `crds/sandbox/`).
pub fn file_name(crd: &CustomResourceDefinition) -> String {
    format!("{}.yaml", crd.metadata.name.as_deref().unwrap_or("unnamed"))
}

/// Multi-document YAML, one document per CRD, as `kubectl apply -f -` reads it.
pub fn to_yaml(crds: &[CustomResourceDefinition]) -> String {
    crds.iter()
        .map(|crd| match serde_saphyr::to_string(crd) {
            Ok(yaml) => format!("---\n{yaml}"),
            // Generated CRDs are plain data; serialization cannot fail short of a bug.
            Err(error) => panic!("CRD {} does not serialize: {error}", file_name(crd)),
        })
        .collect()
}
