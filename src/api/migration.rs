//! PodMigrationJob: Koordinator's request to move one pod off its node
//! (`scheduling.koordinator.sh/v1alpha1`), plus pod-level gates (pod-migration.md §1).

use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{DeleteOptions, Time};
use kube::{CustomResource, KubeSchema};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::gate::{EvictionCondition, POD_GATE_NAMES_MESSAGE, POD_GATE_NAMES_RULE};
use super::wire_enum::wire_enum;

wire_enum!(
    /// How the job moves the pod. Left a plain string in the schema: an unknown mode is
    /// answered with `Failed/InvalidMode`, not lost at admission.
    PodMigrationJobMode, schema_enum = false, {
        /// Reserve capacity elsewhere first (Koordinator's Reservation API).
        ReservationFirst => "ReservationFirst",
        /// Evict at once; the workload controller re-creates the pod elsewhere.
        EvictDirectly => "EvictDirectly",
    }
);

wire_enum!(
    /// Where the job is in its lifecycle.
    PodMigrationJobPhase, schema_enum = false, {
        Pending => "Pending",
        Running => "Running",
        Succeeded => "Succeeded",
        Failed => "Failed",
        /// Terminal when found; we never write it.
        Aborted => "Aborted",
        /// An old spelling of `Succeeded`, still terminal when read.
        SucceedLegacy => "Succeed",
    }
);

/// A request to migrate one pod. Cluster-scoped, on the member cluster.
#[derive(CustomResource, KubeSchema, Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
#[kube(
    group = "scheduling.koordinator.sh",
    version = "v1alpha1",
    kind = "PodMigrationJob",
    doc = "Migrates one pod off its node (Koordinator API with eviction conditions).",
    shortname = "pmj",
    status = "PodMigrationJobStatus",
    printcolumn = r#"{"name":"Phase","type":"string","description":"The phase of PodMigrationJob","jsonPath":".status.phase"}"#,
    printcolumn = r#"{"name":"Status","type":"string","description":"The status of PodMigrationJob","jsonPath":".status.status"}"#,
    printcolumn = r#"{"name":"Age","type":"date","jsonPath":".metadata.creationTimestamp"}"#,
    printcolumn = r#"{"name":"Node","type":"string","jsonPath":".status.nodeName"}"#,
    printcolumn = r#"{"name":"Reservation","type":"string","jsonPath":".spec.reservationOptions.reservationRef.name"}"#,
    printcolumn = r#"{"name":"PodNamespace","type":"string","jsonPath":".spec.podRef.namespace"}"#,
    printcolumn = r#"{"name":"Pod","type":"string","jsonPath":".spec.podRef.name"}"#,
    printcolumn = r#"{"name":"NewPod","type":"string","jsonPath":".status.podRef.name"}"#,
    printcolumn = r#"{"name":"TTL","type":"string","jsonPath":".spec.ttl"}"#
)]
#[serde(rename_all = "camelCase")]
pub struct PodMigrationJobSpec {
    /// While true the job does nothing but wait (manual approval); its ttl still runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused: Option<bool>,

    /// Go duration from creation after which an unfinished job fails with `Timeout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(pattern(super::duration::PATTERN))]
    pub ttl: Option<String>,

    /// `EvictDirectly` or `ReservationFirst`; absent = the controller's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<PodMigrationJobMode>,

    /// Gates: condition types external controllers must set to True before the pod is evicted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(max = 16), extend("x-kubernetes-list-type" = "map", "x-kubernetes-list-map-keys" = ["name"]))]
    #[x_kube(validation = Rule::new(POD_GATE_NAMES_RULE).message(POD_GATE_NAMES_MESSAGE))]
    pub eviction_conditions: Option<Vec<EvictionCondition>>,

    /// The pod to migrate (namespace and name; we fill in the uid). Required by the schema,
    /// optional here so a bad job is reported rather than failing the watch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(required)]
    pub pod_ref: Option<ObjectReference>,

    /// Reservation options of `ReservationFirst`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation_options: Option<ReservationOptions>,

    /// Options for deleting or evicting the pod.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delete_options: Option<DeleteOptions>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct ReservationOptions {
    /// An existing Reservation to use instead of creating one from the template.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reservation_ref: Option<ObjectReference>,
    /// The Reservation to create (Koordinator's ReservationTemplateSpec, kept as is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::schema::preserve_unknown_object")]
    pub template: Option<serde_json::Value>,
    /// Reserved by Koordinator; carries no fields yet.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preemption_options: Option<PreemptionOptions>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Eq, Default)]
pub struct PreemptionOptions {}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PodMigrationJobStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<PodMigrationJobPhase>,
    /// A short word for where the job is (e.g. `WaitForEvictionConditions`, `Complete`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Our step conditions (`Eviction`, `ExternalEvacuation`, ...) and gate conditions written
    /// by external controllers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<PodMigrationJobCondition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    /// The pod created in place of the migrated one (ReservationFirst).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_ref: Option<ObjectReference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub preempted_pods_ref: Vec<ObjectReference>,
    /// Singular JSON name, as Koordinator spells it.
    #[serde(
        default,
        rename = "preemptedPodsReservation",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub preempted_pods_reservation: Vec<PreemptedReservation>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PodMigrationJobCondition {
    #[serde(rename = "type")]
    pub type_: String,
    /// `True`, `False` or `Unknown`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_probe_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_transition_time: Option<Time>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

#[derive(Serialize, Deserialize, JsonSchema, Clone, Debug, PartialEq, Default)]
#[serde(rename_all = "camelCase")]
pub struct PreemptedReservation {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted_pod_ref: Option<ObjectReference>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pods_ref: Vec<ObjectReference>,
}
