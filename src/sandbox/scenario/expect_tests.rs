use super::*;
use crate::sandbox::scenario::format::ConditionStatus;
use crate::sandbox::scenario::step_args::Target;
use serde_json::json;
use std::collections::BTreeMap;

fn eviction(name: &str, conditions: Value) -> Value {
    json!({"metadata": {"name": name}, "spec": {"placementName": "web"}, "status": {"conditions": conditions}})
}

fn executed(status: &str, reason: &str, message: &str) -> Value {
    json!({"type": "Executed", "status": status, "reason": reason, "message": message})
}

fn expecting(condition: Option<ConditionCheck>) -> Expectation {
    Expectation {
        target: Target::default(),
        exists: true,
        count: None,
        condition,
        fields: BTreeMap::new(),
        within: None,
    }
}

fn condition(
    status: ConditionStatus,
    reason: Option<&str>,
    message: Option<&str>,
) -> ConditionCheck {
    ConditionCheck {
        type_: "Executed".into(),
        status,
        reason: reason.map(Into::into),
        message: message.map(Into::into),
    }
}

const EXECUTED: &str = "ClusterResourcePlacementEvictionExecuted";
const ALLOWED: &str = "Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3";

#[test]
fn condition_expectations() {
    let done = eviction(
        "e",
        json!([{"type": "Valid", "status": "True"}, executed("True", EXECUTED, ALLOWED)]),
    );
    let fresh = eviction("e", json!([]));
    let only_valid = eviction("e", json!([{"type": "Valid", "status": "True"}]));
    let rows: [(&str, ConditionCheck, &Value, Result<(), &str>); 7] = [
        (
            "type and status match",
            condition(ConditionStatus::True, None, None),
            &done,
            Ok(()),
        ),
        (
            "reason matches too",
            condition(ConditionStatus::True, Some(EXECUTED), None),
            &done,
            Ok(()),
        ),
        (
            "message is a substring",
            condition(ConditionStatus::True, None, Some("availablePlacements: 3")),
            &done,
            Ok(()),
        ),
        (
            "other status: says what it is",
            condition(ConditionStatus::False, None, None),
            &done,
            Err(
                "e: Executed=True (ClusterResourcePlacementEvictionExecuted: \"Eviction is allowed by specified ClusterResourcePlacementDisruptionBudget, availablePlacements: 3, totalPlacements: 3\"), want Executed=False",
            ),
        ),
        (
            "other reason",
            condition(ConditionStatus::True, Some("NoPDB"), None),
            &done,
            Err("want Executed=True reason NoPDB"),
        ),
        (
            "no conditions at all",
            condition(ConditionStatus::True, None, None),
            &fresh,
            Err("e: no Executed condition yet (no conditions at all)"),
        ),
        (
            "lists the conditions it has",
            condition(ConditionStatus::True, None, None),
            &only_valid,
            Err("e: no Executed condition yet (has Valid)"),
        ),
    ];
    for (rule, want, object, outcome) in rows {
        let got = check(&expecting(Some(want)), std::slice::from_ref(object));
        match (outcome, got) {
            (Ok(()), Ok(_)) => {}
            (Err(text), Err(why)) => assert!(why.contains(text), "{rule}: {why}"),
            (want, got) => panic!("{rule}: want {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn presence_count_and_field_expectations() {
    let bound = |name: &str, cluster: &str| json!({"metadata": {"name": name}, "spec": {"state": "Bound", "targetCluster": cluster}});
    let two = [bound("b1", "member-1"), bound("b2", "member-2")];
    let gone = Expectation {
        exists: false,
        ..expecting(None)
    };
    let three = Expectation {
        count: Some(3),
        ..expecting(None)
    };
    let state = |value: &str| Expectation {
        fields: BTreeMap::from([(".spec.state".to_string(), json!(value))]),
        ..expecting(None)
    };
    // (rule, expectation, what matched, the note or the failure)
    type Row<'a> = (
        &'a str,
        &'a Expectation,
        &'a [Value],
        Result<&'a str, &'a str>,
    );
    let rows: [Row; 7] = [
        ("gone: nothing matches", &gone, &[], Ok("gone")),
        ("gone: still there", &gone, &two, Err("still there: b1, b2")),
        (
            "exists: nothing yet",
            &expecting(None),
            &[],
            Err("nothing matches yet"),
        ),
        (
            "count differs",
            &three,
            &two,
            Err("2 match (b1, b2), want 3"),
        ),
        (
            "field equal on every object",
            &state("Bound"),
            &two,
            Ok("2 objects"),
        ),
        (
            "field differs",
            &state("Unscheduled"),
            &two,
            Err("b1: .spec.state is \"Bound\", want \"Unscheduled\""),
        ),
        (
            "one object: its name",
            &expecting(None),
            &two[..1],
            Ok("b1"),
        ),
    ];
    for (rule, expectation, objects, outcome) in rows {
        let got = check(expectation, objects);
        match (outcome, got) {
            (Ok(text), Ok(note)) => assert_eq!(note, text, "{rule}"),
            (Err(text), Err(why)) => assert_eq!(why, text, "{rule}"),
            (want, got) => panic!("{rule}: want {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn a_met_condition_is_described_for_the_timeline() {
    let done = eviction("e", json!([executed("True", EXECUTED, ALLOWED)]));
    let note = check(
        &expecting(Some(condition(ConditionStatus::True, None, None))),
        &[done],
    )
    .expect("met");
    assert_eq!(note, format!("Executed=True ({EXECUTED}: {ALLOWED:?})"));
}
