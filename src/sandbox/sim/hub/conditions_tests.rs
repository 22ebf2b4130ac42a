use super::*;

fn at(seconds: i64) -> Timestamp {
    Timestamp::from_second(1_767_225_600 + seconds).expect("time")
}

fn find<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

fn observed(applied: Applied, available: Option<Availability>) -> Observed {
    Observed { applied, available }
}

#[test]
fn set_condition_follows_meta_set_status_condition() {
    struct Row {
        rule: &'static str,
        old_status: bool,
        new_status: bool,
        keeps_transition_time: bool,
    }
    let rows = [
        Row {
            rule: "same status keeps lastTransitionTime",
            old_status: true,
            new_status: true,
            keeps_transition_time: true,
        },
        Row {
            rule: "a status change moves lastTransitionTime",
            old_status: true,
            new_status: false,
            keeps_transition_time: false,
        },
    ];
    for row in rows {
        let mut list = vec![condition(
            "A",
            row.old_status,
            "Old",
            "old".into(),
            1,
            at(0),
        )];
        set_condition(
            &mut list,
            condition("A", row.new_status, "New", "new".into(), 2, at(60)),
        );
        let c = &list[0];
        let expected_time = if row.keeps_transition_time {
            at(0)
        } else {
            at(60)
        };
        assert_eq!(c.last_transition_time.0, expected_time, "{}", row.rule);
        assert_eq!(
            (c.reason.as_str(), c.message.as_str(), c.observed_generation),
            ("New", "new", Some(2)),
            "{}: reason, message and generation always follow",
            row.rule
        );
    }
}

#[test]
fn timestamps_are_whole_seconds_as_on_the_wire() {
    let now = Timestamp::from_millisecond(1_767_225_600_750).expect("time");
    let c = condition("A", true, "R", String::new(), 1, now);
    assert_eq!(c.last_transition_time.0, at(0));
}

#[test]
fn binding_conditions_report_each_observation() {
    struct Row {
        rule: &'static str,
        observed: Observed,
        applied: (&'static str, &'static str),
        available: Option<(&'static str, &'static str)>,
    }
    let rows = [
        Row {
            rule: "all applied and available",
            observed: observed(Applied::All, Some(Availability::All)),
            applied: ("True", REASON_ALL_APPLIED),
            available: Some(("True", REASON_ALL_AVAILABLE)),
        },
        Row {
            rule: "applied, a workload short of ready replicas",
            observed: observed(Applied::All, Some(Availability::NotAll("short".into()))),
            applied: ("True", REASON_ALL_APPLIED),
            available: Some(("False", REASON_NOT_ALL_AVAILABLE)),
        },
        Row {
            rule: "an object refused: Available is not reported",
            observed: observed(Applied::NotAll("refused".into()), None),
            applied: ("False", REASON_NOT_ALL_APPLIED),
            available: None,
        },
    ];
    for row in rows {
        let list = binding_conditions(&[], 3, &row.observed, at(0));
        let applied = find(&list, APPLIED).expect("Applied");
        assert_eq!(
            (applied.status.as_str(), applied.reason.as_str()),
            row.applied,
            "{}",
            row.rule
        );
        let available = find(&list, AVAILABLE).map(|c| (c.status.as_str(), c.reason.as_str()));
        assert_eq!(available, row.available, "{}", row.rule);
        for type_ in [ROLLOUT_STARTED, OVERRIDDEN, WORK_SYNCHRONIZED] {
            assert_eq!(
                find(&list, type_).map(|c| c.status.as_str()),
                Some("True"),
                "{}: {type_}",
                row.rule
            );
        }
        assert!(
            list.iter().all(|c| c.observed_generation == Some(3)),
            "{}: every condition is for the current generation",
            row.rule
        );
    }
}

#[test]
fn conditions_of_other_types_are_kept() {
    let foreign = condition("DiffReported", false, "Crafted", "kept".into(), 1, at(0));
    let list = binding_conditions(
        std::slice::from_ref(&foreign),
        2,
        &observed(Applied::All, Some(Availability::All)),
        at(60),
    );
    assert_eq!(find(&list, "DiffReported"), Some(&foreign));
}

#[test]
fn losing_applied_drops_a_previous_available() {
    let before = binding_conditions(
        &[],
        1,
        &observed(Applied::All, Some(Availability::All)),
        at(0),
    );
    let after = binding_conditions(
        &before,
        1,
        &observed(Applied::NotAll("x".into()), None),
        at(60),
    );
    assert!(find(&after, AVAILABLE).is_none());
}

#[test]
fn an_unchanged_observation_changes_nothing() {
    let seen = observed(Applied::All, Some(Availability::NotAll("1 of 2".into())));
    let first = binding_conditions(&[], 1, &seen, at(0));
    assert_eq!(binding_conditions(&first, 1, &seen, at(600)), first);
}
