//! A pod made from a controller's pod template, as ReplicaSets and StatefulSets create them.

use k8s_openapi::api::core::v1::PodTemplateSpec;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

/// How the new pod is named.
#[derive(Debug, Clone, PartialEq)]
pub enum Naming {
    /// `metadata.generateName`: the server appends five random characters.
    Generate(String),
    Exact(String),
}

/// The pod to create in `namespace` from `template`: its labels (plus `extra_labels`),
/// annotations and spec, owned by `owner` as its controller. `spec_overrides` are set on the
/// spec (a StatefulSet's `hostname` and `subdomain`).
pub fn pod_from_template(
    template: &PodTemplateSpec,
    namespace: &str,
    naming: &Naming,
    extra_labels: &BTreeMap<String, String>,
    owner: &OwnerReference,
    spec_overrides: Map<String, Value>,
) -> Value {
    let template_meta = template.metadata.clone().unwrap_or_default();
    let mut labels = template_meta.labels.unwrap_or_default();
    labels.extend(extra_labels.clone());
    let mut metadata = json!({
        "namespace": namespace,
        "labels": labels,
        "ownerReferences": [owner],
    });
    match naming {
        Naming::Generate(prefix) => metadata["generateName"] = json!(prefix),
        Naming::Exact(name) => metadata["name"] = json!(name),
    }
    if let Some(annotations) = template_meta.annotations {
        metadata["annotations"] = json!(annotations);
    }
    let mut spec = serde_json::to_value(&template.spec).unwrap_or(Value::Null);
    if let Some(map) = spec.as_object_mut() {
        map.extend(spec_overrides);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec})
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::sim::member::pods::controller_ref;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

    #[test]
    fn the_pod_carries_the_template_and_its_controller() {
        let template: PodTemplateSpec = serde_json::from_value(json!({
            "metadata": {"labels": {"app": "web"}, "annotations": {"note": "x"}},
            "spec": {"containers": [{"name": "c", "image": "nginx"}]},
        }))
        .expect("template");
        let owner_meta = ObjectMeta {
            name: Some("web-abc".into()),
            uid: Some("u1".into()),
            ..Default::default()
        };
        let owner = controller_ref("apps/v1", "ReplicaSet", &owner_meta);
        let extra = BTreeMap::from([("pod-template-hash".to_string(), "abc".to_string())]);
        let mut overrides = Map::new();
        overrides.insert("hostname".into(), json!("web-0"));
        let pod = pod_from_template(
            &template,
            "shop",
            &Naming::Generate("web-abc-".into()),
            &extra,
            &owner,
            overrides,
        );
        assert_eq!(
            pod["metadata"]["generateName"], "web-abc-",
            "generated name prefix"
        );
        assert_eq!(
            pod["metadata"]["namespace"], "shop",
            "the controller's namespace"
        );
        assert_eq!(
            pod["metadata"]["labels"],
            json!({"app": "web", "pod-template-hash": "abc"}),
            "template labels plus the controller's own"
        );
        assert_eq!(
            pod["metadata"]["annotations"]["note"], "x",
            "template annotations"
        );
        assert_eq!(
            pod["metadata"]["ownerReferences"][0],
            json!({"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "uid": "u1",
                   "controller": true, "blockOwnerDeletion": true}),
            "controller reference"
        );
        assert_eq!(
            pod["spec"]["containers"][0]["image"], "nginx",
            "template spec"
        );
        assert_eq!(pod["spec"]["hostname"], "web-0", "spec override");
    }
}
