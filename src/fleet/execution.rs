//! §3 Execution: the checks on the target binding and the budget, in the table's order. Both
//! the one-shot decision of a plain eviction and the reservation and re-check of an extended
//! one ask this question.

use super::availability;
use super::budget::{self, BudgetOutcome, Counts};
use super::facts::{BudgetRead, Facts};
use super::messages;
use super::target::{TargetState, target_state};
use super::view::BindingView;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// a: the binding is already being deleted.
    Removed,
    /// Another eviction holds a reservation on the same binding (§5.1).
    InProgress,
    /// b: nothing placed on the cluster yet.
    MissingPlacement,
    /// c, d, f: the binding may go; the `Executed` message says why.
    Evict(String),
    /// e
    Misconfigured,
    /// g
    Blocked(Counts),
    /// The budget must be read from the API first.
    NeedBudget,
}

/// Runs §3 for `target`, counting availability as §4.3 does: other evictions' reservations
/// make their bindings unavailable; this eviction's own reservation does not count.
pub fn execution(target: &BindingView, facts: &Facts) -> Outcome {
    let state = target_state(target);
    if state == TargetState::Deleting {
        return Outcome::Removed;
    }
    if facts.reserved_by_others().any(|b| b == target.name) {
        return Outcome::InProgress;
    }
    match state {
        TargetState::Deleting => Outcome::Removed,
        TargetState::NotPlaced => Outcome::MissingPlacement,
        TargetState::Failed => Outcome::Evict(messages::PLACEMENT_FAILED.into()),
        TargetState::Placed => by_budget(facts),
    }
}

fn by_budget(facts: &Facts) -> Outcome {
    let spec = match &facts.budget {
        BudgetRead::NotRead => return Outcome::NeedBudget,
        BudgetRead::Absent => return Outcome::Evict(messages::NO_PDB.into()),
        BudgetRead::Present(spec) => spec,
    };
    let Some(placement) = facts.placement else {
        // Validation runs first and refuses a missing placement; nothing to judge against.
        return Outcome::MissingPlacement;
    };
    let counts = availability::count(facts.bindings, facts.reserved_by_others());
    match budget::judge(&placement.kind, spec, counts) {
        BudgetOutcome::Misconfigured => Outcome::Misconfigured,
        BudgetOutcome::Allowed(c) => Outcome::Evict(messages::allowed_by_budget(c)),
        BudgetOutcome::Blocked(c) => Outcome::Blocked(c),
    }
}
