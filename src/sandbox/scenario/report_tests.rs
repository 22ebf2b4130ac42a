use super::*;
use serde_json::json;

fn eviction(name: &str, second: u8, placement: &str, cluster: &str, conditions: Value) -> Value {
    let created = format!("2026-01-01T00:00:0{second}Z");
    json!({"metadata": {"name": name, "creationTimestamp": created}, "spec": {"placementName": placement, "clusterName": cluster}, "status": {"conditions": conditions}})
}

fn binding(placement: &str, cluster: &str, available: &str, deleting: bool) -> Value {
    let mut b = json!({
        "metadata": {"name": format!("{placement}-{cluster}-abcdefgh"), "labels": {PARENT_CRP_LABEL: placement}},
        "spec": {"targetCluster": cluster, "state": "Bound"},
        "status": {"conditions": [{"type": "Available", "status": available}]}
    });
    if deleting {
        b["metadata"]["deletionTimestamp"] = json!("2026-01-01T00:00:00Z");
    }
    b
}

#[test]
fn one_row_per_eviction_in_creation_order_with_the_message_that_explains_it() {
    let snapshot = Snapshot {
        evictions: Ok(vec![
            eviction(
                "evict-web-member-1",
                1,
                "web",
                "member-1",
                json!([
                    {"type": "Valid", "status": "True", "message": "Eviction is valid"},
                    {"type": "Executed", "status": "True", "message": "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3"}
                ]),
            ),
            eviction(
                "evict-gone",
                2,
                "gone",
                "member-2",
                json!([
                    {"type": "Valid", "status": "False", "message": "Failed to find ClusterResourcePlacement targeted by eviction"}
                ]),
            ),
            eviction(
                "evict-batch-member-3",
                3,
                "batch",
                "member-3",
                json!([
                    {"type": "Valid", "status": "True", "message": "Eviction is valid"},
                    {"type": "Progressing", "status": "True", "reason": "WaitingForConditions", "message": "Eviction is waiting for eviction conditions: TrafficShifted"}
                ]),
            ),
            eviction("untouched", 3, "web", "member-2", json!(null)),
        ]),
        placements: Ok(vec![]),
        bindings: Ok(vec![]),
    };
    // Creation order; a tie (the same second) goes by name.
    let text = render(&snapshot);
    let want = "\
Evictions on the hub (kubectl get crpe):
  NAME                  PLACEMENT  CLUSTER   VALID  EXECUTED  STAGE                 MESSAGE
  evict-web-member-1    web        member-1  True   True      -                     Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3
  evict-gone            gone       member-2  False  -         -                     Failed to find ClusterResourcePlacement targeted by eviction
  evict-batch-member-3  batch      member-3  True   -         WaitingForConditions  Eviction is waiting for eviction conditions: TrafficShifted
  untouched             web        member-2  -      -         -                     (no controller has acted on it yet)
Placements and their bindings on the hub:
  none
";
    assert_eq!(text, want, "\n{text}");
}

#[test]
fn each_placement_lists_its_bindings_by_cluster() {
    let snapshot = Snapshot {
        evictions: Ok(vec![]),
        placements: Ok(vec![
            json!({"metadata": {"name": "web"}}),
            json!({"metadata": {"name": "batch"}}),
            json!({"metadata": {"name": "idle"}}),
        ]),
        bindings: Ok(vec![
            binding("web", "member-3", "True", false),
            binding("web", "member-1", "False", true),
            binding("batch", "member-2", "True", false),
        ]),
    };
    let text = render(&snapshot);
    let want = "\
Evictions on the hub (kubectl get crpe):
  none
Placements and their bindings on the hub:
  batch  member-2 (Bound, Available=True)
  idle   no bindings
  web    member-1 (Bound, deleting, Available=False), member-3 (Bound, Available=True)
";
    assert_eq!(text, want, "\n{text}");
}

#[test]
fn a_list_that_cannot_be_read_says_why() {
    let snapshot = Snapshot {
        evictions: Err("hub unreachable".into()),
        placements: Ok(vec![]),
        bindings: Err("hub unreachable".into()),
    };
    let text = render(&snapshot);
    assert_eq!(
        text,
        "Evictions on the hub (kubectl get crpe):\n  cannot read them: hub unreachable\nPlacements and their bindings on the hub:\n  cannot read them: hub unreachable\n"
    );
}
