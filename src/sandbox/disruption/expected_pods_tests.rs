use super::super::fixtures::{PodState, pdb, pod, refs};
use super::{ControllerScale, ControllerScales, expected_pods};
use k8s_openapi::api::core::v1::Pod;
use serde_json::{Value, json};

/// `(controller uid in the pod, uid of the scale object, replicas)`.
fn scales(entries: &[(&str, &str, i32)]) -> ControllerScales {
    entries
        .iter()
        .map(|(controller, scale, replicas)| {
            let scale = ControllerScale {
                scale_uid: scale.to_string(),
                replicas: *replicas,
            };
            (controller.to_string(), scale)
        })
        .collect()
}

fn ready_pods(names_and_controllers: &[(&str, Option<&str>)]) -> Vec<Pod> {
    names_and_controllers
        .iter()
        .map(|(name, controller)| pod(name, PodState::Ready, *controller))
        .collect()
}

struct Row {
    rule: &'static str,
    spec: Value,
    pods: Vec<Pod>,
    scales: ControllerScales,
    expected: Result<(i32, i32), &'static str>,
}

fn rows() -> Vec<Row> {
    let three_of_rs = || ready_pods(&[("a", Some("rs")), ("b", Some("rs")), ("c", Some("rs"))]);
    let rs_of_3 = || scales(&[("rs", "rs", 3)]);
    vec![
        Row {
            rule: "integer minAvailable expects the selected pods and desires the value",
            spec: json!({"minAvailable": 2}),
            pods: three_of_rs(),
            scales: scales(&[("rs", "rs", 5)]),
            expected: Ok((3, 2)),
        },
        Row {
            rule: "integer minAvailable needs no controller",
            spec: json!({"minAvailable": 1}),
            pods: ready_pods(&[("a", None), ("b", Some("unknown"))]),
            scales: scales(&[]),
            expected: Ok((2, 1)),
        },
        Row {
            rule: "percentage minAvailable 50% of 3 replicas rounds up to 2",
            spec: json!({"minAvailable": "50%"}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Ok((3, 2)),
        },
        Row {
            rule: "percentage minAvailable counts the controller's replicas, not the pods",
            spec: json!({"minAvailable": "50%"}),
            pods: ready_pods(&[("a", Some("rs"))]),
            scales: scales(&[("rs", "rs", 4)]),
            expected: Ok((4, 2)),
        },
        Row {
            rule: "maxUnavailable 34% of 3 replicas rounds up to 2",
            spec: json!({"maxUnavailable": "34%"}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Ok((3, 1)),
        },
        Row {
            rule: "integer maxUnavailable 1 of 3 replicas desires 2",
            spec: json!({"maxUnavailable": 1}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Ok((3, 2)),
        },
        Row {
            rule: "maxUnavailable above the replicas floors desiredHealthy at 0",
            spec: json!({"maxUnavailable": 5}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Ok((3, 0)),
        },
        Row {
            rule: "two ReplicaSets of one Deployment count the Deployment's replicas once",
            spec: json!({"maxUnavailable": 1}),
            pods: ready_pods(&[("old", Some("rs-old")), ("new", Some("rs-new"))]),
            scales: scales(&[("rs-old", "deploy", 4), ("rs-new", "deploy", 4)]),
            expected: Ok((4, 3)),
        },
        Row {
            rule: "pods of two controllers add their replicas",
            spec: json!({"maxUnavailable": "50%"}),
            pods: ready_pods(&[("a", Some("rs-a")), ("b", Some("sts-b"))]),
            scales: scales(&[("rs-a", "rs-a", 2), ("sts-b", "sts-b", 3)]),
            expected: Ok((5, 2)),
        },
        Row {
            rule: "pods without a controller are left out of the scale",
            spec: json!({"maxUnavailable": 1}),
            pods: ready_pods(&[("managed", Some("rs")), ("bare", None)]),
            scales: scales(&[("rs", "rs", 2)]),
            expected: Ok((2, 1)),
        },
        Row {
            rule: "a pod whose controller is unknown makes the budget fail",
            spec: json!({"maxUnavailable": 1}),
            pods: ready_pods(&[("a", Some("rs")), ("orphan", Some("gone"))]),
            scales: scales(&[("rs", "rs", 2)]),
            expected: Err("found no controllers for pod \"orphan\""),
        },
        Row {
            rule: "a malformed percentage makes the budget fail",
            spec: json!({"minAvailable": "half%"}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Err(
                "invalid value for IntOrString: invalid value \"half%\": strconv.Atoi: parsing \"half\": invalid syntax",
            ),
        },
        Row {
            rule: "a string without % makes the budget fail",
            spec: json!({"maxUnavailable": "1"}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Err(
                "invalid value for IntOrString: invalid type: string is not a percentage",
            ),
        },
        Row {
            rule: "a budget with neither field expects nothing",
            spec: json!({}),
            pods: three_of_rs(),
            scales: rs_of_3(),
            expected: Ok((0, 0)),
        },
        Row {
            rule: "no selected pods with a percentage expects nothing",
            spec: json!({"minAvailable": "100%"}),
            pods: vec![],
            scales: scales(&[]),
            expected: Ok((0, 0)),
        },
    ]
}

#[test]
fn expected_pods_follow_the_disruption_controller() {
    for row in rows() {
        let budget = pdb("web", 1, row.spec, None);
        let result = expected_pods(&budget, &refs(&row.pods), &row.scales)
            .map(|target| (target.expected_pods, target.desired_healthy))
            .map_err(|error| error.to_string());
        assert_eq!(result, row.expected.map_err(str::to_string), "{}", row.rule);
    }
}
