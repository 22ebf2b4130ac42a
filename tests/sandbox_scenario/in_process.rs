//! Scenarios played in process on a real sandbox fleet (hub, members, simulations), the
//! output captured: the example that needs no controller passes; gates are written as an
//! external controller writes them; faults and reachability steps act on the named cluster.

use super::support::repo_path;
use fleet_eviction::api::eviction::ClusterResourcePlacementEviction;
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::sandbox::fleet::Fleet;
use fleet_eviction::sandbox::scenario::{Outcome, Scenario, load, parse, run};
use kube::api::Api;
use std::sync::Arc;

/// Starts the scenario's fleet in `dir`, plays it, and returns the outcome, the output and
/// the fleet (still running, to look at what the scenario left).
async fn play(scenario: &Scenario, dir: &std::path::Path) -> (Outcome, String, Fleet) {
    let opts = scenario.fleet_options(dir.to_path_buf(), 7, Arc::new(SystemClock));
    let fleet = Fleet::start(&opts).await.expect("fleet starts");
    let mut out = Vec::new();
    let outcome = run(&fleet, scenario, &mut out).await;
    (outcome, String::from_utf8_lossy(&out).into_owned(), fleet)
}

fn results(outcome: &Outcome) -> Vec<&str> {
    outcome
        .steps
        .iter()
        .map(|s| if s.result.is_ok() { "ok" } else { "FAILED" })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fleet_up_example_passes() {
    let scenario = load(&repo_path("examples/scenarios/fleet-up.yaml")).expect("valid");
    let dir = tempfile::tempdir().expect("dir");
    let (outcome, out, _fleet) = play(&scenario, dir.path()).await;
    assert!(outcome.passed(), "{out}");
    assert_eq!(outcome.exit_code(), 0);
    assert_eq!(outcome.steps.len(), 13, "{out}");
    for line in [
        "ok      setup (on the hub) — created 4 objects",
        "ok      4. web is no longer Available on member-2 — Available=False (NotAllWorkAreAvailable",
        "ok      9. the binding is gone once its workload is withdrawn — gone",
        "ok      10. member-3 no longer has web's namespace — gone",
        "  web  member-1 (Bound, Available=True), member-2 (Bound, Available=True), member-3 (Bound, Available=True)",
        "Evictions on the hub (kubectl get crpe):\n  none\n",
        "result: all 13 steps ok",
    ] {
        assert!(out.contains(line), "{line:?} not in:\n{out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_condition_writes_a_gate_and_keeps_the_other_conditions() {
    let text = r#"
members: 1
setup:
  - apiVersion: placement.kubernetes-fleet.io/v1beta1
    kind: ClusterResourcePlacementEviction
    metadata: {name: gated}
    spec:
      placementName: web
      clusterName: member-1
      evictionConditions: [{name: TrafficShifted}, {name: Approved}]
steps:
  - title: not yet
    setCondition: {kind: ClusterResourcePlacementEviction, name: gated, type: TrafficShifted, status: "False", reason: Pending, message: still serving}
  - title: approved
    setCondition: {kind: ClusterResourcePlacementEviction, name: gated, type: Approved, status: "True", message: change approved}
  - title: traffic moved
    setCondition: {kind: ClusterResourcePlacementEviction, name: gated, type: TrafficShifted, status: "True", reason: Shifted, message: traffic moved to member-2}
  - title: both gates are open
    expect: {kind: ClusterResourcePlacementEviction, name: gated, condition: {type: TrafficShifted, status: "True", reason: Shifted, message: member-2}}
  - title: a wrong expectation fails
    expect: {kind: ClusterResourcePlacementEviction, name: gated, condition: {type: Approved, status: "False"}, within: 300ms}
"#;
    let scenario = parse(text, "gates.yaml").expect("valid");
    let dir = tempfile::tempdir().expect("dir");
    let (outcome, out, fleet) = play(&scenario, dir.path()).await;
    assert_eq!(
        results(&outcome),
        ["ok", "ok", "ok", "ok", "FAILED"],
        "{out}"
    );
    assert_eq!(outcome.exit_code(), 1);
    let why = outcome.steps[4].result.as_ref().expect_err("failed");
    assert_eq!(
        why,
        "after 300ms: gated: Approved=True (SetByScenario: \"change approved\"), want Approved=False"
    );
    assert!(
        out.contains("result: FAILED: 1 of 5 steps failed (step 5)"),
        "{out}"
    );
    let evictions: Api<ClusterResourcePlacementEviction> = Api::all(fleet.hub.client());
    let gated = evictions.get("gated").await.expect("eviction");
    let conditions = gated.status.expect("status").conditions;
    let seen: Vec<(&str, &str, &str, &str, Option<i64>)> = conditions
        .iter()
        .map(|c| {
            (
                c.type_.as_str(),
                c.status.as_str(),
                c.reason.as_str(),
                c.message.as_str(),
                c.observed_generation,
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            (
                "TrafficShifted",
                "True",
                "Shifted",
                "traffic moved to member-2",
                Some(1)
            ),
            (
                "Approved",
                "True",
                "SetByScenario",
                "change approved",
                Some(1)
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_and_reachability_act_on_the_named_cluster() {
    let text = r#"
members: 1
setup:
  - {apiVersion: v1, kind: Namespace, metadata: {name: demo}}
  - {apiVersion: v1, kind: ConfigMap, metadata: {name: settings, namespace: demo}, data: {mode: fast}}
steps:
  - title: the hub fails every ConfigMap read
    faults: {errors: [{rate: 1, code: 500, verb: get, resource: configmaps}]}
  - title: so this cannot be seen
    expect: {kind: ConfigMap, namespace: demo, name: settings, within: 300ms}
  - title: the hub recovers
    faults: {}
  - title: now it is seen
    expect: {kind: ConfigMap, namespace: demo, name: settings, fields: {.data.mode: fast}}
  - title: a name without its namespace is looked for in every namespace
    expect: {kind: ConfigMap, name: settings, count: 1, fields: {.metadata.namespace: demo}}
  - title: a namespace on member-1
    cluster: member-1
    create: [{apiVersion: v1, kind: Namespace, metadata: {name: demo}}]
  - title: member-1 is cut off
    unreachable: member-1
  - title: so its namespace cannot be seen
    cluster: member-1
    expect: {kind: Namespace, name: demo, within: 300ms}
  - title: member-1 is back
    reachable: member-1
  - title: its watches are dropped
    dropWatches: member-1
  - title: and its namespace is seen
    cluster: member-1
    expect: {kind: Namespace, name: demo}
"#;
    let scenario = parse(text, "faults.yaml").expect("valid");
    let dir = tempfile::tempdir().expect("dir");
    let (outcome, out, fleet) = play(&scenario, dir.path()).await;
    assert_eq!(
        results(&outcome),
        [
            "ok", "FAILED", "ok", "ok", "ok", "ok", "ok", "FAILED", "ok", "ok", "ok"
        ],
        "{out}"
    );
    let injected = outcome.steps[1].result.as_ref().expect_err("failed");
    assert!(
        injected.contains("injected fault") && injected.contains("500"),
        "{injected}"
    );
    assert!(
        fleet
            .hub
            .server
            .request_counts()
            .iter()
            .any(|(key, n)| *n > 0
                && (key.verb.as_str(), key.resource.as_str(), key.code)
                    == ("get", "configmaps", 500)),
        "the hub counted the injected 500s: {:?}",
        fleet.hub.server.request_counts()
    );
    let member = fleet.member("member-1").expect("member-1");
    assert!(!member.server.is_unreachable(), "reachable again");
    assert!(fleet.hub.server.faults().errors.is_empty(), "faults lifted");
}
