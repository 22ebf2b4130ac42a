//! The node lifecycle controller's part that follows cordoning: a node with
//! `spec.unschedulable` gets the `node.kubernetes.io/unschedulable:NoSchedule` taint, and loses
//! it when uncordoned (the real controller does this for every node condition; only the
//! cordon is simulated).

use super::actions::{Action, Op};
use super::nodes::UNSCHEDULABLE_TAINT;
use super::pods;
use super::versions::Kind;
use super::view::View;
use k8s_openapi::api::core::v1::{Node, Taint};
use serde_json::json;

const MANAGER: &str = "node-controller";

pub fn plan(view: &View) -> Vec<Action> {
    view.nodes
        .iter()
        .filter_map(|node| taint_change(view, node))
        .collect()
}

fn taint_change(view: &View, node: &Node) -> Option<Action> {
    let spec = node.spec.clone().unwrap_or_default();
    let cordoned = spec.unschedulable == Some(true);
    let mut taints = spec.taints.unwrap_or_default();
    let tainted = taints.iter().any(|t| t.key == UNSCHEDULABLE_TAINT);
    if cordoned == tainted {
        return None;
    }
    if cordoned {
        taints.push(Taint {
            key: UNSCHEDULABLE_TAINT.to_string(),
            effect: "NoSchedule".to_string(),
            time_added: Some(view.now_time()),
            value: None,
        });
    } else {
        taints.retain(|t| t.key != UNSCHEDULABLE_TAINT);
    }
    // A merge patch replaces the list whole; an empty list is sent as null (removed).
    let taints = if taints.is_empty() {
        json!(null)
    } else {
        json!(taints)
    };
    let patch = Op::Patch(json!({"spec": {"taints": taints}}));
    let name = pods::name(&node.metadata);
    Some(Action::new(Kind::Node, "", name, MANAGER, patch))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::sim::member::fixtures::{node, view_of};
    use serde_json::Value;

    fn change(n: Value) -> Option<Value> {
        plan(&view_of(&[n], &[]))
            .into_iter()
            .next()
            .map(|a| match a.op {
                Op::Patch(p) => p["spec"]["taints"].clone(),
                other => panic!("a node patch: {other:?}"),
            })
    }

    #[test]
    fn cordon_rules() {
        let mut cordoned = node(1);
        cordoned["spec"]["unschedulable"] = json!(true);
        let mut tainted = cordoned.clone();
        tainted["spec"]["taints"] = json!([{"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}]);
        let mut uncordoned = tainted.clone();
        uncordoned["spec"]["unschedulable"] = json!(false);
        let mut other_taint = uncordoned.clone();
        other_taint["spec"]["taints"] = json!([{"key": "gpu", "effect": "NoSchedule"},
            {"key": UNSCHEDULABLE_TAINT, "effect": "NoSchedule"}]);

        let added = change(cordoned).expect("a cordoned node is tainted");
        assert_eq!(added[0]["key"], UNSCHEDULABLE_TAINT);
        assert_eq!(added[0]["effect"], "NoSchedule");
        assert_eq!(
            added[0]["timeAdded"],
            crate::sandbox::sim::member::fixtures::NOW
        );
        assert_eq!(change(tainted), None, "already tainted: nothing to do");
        assert_eq!(
            change(uncordoned),
            Some(Value::Null),
            "uncordoned: the taint goes"
        );
        assert_eq!(
            change(other_taint),
            Some(json!([{"key": "gpu", "effect": "NoSchedule"}])),
            "other taints stay"
        );
        assert_eq!(change(node(2)), None, "a schedulable node is left alone");
    }
}
