//! Checks that need the whole file: the fleet's size, the clusters steps name, paths,
//! selectors, and combinations of fields that make no sense. Each message names the step
//! by number and title.

use super::format::Scenario;
use super::path;
use super::step::{Action, HUB, Step};
use super::step_args::{Expectation, Faults, PodSelection, SetCondition, Target};
use crate::sandbox::fleet::SIMULATED_MEMBERS_MAX;
use crate::sandbox::select::label::LabelSelector;

/// Nodes a member may start with; more is no use to a demo and slows the simulation.
const NODES_MAX: usize = 100;

/// The first problem found, as a sentence.
pub fn check(scenario: &Scenario) -> Result<(), String> {
    if !(1..=SIMULATED_MEMBERS_MAX).contains(&scenario.members) {
        return Err(format!(
            "members must be between 1 and {SIMULATED_MEMBERS_MAX} (scenarios need simulated members), not {}",
            scenario.members
        ));
    }
    if !(1..=NODES_MAX).contains(&scenario.nodes_per_member) {
        return Err(format!(
            "nodesPerMember must be between 1 and {NODES_MAX}, not {}",
            scenario.nodes_per_member
        ));
    }
    if scenario.timeout.0.is_zero() {
        return Err("timeout must be longer than 0s".into());
    }
    let fleet = FleetShape {
        members: scenario.members,
    };
    for (i, step) in scenario.steps.iter().enumerate() {
        check_step(&fleet, step)
            .map_err(|why| format!("step {} ({:?}): {why}", i + 1, step.title))?;
    }
    Ok(())
}

struct FleetShape {
    members: usize,
}

impl FleetShape {
    fn knows(&self, cluster: &str) -> Result<(), String> {
        let known = cluster == HUB
            || cluster
                .strip_prefix("member-")
                .and_then(|n| n.parse::<usize>().ok())
                .is_some_and(|n| {
                    (1..=self.members).contains(&n) && cluster == format!("member-{n}")
                });
        if known {
            Ok(())
        } else {
            Err(format!(
                "cluster `{cluster}` is not in this fleet (hub, {})",
                self.member_range()
            ))
        }
    }

    fn member(&self, cluster: &str) -> Result<(), String> {
        self.knows(cluster)?;
        if cluster == HUB {
            return Err(format!(
                "pods run on members, not on the hub: give the step `cluster: member-N` ({})",
                self.member_range()
            ));
        }
        Ok(())
    }

    fn member_range(&self) -> String {
        match self.members {
            1 => "member-1".into(),
            n => format!("member-1..member-{n}"),
        }
    }
}

fn check_step(fleet: &FleetShape, step: &Step) -> Result<(), String> {
    fleet.knows(&step.cluster)?;
    match &step.action {
        Action::Create(objects) if objects.is_empty() => Err("create lists no objects".into()),
        Action::Create(_) | Action::Wait(_) => Ok(()),
        Action::Delete(target) => check_target(fleet, target),
        Action::SetCondition(set) => check_set_condition(fleet, set),
        Action::BreakPods(pods) | Action::FixPods(pods) => {
            fleet.member(&step.cluster)?;
            check_pods(pods)
        }
        Action::Unreachable(cluster)
        | Action::Reachable(cluster)
        | Action::DropWatches(cluster) => fleet.knows(cluster),
        Action::Faults(faults) => check_faults(faults),
        Action::Reschedule(placement) if placement.is_empty() => {
            Err("reschedule needs a placement name".into())
        }
        Action::Reschedule(_) => Ok(()),
        Action::Expect(expect) => check_expectation(fleet, expect),
    }
}

fn check_target(fleet: &FleetShape, target: &Target) -> Result<(), String> {
    match (&target.kind, &target.binding) {
        (None, None) => return Err("say which objects: give `kind` (and `name`, `selector`...) or `binding: {placement: P, member: M}`".into()),
        (Some(_), Some(_)) => return Err("give either `kind` or `binding`, not both".into()),
        (None, Some(binding)) => {
            if target.api_version.is_some() {
                return Err("`binding` already names the kind: drop `apiVersion`".into());
            }
            if binding.placement.is_empty() {
                return Err("binding.placement is empty".into());
            }
            if let Some(member) = &binding.member {
                fleet.member(member).map_err(|why| format!("binding.member: {why}"))?;
            }
        }
        (Some(kind), None) if kind.is_empty() => return Err("kind is empty".into()),
        (Some(_), None) => {}
    }
    if let Some(selector) = &target.selector {
        LabelSelector::parse(selector).map_err(|e| format!("bad selector {selector:?}: {e}"))?;
    }
    for key in target.where_.keys() {
        path::compile(key).map_err(|e| format!("where: {e}"))?;
    }
    Ok(())
}

fn check_set_condition(fleet: &FleetShape, set: &SetCondition) -> Result<(), String> {
    check_target(fleet, &set.target)?;
    if set.type_.is_empty() {
        return Err("setCondition needs a condition `type`".into());
    }
    if !is_condition_reason(&set.reason) {
        return Err(format!(
            "reason {:?} is not a valid condition reason (letters, digits, `_`, `,` and `:`, starting with a letter)",
            set.reason
        ));
    }
    Ok(())
}

/// metav1.Condition's reason pattern: `^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`.
fn is_condition_reason(reason: &str) -> bool {
    let mut chars = reason.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    let middle_ok = reason
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ',' | ':'));
    let last_ok = reason
        .chars()
        .last()
        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
    first_ok && middle_ok && last_ok
}

fn check_pods(pods: &PodSelection) -> Result<(), String> {
    if pods.namespace.is_empty() {
        return Err("namespace is empty".into());
    }
    if pods.count == Some(0) {
        return Err("count must be at least 1 (leave it out for every matching pod)".into());
    }
    if let Some(selector) = &pods.selector {
        LabelSelector::parse(selector).map_err(|e| format!("bad selector {selector:?}: {e}"))?;
    }
    Ok(())
}

fn check_faults(faults: &Faults) -> Result<(), String> {
    for rule in &faults.errors {
        if ![409, 429, 500].contains(&rule.code) {
            return Err(format!(
                "faults can inject 409, 429 or 500, not {}",
                rule.code
            ));
        }
        if !(0.0..=1.0).contains(&rule.rate) {
            return Err(format!(
                "an error rate is a share between 0 and 1, not {}",
                rule.rate
            ));
        }
    }
    Ok(())
}

fn check_expectation(fleet: &FleetShape, expect: &Expectation) -> Result<(), String> {
    check_target(fleet, &expect.target)?;
    if !expect.exists
        && (expect.count.is_some() || expect.condition.is_some() || !expect.fields.is_empty())
    {
        return Err(
            "`exists: false` expects nothing to match: drop count, condition and fields".into(),
        );
    }
    if let Some(condition) = &expect.condition
        && condition.type_.is_empty()
    {
        return Err("condition.type is empty".into());
    }
    for key in expect.fields.keys() {
        path::compile(key).map_err(|e| format!("fields: {e}"))?;
    }
    if expect.within.is_some_and(|w| w.is_zero()) {
        return Err("within must be longer than 0s".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn condition_reasons_follow_the_metav1_pattern() {
        let rows = [
            ("a word", "TrafficShifted", true),
            ("digits, underscore, colon, comma", "Step_2:done,ok", true),
            ("the default", super::super::step_args::DEFAULT_REASON, true),
            ("empty", "", false),
            ("starts with a digit", "2fast", false),
            ("ends with a colon", "Done:", false),
            ("a slash", "example.com/Approved", false),
            ("a space", "Traffic shifted", false),
        ];
        for (rule, reason, want) in rows {
            assert_eq!(is_condition_reason(reason), want, "{rule}");
        }
    }
}
