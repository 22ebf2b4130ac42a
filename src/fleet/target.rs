//! §3 a–c: the state of the target binding, checked in this order before any budget.

use super::view::BindingView;
use crate::api::kubefleet::BindingState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetState {
    /// a: the binding has a deletionTimestamp: the placement is already leaving.
    Deleting,
    /// b: the placement has not propagated resources to the cluster.
    NotPlaced,
    /// c: the placement failed on the cluster (or reported a diff): evict without a budget.
    Failed,
    /// The placement is on the cluster: the budget decides.
    Placed,
}

/// The conditions whose False status means the placement failed, unless the reason only says
/// "not yet".
const FAILURE_CONDITIONS: [&str; 4] = ["Overridden", "WorkSynchronized", "Applied", "Available"];
const PENDING_REASONS: [&str; 4] = [
    "OverriddenPending",
    "WorkNotSynchronizedYet",
    "ApplyPending",
    "ResourceNotAvailableYet",
];

pub fn target_state(binding: &BindingView) -> TargetState {
    if binding.deleting {
        return TargetState::Deleting;
    }
    if !is_placed(binding) {
        return TargetState::NotPlaced;
    }
    if has_failed(binding) {
        return TargetState::Failed;
    }
    TargetState::Placed
}

/// Bound, or Unscheduled right after being Bound (the placement is still on the cluster).
fn is_placed(binding: &BindingView) -> bool {
    match &binding.state {
        Some(BindingState::Bound) => true,
        Some(BindingState::Unscheduled) => binding.previous_state.as_deref() == Some("Bound"),
        _ => false,
    }
}

fn has_failed(binding: &BindingView) -> bool {
    let failed = FAILURE_CONDITIONS.iter().any(|t| {
        binding.current_condition(t).is_some_and(|c| {
            c.status == "False"
                && !PENDING_REASONS.contains(&c.reason.as_deref().unwrap_or_default())
        })
    });
    failed || binding.current_condition("DiffReported").is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::view::fixtures::{bound, condition};

    #[test]
    fn target_state_table() {
        let with = |f: &dyn Fn(&mut BindingView)| {
            let mut b = bound("b", "member-1");
            f(&mut b);
            b
        };
        let rows: Vec<(&str, BindingView, TargetState)> = vec![
            (
                "placed: Bound and Available",
                bound("b", "member-1"),
                TargetState::Placed,
            ),
            (
                "a: deleting wins over everything",
                with(&|b| {
                    b.deleting = true;
                    b.state = Some(BindingState::Scheduled);
                }),
                TargetState::Deleting,
            ),
            (
                "b: Scheduled is not placed",
                with(&|b| b.state = Some(BindingState::Scheduled)),
                TargetState::NotPlaced,
            ),
            (
                "b: no state is not placed",
                with(&|b| b.state = None),
                TargetState::NotPlaced,
            ),
            (
                "b: Unscheduled without previous state",
                with(&|b| b.state = Some(BindingState::Unscheduled)),
                TargetState::NotPlaced,
            ),
            (
                "b: Unscheduled, previously Scheduled",
                with(&|b| {
                    b.state = Some(BindingState::Unscheduled);
                    b.previous_state = Some("Scheduled".into());
                }),
                TargetState::NotPlaced,
            ),
            (
                "b: Unscheduled, previously Bound, is placed",
                with(&|b| {
                    b.state = Some(BindingState::Unscheduled);
                    b.previous_state = Some("Bound".into());
                }),
                TargetState::Placed,
            ),
            (
                "c: Applied False with a failure reason",
                with(&|b| {
                    b.conditions.push(condition(
                        "Applied",
                        "False",
                        "NotAllWorkHaveBeenApplied",
                        1,
                    ));
                }),
                TargetState::Failed,
            ),
            (
                "c: Overridden False",
                with(&|b| {
                    b.conditions
                        .push(condition("Overridden", "False", "OverriddenFailed", 1));
                }),
                TargetState::Failed,
            ),
            (
                "c: WorkSynchronized False",
                with(&|b| {
                    b.conditions
                        .push(condition("WorkSynchronized", "False", "SyncWorkFailed", 1));
                }),
                TargetState::Failed,
            ),
            (
                "c: Available False with a failure reason",
                with(&|b| {
                    b.conditions =
                        vec![condition("Available", "False", "NotAllWorkAreAvailable", 1)];
                }),
                TargetState::Failed,
            ),
            (
                "c: pending reasons are not failures",
                with(&|b| {
                    b.conditions = vec![
                        condition("Overridden", "False", "OverriddenPending", 1),
                        condition("WorkSynchronized", "False", "WorkNotSynchronizedYet", 1),
                        condition("Applied", "False", "ApplyPending", 1),
                        condition("Available", "False", "ResourceNotAvailableYet", 1),
                    ];
                }),
                TargetState::Placed,
            ),
            (
                "c: a stale failure (old observedGeneration) is ignored",
                with(&|b| {
                    b.generation = 2;
                    b.conditions = vec![condition("Applied", "False", "Failed", 1)];
                }),
                TargetState::Placed,
            ),
            (
                "c: DiffReported True for the current generation",
                with(&|b| {
                    b.conditions
                        .push(condition("DiffReported", "True", "DiffReported", 1));
                }),
                TargetState::Failed,
            ),
            (
                "c: DiffReported with any status",
                with(&|b| {
                    b.conditions
                        .push(condition("DiffReported", "False", "NoDiff", 1));
                }),
                TargetState::Failed,
            ),
            (
                "c: DiffReported of an old generation is ignored",
                with(&|b| {
                    b.generation = 3;
                    b.conditions = vec![condition("DiffReported", "True", "DiffReported", 2)];
                }),
                TargetState::Placed,
            ),
        ];
        for (rule, binding, want) in rows {
            assert_eq!(target_state(&binding), want, "rule: {rule}");
        }
    }
}
