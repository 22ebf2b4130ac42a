use super::*;
use serde_json::json;

fn toleration(v: serde_json::Value) -> Toleration {
    serde_json::from_value(v).expect("toleration")
}

#[test]
fn toleration_rules() {
    let taint = Taint {
        key: "dedicated".into(),
        value: Some("db".into()),
        effect: "NoSchedule".into(),
        ..Default::default()
    };
    #[rustfmt::skip]
    let rows = [
        ("Equal matches key and value", json!({"key": "dedicated", "value": "db"}), true),
        ("Equal with another value does not match", json!({"key": "dedicated", "value": "web"}), false),
        ("Exists matches any value of the key", json!({"key": "dedicated", "operator": "Exists"}), true),
        ("Exists with an empty key matches every taint", json!({"operator": "Exists"}), true),
        ("another key does not match", json!({"key": "gpu", "operator": "Exists"}), false),
        ("the same effect matches", json!({"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}), true),
        ("another effect does not match", json!({"key": "dedicated", "operator": "Exists", "effect": "NoExecute"}), false),
        ("an empty key with Equal matches nothing", json!({"value": "db"}), false),
    ];
    for (rule, t, expected) in rows {
        assert_eq!(tolerates(&toleration(t), &taint), expected, "{rule}");
    }
}

#[test]
fn a_registered_node_is_ready_with_room_for_110_pods() {
    let node: Node = serde_json::from_value(ready_node(3)).expect("node");
    assert_eq!(node.metadata.name.as_deref(), Some("node-3"));
    assert!(is_ready(&node), "Ready condition True");
    assert_eq!(pod_capacity(&node), 110, "allocatable pods");
    assert_eq!(internal_ip(&node).as_deref(), Some("10.0.0.4"));
    let pod: Pod = serde_json::from_value(json!({"spec": {"containers": []}})).expect("pod");
    assert_eq!(unfit_reason(&node, &pod), None, "fits any pod");
}

#[test]
fn a_cordoned_node_takes_pods_tolerating_the_unschedulable_taint() {
    let mut value = ready_node(1);
    value["spec"]["unschedulable"] = json!(true);
    let node: Node = serde_json::from_value(value).expect("node");
    let plain: Pod = serde_json::from_value(json!({"spec": {"containers": []}})).expect("pod");
    let tolerant: Pod = serde_json::from_value(json!({"spec": {"containers": [], "tolerations": [
        {"key": UNSCHEDULABLE_TAINT, "operator": "Exists", "effect": "NoSchedule"}]}}))
    .expect("pod");
    assert_eq!(
        unfit_reason(&node, &plain).as_deref(),
        Some("node(s) were unschedulable")
    );
    assert_eq!(unfit_reason(&node, &tolerant), None);
}
