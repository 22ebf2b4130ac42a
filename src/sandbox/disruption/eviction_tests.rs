use super::super::fixtures::{PodState, pdb, pod, time};
use super::{BudgetUpdate, EvictionDecision, eviction_decision};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use serde_json::{Value, json};

const NOW: &str = "2025-01-01T00:10:00Z";
const EARLIER: &str = "2025-01-01T00:00:00Z";

fn running(state: PodState) -> Pod {
    pod("web-1", state, Some("rs"))
}

fn sufficient() -> Value {
    json!({"type": "DisruptionAllowed", "status": "True", "reason": "SufficientPods", "message": "",
           "lastTransitionTime": EARLIER, "observedGeneration": 1})
}

/// A budget at generation 1 whose stored status has these counts.
fn budget(spec: Value, current: i32, desired: i32, allowed: i32) -> PodDisruptionBudget {
    let status = json!({"currentHealthy": current, "desiredHealthy": desired, "expectedPods": 3,
        "disruptionsAllowed": allowed, "observedGeneration": 1, "conditions": [sufficient()]});
    pdb("web", 1, spec, Some(status))
}

fn min_available_2(current: i32, allowed: i32) -> PodDisruptionBudget {
    budget(json!({"minAvailable": 2}), current, 2, allowed)
}

fn allowed_without_update() -> Expected {
    Expected::Allow(None)
}

/// The refusal as the JSON body the apiserver sends.
fn refused(body: Value) -> Expected {
    Expected::Refuse(body)
}

enum Expected {
    /// Allowed, with the budget status to write (as JSON) if any.
    Allow(Option<Value>),
    Refuse(Value),
}

fn too_many_requests(cause: &str, retry_after: Option<i32>) -> Value {
    let mut details = json!({"causes": [{"reason": "DisruptionBudget", "message": cause}]});
    if let Some(seconds) = retry_after {
        details["retryAfterSeconds"] = json!(seconds);
    }
    json!({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "code": 429,
        "reason": "TooManyRequests", "message": "Cannot evict pod as it would violate the pod's disruption budget.",
        "details": details})
}

fn forbidden(problem: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "code": 403,
        "reason": "Forbidden", "message": format!("poddisruptionbudget.policy \"web\" is forbidden: {problem}"),
        "details": {"group": "policy", "kind": "poddisruptionbudget", "name": "web"}})
}

struct Row {
    rule: &'static str,
    pod: Pod,
    pdbs: Vec<PodDisruptionBudget>,
    dry_run: bool,
    expected: Expected,
}

fn skip_rows() -> Vec<Row> {
    use PodState::*;
    let exhausted = || vec![min_available_2(2, 0)];
    let row = |rule, state, pdbs| Row {
        rule,
        pod: running(state),
        pdbs,
        dry_run: false,
        expected: allowed_without_update(),
    };
    vec![
        row("Pending pod skips the budget", Pending, exhausted()),
        row("Succeeded pod skips the budget", Succeeded, exhausted()),
        row("Failed pod skips the budget", Failed, exhausted()),
        row("terminating pod skips the budget", Deleting, exhausted()),
        row("pod without a budget is allowed", Ready, vec![]),
        Row {
            rule: "two PDBs → 500",
            pod: running(Ready),
            pdbs: vec![min_available_2(3, 1), min_available_2(3, 1)],
            dry_run: false,
            expected: refused(
                json!({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
                "code": 500, "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}),
            ),
        },
        Row {
            rule: "two PDBs → 500 even when the budgets are exhausted",
            pod: running(Ready),
            pdbs: vec![min_available_2(2, 0), min_available_2(2, 0)],
            dry_run: false,
            expected: refused(
                json!({"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure",
                "code": 500, "message": "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."}),
            ),
        },
    ]
}

fn budget_check_rows() -> Vec<Row> {
    use PodState::*;
    let stale = {
        let status = json!({"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
            "disruptionsAllowed": 1, "observedGeneration": 1});
        pdb("web", 2, json!({"minAvailable": 2}), Some(status))
    };
    let too_many_pending = {
        let disrupted: serde_json::Map<String, Value> = (0..2001)
            .map(|index| (format!("pod-{index}"), json!(EARLIER)))
            .collect();
        let status = json!({"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
            "disruptionsAllowed": 1, "observedGeneration": 1, "disruptedPods": disrupted});
        pdb("web", 1, json!({"minAvailable": 2}), Some(status))
    };
    let row = |rule, pdbs, expected| Row {
        rule,
        pod: running(Ready),
        pdbs,
        dry_run: false,
        expected,
    };
    vec![
        row(
            "stale observedGeneration → 429",
            vec![stale],
            refused(too_many_requests(
                "The disruption budget web is still being processed by the server.",
                Some(10),
            )),
        ),
        row(
            "no status yet counts as stale → 429",
            vec![pdb("web", 1, json!({"minAvailable": 2}), None)],
            refused(too_many_requests(
                "The disruption budget web is still being processed by the server.",
                Some(10),
            )),
        ),
        row(
            "disruptionsAllowed 0 → 429 with a DisruptionBudget cause",
            vec![min_available_2(2, 0)],
            refused(too_many_requests(
                "The disruption budget web needs 2 healthy pods and has 2 currently",
                None,
            )),
        ),
        row(
            "negative disruptionsAllowed → 403",
            vec![min_available_2(1, -1)],
            refused(forbidden("pdb disruptions allowed is negative")),
        ),
        row(
            "more than 2000 pending disruptions → 403",
            vec![too_many_pending],
            refused(forbidden(
                "DisruptedPods map too big - too many evictions not confirmed by PDB controller",
            )),
        ),
    ]
}

fn decrement_rows() -> Vec<Row> {
    use PodState::*;
    let now_insufficient = json!({"type": "DisruptionAllowed", "status": "False", "reason": "InsufficientPods",
        "message": "", "lastTransitionTime": NOW, "observedGeneration": 1});
    vec![
        Row {
            rule: "minAvailable 2 of 4 healthy: eviction spends one of 2 and records the pod",
            pod: running(Ready),
            pdbs: vec![min_available_2(4, 2)],
            dry_run: false,
            expected: Expected::Allow(Some(
                json!({"currentHealthy": 4, "desiredHealthy": 2, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1, "disruptedPods": {"web-1": NOW},
                "conditions": [sufficient()]}),
            )),
        },
        Row {
            rule: "spending the last disruption turns the condition to InsufficientPods",
            pod: running(Ready),
            pdbs: vec![min_available_2(3, 1)],
            dry_run: false,
            expected: Expected::Allow(Some(
                json!({"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                "disruptionsAllowed": 0, "observedGeneration": 1, "disruptedPods": {"web-1": NOW},
                "conditions": [now_insufficient]}),
            )),
        },
        Row {
            rule: "dry run changes nothing",
            pod: running(Ready),
            pdbs: vec![min_available_2(3, 1)],
            dry_run: true,
            expected: allowed_without_update(),
        },
        Row {
            rule: "dry run is still refused by an exhausted budget",
            pod: running(Ready),
            pdbs: vec![min_available_2(2, 0)],
            dry_run: true,
            expected: refused(too_many_requests(
                "The disruption budget web needs 2 healthy pods and has 2 currently",
                None,
            )),
        },
    ]
}

fn actual_as_json(decision: EvictionDecision) -> Expected {
    match decision {
        EvictionDecision::Allow { budget_update } => {
            Expected::Allow(budget_update.map(|BudgetUpdate { pdb_name, status }| {
                assert_eq!(pdb_name, "web", "the update names the covering budget");
                serde_json::to_value(status).expect("status serialises")
            }))
        }
        EvictionDecision::Refuse(refusal) => {
            Expected::Refuse(serde_json::to_value(refusal.to_status()).expect("status serialises"))
        }
    }
}

#[test]
fn eviction_follows_the_apiserver() {
    let rows = [
        skip_rows(),
        budget_check_rows(),
        decrement_rows(),
        policy::unhealthy_pod_rows(),
    ];
    for row in rows.into_iter().flatten() {
        let pdbs: Vec<&PodDisruptionBudget> = row.pdbs.iter().collect();
        let decision = eviction_decision(&row.pod, &pdbs, row.dry_run, &time(NOW));
        match (actual_as_json(decision), row.expected) {
            (Expected::Allow(actual), Expected::Allow(expected)) => {
                assert_eq!(actual, expected, "{}", row.rule)
            }
            (Expected::Refuse(actual), Expected::Refuse(expected)) => {
                assert_eq!(actual, expected, "{}", row.rule)
            }
            (Expected::Allow(_), Expected::Refuse(_)) => {
                panic!("{}: allowed, expected a refusal", row.rule)
            }
            (Expected::Refuse(body), Expected::Allow(_)) => {
                panic!("{}: refused with {body}", row.rule)
            }
        }
    }
}

#[path = "eviction_policy_tests.rs"]
mod policy;
