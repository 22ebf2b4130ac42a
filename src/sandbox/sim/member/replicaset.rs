//! The ReplicaSet controller: keeps `spec.replicas` active pods from the template, deleting
//! the extras the real controller would pick first, and keeps the status current.

use super::actions::{Action, Op};
use super::pod_template::{Naming, pod_from_template};
use super::pods::{
    self, controller_ref, count, is_active, is_available, is_ready, is_terminating, node_name,
    omit_zero, phase,
};
use super::versions::Kind;
use super::view::View;
use k8s_openapi::api::apps::v1::{ReplicaSet, ReplicaSetStatus};
use k8s_openapi::api::core::v1::Pod;
use serde_json::Map;
use std::cmp::Reverse;
use std::collections::BTreeMap;

const MANAGER: &str = "replicaset-controller";

pub fn plan(view: &View) -> Vec<Action> {
    view.replica_sets
        .iter()
        .filter(|rs| !is_terminating(&rs.metadata))
        .flat_map(|rs| plan_one(view, rs))
        .collect()
}

fn plan_one(view: &View, rs: &ReplicaSet) -> Vec<Action> {
    let meta = &rs.metadata;
    let (namespace, name) = (pods::namespace(meta), pods::name(meta));
    let spec = rs.spec.clone().unwrap_or_default();
    let active: Vec<&Pod> = view
        .pods_controlled_by(pods::uid(meta))
        .filter(|p| is_active(p))
        .collect();
    let want = usize::try_from(spec.replicas.unwrap_or(1)).unwrap_or(0);
    let mut actions = Vec::new();
    if active.len() < want
        && let Some(template) = &spec.template
    {
        let owner = controller_ref("apps/v1", "ReplicaSet", meta);
        let naming = Naming::Generate(format!("{name}-"));
        let pod = pod_from_template(
            template,
            namespace,
            &naming,
            &BTreeMap::new(),
            &owner,
            Map::new(),
        );
        for _ in active.len()..want {
            actions.push(Action::new(
                Kind::Pod,
                namespace,
                "",
                MANAGER,
                Op::Create(pod.clone()),
            ));
        }
    }
    for extra in deletion_order(&active).into_iter().skip(want) {
        actions.push(Action::delete_pod(namespace, extra, MANAGER));
    }
    let next = status(view, rs, &active);
    if rs.status.as_ref() != Some(&next) {
        let owned = ["fullyLabeledReplicas", "readyReplicas", "availableReplicas"];
        let report = Op::status_patch(&next, &owned);
        actions.push(Action::new(
            Kind::ReplicaSet,
            namespace,
            name,
            MANAGER,
            report,
        ));
    }
    actions
}

/// Active pods, those to keep first: the extras are the tail. The real controller deletes
/// unscheduled before scheduled, pending before running, unready before ready, and the newest
/// first.
fn deletion_order<'a>(active: &[&'a Pod]) -> Vec<&'a Pod> {
    let phase_rank = |p: &Pod| match phase(p) {
        "Pending" | "" => 0,
        "Unknown" => 1,
        _ => 2,
    };
    let mut keep_first = active.to_vec();
    keep_first.sort_by_key(|p| {
        Reverse((
            node_name(p).is_some(),
            phase_rank(p),
            is_ready(p),
            Reverse(p.metadata.creation_timestamp.clone()),
            Reverse(pods::name(&p.metadata).to_string()),
        ))
    });
    keep_first
}

fn status(view: &View, rs: &ReplicaSet, active: &[&Pod]) -> ReplicaSetStatus {
    let spec = rs.spec.clone().unwrap_or_default();
    let template_labels = spec
        .template
        .as_ref()
        .and_then(|t| t.metadata.as_ref())
        .and_then(|m| m.labels.clone())
        .unwrap_or_default();
    let fully_labeled = active
        .iter()
        .filter(|p| {
            let labels = p.metadata.labels.clone().unwrap_or_default();
            template_labels
                .iter()
                .all(|(k, v)| labels.get(k) == Some(v))
        })
        .count();
    let min_ready = spec.min_ready_seconds.unwrap_or(0);
    let ready = active
        .iter()
        .filter(|p| pods::is_running_and_ready(p))
        .count();
    let available = active
        .iter()
        .filter(|p| is_available(p, min_ready, view.now))
        .count();
    ReplicaSetStatus {
        replicas: count(active.len()),
        fully_labeled_replicas: omit_zero(fully_labeled),
        ready_replicas: omit_zero(ready),
        available_replicas: omit_zero(available),
        observed_generation: rs.metadata.generation,
        ..rs.status.clone().unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "replicaset_tests.rs"]
mod tests;
