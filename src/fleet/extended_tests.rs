//! The stage machine of an extended eviction, driven step by step from fleet-eviction.md §5,
//! §5.1, §5.2 and §5.3. A small in-memory world applies each step the way the controller does
//! (status writes merged with `status::merge`, the finalizer, binding deletes and signals) and
//! decides again until the decision waits. Expected strings are written out as the spec
//! spells them.

use super::{deadline, decide};
use crate::api::budget::BudgetSpec;
use crate::api::eviction::{
    ClusterResourcePlacementEviction, EvictionSpec, EvictionStatus, EvictionStrategy,
};
use crate::api::gate::EvictionCondition;
use crate::api::kubefleet::BindingState;
use crate::fleet::facts::{BudgetRead, Facts, HeldReservation};
use crate::fleet::status;
use crate::fleet::step::{BindingAction, BindingRef, ReservationChange, StatusUpdate, Step};
use crate::fleet::view::fixtures::{bound, condition, placement};
use crate::fleet::view::{BindingView, PlacementKind, PlacementView};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use std::time::Duration;

use crate::fleet::spec_strings::*;

const NAME: &str = "evict-web-member-1";
const GENERATION: i64 = 3;
const TARGET_RV: &str = "42";
/// Two gates, listed out of alphabetical order so "list order" is seen.
const G1: &str = "TrafficDrained";
const G2: &str = "BackupTaken";
const OUR_TYPES: [&str; 5] = [
    "Valid",
    "Executed",
    "Progressing",
    "BudgetReserved",
    "ExternalEvacuation",
];

fn created() -> Timestamp {
    "2026-03-01T10:00:00Z".parse().expect("timestamp")
}

fn at(seconds: u64) -> Timestamp {
    created()
        .checked_add(Duration::from_secs(seconds))
        .expect("time")
}

fn min(n: i32) -> BudgetSpec {
    BudgetSpec {
        min_available: Some(IntOrString::Int(n)),
        max_unavailable: None,
    }
}

fn unavailable(b: &mut BindingView) {
    b.conditions = vec![condition("Available", "False", "NotAllWorkAreAvailable", 1)];
}

fn available(b: &mut BindingView) {
    b.conditions = vec![condition("Available", "True", "AllWorkAreAvailable", 1)];
}

fn gated(spec: &mut EvictionSpec) {
    spec.eviction_conditions = Some(vec![EvictionCondition::new(G1), EvictionCondition::new(G2)]);
}

fn one_gate(spec: &mut EvictionSpec) {
    spec.eviction_conditions = Some(vec![EvictionCondition::new(G1)]);
}

fn waits_for_budget(spec: &mut EvictionSpec) {
    spec.wait_for_budget = Some(true);
}

fn external(spec: &mut EvictionSpec) {
    spec.strategy = Some(EvictionStrategy::External);
}

/// One eviction of placement `web` (PickAll, minAvailable 2) from member-1, whose binding b1
/// is the target; b2 and b3 are on other clusters. All available.
struct World {
    rule: String,
    eviction: ClusterResourcePlacementEviction,
    placement: Option<PlacementView>,
    bindings: Vec<BindingView>,
    others: Vec<HeldReservation>,
    /// What reading the budget from the API returns (`None`: there is none).
    budget: Option<BudgetSpec>,
    now: Timestamp,
    /// The eviction was deleted and its last finalizer removed.
    gone: bool,
}

fn world(rule: &str, spec: impl FnOnce(&mut EvictionSpec)) -> World {
    let mut eviction_spec = EvictionSpec {
        placement_name: "web".into(),
        cluster_name: "member-1".into(),
        eviction_conditions: None,
        strategy: None,
        ttl: None,
        wait_for_budget: None,
        pod_migration: None,
    };
    spec(&mut eviction_spec);
    let mut eviction = ClusterResourcePlacementEviction::new(NAME, eviction_spec);
    eviction.metadata.generation = Some(GENERATION);
    eviction.metadata.creation_timestamp = Some(Time(created()));
    let mut b1 = bound("b1", "member-1");
    b1.resource_version = TARGET_RV.into();
    World {
        rule: rule.into(),
        eviction,
        placement: Some(placement(PlacementKind::PickAll)),
        bindings: vec![b1, bound("b2", "member-2"), bound("b3", "member-3")],
        others: vec![],
        budget: Some(min(2)),
        now: at(60),
        gone: false,
    }
}

impl World {
    fn facts(&self, budget: BudgetRead) -> Facts<'_> {
        Facts {
            eviction: &self.eviction,
            placement: self.placement.as_ref(),
            bindings: &self.bindings,
            others: &self.others,
            budget,
            now: self.now,
            default_ttl: Duration::from_secs(3600),
        }
    }

    /// Decides and applies steps until the decision is to wait (a `Wait`, `Done`, or a write
    /// that changes nothing), and returns the steps taken.
    fn run(&mut self) -> Vec<Step> {
        let mut steps = Vec::new();
        let mut budget = BudgetRead::NotRead;
        for _ in 0..40 {
            let step = decide(&self.facts(std::mem::replace(&mut budget, BudgetRead::NotRead)));
            steps.push(step.clone());
            match step {
                Step::NeedBudget => {
                    let asked_twice = matches!(steps.iter().rev().nth(1), Some(Step::NeedBudget));
                    assert!(!asked_twice, "{}: asked for the budget twice", self.rule);
                    budget = match &self.budget {
                        Some(spec) => BudgetRead::Present(spec.clone()),
                        None => BudgetRead::Absent,
                    };
                }
                Step::AddFinalizer => {
                    let finalizers = self.eviction.metadata.finalizers.get_or_insert_default();
                    assert!(!finalizers.iter().any(|f| f == FINALIZER));
                    finalizers.push(FINALIZER.into());
                }
                Step::RemoveFinalizer => {
                    let finalizers = self.eviction.metadata.finalizers.get_or_insert_default();
                    assert!(finalizers.iter().any(|f| f == FINALIZER));
                    finalizers.retain(|f| f != FINALIZER);
                    if self.eviction.metadata.deletion_timestamp.is_some() {
                        self.gone = true;
                        return steps;
                    }
                }
                Step::Write(update) => {
                    if !self.write(&update) {
                        return steps;
                    }
                }
                Step::Act { action, then } => {
                    self.act(&action);
                    if let Some(update) = then {
                        self.write(&update);
                    }
                }
                Step::Wait { .. } | Step::Done => return steps,
            }
        }
        panic!("{}: no fixed point after 40 steps: {steps:#?}", self.rule);
    }

    /// Merges a status write and checks what every write must respect; false if it changed
    /// nothing.
    fn write(&mut self, update: &StatusUpdate) -> bool {
        let rule = &self.rule;
        for c in &update.conditions {
            assert!(
                OUR_TYPES.contains(&c.type_),
                "{rule}: wrote a condition we do not own: {c:?}"
            );
            assert!(
                !(c.type_ == "Executed" && c.status == "Unknown"),
                "{rule}: §5.1 never Executed=Unknown"
            );
            if c.type_ == "ExternalEvacuation" {
                assert_eq!(
                    (c.status, c.reason.as_str()),
                    ("Unknown", "Requested"),
                    "{rule}: §5.2 we write only Unknown/Requested"
                );
            }
        }
        let before = self.eviction.status.clone();
        let after = status::merge(before.as_ref(), update, GENERATION, self.now);
        let reserved = after
            .conditions
            .iter()
            .any(|c| c.type_ == "BudgetReserved" && c.status == "True");
        assert_eq!(
            after.reservation.is_some(),
            reserved,
            "{rule}: §1 status.reservation is present iff BudgetReserved=True"
        );
        for c in after
            .conditions
            .iter()
            .filter(|c| OUR_TYPES.contains(&c.type_.as_str()) && c.type_ != "ExternalEvacuation")
        {
            assert_eq!(
                c.observed_generation,
                Some(GENERATION),
                "{rule}: {} carries observedGeneration",
                c.type_
            );
        }
        let changed = before.as_ref() != Some(&after);
        self.eviction.status = Some(after);
        changed
    }

    /// Applies a binding action as the API would, with its preconditions.
    fn act(&mut self, action: &BindingAction) {
        let (BindingAction::Delete(target)
        | BindingAction::Signal(target)
        | BindingAction::RemoveSignal(target)) = action;
        let rule = self.rule.clone();
        let binding = self
            .bindings
            .iter_mut()
            .find(|b| b.name == target.name)
            .unwrap_or_else(|| panic!("{rule}: {action:?} on a binding that is gone"));
        assert_eq!(
            (&binding.uid, &binding.resource_version),
            (&target.uid, &target.resource_version),
            "{rule}: {action:?} fails its uid/resourceVersion precondition"
        );
        let bump = |b: &mut BindingView| {
            let rv: u64 = b.resource_version.parse().expect("numeric resourceVersion");
            b.resource_version = (rv + 1).to_string();
        };
        match action {
            BindingAction::Delete(_) => binding.deleting = true,
            BindingAction::Signal(_) => {
                binding.signal = Some(NAME.into());
                bump(binding);
            }
            BindingAction::RemoveSignal(_) => {
                assert_eq!(
                    binding.signal.as_deref(),
                    Some(NAME),
                    "{rule}: removes a signal that does not name this eviction"
                );
                binding.signal = None;
                bump(binding);
            }
        }
    }

    fn status(&self) -> EvictionStatus {
        self.eviction.status.clone().unwrap_or_default()
    }

    fn condition(&self, type_: &str) -> Option<(String, String, String)> {
        self.status()
            .conditions
            .iter()
            .find(|c| c.type_ == type_)
            .map(|c| (c.status.clone(), c.reason.clone(), c.message.clone()))
    }

    fn expect(&self, type_: &str, status: &str, reason: &str, message: &str) {
        assert_eq!(
            self.condition(type_),
            Some((status.into(), reason.into(), message.into())),
            "{}: condition {type_}",
            self.rule
        );
    }

    fn expect_absent(&self, type_: &str) {
        assert_eq!(self.condition(type_), None, "{}: {type_}", self.rule);
    }

    /// The verdict of §3/§5.3, with `Progressing=False` carrying the same message.
    fn expect_verdict(&self, executed: bool, reason: &str, message: &str) {
        let (status, stage) = if executed {
            ("True", "Succeeded")
        } else {
            ("False", "Failed")
        };
        self.expect("Valid", "True", REASON_VALID, VALID);
        self.expect("Executed", status, reason, message);
        self.expect("Progressing", "False", stage, message);
        let types: Vec<String> = self
            .status()
            .conditions
            .into_iter()
            .map(|c| c.type_)
            .collect();
        let position = |t: &str| types.iter().position(|x| x == t);
        assert!(
            position("Valid") < position("Executed"),
            "{}: Valid comes before Executed: {types:?}",
            self.rule
        );
    }

    /// A reservation, if one was made, is released with the verdict.
    fn expect_released(&self) {
        if self.condition("BudgetReserved").is_some() {
            self.expect("BudgetReserved", "False", "Released", RELEASED);
        }
        assert_eq!(
            self.status().reservation,
            None,
            "{}: reservation",
            self.rule
        );
    }

    fn expect_reserved(&self) {
        self.expect("BudgetReserved", "True", "Reserved", RESERVED);
        let reservation = self.status().reservation.expect("status.reservation");
        assert_eq!(reservation.binding, "b1", "{}: reserved binding", self.rule);
    }

    fn expect_waiting(&self, reason: &str, message: &str) {
        self.expect("Progressing", "True", reason, message);
        self.expect_absent("Executed");
    }

    fn has_finalizer(&self) -> bool {
        self.eviction
            .metadata
            .finalizers
            .iter()
            .flatten()
            .any(|f| f == FINALIZER)
    }

    /// An external controller sets a condition on the eviction (a gate, or the hand-off
    /// verdict), leaving ours alone.
    fn set_condition(&mut self, type_: &str, status: &str, message: &str, observed: i64) {
        let status_obj = self.eviction.status.get_or_insert_default();
        let c = Condition {
            type_: type_.into(),
            status: status.into(),
            reason: "External".into(),
            message: message.into(),
            observed_generation: Some(observed),
            last_transition_time: Time(self.now),
        };
        match status_obj.conditions.iter_mut().find(|x| x.type_ == type_) {
            Some(existing) => *existing = c,
            None => status_obj.conditions.push(c),
        }
    }

    fn open_gates(&mut self) {
        for gate in self
            .eviction
            .spec
            .eviction_conditions
            .clone()
            .iter()
            .flatten()
        {
            // Gates ignore observedGeneration (§5): an older one still opens.
            self.set_condition(&gate.name, "True", "", 1);
        }
    }

    fn binding(&mut self, name: &str) -> &mut BindingView {
        self.bindings
            .iter_mut()
            .find(|b| b.name == name)
            .expect("binding")
    }

    /// Runs until the eviction holds its reservation with its gates still closed.
    fn reserved(mut self) -> World {
        self.run();
        self.expect_reserved();
        self.expect_absent("Executed");
        self
    }
}

fn position(steps: &[Step], what: impl Fn(&Step) -> bool) -> Option<usize> {
    steps.iter().position(what)
}

fn updates(step: &Step) -> Option<&StatusUpdate> {
    match step {
        Step::Write(u) => Some(u),
        Step::Act { then, .. } => then.as_ref(),
        _ => None,
    }
}

fn is_delete(step: &Step) -> bool {
    matches!(
        step,
        Step::Act {
            action: BindingAction::Delete(_),
            ..
        }
    )
}

fn is_signal(step: &Step) -> bool {
    matches!(
        step,
        Step::Act {
            action: BindingAction::Signal(_),
            ..
        }
    )
}

fn is_remove_signal(step: &Step) -> bool {
    matches!(
        step,
        Step::Act {
            action: BindingAction::RemoveSignal(_),
            ..
        }
    )
}

fn is_act(step: &Step) -> bool {
    matches!(step, Step::Act { .. })
}

fn reserves(step: &Step) -> bool {
    updates(step).is_some_and(|u| matches!(u.reservation, ReservationChange::Reserve(_)))
}

fn writes_executed(step: &Step) -> bool {
    updates(step).is_some_and(|u| u.conditions.iter().any(|c| c.type_ == "Executed"))
}

fn target_ref(rv: &str) -> BindingRef {
    BindingRef {
        name: "b1".into(),
        uid: "uid-b1".into(),
        resource_version: rv.into(),
    }
}

fn deletes_target(steps: &[Step], rv: &str) -> bool {
    steps.iter().any(
        |s| matches!(s, Step::Act { action: BindingAction::Delete(r), .. } if *r == target_ref(rv)),
    )
}

/// The world after the External hand-off was requested.
fn signalled(rule: &str, spec: impl FnOnce(&mut EvictionSpec)) -> World {
    let mut w = world(rule, |s| {
        external(s);
        spec(s);
    });
    w.run();
    assert_eq!(
        w.bindings[0].signal.as_deref(),
        Some(NAME),
        "{rule}: signal"
    );
    w.expect_waiting("WaitingForExternal", WAITING_FOR_EXTERNAL);
    w
}

// Rows. Every write of every row is also checked by `World::write`: never `Executed=Unknown`,
// only our own condition types, `ExternalEvacuation` only Unknown/Requested,
// `status.reservation` iff `BudgetReserved=True`, observedGeneration on our conditions.

fn first_write_and_finalizer(rule: &str) {
    let mut w = world(rule, gated);
    let steps = w.run();
    let finalizer = position(&steps, |s| *s == Step::AddFinalizer).expect("finalizer added");
    let first_write = position(&steps, |s| updates(s).is_some()).expect("a status write");
    let reservation = position(&steps, reserves).expect("a reservation");
    assert!(
        finalizer < first_write && finalizer < reservation,
        "{rule}: finalizer before any write or reservation: {steps:#?}"
    );
    let first = updates(&steps[first_write]).expect("write");
    let head: Vec<(&str, &str, &str)> = first
        .conditions
        .iter()
        .take(2)
        .map(|c| (c.type_, c.status, c.reason.as_str()))
        .collect();
    assert_eq!(
        head,
        vec![
            ("Valid", "True", REASON_VALID),
            ("Progressing", "True", "WaitingForConditions")
        ],
        "{rule}: first write carries Valid=True then Progressing"
    );
    assert!(!steps.iter().any(is_act), "{rule}: no action while gated");
    w.expect("Valid", "True", REASON_VALID, VALID);
    w.expect_waiting(
        "WaitingForConditions",
        "Eviction is waiting for eviction conditions: TrafficDrained, BackupTaken",
    );
    w.expect_reserved();
    let status = w.status();
    assert_eq!(
        status.target_binding.map(|t| (t.name, t.uid)),
        Some(("b1".into(), "uid-b1".into())),
        "{rule}: target pinned by name and uid"
    );
    assert_eq!(
        status.deadline.map(|d| d.0),
        Some(at(3600)),
        "{rule}: default ttl 1h: deadline = creation + 1h"
    );
    let before = w.status();
    w.run();
    assert_eq!(w.status(), before, "{rule}: deciding again changes nothing");
}

fn unknown_gate_waits(rule: &str) {
    let mut w = world(rule, gated);
    w.set_condition(G1, "True", "", GENERATION);
    w.set_condition(G2, "Unknown", "", GENERATION);
    w.run();
    w.expect_waiting(
        "WaitingForConditions",
        "Eviction is waiting for eviction conditions: BackupTaken",
    );
}

fn gates_open_recheck_allows(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.open_gates();
    let gates_before: Vec<Condition> = w
        .status()
        .conditions
        .into_iter()
        .filter(|c| c.type_ == G1 || c.type_ == G2)
        .collect();
    let steps = w.run();
    assert!(
        deletes_target(&steps, TARGET_RV),
        "{rule}: deletes b1 by name, uid, resourceVersion: {steps:#?}"
    );
    // Our own reservation on b1 does not make b1 unavailable: A = 3, 3 − 2 > 0.
    w.expect_verdict(true, REASON_EXECUTED, &allowed_message(3, 3));
    w.expect_released();
    let gates_after: Vec<Condition> = w
        .status()
        .conditions
        .into_iter()
        .filter(|c| c.type_ == G1 || c.type_ == G2)
        .collect();
    assert_eq!(
        gates_after, gates_before,
        "{rule}: gate conditions untouched"
    );
    assert_eq!(steps.last(), Some(&Step::Done), "{rule}: ends Done");
    assert!(!w.has_finalizer(), "{rule}: finalizer removed at the end");
    let delete = position(&steps, is_delete).expect("delete");
    let removed = position(&steps, |s| *s == Step::RemoveFinalizer).expect("finalizer");
    assert!(
        delete < removed,
        "{rule}: finalizer dropped after the action"
    );
}

fn denied_before_reservation(rule: &str) {
    let mut w = world(rule, gated);
    w.set_condition(G1, "True", "", GENERATION);
    w.set_condition(G2, "False", "risk too high", GENERATION);
    let steps = w.run();
    w.expect_verdict(
        false,
        "EvictionConditionDenied",
        "Eviction is blocked, eviction condition BackupTaken was denied: risk too high",
    );
    assert!(!steps.iter().any(is_act), "{rule}: no action");
    w.expect_released();
    assert!(!w.has_finalizer(), "{rule}: finalizer removed");
}

fn denied_after_reservation(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.set_condition(G1, "False", "maintenance window closed", GENERATION);
    let steps = w.run();
    w.expect_verdict(
        false,
        "EvictionConditionDenied",
        "Eviction is blocked, eviction condition TrafficDrained was denied: maintenance window closed",
    );
    w.expect_released();
    assert!(!steps.iter().any(is_act), "{rule}: no action");
    assert!(!w.has_finalizer(), "{rule}: finalizer removed");
}

fn reserves_without_budget(rule: &str) {
    let mut w = world(rule, gated);
    w.budget = None;
    let mut w = w.reserved();
    w.open_gates();
    let steps = w.run();
    assert!(deletes_target(&steps, TARGET_RV), "{rule}: {steps:#?}");
    w.expect_verdict(true, REASON_EXECUTED, NO_PDB);
}

fn reserves_for_failed_placement(rule: &str) {
    let mut w = world(rule, gated);
    w.budget = Some(BudgetSpec::default());
    w.binding("b1").conditions.push(condition(
        "Applied",
        "False",
        "NotAllWorkHaveBeenApplied",
        1,
    ));
    let mut w = w.reserved();
    w.open_gates();
    let steps = w.run();
    assert!(deletes_target(&steps, TARGET_RV), "{rule}: {steps:#?}");
    w.expect_verdict(true, REASON_EXECUTED, PLACEMENT_FAILED);
}

fn waits_for_budget_then_proceeds(rule: &str) {
    let mut w = world(rule, waits_for_budget);
    unavailable(w.binding("b2"));
    let steps = w.run();
    w.expect_waiting("WaitingForBudget", &waiting_for_budget(2, 3));
    w.expect("Valid", "True", REASON_VALID, VALID);
    assert!(!steps.iter().any(is_act), "{rule}: no action while blocked");
    available(w.binding("b2"));
    let steps = w.run();
    assert!(deletes_target(&steps, TARGET_RV), "{rule}: {steps:#?}");
    w.expect_verdict(true, REASON_EXECUTED, &allowed_message(3, 3));
    w.expect_released();
}

fn blocked_is_terminal_without_wait(rule: &str) {
    let mut w = world(rule, one_gate);
    w.open_gates();
    unavailable(w.binding("b2"));
    let steps = w.run();
    w.expect_verdict(false, REASON_NOT_EXECUTED, &blocked_message(2, 3));
    assert!(!steps.iter().any(is_act), "{rule}: no action");
    w.expect_released();
    assert!(!w.has_finalizer(), "{rule}: finalizer removed");
}

fn misconfigured_waits_with_wait_for_budget(rule: &str) {
    let mut w = world(rule, waits_for_budget);
    w.budget = Some(BudgetSpec {
        min_available: None,
        max_unavailable: Some(IntOrString::Int(1)),
    });
    let steps = w.run();
    w.expect_waiting("WaitingForBudget", &waiting_for_budget(3, 3));
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn misconfigured_is_terminal_without_wait(rule: &str) {
    let mut w = world(rule, one_gate);
    w.open_gates();
    w.budget = Some(BudgetSpec {
        min_available: Some(IntOrString::String("50%".into())),
        max_unavailable: None,
    });
    let steps = w.run();
    w.expect_verdict(false, REASON_NOT_EXECUTED, MISCONFIGURED_PDB);
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn recheck_exhausted_waits_again(rule: &str) {
    let mut w = world(rule, |s| {
        one_gate(s);
        waits_for_budget(s);
    })
    .reserved();
    // An involuntary disruption while the gate is closed.
    unavailable(w.binding("b2"));
    w.open_gates();
    let steps = w.run();
    // The target counts as without its own reservation: A = 2 (b1, b3), 2 − 2 = 0.
    w.expect_waiting("WaitingForBudget", &waiting_for_budget(2, 3));
    w.expect("BudgetReserved", "False", "Released", RELEASED);
    assert_eq!(w.status().reservation, None, "{rule}: reservation released");
    assert!(!steps.iter().any(is_act), "{rule}: no action");
    let before = w.status();
    w.run();
    assert_eq!(w.status(), before, "{rule}: keeps waiting");
    available(w.binding("b2"));
    let steps = w.run();
    assert!(deletes_target(&steps, TARGET_RV), "{rule}: {steps:#?}");
    w.expect_verdict(true, REASON_EXECUTED, &allowed_message(3, 3));
}

fn recheck_exhausted_ends_blocked(rule: &str) {
    let mut w = world(rule, one_gate).reserved();
    unavailable(w.binding("b2"));
    w.open_gates();
    let steps = w.run();
    w.expect_verdict(false, REASON_NOT_EXECUTED, &blocked_message(2, 3));
    w.expect_released();
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn pinned_target_gone(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.bindings.retain(|b| b.name != "b1");
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, PLACEMENT_REMOVED);
    w.expect_released();
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn pinned_target_replaced(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.binding("b1").uid = "uid-b1-new".into();
    w.open_gates();
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, PLACEMENT_REMOVED);
    assert!(
        !steps.iter().any(is_act),
        "{rule}: the new binding is not our target: {steps:#?}"
    );
}

fn pinned_target_deleting_while_gated(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.binding("b1").deleting = true;
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, PLACEMENT_REMOVED);
    w.expect_released();
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn deleting_target_at_once(rule: &str) {
    let mut w = world(rule, gated);
    w.binding("b1").deleting = true;
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, PLACEMENT_REMOVED);
    assert!(!steps.iter().any(reserves), "{rule}: no reservation");
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn missing_placement_is_terminal(rule: &str) {
    let mut w = world(rule, gated);
    w.binding("b1").state = Some(BindingState::Scheduled);
    let steps = w.run();
    w.expect_verdict(false, REASON_NOT_EXECUTED, MISSING_PLACEMENT);
    assert!(!steps.iter().any(reserves), "{rule}: no reservation");
    assert!(!w.has_finalizer(), "{rule}: finalizer removed");
}

fn invalid_writes_only_valid(rule: &str) {
    let mut w = world(rule, gated);
    w.bindings.retain(|b| b.name != "b1");
    let steps = w.run();
    let conditions: Vec<(String, String, String, String)> = w
        .status()
        .conditions
        .into_iter()
        .map(|c| (c.type_, c.status, c.reason, c.message))
        .collect();
    assert_eq!(
        conditions,
        vec![(
            "Valid".into(),
            "False".into(),
            REASON_INVALID.into(),
            MISSING_CRB.into()
        )],
        "{rule}: only Valid"
    );
    let write = steps.iter().find_map(updates).expect("write");
    assert!(
        write.confirm.is_some(),
        "{rule}: MissingCRB is confirmed first"
    );
    assert!(!w.has_finalizer(), "{rule}: no finalizer left");
}

fn unknown_strategy_is_invalid(rule: &str) {
    let mut w = world(rule, |s| {
        s.strategy = Some(EvictionStrategy::Other("Teleport".into()))
    });
    let steps = w.run();
    let status = w.status();
    assert_eq!(status.conditions.len(), 1, "{rule}: only Valid");
    let (valid, reason, message) = w.condition("Valid").expect("Valid");
    assert_eq!((valid.as_str(), reason.as_str()), ("False", REASON_INVALID));
    assert!(
        message.contains("\"Teleport\"")
            && message.contains("Delete")
            && message.contains("External"),
        "{rule}: the message names the value and the choices: {message}"
    );
    assert!(!steps.iter().any(is_act), "{rule}: no action");
    assert!(!w.has_finalizer(), "{rule}: no finalizer");
}

fn second_eviction_waits_for_first(rule: &str) {
    let mut w = world(rule, waits_for_budget);
    w.others = vec![HeldReservation {
        eviction: "first-eviction".into(),
        binding: "b1".into(),
    }];
    let steps = w.run();
    let (status, reason, _) = w.condition("Progressing").expect("Progressing");
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("True", "WaitingForEviction")
    );
    w.expect_absent("Executed");
    assert!(!steps.iter().any(reserves), "{rule}: takes no slot");
    assert!(!steps.iter().any(is_act), "{rule}: no action");
    // The first ends without acting: this one re-checks and proceeds.
    w.others.clear();
    let steps = w.run();
    assert!(deletes_target(&steps, TARGET_RV), "{rule}: {steps:#?}");
    w.expect_verdict(true, REASON_EXECUTED, &allowed_message(3, 3));
}

fn second_eviction_after_first_deleted(rule: &str) {
    let mut w = world(rule, waits_for_budget);
    w.others = vec![HeldReservation {
        eviction: "first-eviction".into(),
        binding: "b1".into(),
    }];
    w.run();
    w.others.clear();
    w.binding("b1").deleting = true;
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, PLACEMENT_REMOVED);
    assert!(!steps.iter().any(is_act), "{rule}: no action");
}

fn external_signal(rule: &str) {
    let mut w = world(rule, |s| {
        external(s);
        one_gate(s);
    });
    w.open_gates();
    let steps = w.run();
    let signal = position(&steps, is_signal).expect("signal");
    let reserve = position(&steps, reserves).expect("reservation");
    let finalizer = position(&steps, |s| *s == Step::AddFinalizer).expect("finalizer");
    assert!(
        finalizer < reserve && reserve < signal,
        "{rule}: finalizer, then reservation, then signal: {steps:#?}"
    );
    assert_eq!(
        steps[signal],
        Step::Act {
            action: BindingAction::Signal(target_ref(TARGET_RV)),
            then: updates(&steps[signal]).cloned(),
        },
        "{rule}: signal addresses b1 by name, uid, resourceVersion"
    );
    assert!(!steps.iter().any(is_delete), "{rule}: we do not delete");
    assert!(
        matches!(steps.last(), Some(Step::Wait { .. })),
        "{rule}: waits"
    );
    w.expect(
        "ExternalEvacuation",
        "Unknown",
        "Requested",
        EXTERNAL_REQUESTED,
    );
    w.expect_waiting("WaitingForExternal", WAITING_FOR_EXTERNAL);
    w.expect_reserved();
    // Gates are consulted only until the action starts.
    w.set_condition(G1, "False", "too late", GENERATION);
    w.run();
    w.expect_waiting("WaitingForExternal", WAITING_FOR_EXTERNAL);
}

fn external_deleted_binding(rule: &str) {
    let mut w = signalled(rule, |_| {});
    w.binding("b1").deleting = true;
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, EXTERNAL_REMOVED);
    w.expect_released();
    assert!(!steps.iter().any(is_act), "{rule}: no action of ours");
    assert!(!w.has_finalizer(), "{rule}: finalizer removed");
}

fn external_binding_gone(rule: &str) {
    let mut w = signalled(rule, |_| {});
    w.bindings.retain(|b| b.name != "b1");
    let steps = w.run();
    w.expect_verdict(true, REASON_EXECUTED, EXTERNAL_REMOVED);
    w.expect_released();
    assert!(!steps.iter().any(is_act), "{rule}: no action of ours");
}

fn external_true_we_delete(rule: &str) {
    let mut w = signalled(rule, |_| {});
    w.set_condition("ExternalEvacuation", "True", "done, remove it", GENERATION);
    let rv = w.bindings[0].resource_version.clone();
    let steps = w.run();
    assert!(deletes_target(&steps, &rv), "{rule}: we delete: {steps:#?}");
    assert_eq!(
        w.condition("ExternalEvacuation").map(|c| c.0),
        Some("True".into()),
        "{rule}: never overwrite the external verdict"
    );
    w.expect("Executed", "True", REASON_EXECUTED, EXTERNAL_REMOVED);
    w.expect_released();
}

fn external_false_fails(rule: &str) {
    let mut w = signalled(rule, |_| {});
    w.set_condition("ExternalEvacuation", "False", "no capacity", GENERATION);
    let steps = w.run();
    let unsignal = position(&steps, is_remove_signal).expect("signal removed");
    let verdict = position(&steps, writes_executed).expect("verdict");
    let finalizer = position(&steps, |s| *s == Step::RemoveFinalizer).expect("finalizer");
    assert!(
        unsignal < verdict && verdict < finalizer,
        "{rule}: signal removed, then verdict, then finalizer: {steps:#?}"
    );
    assert_eq!(w.bindings[0].signal, None, "{rule}: signal gone");
    w.expect_verdict(
        false,
        "ExternalEvacuationFailed",
        "Eviction is blocked, external evacuation failed: no capacity",
    );
    assert_eq!(
        w.condition("ExternalEvacuation").map(|c| c.0),
        Some("False".into()),
        "{rule}: never overwrite the external verdict"
    );
    w.expect_released();
    assert!(!steps.iter().any(is_delete), "{rule}: no delete");
}

fn ttl_expires_while_external(rule: &str) {
    let mut w = signalled(rule, |s| s.ttl = Some("10m".into()));
    assert_eq!(w.status().deadline.map(|d| d.0), Some(at(600)), "{rule}");
    w.now = at(600);
    let steps = w.run();
    let unsignal = position(&steps, is_remove_signal).expect("signal removed");
    let verdict = position(&steps, writes_executed).expect("verdict");
    let finalizer = position(&steps, |s| *s == Step::RemoveFinalizer).expect("finalizer");
    assert!(
        unsignal < verdict && verdict < finalizer,
        "{rule}: signal removed, then release, then finalizer: {steps:#?}"
    );
    let released_with_verdict = updates(&steps[verdict]).is_some_and(|u| {
        u.reservation == ReservationChange::Release
            && u.conditions
                .iter()
                .any(|c| c.type_ == "BudgetReserved" && c.status == "False")
    });
    assert!(released_with_verdict, "{rule}: the timeout releases");
    w.expect_verdict(
        false,
        "Timeout",
        "Eviction is blocked, ttl 10m expired while WaitingForExternal",
    );
    w.expect("BudgetReserved", "False", "Released", RELEASED);
    assert_eq!(w.bindings[0].signal, None, "{rule}: signal gone");
    assert!(!w.has_finalizer(), "{rule}: finalizer removed");
}

fn default_ttl_expires_while_gated(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.now = at(3600);
    w.run();
    w.expect_verdict(
        false,
        "Timeout",
        "Eviction is blocked, ttl 1h expired while WaitingForConditions",
    );
    w.expect_released();
}

fn ttl_not_yet_expired(rule: &str) {
    let mut w = world(rule, gated).reserved();
    w.now = at(3599);
    w.run();
    w.expect_waiting(
        "WaitingForConditions",
        "Eviction is waiting for eviction conditions: TrafficDrained, BackupTaken",
    );
}

fn ttl_zero_means_no_deadline(rule: &str) {
    let mut w = world(rule, |s| {
        gated(s);
        s.ttl = Some("0s".into());
    })
    .reserved();
    assert_eq!(w.status().deadline, None, "{rule}: no status.deadline");
    w.now = at(1000 * 3600);
    assert_eq!(deadline(&w.facts(BudgetRead::NotRead)), None, "{rule}");
    w.run();
    w.expect_waiting(
        "WaitingForConditions",
        "Eviction is waiting for eviction conditions: TrafficDrained, BackupTaken",
    );
}

fn explicit_ttl_sets_deadline(rule: &str) {
    let w = world(rule, |s| {
        gated(s);
        s.ttl = Some("90s".into());
    })
    .reserved();
    assert_eq!(w.status().deadline.map(|d| d.0), Some(at(90)), "{rule}");
}

fn deletion_cleans_up(rule: &str) {
    let mut w = signalled(rule, |_| {});
    w.eviction.metadata.deletion_timestamp = Some(Time(w.now));
    let steps = w.run();
    let unsignal = position(&steps, is_remove_signal).expect("signal removed");
    let finalizer = position(&steps, |s| *s == Step::RemoveFinalizer).expect("finalizer");
    assert!(unsignal < finalizer, "{rule}: signal, then finalizer");
    assert!(w.gone, "{rule}: the eviction goes away");
    assert_eq!(w.bindings[0].signal, None, "{rule}: signal gone");
    assert!(!steps.iter().any(is_delete), "{rule}: no delete");
}

/// §5.2 step 4 also names the release between the two.
fn deletion_releases_before_finalizer(rule: &str) {
    let mut w = signalled(rule, |_| {});
    w.eviction.metadata.deletion_timestamp = Some(Time(w.now));
    w.run();
    w.expect("BudgetReserved", "False", "Released", RELEASED);
    assert_eq!(w.status().reservation, None, "{rule}: reservation released");
}

fn withdrawing_stage_is_recorded(rule: &str) {
    // No gates, nothing to wait for: reserved with stage Withdrawing, then deleted.
    let mut w = world(rule, waits_for_budget);
    let steps = w.run();
    let reserve = position(&steps, reserves).expect("reservation");
    let stage = updates(&steps[reserve])
        .and_then(|u| u.conditions.iter().find(|c| c.type_ == "Progressing"))
        .map(|c| (c.reason.clone(), c.message.clone()));
    assert_eq!(
        stage,
        Some(("Withdrawing".into(), WITHDRAWING.into())),
        "{rule}: the reservation write names the stage"
    );
    assert!(
        position(&steps, is_delete) > Some(reserve),
        "{rule}: reserved before the delete"
    );
}

#[test]
fn extended_stage_table() {
    type Scenario = fn(&str);
    let rows: &[(&str, Scenario)] = &[
        (
            "§5.1 first write: finalizer first, then Valid=True + Progressing with the reservation",
            first_write_and_finalizer,
        ),
        (
            "§5 gates: Unknown waits, met gates leave the waiting list",
            unknown_gate_waits,
        ),
        (
            "§5.1 gates open → re-check counts the target without its own reservation → delete",
            gates_open_recheck_allows,
        ),
        (
            "§5 gate False → EvictionConditionDenied (before reserving)",
            denied_before_reservation,
        ),
        (
            "§5 gate False while reserved → EvictionConditionDenied, reservation released",
            denied_after_reservation,
        ),
        ("§5.1 reserve also with no CRPDB", reserves_without_budget),
        (
            "§5.1 reserve also for a failed placement",
            reserves_for_failed_placement,
        ),
        (
            "§5 waitForBudget: blocked → WaitingForBudget with A/T; budget freed → proceeds",
            waits_for_budget_then_proceeds,
        ),
        (
            "§5 without waitForBudget: blocked is terminal",
            blocked_is_terminal_without_wait,
        ),
        (
            "§5 waitForBudget: MisconfiguredPDB waits",
            misconfigured_waits_with_wait_for_budget,
        ),
        (
            "§3 e without waitForBudget: MisconfiguredPDB is terminal",
            misconfigured_is_terminal_without_wait,
        ),
        (
            "§5.1 re-check: budget exhausted while reserved → waits again, releasing",
            recheck_exhausted_waits_again,
        ),
        (
            "§5.1 re-check: budget exhausted, no waitForBudget → ends blocked",
            recheck_exhausted_ends_blocked,
        ),
        (
            "§5.1 pinned target gone → PlacementRemoved",
            pinned_target_gone,
        ),
        (
            "§5.1 pinned target replaced by a new uid → PlacementRemoved, the new one untouched",
            pinned_target_replaced,
        ),
        (
            "§5.1 pinned target deleting while gated → PlacementRemoved",
            pinned_target_deleting_while_gated,
        ),
        (
            "§5.1 §3 a: deleting target at first decision → Executed=True at once, no gates",
            deleting_target_at_once,
        ),
        (
            "§5.1 §3 b: MissingPlacement is terminal",
            missing_placement_is_terminal,
        ),
        (
            "§2 invalid extended eviction carries only Valid=False",
            invalid_writes_only_valid,
        ),
        (
            "unknown strategy → Valid=False with a clear message",
            unknown_strategy_is_invalid,
        ),
        (
            "§5.1 second extended eviction of a held binding → WaitingForEviction, then re-checks",
            second_eviction_waits_for_first,
        ),
        (
            "§5.1 second extended eviction, the first deleted the binding → PlacementRemoved",
            second_eviction_after_first_deleted,
        ),
        (
            "§5.2.1 External: gates met → signal, ExternalEvacuation=Unknown/Requested, WaitingForExternal",
            external_signal,
        ),
        (
            "§5.2.3 External: binding deleted by the external controller → Executed=True",
            external_deleted_binding,
        ),
        (
            "§5.2.3 External: binding gone → Executed=True",
            external_binding_gone,
        ),
        (
            "§5.2.2 External: ExternalEvacuation=True → we delete the binding",
            external_true_we_delete,
        ),
        (
            "§5.2.2 External: ExternalEvacuation=False → signal removed, then ExternalEvacuationFailed",
            external_false_fails,
        ),
        (
            "§5.2.4 ttl expiry: signal removed, then Timeout releasing, then finalizer",
            ttl_expires_while_external,
        ),
        (
            "§5 default ttl 1h expires while waiting for conditions",
            default_ttl_expires_while_gated,
        ),
        (
            "§5 ttl: one second before the deadline nothing expires",
            ttl_not_yet_expired,
        ),
        ("§5 ttl 0s means no deadline", ttl_zero_means_no_deadline),
        (
            "§1 status.deadline = creation + ttl",
            explicit_ttl_sets_deadline,
        ),
        (
            "§5.2.4 deletion: signal removed, then finalizer",
            deletion_cleans_up,
        ),
        (
            "§5.2.4 deletion: reservation released before the finalizer is dropped",
            deletion_releases_before_finalizer,
        ),
        (
            "§5.3 Withdrawing stage, reservation before the delete",
            withdrawing_stage_is_recorded,
        ),
    ];
    let failures: Vec<&str> = rows
        .iter()
        .filter(|(rule, scenario)| std::panic::catch_unwind(|| scenario(rule)).is_err())
        .map(|(rule, _)| *rule)
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} rows failing:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}
