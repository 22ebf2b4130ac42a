//! §3 A plain eviction (no extension fields) is decided once, exactly as KubeFleet decides
//! it, and acted on in the same step: `Valid=False`, or `Valid=True` then `Executed`.

use super::conditions::{self, invalid_because, not_executed, valid};
use super::execution::{Outcome, execution};
use super::facts::{Facts, is_decided};
use super::messages::*;
use super::step::{BindingAction, BindingRef, StatusUpdate, Step};
use super::validation::validate;

pub fn decide(facts: &Facts) -> Step {
    if is_decided(facts.eviction) {
        return Step::Done;
    }
    let target = match validate(
        facts.placement,
        &facts.eviction.spec.cluster_name,
        facts.bindings,
    ) {
        Err(why) => {
            let mut update = StatusUpdate::terminal(vec![invalid_because(why)]);
            update.confirm_absence = why.needs_confirmation();
            return Step::Write(update);
        }
        Ok(target) => target,
    };
    let blocked = |reason: &str, message: String| {
        Step::Write(StatusUpdate::terminal(vec![
            valid(),
            not_executed(reason, message),
        ]))
    };
    match execution(target, facts) {
        Outcome::NeedBudget => Step::NeedBudget,
        Outcome::Removed => Step::Write(StatusUpdate::terminal(vec![
            valid(),
            conditions::executed(PLACEMENT_REMOVED),
        ])),
        Outcome::InProgress => blocked(REASON_NOT_EXECUTED, ANOTHER_EVICTION_IN_PROGRESS.into()),
        Outcome::MissingPlacement => blocked(REASON_NOT_EXECUTED, MISSING_PLACEMENT.into()),
        Outcome::Misconfigured => blocked(REASON_NOT_EXECUTED, MISCONFIGURED_PDB.into()),
        Outcome::Blocked(counts) => blocked(REASON_NOT_EXECUTED, blocked_by_budget(counts)),
        Outcome::Evict(message) => Step::Act {
            action: BindingAction::Delete(BindingRef::of(target)),
            then: Some(StatusUpdate::terminal(vec![
                valid(),
                conditions::executed(message),
            ])),
        },
    }
}

#[cfg(test)]
#[path = "plain_tests.rs"]
mod tests;
