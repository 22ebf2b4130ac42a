use super::super::fixtures::{PodState, pdb, pod, refs, status_from, time};
use super::super::{ControllerScale, ControllerScales, next_recheck};
use super::pdb_status;
use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

const NOW: &str = "2025-01-01T00:10:00Z";
const EARLIER: &str = "2025-01-01T00:00:00Z";

fn rs_scale(replicas: i32) -> ControllerScales {
    let scale = ControllerScale {
        scale_uid: "rs".to_string(),
        replicas,
    };
    ControllerScales::from([("rs".to_string(), scale)])
}

fn pods(states: &[(&str, PodState)]) -> Vec<Pod> {
    states
        .iter()
        .map(|(name, state)| pod(name, *state, Some("rs")))
        .collect()
}

fn condition(status: &str, reason: &str, since: &str, generation: i64) -> Value {
    json!({"type": "DisruptionAllowed", "status": status, "reason": reason, "message": "",
           "lastTransitionTime": since, "observedGeneration": generation})
}

fn allowed(since: &str, generation: i64) -> Value {
    condition("True", "SufficientPods", since, generation)
}

fn insufficient(since: &str, generation: i64) -> Value {
    condition("False", "InsufficientPods", since, generation)
}

struct Row {
    rule: &'static str,
    generation: i64,
    spec: Value,
    pods: Vec<Pod>,
    previous: Option<Value>,
    expected: Value,
}

fn counting_rows() -> Vec<Row> {
    use PodState::*;
    vec![
        Row {
            rule: "minAvailable 2 of 3 healthy allows 1",
            generation: 1,
            spec: json!({"minAvailable": 2}),
            pods: pods(&[("a", Ready), ("b", Ready), ("c", Ready)]),
            previous: None,
            expected: json!({"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1, "conditions": [allowed(NOW, 1)]}),
        },
        Row {
            rule: "unready, deleting and pending pods are expected but not healthy",
            generation: 1,
            spec: json!({"minAvailable": 2}),
            pods: pods(&[
                ("a", Ready),
                ("b", Unready),
                ("c", Deleting),
                ("d", Pending),
            ]),
            previous: None,
            expected: json!({"currentHealthy": 1, "desiredHealthy": 2, "expectedPods": 4,
                "disruptionsAllowed": 0, "observedGeneration": 1, "conditions": [insufficient(NOW, 1)]}),
        },
        Row {
            rule: "maxUnavailable 34% of 3 replicas rounds up to 2 and allows 2",
            generation: 1,
            spec: json!({"maxUnavailable": "34%"}),
            pods: pods(&[("a", Ready), ("b", Ready), ("c", Ready)]),
            previous: None,
            expected: json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3,
                "disruptionsAllowed": 2, "observedGeneration": 1, "conditions": [allowed(NOW, 1)]}),
        },
        Row {
            rule: "a budget expecting no pods allows no disruption",
            generation: 1,
            spec: json!({"minAvailable": 0}),
            pods: vec![],
            previous: None,
            expected: json!({"currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0,
                "disruptionsAllowed": 0, "observedGeneration": 1, "conditions": [insufficient(NOW, 1)]}),
        },
        Row {
            rule: "observedGeneration follows metadata.generation",
            generation: 4,
            spec: json!({"minAvailable": 1}),
            pods: pods(&[("a", Ready), ("b", Ready)]),
            previous: Some(
                json!({"currentHealthy": 2, "desiredHealthy": 2, "expectedPods": 2,
                "disruptionsAllowed": 0, "observedGeneration": 3, "conditions": [insufficient(EARLIER, 3)]}),
            ),
            expected: json!({"currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2,
                "disruptionsAllowed": 1, "observedGeneration": 4, "conditions": [allowed(NOW, 4)]}),
        },
    ]
}

fn condition_rows() -> Vec<Row> {
    use PodState::*;
    let three_ready = || pods(&[("a", Ready), ("b", Ready), ("c", Ready)]);
    vec![
        Row {
            rule: "condition keeps lastTransitionTime while its status is unchanged",
            generation: 1,
            spec: json!({"minAvailable": 1}),
            pods: three_ready(),
            previous: Some(
                json!({"currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2,
                "disruptionsAllowed": 1, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
            ),
            expected: json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3,
                "disruptionsAllowed": 2, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
        },
        Row {
            rule: "condition turning False moves lastTransitionTime to now",
            generation: 1,
            spec: json!({"minAvailable": 3}),
            pods: pods(&[("a", Ready), ("b", Ready), ("c", Unready)]),
            previous: Some(
                json!({"currentHealthy": 3, "desiredHealthy": 3, "expectedPods": 3,
                "disruptionsAllowed": 0, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
            ),
            expected: json!({"currentHealthy": 2, "desiredHealthy": 3, "expectedPods": 3,
                "disruptionsAllowed": 0, "observedGeneration": 1, "conditions": [insufficient(NOW, 1)]}),
        },
        Row {
            rule: "an up-to-date status comes back unchanged",
            generation: 1,
            spec: json!({"minAvailable": 2}),
            pods: three_ready(),
            previous: Some(
                json!({"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
            ),
            expected: json!({"currentHealthy": 3, "desiredHealthy": 2, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
        },
    ]
}

/// A status at generation 1 with `disruptedPods` and a True condition since `EARLIER`.
fn previous_with_disruptions(disrupted: Value) -> Option<Value> {
    Some(
        json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3, "disruptionsAllowed": 1,
        "observedGeneration": 1, "disruptedPods": disrupted, "conditions": [allowed(EARLIER, 1)]}),
    )
}

fn disrupted_pod_rows() -> Vec<Row> {
    use PodState::*;
    let three_ready = || pods(&[("a", Ready), ("b", Ready), ("c", Ready)]);
    vec![
        Row {
            rule: "a recent disruptedPods entry keeps the pod out of currentHealthy",
            generation: 1,
            spec: json!({"minAvailable": 1}),
            pods: three_ready(),
            previous: previous_with_disruptions(json!({"a": "2025-01-01T00:09:00Z"})),
            expected: json!({"currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1,
                "disruptedPods": {"a": "2025-01-01T00:09:00Z"}, "conditions": [allowed(EARLIER, 1)]}),
        },
        Row {
            rule: "disruptedPods entry expires after 2 minutes",
            generation: 1,
            spec: json!({"minAvailable": 1}),
            pods: three_ready(),
            previous: previous_with_disruptions(json!({"a": "2025-01-01T00:07:59Z"})),
            expected: json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3,
                "disruptionsAllowed": 2, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
        },
        Row {
            rule: "disruptedPods entry exactly 2 minutes old is kept but no longer hides the pod",
            generation: 1,
            spec: json!({"minAvailable": 1}),
            pods: three_ready(),
            previous: previous_with_disruptions(json!({"a": "2025-01-01T00:08:00Z"})),
            expected: json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3,
                "disruptionsAllowed": 2, "observedGeneration": 1,
                "disruptedPods": {"a": "2025-01-01T00:08:00Z"}, "conditions": [allowed(EARLIER, 1)]}),
        },
        Row {
            rule: "disruptedPods entry is dropped once its pod is terminating",
            generation: 1,
            spec: json!({"minAvailable": 1}),
            pods: pods(&[("a", Deleting), ("b", Ready), ("c", Ready)]),
            previous: previous_with_disruptions(json!({"a": "2025-01-01T00:09:30Z"})),
            expected: json!({"currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 3,
                "disruptionsAllowed": 1, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
        },
        Row {
            rule: "disruptedPods entry is dropped once its pod is gone",
            generation: 1,
            spec: json!({"minAvailable": 1}),
            pods: pods(&[("b", Ready), ("c", Ready)]),
            previous: previous_with_disruptions(json!({"a": "2025-01-01T00:09:30Z"})),
            expected: json!({"currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 2,
                "disruptionsAllowed": 1, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]}),
        },
    ]
}

fn sync_failure_rows() -> Vec<Row> {
    use PodState::*;
    let previous = json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3,
        "disruptionsAllowed": 2, "observedGeneration": 1, "conditions": [allowed(EARLIER, 1)]});
    let failed = |message: &str| {
        json!({"currentHealthy": 3, "desiredHealthy": 1, "expectedPods": 3, "disruptionsAllowed": 0,
            "observedGeneration": 1, "conditions": [{"type": "DisruptionAllowed", "status": "False",
            "reason": "SyncFailed", "message": message, "lastTransitionTime": NOW, "observedGeneration": 1}]})
    };
    vec![
        Row {
            rule: "a pod with an unknown controller fails safe without advancing observedGeneration",
            generation: 2,
            spec: json!({"maxUnavailable": 1}),
            pods: vec![
                pod("a", Ready, Some("rs")),
                pod("stray", Ready, Some("unknown")),
            ],
            previous: Some(previous.clone()),
            expected: failed("found no controllers for pod \"stray\""),
        },
        Row {
            rule: "a malformed percentage fails safe",
            generation: 2,
            spec: json!({"maxUnavailable": "x%"}),
            pods: pods(&[("a", Ready)]),
            previous: Some(previous),
            expected: failed(
                "invalid value for IntOrString: invalid value \"x%\": strconv.Atoi: parsing \"x\": invalid syntax",
            ),
        },
    ]
}

#[test]
fn status_follows_the_disruption_controller() {
    let rows = [
        counting_rows(),
        condition_rows(),
        disrupted_pod_rows(),
        sync_failure_rows(),
    ];
    for row in rows.into_iter().flatten() {
        let budget = pdb("web", row.generation, row.spec, None);
        let previous = row.previous.map(status_from);
        let status = pdb_status(
            &budget,
            &refs(&row.pods),
            &rs_scale(3),
            &time(NOW),
            previous.as_ref(),
        );
        let actual = serde_json::to_value(&status).expect("status serialises");
        assert_eq!(actual, row.expected, "{}", row.rule);
    }
}

#[test]
fn sub_second_now_is_recorded_in_whole_seconds() {
    let budget = pdb("web", 1, json!({"minAvailable": 1}), None);
    let ready = pods(&[("a", PodState::Ready), ("b", PodState::Ready)]);
    let status = pdb_status(
        &budget,
        &refs(&ready),
        &rs_scale(2),
        &time("2025-01-01T00:10:00.75Z"),
        None,
    );
    let condition = &status.conditions.expect("condition is set")[0];
    assert_eq!(condition.last_transition_time, time(NOW));
}

#[test]
fn next_recheck_is_the_first_second_after_the_earliest_entry_expires() {
    let rows = [
        ("no disruptedPods needs no recheck", json!({}), None),
        (
            "the earliest of several entries decides",
            json!({"disruptedPods": {"a": "2025-01-01T00:09:00Z", "b": "2025-01-01T00:08:30Z"}}),
            Some("2025-01-01T00:10:31Z"),
        ),
    ];
    for (rule, fields, expected) in rows {
        let mut status = json!({"currentHealthy": 0, "desiredHealthy": 0, "expectedPods": 0, "disruptionsAllowed": 0});
        if let Some(disrupted) = fields.get("disruptedPods") {
            status["disruptedPods"] = disrupted.clone();
        }
        assert_eq!(
            next_recheck(&status_from(status)),
            expected.map(time),
            "{rule}"
        );
    }
}
