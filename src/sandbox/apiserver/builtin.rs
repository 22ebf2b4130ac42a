//! The built-in kinds the sandbox serves: those our controller, kube-rs and kubectl touch.

use super::resource::{ResourceType, Shape, Wire};
use k8s_openapi::api::{apps, coordination, core, events, policy};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1 as apiextensions;
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;

/// Decodes into the typed form and encodes back, as the real server's decoder would: unknown
/// fields disappear and wrong types are refused.
fn typed<T: DeserializeOwned + Serialize>(value: Value) -> Result<Value, String> {
    let object: T = serde_json::from_value(value).map_err(|e| e.to_string())?;
    serde_json::to_value(object).map_err(|e| e.to_string())
}

struct Row {
    group: &'static str,
    version: &'static str,
    resource: &'static str,
    singular: &'static str,
    kind: &'static str,
    namespaced: bool,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
    subresources: &'static [&'static str],
    tracks_generation: bool,
    wire: Wire,
    normalise: fn(Value) -> Result<Value, String>,
}

const ALL: &[&str] = &["all"];

const ROWS: &[Row] = &[
    Row {
        group: "",
        version: "v1",
        resource: "namespaces",
        singular: "namespace",
        kind: "Namespace",
        namespaced: false,
        short_names: &["ns"],
        categories: &[],
        subresources: &["status"],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::Namespace>,
    },
    Row {
        group: "",
        version: "v1",
        resource: "pods",
        singular: "pod",
        kind: "Pod",
        namespaced: true,
        short_names: &["po"],
        categories: ALL,
        subresources: &["status", "eviction"],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::Pod>,
    },
    Row {
        group: "",
        version: "v1",
        resource: "nodes",
        singular: "node",
        kind: "Node",
        namespaced: false,
        short_names: &["no"],
        categories: &[],
        subresources: &["status"],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::Node>,
    },
    Row {
        group: "",
        version: "v1",
        resource: "events",
        singular: "event",
        kind: "Event",
        namespaced: true,
        short_names: &["ev"],
        categories: &[],
        subresources: &[],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::Event>,
    },
    Row {
        group: "",
        version: "v1",
        resource: "secrets",
        singular: "secret",
        kind: "Secret",
        namespaced: true,
        short_names: &[],
        categories: &[],
        subresources: &[],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::Secret>,
    },
    Row {
        group: "",
        version: "v1",
        resource: "configmaps",
        singular: "configmap",
        kind: "ConfigMap",
        namespaced: true,
        short_names: &["cm"],
        categories: &[],
        subresources: &[],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::ConfigMap>,
    },
    Row {
        group: "",
        version: "v1",
        resource: "serviceaccounts",
        singular: "serviceaccount",
        kind: "ServiceAccount",
        namespaced: true,
        short_names: &["sa"],
        categories: &[],
        subresources: &[],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<core::v1::ServiceAccount>,
    },
    Row {
        group: "apps",
        version: "v1",
        resource: "deployments",
        singular: "deployment",
        kind: "Deployment",
        namespaced: true,
        short_names: &["deploy"],
        categories: ALL,
        subresources: &["status"],
        tracks_generation: true,
        wire: Wire::Same,
        normalise: typed::<apps::v1::Deployment>,
    },
    Row {
        group: "apps",
        version: "v1",
        resource: "replicasets",
        singular: "replicaset",
        kind: "ReplicaSet",
        namespaced: true,
        short_names: &["rs"],
        categories: ALL,
        subresources: &["status"],
        tracks_generation: true,
        wire: Wire::Same,
        normalise: typed::<apps::v1::ReplicaSet>,
    },
    Row {
        group: "apps",
        version: "v1",
        resource: "statefulsets",
        singular: "statefulset",
        kind: "StatefulSet",
        namespaced: true,
        short_names: &["sts"],
        categories: ALL,
        subresources: &["status"],
        tracks_generation: true,
        wire: Wire::Same,
        normalise: typed::<apps::v1::StatefulSet>,
    },
    Row {
        group: "policy",
        version: "v1",
        resource: "poddisruptionbudgets",
        singular: "poddisruptionbudget",
        kind: "PodDisruptionBudget",
        namespaced: true,
        short_names: &["pdb"],
        categories: &[],
        subresources: &["status"],
        tracks_generation: true,
        wire: Wire::Same,
        normalise: typed::<policy::v1::PodDisruptionBudget>,
    },
    Row {
        group: "coordination.k8s.io",
        version: "v1",
        resource: "leases",
        singular: "lease",
        kind: "Lease",
        namespaced: true,
        short_names: &[],
        categories: &[],
        subresources: &[],
        tracks_generation: false,
        wire: Wire::Same,
        normalise: typed::<coordination::v1::Lease>,
    },
    Row {
        group: "events.k8s.io",
        version: "v1",
        resource: "events",
        singular: "event",
        kind: "Event",
        namespaced: true,
        short_names: &["ev"],
        categories: &[],
        subresources: &[],
        tracks_generation: false,
        wire: Wire::EventsV1,
        normalise: typed::<events::v1::Event>,
    },
    Row {
        group: "apiextensions.k8s.io",
        version: "v1",
        resource: "customresourcedefinitions",
        singular: "customresourcedefinition",
        kind: "CustomResourceDefinition",
        namespaced: false,
        short_names: &["crd", "crds"],
        categories: &["api-extensions"],
        subresources: &["status"],
        tracks_generation: true,
        wire: Wire::Same,
        normalise: typed::<apiextensions::CustomResourceDefinition>,
    },
];

/// The built-in resource types, in discovery order.
pub fn builtin_types() -> Vec<ResourceType> {
    ROWS.iter().map(to_type).collect()
}

fn to_type(row: &Row) -> ResourceType {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect();
    let storage_group = if row.wire == Wire::EventsV1 {
        ""
    } else {
        row.group
    };
    ResourceType {
        group: row.group.to_string(),
        version: row.version.to_string(),
        resource: row.resource.to_string(),
        singular: row.singular.to_string(),
        kind: row.kind.to_string(),
        namespaced: row.namespaced,
        short_names: strings(row.short_names),
        categories: strings(row.categories),
        subresources: strings(row.subresources),
        tracks_generation: row.tracks_generation,
        wire: row.wire,
        shape: Shape::Builtin(row.normalise),
        printer_columns: None,
        storage_version: row.version.to_string(),
        storage_group: storage_group.to_string(),
        crd: None,
    }
}

/// Namespaces every cluster starts with.
pub const INITIAL_NAMESPACES: &[&str] =
    &["default", "kube-system", "kube-public", "kube-node-lease"];
