//! The scheduler: binds each pending pod to a feasible node, spreading the replicas of one
//! controller, and reports the pods it cannot place as `Unschedulable`.

use super::actions::{Action, Op};
use super::nodes::{pod_capacity, unfit_reason};
use super::pods::{self, controller_uid, is_finished, is_terminating, node_name};
use super::versions::Kind;
use super::view::View;
use k8s_openapi::api::core::v1::{Node, Pod};
use serde_json::json;
use std::collections::{BTreeMap, HashMap};

const MANAGER: &str = "kube-scheduler";

/// Pods already on a node: every unfinished pod takes room; only active ones count for
/// spreading (terminating pods are on their way out).
#[derive(Debug, Default, Clone)]
struct NodeLoad {
    occupying: usize,
    active: usize,
    by_controller: HashMap<String, usize>,
}

fn loads(view: &View) -> HashMap<String, NodeLoad> {
    let mut loads: HashMap<String, NodeLoad> = HashMap::new();
    for pod in view.pods.iter().filter(|p| !is_finished(p)) {
        if let Some(node) = node_name(pod) {
            add(loads.entry(node.to_string()).or_default(), pod);
        }
    }
    loads
}

fn add(load: &mut NodeLoad, pod: &Pod) {
    load.occupying += 1;
    if is_terminating(&pod.metadata) {
        return;
    }
    load.active += 1;
    if let Some(uid) = controller_uid(&pod.metadata) {
        *load.by_controller.entry(uid.to_string()).or_default() += 1;
    }
}

/// Every pending pod's binding or unschedulable report, oldest pod first.
pub fn plan(view: &View) -> Vec<Action> {
    let mut loads = loads(view);
    let mut pending: Vec<&Pod> = view
        .pods
        .iter()
        .map(AsRef::as_ref)
        .filter(|p| node_name(p).is_none() && !is_terminating(&p.metadata) && !is_finished(p))
        .collect();
    pending.sort_by_key(|p| (p.metadata.creation_timestamp.clone(), &p.metadata.namespace));
    let mut actions = Vec::new();
    for pod in pending {
        let (namespace, name) = (pods::namespace(&pod.metadata), pods::name(&pod.metadata));
        match choose_node(view, &loads, pod) {
            Ok(node) => {
                add(loads.entry(node.clone()).or_default(), pod);
                // A real scheduler POSTs a Binding to pods/binding; the sandbox lets the
                // scheduler set `spec.nodeName` with a patch instead.
                let bind = Op::Patch(json!({"spec": {"nodeName": node}}));
                actions.push(Action::new(Kind::Pod, namespace, name, MANAGER, bind));
            }
            Err(message) => {
                if let Some(report) = unschedulable_report(view, pod, &message) {
                    actions.push(Action::new(Kind::Pod, namespace, name, MANAGER, report));
                }
            }
        }
    }
    actions
}

/// The feasible node with the fewest pods of the pod's controller, then the fewest pods, then
/// the first by name; or the scheduler's message when none fits.
fn choose_node(
    view: &View,
    loads: &HashMap<String, NodeLoad>,
    pod: &Pod,
) -> Result<String, String> {
    let empty = NodeLoad::default();
    let owner = controller_uid(&pod.metadata);
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    let mut best: Option<((usize, usize, &str), &Node)> = None;
    for node in view.nodes.iter().map(AsRef::as_ref) {
        let name = pods::name(&node.metadata);
        let load = loads.get(name).unwrap_or(&empty);
        let reason = unfit_reason(node, pod).or_else(|| {
            (load.occupying >= pod_capacity(node)).then(|| "Too many pods".to_string())
        });
        if let Some(reason) = reason {
            *reasons.entry(reason).or_default() += 1;
            continue;
        }
        let same_owner = owner
            .and_then(|o| load.by_controller.get(o))
            .copied()
            .unwrap_or(0);
        let rank = (same_owner, load.active, name);
        if best.as_ref().is_none_or(|(r, _)| rank < *r) {
            best = Some((rank, node));
        }
    }
    match best {
        Some((_, node)) => Ok(pods::name(&node.metadata).to_string()),
        None => Err(no_fit_message(view.nodes.len(), &reasons)),
    }
}

/// "0/3 nodes are available: 1 Too many pods, 2 node(s) were unschedulable."
fn no_fit_message(total: usize, reasons: &BTreeMap<String, usize>) -> String {
    if total == 0 {
        return "no nodes available to schedule pods".to_string();
    }
    // Sorted as whole strings, count first, as the real scheduler does.
    let mut parts: Vec<String> = reasons.iter().map(|(r, n)| format!("{n} {r}")).collect();
    parts.sort();
    format!("0/{total} nodes are available: {}.", parts.join(", "))
}

/// The status patch setting `PodScheduled=False` (`Unschedulable`), unless the pod already
/// says exactly that.
fn unschedulable_report(view: &View, pod: &Pod, message: &str) -> Option<Op> {
    let current = pod
        .status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .and_then(|cs| cs.iter().find(|c| c.type_ == "PodScheduled"));
    let same = current.is_some_and(|c| {
        c.status == "False"
            && c.reason.as_deref() == Some("Unschedulable")
            && c.message.as_deref() == Some(message)
    });
    if same {
        return None;
    }
    let since = current
        .filter(|c| c.status == "False")
        .and_then(|c| c.last_transition_time.clone())
        .unwrap_or_else(|| view.now_time());
    Some(Op::PatchStatus(json!({"status": {"conditions": [{
        "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
        "message": message, "lastTransitionTime": since,
    }]}})))
}

#[cfg(test)]
#[path = "scheduler_tests.rs"]
mod tests;
