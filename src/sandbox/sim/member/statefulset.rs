//! The StatefulSet controller: pods `<set>-0`..`<set>-<replicas - 1>`, a missing one re-created
//! under the same name once the old pod is fully gone. `OrderedReady` (the default) creates
//! one pod at a time in ordinal order, each after the previous ones are Running and Ready, and
//! removes extras from the highest ordinal one at a time; `Parallel` does both at once.
//! Revisions and volume claims are not simulated.

use super::actions::{Action, Op};
use super::pod_template::{Naming, pod_from_template};
use super::pods::{
    self, controller_ref, count, is_available, is_running_and_ready, is_terminating, omit_zero,
};
use super::versions::Kind;
use super::view::View;
use k8s_openapi::api::apps::v1::{StatefulSet, StatefulSetStatus};
use k8s_openapi::api::core::v1::Pod;
use serde_json::{Map, json};
use std::collections::BTreeMap;

const MANAGER: &str = "statefulset-controller";

pub fn plan(view: &View) -> Vec<Action> {
    view.stateful_sets
        .iter()
        .filter(|s| !is_terminating(&s.metadata))
        .flat_map(|s| plan_one(view, s))
        .collect()
}

/// The set's pods by ordinal (pods it controls whose name is `<set>-<ordinal>`).
fn pods_by_ordinal<'a>(view: &'a View, set: &StatefulSet) -> BTreeMap<usize, &'a Pod> {
    let prefix = format!("{}-", pods::name(&set.metadata));
    view.pods_controlled_by(pods::uid(&set.metadata))
        .filter_map(|p| {
            let ordinal = pods::name(&p.metadata)
                .strip_prefix(&prefix)?
                .parse()
                .ok()?;
            Some((ordinal, p))
        })
        .collect()
}

fn plan_one(view: &View, set: &StatefulSet) -> Vec<Action> {
    let meta = &set.metadata;
    let (namespace, name) = (pods::namespace(meta), pods::name(meta));
    let spec = set.spec.clone().unwrap_or_default();
    let parallel = spec.pod_management_policy.as_deref() == Some("Parallel");
    let want = usize::try_from(spec.replicas.unwrap_or(1)).unwrap_or(0);
    let by_ordinal = pods_by_ordinal(view, set);
    let mut actions = Vec::new();
    for ordinal in 0..want {
        let pod_name = format!("{name}-{ordinal}");
        match view.pod(namespace, &pod_name) {
            // Any pod holding the name (terminating, or not ours) blocks its re-creation;
            // in order, the later ordinals wait until this one is running and ready.
            Some(pod) => {
                let settled = is_running_and_ready(pod) && !is_terminating(&pod.metadata);
                if !parallel && !settled {
                    break;
                }
            }
            None => {
                actions.push(create(set, &pod_name, ordinal));
                if !parallel {
                    break;
                }
            }
        }
    }
    let extras: Vec<&Pod> = by_ordinal.range(want..).rev().map(|(_, p)| *p).collect();
    let any_terminating = by_ordinal.values().any(|p| is_terminating(&p.metadata));
    for extra in extras.into_iter().filter(|p| !is_terminating(&p.metadata)) {
        if !parallel && any_terminating {
            break;
        }
        actions.push(Action::delete_pod(namespace, extra, MANAGER));
        if !parallel {
            break;
        }
    }
    let next = status(view, set, &by_ordinal);
    if set.status.as_ref() != Some(&next) {
        let owned = ["readyReplicas", "currentReplicas", "updatedReplicas"];
        let report = Op::status_patch(&next, &owned);
        actions.push(Action::new(
            Kind::StatefulSet,
            namespace,
            name,
            MANAGER,
            report,
        ));
    }
    actions
}

fn create(set: &StatefulSet, pod_name: &str, ordinal: usize) -> Action {
    let spec = set.spec.clone().unwrap_or_default();
    let owner = controller_ref("apps/v1", "StatefulSet", &set.metadata);
    let labels = BTreeMap::from([
        (
            "statefulset.kubernetes.io/pod-name".to_string(),
            pod_name.to_string(),
        ),
        (
            "apps.kubernetes.io/pod-index".to_string(),
            ordinal.to_string(),
        ),
    ]);
    let mut overrides = Map::new();
    overrides.insert("hostname".into(), json!(pod_name));
    if let Some(service) = spec.service_name.filter(|s| !s.is_empty()) {
        overrides.insert("subdomain".into(), json!(service));
    }
    let namespace = pods::namespace(&set.metadata);
    let naming = Naming::Exact(pod_name.to_string());
    let pod = pod_from_template(
        &spec.template,
        namespace,
        &naming,
        &labels,
        &owner,
        overrides,
    );
    Action::new(Kind::Pod, namespace, pod_name, MANAGER, Op::Create(pod))
}

/// Counts over the pods the set created (terminating ones included, as the real controller
/// counts them).
fn status(view: &View, set: &StatefulSet, by_ordinal: &BTreeMap<usize, &Pod>) -> StatefulSetStatus {
    let min_ready = set
        .spec
        .as_ref()
        .and_then(|s| s.min_ready_seconds)
        .unwrap_or(0);
    let created = by_ordinal.len();
    let ready = by_ordinal
        .values()
        .filter(|p| is_running_and_ready(p))
        .count();
    let available = by_ordinal
        .values()
        .filter(|p| is_available(p, min_ready, view.now))
        .count();
    StatefulSetStatus {
        observed_generation: set.metadata.generation,
        replicas: count(created),
        ready_replicas: omit_zero(ready),
        available_replicas: Some(count(available)),
        current_replicas: omit_zero(created),
        updated_replicas: omit_zero(created),
        ..set.status.clone().unwrap_or_default()
    }
}

#[cfg(test)]
#[path = "statefulset_tests.rs"]
mod tests;
