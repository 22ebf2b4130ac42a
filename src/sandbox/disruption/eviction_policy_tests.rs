//! Unready pods under `unhealthyPodEvictionPolicy`, retry hints, and the hand-over between an
//! approved eviction and the next status sync.

use super::super::super::fixtures::{PodState, pdb, pod, status_from, time};
use super::super::super::{ControllerScales, pdb_status};
use super::super::{EvictionDecision, eviction_decision};
use super::{Expected, Row, allowed_without_update, budget, min_available_2, refused, running};
use super::{NOW, sufficient, too_many_requests};
use k8s_openapi::api::core::v1::Pod;
use serde_json::json;

pub(super) fn unhealthy_pod_rows() -> Vec<Row> {
    use PodState::*;
    let with_policy = |policy: Option<&str>, current, desired, allowed| {
        let mut spec = json!({"minAvailable": desired});
        if let Some(policy) = policy {
            spec["unhealthyPodEvictionPolicy"] = json!(policy);
        }
        budget(spec, current, desired, allowed)
    };
    let row = |rule, pdbs, expected| Row {
        rule,
        pod: running(Unready),
        pdbs,
        dry_run: false,
        expected,
    };
    vec![
        row(
            "unhealthy pod with AlwaysAllow is evicted even when the budget is exhausted",
            vec![with_policy(Some("AlwaysAllow"), 1, 2, 0)],
            allowed_without_update(),
        ),
        row(
            "unhealthy pod with IfHealthyBudget is evicted without spending a met budget",
            vec![with_policy(Some("IfHealthyBudget"), 2, 2, 0)],
            allowed_without_update(),
        ),
        row(
            "unhealthy pod with IfHealthyBudget is refused while the budget is not met",
            vec![with_policy(Some("IfHealthyBudget"), 1, 2, 0)],
            refused(too_many_requests(
                "The disruption budget web needs 2 healthy pods and has 1 currently",
                None,
            )),
        ),
        row(
            "unhealthy pod without a policy behaves as IfHealthyBudget",
            vec![with_policy(None, 1, 2, 0)],
            refused(too_many_requests(
                "The disruption budget web needs 2 healthy pods and has 1 currently",
                None,
            )),
        ),
        Row {
            rule: "unhealthy pod under a budget desiring 0 pods spends the budget",
            pod: running(Unready),
            pdbs: vec![budget(json!({"maxUnavailable": "100%"}), 2, 0, 2)],
            dry_run: false,
            expected: Expected::Allow(Some(
                json!({"currentHealthy": 2, "desiredHealthy": 0, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1, "disruptedPods": {"web-1": NOW},
                "conditions": [sufficient()]}),
            )),
        },
    ]
}

#[test]
fn retry_after_is_offered_only_for_a_stale_budget() {
    let stale = pdb(
        "web",
        2,
        json!({"minAvailable": 2}),
        Some(json!({"currentHealthy": 3,
        "desiredHealthy": 2, "expectedPods": 3, "disruptionsAllowed": 1, "observedGeneration": 1})),
    );
    let rows = [
        ("stale budget asks to retry after 10 s", stale, Some(10)),
        (
            "exhausted budget gives no delay",
            min_available_2(2, 0),
            None,
        ),
    ];
    for (rule, budget, expected) in rows {
        let EvictionDecision::Refuse(refusal) =
            eviction_decision(&running(PodState::Ready), &[&budget], false, &time(NOW))
        else {
            panic!("{rule}: expected a refusal");
        };
        assert_eq!(refusal.retry_after_seconds(), expected, "{rule}");
    }
}

#[test]
fn an_accepted_eviction_is_seen_by_the_next_status_sync() {
    // The controller's view after the apiserver approved an eviction: the pod stays counted
    // out of currentHealthy until it is deleted, so the budget cannot be spent twice.
    let budget = min_available_2(3, 1);
    let EvictionDecision::Allow {
        budget_update: Some(update),
    } = eviction_decision(&running(PodState::Ready), &[&budget], false, &time(NOW))
    else {
        panic!("expected an allowed eviction with a budget update");
    };
    let pods = [
        running(PodState::Ready),
        pod("web-2", PodState::Ready, Some("rs")),
        pod("web-3", PodState::Ready, Some("rs")),
    ];
    let pod_refs: Vec<&Pod> = pods.iter().collect();
    let scales = ControllerScales::new();
    let synced = pdb_status(
        &budget,
        &pod_refs,
        &scales,
        &time(NOW),
        Some(&update.status),
    );
    assert_eq!((synced.current_healthy, synced.disruptions_allowed), (2, 0));
    assert_eq!(
        synced.disrupted_pods,
        status_from(json!({"currentHealthy": 0, "desiredHealthy": 0,
        "expectedPods": 0, "disruptionsAllowed": 0, "disruptedPods": {"web-1": NOW}}))
        .disrupted_pods
    );
}
