//! Reading scenario files: what is accepted, and for each mistake a message that says what
//! is wrong and where.

use super::support::repo_path;
use fleet_eviction::sandbox::scenario::format::ConditionStatus;
use fleet_eviction::sandbox::scenario::step::{Action, STEP_KINDS};
use fleet_eviction::sandbox::scenario::{load, parse};
use std::time::Duration;

const MINIMAL: &str = "members: 2\nsteps:\n  - title: a pause\n    wait: 10ms\n";

#[test]
fn a_minimal_file_gets_the_documented_defaults() {
    let scenario = parse(MINIMAL, "minimal.yaml").expect("valid");
    assert_eq!(scenario.members, 2);
    assert_eq!(scenario.nodes_per_member, 3);
    assert_eq!(scenario.timeout.0, Duration::from_secs(30));
    assert_eq!(scenario.seed, None);
    assert!(scenario.setup.is_empty());
    assert_eq!(scenario.steps.len(), 1);
    assert_eq!(scenario.steps[0].title, "a pause");
    assert_eq!(scenario.steps[0].cluster, "hub");
    assert_eq!(
        scenario.steps[0].action,
        Action::Wait(Duration::from_millis(10))
    );
}

#[test]
fn every_step_kind_is_read() {
    let text = r#"
members: 2
steps:
  - {title: t, create: [{apiVersion: v1, kind: Namespace, metadata: {name: demo}}]}
  - {title: t, delete: {kind: Namespace, name: demo}}
  - {title: t, setCondition: {kind: ClusterResourcePlacementEviction, name: e, type: TrafficShifted, status: true, message: moved}}
  - {title: t, cluster: member-1, breakPods: {namespace: web, selector: app=web, count: 1}}
  - {title: t, cluster: member-2, fixPods: {namespace: web}}
  - {title: t, unreachable: member-2}
  - {title: t, reachable: member-2}
  - {title: t, dropWatches: hub}
  - {title: t, cluster: member-1, faults: {latencyMs: 5, errors: [{rate: 0.5, code: 429, verb: list, resource: pods}]}}
  - {title: t, reschedule: web}
  - {title: t, wait: 1s}
  - {title: t, expect: {binding: {placement: web, member: member-1}, condition: {type: Available, status: "False"}, within: 5s}}
"#;
    let scenario = parse(text, "all.yaml").expect("valid");
    let kinds: Vec<&str> = scenario.steps.iter().map(|s| s.action.kind()).collect();
    assert_eq!(kinds, STEP_KINDS);
    let Action::SetCondition(set) = &scenario.steps[2].action else {
        panic!("setCondition: {:?}", scenario.steps[2].action);
    };
    assert_eq!(
        set.status,
        ConditionStatus::True,
        "YAML's bare true is True"
    );
    assert_eq!(set.reason, "SetByScenario", "the default reason");
    let Action::Expect(expect) = &scenario.steps[11].action else {
        panic!("expect: {:?}", scenario.steps[11].action);
    };
    assert!(expect.exists, "exists by default");
    assert_eq!(expect.within, Some(Duration::from_secs(5)));
    let binding = expect.target.binding.as_ref().expect("binding shorthand");
    assert_eq!(
        (binding.placement.as_str(), binding.member.as_deref()),
        ("web", Some("member-1"))
    );
}

#[test]
fn the_example_scenarios_are_valid() {
    let quickstart = load(&repo_path("examples/scenarios/quickstart.yaml")).expect("quickstart");
    assert_eq!(quickstart.members, 3);
    assert_eq!(quickstart.setup.len(), 11);
    let created: Vec<String> = quickstart
        .steps
        .iter()
        .filter_map(|s| match &s.action {
            Action::Create(objects) => Some(objects[0].display_name()),
            _ => None,
        })
        .collect();
    assert_eq!(
        created,
        [
            "evict-web-member-1",
            "evict-web-member-2",
            "evict-batch-member-3"
        ]
    );
    let fleet_up = load(&repo_path("examples/scenarios/fleet-up.yaml")).expect("fleet-up");
    assert_eq!((fleet_up.members, fleet_up.nodes_per_member), (3, 2));
}

/// Each bad file, and the fragments its message must contain.
#[test]
fn mistakes_are_refused_with_a_message_that_says_what_and_where() {
    let rows: &[(&str, &str, &[&str])] = &[
        (
            "not YAML",
            "steps: [\n",
            &["unclosed bracket", "bad.yaml:1"],
        ),
        ("no members", "steps: []\n", &["missing field `members`"]),
        (
            "a misspelt top-level key",
            "members: 2\nstep: []\n",
            &["unknown field `step`", "line 2"],
        ),
        (
            "an unknown step kind, with the line of its step",
            "members: 2\nsteps:\n  - title: x\n    frobnicate: {}\n",
            &[
                "unknown step kind `frobnicate`",
                "line 3",
                "one of create, delete",
            ],
        ),
        (
            "two actions in one step",
            "members: 2\nsteps:\n  - {title: x, wait: 1s, reschedule: web}\n",
            &["a step does one thing", "`wait` and `reschedule`"],
        ),
        (
            "a step without a title",
            "members: 2\nsteps:\n  - wait: 1s\n",
            &["the `wait` step has no title"],
        ),
        (
            "a step that does nothing",
            "members: 2\nsteps:\n  - title: idle\n",
            &["the step \"idle\" does nothing"],
        ),
        (
            "a bad duration",
            "members: 2\nsteps:\n  - {title: x, wait: soon}\n",
            &["invalid duration \"soon\"", "line 3"],
        ),
        (
            "a bad condition status",
            "members: 2\nsteps:\n  - {title: x, expect: {kind: Pod, condition: {type: Ready, status: Maybe}}}\n",
            &["condition status must be True, False or Unknown"],
        ),
        (
            "a misspelt expect field",
            "members: 2\nsteps:\n  - {title: x, expect: {kind: Pod, conditon: {type: Ready, status: True}}}\n",
            &["unknown field `conditon`", "condition"],
        ),
        (
            "an object without kind",
            "members: 2\nsetup:\n  - {apiVersion: v1, metadata: {name: x}}\nsteps: []\n",
            &["needs apiVersion and kind", "line 3"],
        ),
        (
            "an object without a name",
            "members: 2\nsteps:\n  - {title: x, create: [{apiVersion: v1, kind: Namespace, metadata: {}}]}\n",
            &["the Namespace needs metadata.name"],
        ),
        (
            "a cluster the fleet does not have",
            "members: 2\nsteps:\n  - {title: look, cluster: member-5, expect: {kind: Pod}}\n",
            &[
                "step 1 (\"look\")",
                "cluster `member-5` is not in this fleet (hub, member-1..member-2)",
            ],
        ),
        (
            "a member named in a value",
            "members: 1\nsteps:\n  - {title: cut, unreachable: member-2}\n",
            &[
                "step 1 (\"cut\")",
                "cluster `member-2` is not in this fleet (hub, member-1)",
            ],
        ),
        (
            "pods on the hub",
            "members: 2\nsteps:\n  - {title: x, breakPods: {namespace: web}}\n",
            &["pods run on members, not on the hub"],
        ),
        (
            "a target without a kind",
            "members: 2\nsteps:\n  - {title: x, delete: {name: web}}\n",
            &["say which objects"],
        ),
        (
            "kind and binding together",
            "members: 2\nsteps:\n  - {title: x, delete: {kind: Pod, binding: {placement: web}}}\n",
            &["either `kind` or `binding`"],
        ),
        (
            "a bad label selector",
            "members: 2\nsteps:\n  - {title: x, expect: {kind: Pod, selector: \"app in (web\"}}\n",
            &["bad selector \"app in (web\""],
        ),
        (
            "a bad field path",
            "members: 2\nsteps:\n  - {title: x, expect: {kind: Pod, fields: {\".status.conditions[?(@.type==\": x}}}\n",
            &["fields: bad path"],
        ),
        (
            "gone, yet counted",
            "members: 2\nsteps:\n  - {title: x, expect: {kind: Pod, exists: false, count: 2}}\n",
            &["`exists: false` expects nothing to match"],
        ),
        (
            "too many members",
            "members: 51\nsteps: []\n",
            &["members must be between 1 and 50"],
        ),
        (
            "no members",
            "members: 0\nsteps: []\n",
            &["members must be between 1 and 50"],
        ),
        (
            "a fault the server cannot inject",
            "members: 2\nsteps:\n  - {title: x, faults: {errors: [{rate: 1, code: 404}]}}\n",
            &["faults can inject 409, 429 or 500, not 404"],
        ),
        (
            "a reason no API server accepts",
            "members: 2\nsteps:\n  - {title: x, setCondition: {kind: Pod, name: p, type: Ready, status: True, reason: not ok}}\n",
            &["reason \"not ok\" is not a valid condition reason"],
        ),
    ];
    for (rule, text, fragments) in rows {
        let err = match parse(text, "bad.yaml") {
            Ok(scenario) => panic!("{rule}: accepted {scenario:?}"),
            Err(err) => err,
        };
        for fragment in *fragments {
            assert!(
                err.contains(fragment),
                "{rule}: {fragment:?} not in:\n{err}"
            );
        }
    }
}

#[test]
fn an_unreadable_file_names_the_file() {
    let path = repo_path("examples/scenarios/no-such-file.yaml");
    let err = load(&path).expect_err("missing").to_string();
    assert!(
        err.starts_with(&format!("cannot read scenario {}", path.display())),
        "{err}"
    );
}
