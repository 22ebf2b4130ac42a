//! The Deployment controller: one ReplicaSet per pod template, named
//! `<deployment>-<pod-template-hash>`, at the Deployment's scale; the ReplicaSets of older
//! templates are scaled to 0 at once (no surge or availability pacing: rollouts are out of
//! scope). The status follows the ReplicaSets'.

use super::actions::{Action, Op};
use super::deployment_status::status;
use super::hashing::{fnv1a, safe_encode};
use super::pods::{self, controller_ref, controller_uid, is_terminating};
use super::versions::Kind;
use super::view::View;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::core::v1::PodTemplateSpec;
use serde_json::{Value, json};

const MANAGER: &str = "deployment-controller";

/// The label the Deployment controller adds to its ReplicaSets, their selector and pods.
pub const TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

/// Ten characters from the safe alphabet, stable for a given template.
pub fn template_hash(template: &PodTemplateSpec) -> String {
    let text = serde_json::to_string(template).unwrap_or_default();
    safe_encode(fnv1a(text.as_bytes()), 10)
}

pub fn plan(view: &View) -> Vec<Action> {
    view.deployments
        .iter()
        .filter(|d| !is_terminating(&d.metadata))
        .flat_map(|d| plan_one(view, d))
        .collect()
}

/// The ReplicaSets the Deployment controls, by name.
pub fn owned_replica_sets<'a>(view: &'a View, deployment: &Deployment) -> Vec<&'a ReplicaSet> {
    let uid = pods::uid(&deployment.metadata);
    view.replica_sets
        .iter()
        .map(AsRef::as_ref)
        .filter(|rs| controller_uid(&rs.metadata) == Some(uid))
        .collect()
}

/// The name of the ReplicaSet for the Deployment's current template.
pub fn current_replica_set_name(deployment: &Deployment) -> String {
    let template = deployment.spec.as_ref().map(|s| &s.template);
    let hash = template.map(template_hash).unwrap_or_default();
    format!("{}-{hash}", pods::name(&deployment.metadata))
}

fn plan_one(view: &View, deployment: &Deployment) -> Vec<Action> {
    let meta = &deployment.metadata;
    let namespace = pods::namespace(meta);
    let want = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let current = current_replica_set_name(deployment);
    let owned = owned_replica_sets(view, deployment);
    let scale = |rs: &ReplicaSet, replicas: i32| {
        let patch = Op::Patch(json!({"spec": {"replicas": replicas}}));
        Action::new(
            Kind::ReplicaSet,
            namespace,
            pods::name(&rs.metadata),
            MANAGER,
            patch,
        )
    };
    let mut actions = Vec::new();
    match owned.iter().find(|rs| pods::name(&rs.metadata) == current) {
        None => {
            let create = Op::Create(new_replica_set(deployment, &current, want));
            actions.push(Action::new(
                Kind::ReplicaSet,
                namespace,
                &current,
                MANAGER,
                create,
            ));
        }
        Some(rs) if rs.spec.as_ref().and_then(|s| s.replicas) != Some(want) => {
            actions.push(scale(rs, want));
        }
        Some(_) => {}
    }
    for old in owned
        .iter()
        .filter(|rs| pods::name(&rs.metadata) != current)
    {
        if old.spec.as_ref().and_then(|s| s.replicas) != Some(0) {
            actions.push(scale(old, 0));
        }
    }
    let next = status(view, deployment, &owned, &current);
    if deployment.status.as_ref() != Some(&next) {
        let owned_fields = [
            "replicas",
            "updatedReplicas",
            "readyReplicas",
            "availableReplicas",
            "unavailableReplicas",
        ];
        let report = Op::status_patch(&next, &owned_fields);
        actions.push(Action::new(
            Kind::Deployment,
            namespace,
            pods::name(meta),
            MANAGER,
            report,
        ));
    }
    actions
}

/// The ReplicaSet for the Deployment's template: its labels, selector and template carry the
/// template hash, so the pods of different templates never mix.
fn new_replica_set(deployment: &Deployment, name: &str, replicas: i32) -> Value {
    let spec = deployment.spec.clone().unwrap_or_default();
    let hash = name.rsplit('-').next().unwrap_or_default();
    let mut template = spec.template;
    let template_meta = template.metadata.get_or_insert_with(Default::default);
    let labels = template_meta.labels.get_or_insert_with(Default::default);
    labels.insert(TEMPLATE_HASH_LABEL.to_string(), hash.to_string());
    let labels = labels.clone();
    let mut selector = spec.selector;
    selector
        .match_labels
        .get_or_insert_with(Default::default)
        .insert(TEMPLATE_HASH_LABEL.to_string(), hash.to_string());
    let owner = controller_ref("apps/v1", "Deployment", &deployment.metadata);
    json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name,
            "namespace": pods::namespace(&deployment.metadata),
            "labels": labels,
            "ownerReferences": [owner],
        },
        "spec": {
            "replicas": replicas,
            "minReadySeconds": spec.min_ready_seconds,
            "selector": selector,
            "template": template,
        },
    })
}

#[cfg(test)]
#[path = "deployment_tests.rs"]
mod tests;
