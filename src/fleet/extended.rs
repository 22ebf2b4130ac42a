//! §5 The stage machine of an extended eviction: validate → §3 a, b, c, e → reserve → gates →
//! re-check → act (delete, or hand off to an external controller) → finish, with the ttl and
//! the cleanup finalizer around it. Each call returns the one next step.

use super::availability;
use super::conditions::{self, invalid, invalid_because, not_executed, stage, valid};
use super::execution::{Outcome, execution};
use super::facts::{Facts, condition, holds_reservation, is_decided};
use super::messages::*;
use super::step::{
    BindingAction, BindingRef, Confirm, Note, ReservationChange, StatusUpdate, Step,
};
use super::validation::validate;
use super::view::BindingView;
use crate::api::duration;
use crate::api::eviction::EvictionStrategy;
use crate::gates::{self, GateVerdict, ObservedCondition};
use k8s_openapi::jiff::{SignedDuration, Timestamp};

pub fn decide(f: &Facts) -> Step {
    let pinned = pinned_target(f);
    let our_signal = match pinned {
        Some(Some(b)) if b.signal.as_deref() == Some(f.name()) && !b.deleting => Some(b),
        _ => None,
    };
    if f.eviction.metadata.deletion_timestamp.is_some() || is_decided(f.eviction) {
        return clean_up(f, our_signal);
    }
    if let Some(EvictionStrategy::Other(strategy)) = &f.eviction.spec.strategy {
        return Step::Write(StatusUpdate::terminal(vec![invalid(&unknown_strategy(
            strategy,
        ))]));
    }
    let target = match pinned {
        // The pinned binding is leaving: ours is being removed, whatever the gates say (§5.1).
        Some(Some(target)) if target.deleting => {
            return finish(f, Some(target), true, REASON_EXECUTED, removed_message(f));
        }
        Some(Some(target)) => target,
        // The pinned binding is gone, or a new one replaced it: ours was removed (§5.1).
        Some(None) => return finish(f, None, true, REASON_EXECUTED, removed_message(f)),
        None => match validate(f.placement, &f.eviction.spec.cluster_name, f.bindings) {
            Err(why) => {
                let mut update = StatusUpdate::terminal(vec![invalid_because(why)]);
                update.confirm = why.needs_confirmation().then_some(Confirm::Absence);
                return Step::Write(update);
            }
            Ok(target) => target,
        },
    };
    if !f.has_finalizer() {
        return Step::AddFinalizer;
    }
    if deadline(f).is_some_and(|d| f.now >= d) {
        if let Some(b) = our_signal {
            return remove_signal(b);
        }
        let message = timeout(&ttl_text(f), current_stage(f));
        return finish(f, Some(target), false, REASON_TIMEOUT, message);
    }
    if condition(f.eviction, EXTERNAL_EVACUATION).is_some() {
        return handed_off(f, target, our_signal);
    }
    if !holds_reservation(f.eviction) {
        return reserve(f, target);
    }
    match gate_verdict(f) {
        GateVerdict::Denied { gate, message } => {
            let message = condition_denied(&gate, &message);
            finish(f, Some(target), false, REASON_CONDITION_DENIED, message)
        }
        GateVerdict::Waiting(gates) => progress(
            f,
            target,
            STAGE_WAITING_FOR_CONDITIONS,
            waiting_for_conditions(&gates),
        ),
        GateVerdict::Open => recheck(f, target),
    }
}

/// Terminal or being deleted: remove our signal, release the reservation, then drop the
/// finalizer (§5.2 step 4). A deleting eviction releases explicitly: another finalizer may keep
/// the object, and until then the ledger would go on counting its reservation.
fn clean_up(f: &Facts, our_signal: Option<&BindingView>) -> Step {
    if let Some(b) = our_signal {
        return remove_signal(b);
    }
    if holds_reservation(f.eviction) {
        let mut update = StatusUpdate::new(vec![]);
        release(&mut update);
        return Step::Write(update);
    }
    if f.has_finalizer() {
        return Step::RemoveFinalizer;
    }
    Step::Done
}

/// Not reserved yet: §3 a, b, c and e decide whether the eviction may take a slot.
fn reserve(f: &Facts, target: &BindingView) -> Step {
    let outcome = execution(target, f);
    if let Some(step) = settled(f, target, &outcome) {
        return step;
    }
    match outcome {
        // Answered by `settled` above.
        Outcome::NeedBudget | Outcome::Removed | Outcome::MissingPlacement => {
            Step::Wait { until: None }
        }
        Outcome::InProgress => progress(
            f,
            target,
            STAGE_WAITING_FOR_EVICTION,
            WAITING_FOR_EVICTION.into(),
        ),
        Outcome::Misconfigured | Outcome::Blocked(_) => not_allowed(f, target, false),
        Outcome::Evict(_) => {
            if let GateVerdict::Denied { gate, message } = gate_verdict(f) {
                let message = condition_denied(&gate, &message);
                return finish(f, Some(target), false, REASON_CONDITION_DENIED, message);
            }
            let (next, message) = match gate_verdict(f) {
                GateVerdict::Waiting(gates) => {
                    (STAGE_WAITING_FOR_CONDITIONS, waiting_for_conditions(&gates))
                }
                _ if is_external(f) => (STAGE_WAITING_FOR_EXTERNAL, WAITING_FOR_EXTERNAL.into()),
                _ => (STAGE_WITHDRAWING, WITHDRAWING.into()),
            };
            let mut update = stage_update(f, target, next, message);
            update.conditions.push(conditions::reserved());
            update.reservation = ReservationChange::Reserve(target.name.clone());
            Step::Write(update)
        }
    }
}

/// Reserved and the gates are open: §3 again just before acting, counting the target as it
/// would count without our own reservation.
fn recheck(f: &Facts, target: &BindingView) -> Step {
    let outcome = execution(target, f);
    if let Some(step) = settled(f, target, &outcome) {
        return step;
    }
    match outcome {
        // Answered by `settled` above.
        Outcome::NeedBudget | Outcome::Removed | Outcome::MissingPlacement => {
            Step::Wait { until: None }
        }
        // Two reservations on one binding cannot be made by this controller; if found, step
        // back and wait for the other one to end.
        Outcome::InProgress => {
            let mut update = stage_update(
                f,
                target,
                STAGE_WAITING_FOR_EVICTION,
                WAITING_FOR_EVICTION.into(),
            );
            release(&mut update);
            Step::Write(update)
        }
        Outcome::Misconfigured | Outcome::Blocked(_) => not_allowed(f, target, true),
        Outcome::Evict(message) => act(f, target, message),
    }
}

/// The outcomes that read the same before and after the reservation: the budget is still to
/// be read, the placement already leaves the cluster (§3 a), or was never placed (§3 b).
fn settled(f: &Facts, target: &BindingView, outcome: &Outcome) -> Option<Step> {
    match outcome {
        Outcome::NeedBudget => Some(Step::NeedBudget),
        Outcome::Removed => Some(finish(
            f,
            Some(target),
            true,
            REASON_EXECUTED,
            PLACEMENT_REMOVED.into(),
        )),
        Outcome::MissingPlacement => Some(finish(
            f,
            Some(target),
            false,
            REASON_NOT_EXECUTED,
            MISSING_PLACEMENT.into(),
        )),
        _ => None,
    }
}

/// The budget says no (§3 e or g): wait for it, giving up our slot, or end blocked.
fn not_allowed(f: &Facts, target: &BindingView, reserved: bool) -> Step {
    let counts = availability::count(f.bindings, f.reserved_by_others());
    let misconfigured = matches!(execution(target, f), Outcome::Misconfigured);
    if f.eviction.spec.wait_for_budget == Some(true) {
        let mut update = stage_update(
            f,
            target,
            STAGE_WAITING_FOR_BUDGET,
            waiting_for_budget(counts),
        );
        if reserved {
            release(&mut update);
        }
        return Step::Write(update);
    }
    let message = if misconfigured {
        MISCONFIGURED_PDB.to_string()
    } else {
        blocked_by_budget(counts)
    };
    finish(f, Some(target), false, REASON_NOT_EXECUTED, message)
}

fn act(f: &Facts, target: &BindingView, message: String) -> Step {
    if !is_external(f) {
        let Step::Write(then) = finish(f, Some(target), true, REASON_EXECUTED, message) else {
            return Step::Wait { until: None };
        };
        return Step::Act {
            action: BindingAction::Delete(BindingRef::of(target)),
            then: Some(then),
        };
    }
    let mut then = stage_update(
        f,
        target,
        STAGE_WAITING_FOR_EXTERNAL,
        WAITING_FOR_EXTERNAL.into(),
    );
    let requested = conditions::external_requested();
    then.note = Some(Note {
        reason: EVENT_EXTERNAL_REQUESTED.into(),
        ..conditions::note_for(&requested)
    });
    then.conditions.push(requested);
    Step::Act {
        action: BindingAction::Signal(BindingRef::of(target)),
        then: Some(then),
    }
}

/// Signalled: the external controller removes the binding, says "done, remove it for me"
/// (`ExternalEvacuation=True`) or gives up (`False`).
fn handed_off(f: &Facts, target: &BindingView, our_signal: Option<&BindingView>) -> Step {
    if target.deleting {
        return finish(
            f,
            Some(target),
            true,
            REASON_EXECUTED,
            EXTERNAL_REMOVED.into(),
        );
    }
    let Some(external) = condition(f.eviction, EXTERNAL_EVACUATION) else {
        return Step::Wait { until: deadline(f) };
    };
    match external.status.as_str() {
        "True" => {
            let Step::Write(then) = finish(
                f,
                Some(target),
                true,
                REASON_EXECUTED,
                EXTERNAL_REMOVED.into(),
            ) else {
                return Step::Wait { until: None };
            };
            Step::Act {
                action: BindingAction::Delete(BindingRef::of(target)),
                then: Some(then),
            }
        }
        "False" => match our_signal {
            Some(b) => remove_signal(b),
            None => {
                let message = external_failed(&external.message);
                finish(f, Some(target), false, REASON_EXTERNAL_FAILED, message)
            }
        },
        _ => Step::Wait { until: deadline(f) },
    }
}

fn remove_signal(binding: &BindingView) -> Step {
    Step::Act {
        action: BindingAction::RemoveSignal(BindingRef::of(binding)),
        then: None,
    }
}

/// `Some(Some(b))`: pinned and present with the pinned uid; `Some(None)`: pinned but gone or
/// replaced; `None`: not pinned yet.
fn pinned_target<'a>(f: &Facts<'a>) -> Option<Option<&'a BindingView>> {
    let pinned = f.eviction.status.as_ref()?.target_binding.as_ref()?;
    Some(
        f.bindings
            .iter()
            .find(|b| b.name == pinned.name && b.uid == pinned.uid),
    )
}

fn removed_message(f: &Facts) -> String {
    if condition(f.eviction, EXTERNAL_EVACUATION).is_some() {
        EXTERNAL_REMOVED.into()
    } else {
        PLACEMENT_REMOVED.into()
    }
}

fn is_external(f: &Facts) -> bool {
    f.eviction.spec.strategy == Some(EvictionStrategy::External)
}

fn gate_verdict(f: &Facts) -> GateVerdict {
    let observed: Vec<ObservedCondition> = f
        .eviction
        .status
        .as_ref()
        .map(|s| {
            s.conditions
                .iter()
                .map(|c| ObservedCondition {
                    type_: &c.type_,
                    status: &c.status,
                    message: &c.message,
                })
                .collect()
        })
        .unwrap_or_default();
    let gates = f.eviction.spec.eviction_conditions.iter().flatten();
    gates::evaluate(gates.map(|g| g.name.as_str()), &observed)
}

/// Creation time plus the effective ttl; `None` when the ttl is `0s` (no deadline).
pub fn deadline(f: &Facts) -> Option<Timestamp> {
    let ttl = match f.eviction.spec.ttl.as_deref().map(duration::parse) {
        Some(Ok(ttl)) => ttl,
        // The CRD's pattern refuses what does not parse; an older CRD gets the default.
        Some(Err(_)) | None => f.default_ttl,
    };
    if ttl.is_zero() {
        return None;
    }
    let created = f
        .eviction
        .metadata
        .creation_timestamp
        .as_ref()
        .map_or(f.now, |t| t.0);
    let ttl = SignedDuration::try_from(ttl).unwrap_or(SignedDuration::MAX);
    Some(created.saturating_add(ttl).unwrap_or(Timestamp::MAX))
}

fn ttl_text(f: &Facts) -> String {
    match &f.eviction.spec.ttl {
        Some(ttl) if duration::parse(ttl).is_ok() => ttl.clone(),
        _ => duration::format(f.default_ttl),
    }
}

fn current_stage<'a>(f: &Facts<'a>) -> &'a str {
    match condition(f.eviction, PROGRESSING) {
        Some(c) if c.status == "True" => &c.reason,
        _ => STAGE_PENDING,
    }
}

/// A status update for a non-terminal stage: Valid, the stage, the pinned target, the
/// deadline; its Event reports the stage.
fn stage_update(
    f: &Facts,
    target: &BindingView,
    reason: &'static str,
    message: String,
) -> StatusUpdate {
    let stage = stage(reason, message);
    let mut update = StatusUpdate::new(vec![valid(), stage.clone()]);
    update.note = Some(conditions::note_for(&stage));
    update.target = Some((target.name.clone(), target.uid.clone()));
    update.deadline = deadline(f);
    update
}

fn progress(f: &Facts, target: &BindingView, reason: &'static str, message: String) -> Step {
    Step::Write(stage_update(f, target, reason, message))
}

fn release(update: &mut StatusUpdate) {
    update.conditions.push(conditions::released());
    update.reservation = ReservationChange::Release;
}

/// The terminal write: Valid, `Progressing=False`, the reservation released if held, and
/// `Executed` last; its Event reports `Executed`.
fn finish(
    f: &Facts,
    target: Option<&BindingView>,
    executed: bool,
    reason: &str,
    message: String,
) -> Step {
    let verdict = if executed {
        conditions::executed(message.clone())
    } else {
        not_executed(reason, message.clone())
    };
    let mut update = StatusUpdate::new(vec![valid(), conditions::finished(executed, message)]);
    if holds_reservation(f.eviction) {
        release(&mut update);
    }
    update.note = Some(conditions::note_for(&verdict));
    update.conditions.push(verdict);
    update.target = target.map(|t| (t.name.clone(), t.uid.clone()));
    update.deadline = deadline(f);
    update.terminal = true;
    // MissingPlacement and budget refusals are drawn from the cached bindings: confirmed
    // against the API before they become final.
    update.confirm = (!executed && reason == REASON_NOT_EXECUTED).then_some(Confirm::Refusal);
    Step::Write(update)
}

#[cfg(test)]
#[path = "extended_tests.rs"]
mod tests;
