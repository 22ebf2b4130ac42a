//! §3 A plain eviction (no extension fields) is decided once, exactly as KubeFleet decides
//! it, and acted on in the same step: `Valid=False`, or `Valid=True` then `Executed`.

use super::conditions::{self, invalid_because, not_executed, valid};
use super::execution::{Outcome, execution};
use super::facts::{Facts, is_decided};
use super::messages::*;
use super::step::{BindingAction, BindingRef, Confirm, StatusUpdate, Step};
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
            update.confirm = why.needs_confirmation().then_some(Confirm::Absence);
            return Step::Write(update);
        }
        Ok(target) => target,
    };
    // A refusal drawn from the cached bindings or placement is final for a plain eviction, and
    // a watch that lags behind the eviction's own would refuse on numbers the fleet no longer
    // has: such a verdict is confirmed against the API before it is written.
    let blocked = |message: String, from_cache: bool| {
        let mut update =
            StatusUpdate::terminal(vec![valid(), not_executed(REASON_NOT_EXECUTED, message)]);
        update.confirm = from_cache.then_some(Confirm::Refusal);
        Step::Write(update)
    };
    match execution(target, facts) {
        Outcome::NeedBudget => Step::NeedBudget,
        Outcome::Removed => Step::Write(StatusUpdate::terminal(vec![
            valid(),
            conditions::executed(PLACEMENT_REMOVED),
        ])),
        Outcome::InProgress => blocked(ANOTHER_EVICTION_IN_PROGRESS.into(), false),
        Outcome::MissingPlacement => blocked(MISSING_PLACEMENT.into(), true),
        Outcome::Misconfigured => blocked(MISCONFIGURED_PDB.into(), true),
        Outcome::Blocked(counts) => blocked(blocked_by_budget(counts), true),
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
