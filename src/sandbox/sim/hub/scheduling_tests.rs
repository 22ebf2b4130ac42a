use super::*;
use serde_json::{Value, json};

fn member(name: &str, extra: Value) -> MemberCluster {
    let mut object = json!({"metadata": {"name": name}, "spec": {"identity": {"kind": "ServiceAccount", "name": "a"}}});
    if let Some(taints) = extra.get("taints") {
        object["spec"]["taints"] = taints.clone();
    }
    if let Some(ts) = extra.get("deletionTimestamp") {
        object["metadata"]["deletionTimestamp"] = ts.clone();
    }
    serde_json::from_value(object).expect("member")
}

fn binding(cluster: &str, deleting: bool) -> ClusterResourceBinding {
    let mut b = new_binding(&format!("p-{cluster}-aaaaaaaa"), "p", cluster);
    if deleting {
        b.metadata.deletion_timestamp = serde_json::from_value(json!("2026-01-01T00:00:00Z")).ok();
    }
    b
}

fn policy(value: Value) -> Option<PlacementPolicy> {
    serde_json::from_value(value).ok()
}

/// A rule, the policy, the placement's bindings, and the clusters to bind.
type Row = (
    &'static str,
    Option<PlacementPolicy>,
    Vec<ClusterResourceBinding>,
    Vec<&'static str>,
);

#[test]
fn policies_pick_clusters() {
    let tainted = json!({"taints": [{"key": "drain", "effect": "NoSchedule"}]});
    let members = [
        member("c", json!({})),
        member("a", json!({})),
        member("b", tainted),
        member("d", json!({})),
        member("gone", json!({"deletionTimestamp": "2026-01-01T00:00:00Z"})),
    ];
    let rows: [Row; 9] = [
        (
            "no policy is PickAll, skipping tainted and deleting members",
            None,
            vec![],
            vec!["a", "c", "d"],
        ),
        (
            "PickAll skips members already bound",
            policy(json!({"placementType": "PickAll"})),
            vec![binding("a", false)],
            vec!["c", "d"],
        ),
        (
            "PickAll does not bind twice where a binding is deleting",
            policy(json!({})),
            vec![binding("a", true)],
            vec!["c", "d"],
        ),
        (
            "PickN takes the first N by name",
            policy(json!({"placementType": "PickN", "numberOfClusters": 2})),
            vec![],
            vec!["a", "c"],
        ),
        (
            "PickN counts live bindings",
            policy(json!({"placementType": "PickN", "numberOfClusters": 2})),
            vec![binding("a", false)],
            vec!["c"],
        ),
        (
            "PickN replaces a deleting binding elsewhere",
            policy(json!({"placementType": "PickN", "numberOfClusters": 2})),
            vec![binding("a", false), binding("c", true)],
            vec!["d"],
        ),
        (
            "PickN with enough bindings adds none",
            policy(json!({"placementType": "PickN", "numberOfClusters": 1})),
            vec![binding("d", false)],
            vec![],
        ),
        (
            "PickFixed binds named existing members, taints aside",
            policy(
                json!({"placementType": "PickFixed", "clusterNames": ["b", "d", "missing", "gone"]}),
            ),
            vec![],
            vec!["b", "d"],
        ),
        (
            "an unknown placement type binds nothing",
            policy(json!({"placementType": "PickSome"})),
            vec![],
            vec![],
        ),
    ];
    for (rule, policy, bindings, expected) in rows {
        assert_eq!(
            clusters_to_bind(policy.as_ref(), &members, &bindings),
            expected,
            "{rule}"
        );
    }
}

#[test]
fn binding_names_end_in_eight_lowercase_alphanumerics() {
    let mut rng = Rng::new(3);
    let first = binding_name("web", "member-1", &mut rng);
    let suffix = first.strip_prefix("web-member-1-").expect("prefix");
    assert_eq!(suffix.len(), 8);
    assert!(
        suffix
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
        "{first}"
    );
    assert_ne!(
        binding_name("web", "member-1", &mut rng),
        first,
        "each draw is new"
    );
}

#[test]
fn a_new_binding_is_bound_labelled_and_finalized() {
    let b = new_binding("web-m-abcdefgh", "web", "m");
    assert_eq!(b.metadata.name.as_deref(), Some("web-m-abcdefgh"));
    assert_eq!(b.spec.state, Some(BindingState::Bound));
    assert_eq!(b.spec.target_cluster, "m");
    let labels = b.metadata.labels.clone().unwrap_or_default();
    assert_eq!(
        labels.get(PARENT_CRP_LABEL).map(String::as_str),
        Some("web")
    );
    assert_eq!(
        labels.get(SANDBOX_SIMULATE_LABEL).map(String::as_str),
        Some("true")
    );
    assert_eq!(
        b.metadata.finalizers,
        Some(vec![WORK_CLEANUP_FINALIZER.to_string()])
    );
}
