use super::plan;
use crate::sandbox::sim::member::actions::Op;
use crate::sandbox::sim::member::fixtures::*;
use serde_json::{Value, json};

/// What the scheduler did to each pod: the node it bound it to, or its unschedulable message.
fn outcomes(nodes: &[Value], pods: &[Value]) -> Vec<(String, String)> {
    plan(&view_of(nodes, pods))
        .into_iter()
        .map(|a| {
            let what = match &a.op {
                Op::Patch(p) => p["spec"]["nodeName"].as_str().unwrap_or("?").to_string(),
                Op::PatchStatus(p) => {
                    let c = &p["status"]["conditions"][0];
                    assert_eq!(
                        (&c["type"], &c["status"], &c["reason"]),
                        (
                            &json!("PodScheduled"),
                            &json!("False"),
                            &json!("Unschedulable")
                        )
                    );
                    c["message"].as_str().unwrap_or("?").to_string()
                }
                other => format!("{other:?}"),
            };
            (a.name, what)
        })
        .collect()
}

fn web(name: &str) -> Value {
    controlled_by(pod(name), "ReplicaSet", "web")
}

fn other(name: &str) -> Value {
    controlled_by(pod(name), "ReplicaSet", "other")
}

fn cordoned(ordinal: usize) -> Value {
    let mut n = node(ordinal);
    n["spec"]["unschedulable"] = json!(true);
    n
}

fn tainted(ordinal: usize, effect: &str) -> Value {
    let mut n = node(ordinal);
    n["spec"]["taints"] = json!([{"key": "dedicated", "value": "db", "effect": effect}]);
    n
}

fn not_ready(ordinal: usize) -> Value {
    let mut n = node(ordinal);
    n["status"]["conditions"][3]["status"] = json!("False");
    n
}

fn bind(pod: &str, node: &str) -> (String, String) {
    (pod.to_string(), node.to_string())
}

/// Rule, nodes, pods, and each scheduled pod's node or message.
type Row = (&'static str, Vec<Value>, Vec<Value>, Vec<(String, String)>);

#[test]
fn scheduling_rules() {
    let mut tolerating = web("p");
    tolerating["spec"]["tolerations"] = json!([{"key": "dedicated", "operator": "Exists"}]);
    let mut selective = web("p");
    selective["spec"]["nodeSelector"] = json!({"kubernetes.io/hostname": "node-3"});
    let mut full = node(1);
    full["status"]["allocatable"]["pods"] = json!("1");
    let mut reported = web("p");
    reported["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable", "message": "0/1 nodes are available: 1 node(s) were unschedulable."}]);
    #[rustfmt::skip]
    let rows: Vec<Row> = vec![
        ("fewest pods of the same controller wins over fewest pods",
         vec![node(1), node(2)],
         vec![on(web("a"), "node-1"), on(other("b"), "node-2"), on(other("c"), "node-2"), web("p")],
         vec![bind("p", "node-2")]),
        ("a tie on the controller's pods goes to the node with fewer pods",
         vec![node(1), node(2)],
         vec![on(other("a"), "node-1"), web("p")],
         vec![bind("p", "node-2")]),
        ("a tie on both goes to the first node by name",
         vec![node(2), node(1)], vec![web("p")], vec![bind("p", "node-1")]),
        ("pending pods of one controller spread within one pass",
         vec![node(1), node(2), node(3)], vec![web("p1"), web("p2"), web("p3")],
         vec![bind("p1", "node-1"), bind("p2", "node-2"), bind("p3", "node-3")]),
        ("a cordoned node gets no pods",
         vec![cordoned(1), node(2)], vec![web("p")], vec![bind("p", "node-2")]),
        ("a NoSchedule taint keeps pods that do not tolerate it off",
         vec![tainted(1, "NoSchedule"), node(2)], vec![web("p")], vec![bind("p", "node-2")]),
        ("a NoExecute taint keeps pods that do not tolerate it off",
         vec![tainted(1, "NoExecute"), node(2)], vec![web("p")], vec![bind("p", "node-2")]),
        ("a pod tolerating the taint may land on the tainted node",
         vec![tainted(1, "NoSchedule")], vec![tolerating], vec![bind("p", "node-1")]),
        ("a PreferNoSchedule taint does not block",
         vec![tainted(1, "PreferNoSchedule")], vec![web("p")], vec![bind("p", "node-1")]),
        ("a node that is not Ready gets no pods",
         vec![not_ready(1), node(2)], vec![web("p")], vec![bind("p", "node-2")]),
        ("nodeSelector restricts the nodes",
         vec![node(1), node(2), node(3)], vec![selective], vec![bind("p", "node-3")]),
        ("a node at its allocatable pod count is full",
         vec![full, node(2)], vec![on(other("a"), "node-1"), web("p")], vec![bind("p", "node-2")]),
        ("terminating pods do not count for spreading",
         vec![node(1), node(2)],
         vec![terminating(on(web("a"), "node-1"), NOW), on(other("b"), "node-2"), web("p")],
         vec![bind("p", "node-1")]),
        ("bound, terminating and finished pods are not scheduled",
         vec![node(1)],
         vec![on(web("a"), "node-2"), terminating(web("b"), NOW),
              { let mut f = web("c"); f["status"]["phase"] = json!("Succeeded"); f }],
         vec![]),
        ("no feasible node: Unschedulable, with the reasons counted",
         vec![cordoned(1), cordoned(2), tainted(3, "NoSchedule")], vec![web("p")],
         vec![bind("p", "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: db}, 2 node(s) were unschedulable.")]),
        ("no nodes at all",
         vec![], vec![web("p")], vec![bind("p", "no nodes available to schedule pods")]),
        ("an unschedulable report already saying the same is not rewritten",
         vec![cordoned(1)], vec![reported], vec![]),
    ];
    for (rule, nodes, pods, expected) in rows {
        assert_eq!(outcomes(&nodes, &pods), expected, "{rule}");
    }
}

#[test]
fn an_unschedulable_report_keeps_its_transition_time_when_the_message_changes() {
    let mut p = web("p");
    p["status"]["conditions"] = json!([{"type": "PodScheduled", "status": "False",
        "reason": "Unschedulable", "message": "old", "lastTransitionTime": EARLIER}]);
    let actions = plan(&view_of(&[cordoned(1)], &[p]));
    let [action] = actions.as_slice() else {
        panic!("one report expected: {actions:?}")
    };
    let Op::PatchStatus(patch) = &action.op else {
        panic!("a status patch: {action:?}")
    };
    assert_eq!(
        patch["status"]["conditions"][0]["lastTransitionTime"],
        EARLIER
    );
    assert_eq!(action.manager, "kube-scheduler");
}
