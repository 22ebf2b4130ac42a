//! What a placement puts on a member, decided on plain JSON.
//!
//! Selection: a `resourceSelectors` entry selects hub **namespaces** (group `""`, kind
//! `Namespace`): by `name`, else by `labelSelector`, else all of them. Reserved namespaces
//! (`kube-*`, `fleet-*`) and terminating ones are never selected. Selectors of other kinds
//! are ignored: the stand-in places namespaces and their workloads only.
//!
//! Copy: each selected namespace, and the Deployments, StatefulSets and ConfigMaps in it
//! (not `kube-root-ca.crt`, which every cluster makes itself). A copy keeps `apiVersion`,
//! `kind`, `metadata.name`, `metadata.namespace`, `metadata.labels`,
//! `metadata.annotations` (less `kubectl.kubernetes.io/last-applied-configuration` and
//! `deployment.kubernetes.io/revision`), and the body: `spec` for Deployments and
//! StatefulSets, `data`, `binaryData` and `immutable` for ConfigMaps, nothing for
//! namespaces. Everything else (uid, resourceVersion, generation, timestamps, managed
//! fields, owner references, finalizers, status) is the hub server's and is dropped. Every
//! copy is labelled [`PLACED_BY_LABEL`] with the placement's name, which is how withdrawal
//! finds it again.
//!
//! On the member: a missing object is created; an existing one is updated when a copied
//! label, annotation or body field differs (keys the member added stay), so an object the
//! member had is taken over, as KubeFleet's default apply strategy does. Two exceptions: a
//! namespace the member had before is used as it is (and never deleted by withdrawal), and
//! an object another placement put there is an apply failure.

use kube::discovery::ApiResource;
use serde_json::{Map, Value, json};

/// Sandbox only: on member objects, the placement that put them there.
pub const PLACED_BY_LABEL: &str = "sandbox.fleet-eviction.io/placed-by";

const DROPPED_ANNOTATIONS: [&str; 2] = [
    "kubectl.kubernetes.io/last-applied-configuration",
    "deployment.kubernetes.io/revision",
];
const CLUSTER_MADE_CONFIGMAP: &str = "kube-root-ca.crt";

/// The kinds the stand-in places.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum PlacedKind {
    Namespace,
    ConfigMap,
    Deployment,
    StatefulSet,
}

impl PlacedKind {
    /// The namespaced kinds copied out of a selected namespace.
    pub const CONTENT: [PlacedKind; 3] = [
        PlacedKind::ConfigMap,
        PlacedKind::Deployment,
        PlacedKind::StatefulSet,
    ];

    pub fn api_resource(self) -> ApiResource {
        use k8s_openapi::api::{apps::v1 as apps, core::v1 as core};
        match self {
            PlacedKind::Namespace => ApiResource::erase::<core::Namespace>(&()),
            PlacedKind::ConfigMap => ApiResource::erase::<core::ConfigMap>(&()),
            PlacedKind::Deployment => ApiResource::erase::<apps::Deployment>(&()),
            PlacedKind::StatefulSet => ApiResource::erase::<apps::StatefulSet>(&()),
        }
    }

    /// The top-level fields a copy carries besides metadata.
    fn body_fields(self) -> &'static [&'static str] {
        match self {
            PlacedKind::Namespace => &[],
            PlacedKind::ConfigMap => &["data", "binaryData", "immutable"],
            PlacedKind::Deployment | PlacedKind::StatefulSet => &["spec"],
        }
    }

    pub fn is_workload(self) -> bool {
        matches!(self, PlacedKind::Deployment | PlacedKind::StatefulSet)
    }
}

/// One object as the member should have it.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub kind: PlacedKind,
    pub object: Value,
}

impl Placed {
    pub fn name(&self) -> &str {
        self.object["metadata"]["name"].as_str().unwrap_or_default()
    }

    pub fn namespace(&self) -> Option<&str> {
        self.object["metadata"]["namespace"].as_str()
    }

    /// `Kind namespace/name`, for messages.
    pub fn describe(&self) -> String {
        let kind = self.object["kind"].as_str().unwrap_or_default();
        match self.namespace() {
            Some(ns) => format!("{kind} {ns}/{}", self.name()),
            None => format!("{kind} {}", self.name()),
        }
    }
}

/// The names of the hub namespaces the selectors pick, sorted.
pub fn selected_namespaces(selectors: &[Value], hub_namespaces: &[Value]) -> Vec<String> {
    let mut names: Vec<String> = hub_namespaces
        .iter()
        .filter(|ns| is_placeable_namespace(ns))
        .filter(|ns| selectors.iter().any(|s| selects_namespace(s, ns)))
        .filter_map(|ns| ns["metadata"]["name"].as_str().map(str::to_string))
        .collect();
    names.sort();
    names.dedup();
    names
}

fn is_placeable_namespace(ns: &Value) -> bool {
    let name = ns["metadata"]["name"].as_str().unwrap_or_default();
    let reserved = name.starts_with("kube-") || name.starts_with("fleet-");
    !reserved && ns["metadata"]["deletionTimestamp"].is_null()
}

fn selects_namespace(selector: &Value, ns: &Value) -> bool {
    let is_namespace_kind =
        selector["group"].as_str() == Some("") && selector["kind"].as_str() == Some("Namespace");
    if !is_namespace_kind {
        return false;
    }
    if let Some(name) = selector["name"].as_str().filter(|n| !n.is_empty()) {
        return ns["metadata"]["name"].as_str() == Some(name);
    }
    match &selector["labelSelector"] {
        Value::Null => true,
        label_selector => crate::sandbox::select::LabelSelector::from_object(label_selector)
            .is_ok_and(|s| s.matches(ns["metadata"]["labels"].as_object())),
    }
}

/// Whether a hub object of this kind is copied (the cluster-made ConfigMap is not).
pub fn is_copied(kind: PlacedKind, object: &Value) -> bool {
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    !(kind == PlacedKind::ConfigMap && name == CLUSTER_MADE_CONFIGMAP)
        && object["metadata"]["deletionTimestamp"].is_null()
}

/// The member copy of a hub object, labelled for its placement.
pub fn placed_copy(kind: PlacedKind, hub_object: &Value, placement: &str) -> Placed {
    let resource = kind.api_resource();
    let source = &hub_object["metadata"];
    let mut metadata = Map::new();
    metadata.insert("name".into(), source["name"].clone());
    if let Some(ns) = source["namespace"].as_str() {
        metadata.insert("namespace".into(), json!(ns));
    }
    let mut labels = source["labels"].as_object().cloned().unwrap_or_default();
    labels.insert(PLACED_BY_LABEL.into(), json!(placement));
    metadata.insert("labels".into(), Value::Object(labels));
    let mut annotations = source["annotations"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    annotations.retain(|key, _| !DROPPED_ANNOTATIONS.contains(&key.as_str()));
    if !annotations.is_empty() {
        metadata.insert("annotations".into(), Value::Object(annotations));
    }
    let mut object = Map::new();
    object.insert("apiVersion".into(), json!(resource.api_version));
    object.insert("kind".into(), json!(resource.kind));
    object.insert("metadata".into(), Value::Object(metadata));
    for field in kind.body_fields() {
        if let Some(value) = hub_object.get(*field) {
            object.insert((*field).into(), value.clone());
        }
    }
    Placed {
        kind,
        object: Value::Object(object),
    }
}

/// Whether the member object differs from the copy: a desired label or annotation is
/// missing or different, or a body field differs. Extra keys the member added are fine.
pub fn needs_update(placed: &Placed, current: &Value) -> bool {
    let missing = |field: &str| {
        let have = current["metadata"][field].as_object();
        placed.object["metadata"][field]
            .as_object()
            .into_iter()
            .flatten()
            .any(|(key, value)| have.and_then(|h| h.get(key)) != Some(value))
    };
    let body_differs = placed
        .kind
        .body_fields()
        .iter()
        .any(|field| placed.object.get(*field) != current.get(*field));
    missing("labels") || missing("annotations") || body_differs
}

/// The member object updated to the copy: desired labels and annotations laid over the
/// member's, body fields replaced; the member's resourceVersion stays for the precondition.
pub fn updated(placed: &Placed, current: &Value) -> Value {
    let mut object = current.as_object().cloned().unwrap_or_default();
    let mut metadata = object
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for field in ["labels", "annotations"] {
        let Some(desired) = placed.object["metadata"][field].as_object() else {
            continue;
        };
        let mut merged = metadata
            .get(field)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        merged.extend(desired.iter().map(|(k, v)| (k.clone(), v.clone())));
        metadata.insert(field.into(), Value::Object(merged));
    }
    object.insert("metadata".into(), Value::Object(metadata));
    for field in placed.kind.body_fields() {
        match placed.object.get(*field) {
            Some(value) => object.insert((*field).into(), value.clone()),
            None => object.remove(*field),
        };
    }
    Value::Object(object)
}

/// The placement that put a member object there, if one did.
pub fn placer(object: &Value) -> Option<&str> {
    object["metadata"]["labels"][PLACED_BY_LABEL].as_str()
}

/// Whether the member object was put there by this placement.
pub fn placed_by(object: &Value, placement: &str) -> bool {
    placer(object) == Some(placement)
}

#[cfg(test)]
#[path = "placed_tests.rs"]
mod tests;
