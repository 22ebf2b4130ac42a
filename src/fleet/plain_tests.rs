//! The decision table of a plain eviction, written from fleet-eviction.md §2, §3, §4 and §4.3.
//! Every expected string is spelled out here as the spec spells it, so a drift in
//! `messages.rs` fails these rows.

use super::decide;
use crate::api::budget::BudgetSpec;
use crate::api::eviction::{ClusterResourcePlacementEviction, EvictionSpec, EvictionStatus};
use crate::api::kubefleet::BindingState;
use crate::fleet::facts::{BudgetRead, Facts, HeldReservation, is_extended};
use crate::fleet::status;
use crate::fleet::step::{BindingAction, BindingRef, StatusUpdate, Step};
use crate::fleet::view::fixtures::{bound, condition, placement};
use crate::fleet::view::{BindingView, PlacementKind, PlacementView};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use k8s_openapi::jiff::Timestamp;
use std::time::Duration;

use crate::fleet::spec_strings::*;

const GENERATION: i64 = 7;
const CLUSTER: &str = "member-1";
/// The target's resourceVersion, distinct from the fixtures' "1" so the delete is seen to
/// carry the target's own.
const TARGET_RV: &str = "42";

/// Whether the decision may ask for the budget.
#[derive(Debug, Clone, Copy, PartialEq)]
enum BudgetUse {
    /// §3 d–g: the budget decides.
    Read,
    /// §3 a–c: decided before the budget (c says so explicitly).
    NotRead,
    /// The spec does not say.
    Either,
}

#[derive(Debug)]
enum Want {
    Invalid {
        message: &'static str,
        confirm: bool,
    },
    Executed {
        status: &'static str,
        reason: &'static str,
        message: String,
        delete: bool,
        budget: BudgetUse,
    },
    Done,
}

fn invalid(message: &'static str) -> Want {
    Want::Invalid {
        message,
        confirm: false,
    }
}

/// MissingCRP / MissingCRB: drawn from absence, confirmed against the API before writing.
fn invalid_absent(message: &'static str) -> Want {
    Want::Invalid {
        message,
        confirm: true,
    }
}

fn evicts(message: impl Into<String>, budget: BudgetUse) -> Want {
    Want::Executed {
        status: "True",
        reason: REASON_EXECUTED,
        message: message.into(),
        delete: true,
        budget,
    }
}

fn allowed(a: i64, t: i64) -> Want {
    evicts(allowed_message(a, t), BudgetUse::Read)
}

fn not_executed(message: impl Into<String>, budget: BudgetUse) -> Want {
    Want::Executed {
        status: "False",
        reason: REASON_NOT_EXECUTED,
        message: message.into(),
        delete: false,
        budget,
    }
}

fn blocked(a: i64, t: i64) -> Want {
    not_executed(blocked_message(a, t), BudgetUse::Read)
}

fn removed() -> Want {
    Want::Executed {
        status: "True",
        reason: REASON_EXECUTED,
        message: PLACEMENT_REMOVED.into(),
        delete: false,
        budget: BudgetUse::NotRead,
    }
}

fn failed() -> Want {
    evicts(PLACEMENT_FAILED, BudgetUse::NotRead)
}

fn no_pdb() -> Want {
    evicts(NO_PDB, BudgetUse::Read)
}

fn int(n: i32) -> IntOrString {
    IntOrString::Int(n)
}

fn pct(s: &str) -> IntOrString {
    IntOrString::String(s.into())
}

fn min(v: IntOrString) -> BudgetSpec {
    BudgetSpec {
        min_available: Some(v),
        max_unavailable: None,
    }
}

fn max(v: IntOrString) -> BudgetSpec {
    BudgetSpec {
        min_available: None,
        max_unavailable: Some(v),
    }
}

fn unavailable(b: &mut BindingView) {
    b.conditions = vec![condition("Available", "False", "NotAllWorkAreAvailable", 1)];
}

fn kube_condition(type_: &str, status: &str, reason: &str) -> Condition {
    Condition {
        type_: type_.into(),
        status: status.into(),
        reason: reason.into(),
        message: String::new(),
        observed_generation: Some(GENERATION),
        last_transition_time: Time(Timestamp::UNIX_EPOCH),
    }
}

/// One row: a PickAll placement `web` with bindings b1 (the target, on member-1), b2, b3, no
/// budget and no other eviction, changed by the builder methods.
struct Row {
    rule: &'static str,
    placement: Option<PlacementView>,
    bindings: Vec<BindingView>,
    others: Vec<HeldReservation>,
    budget: Option<BudgetSpec>,
    status: Option<EvictionStatus>,
    ttl: Option<&'static str>,
    want: Want,
}

fn row(rule: &'static str, want: Want) -> Row {
    let mut b1 = bound("b1", CLUSTER);
    b1.resource_version = TARGET_RV.into();
    Row {
        rule,
        placement: Some(placement(PlacementKind::PickAll)),
        bindings: vec![b1, bound("b2", "member-2"), bound("b3", "member-3")],
        others: vec![],
        budget: None,
        status: None,
        ttl: None,
        want,
    }
}

impl Row {
    fn kind(mut self, kind: PlacementKind) -> Row {
        self.placement = self.placement.map(|p| PlacementView { kind, ..p });
        self
    }

    fn no_placement(mut self) -> Row {
        self.placement = None;
        self
    }

    fn placement_deleting(mut self) -> Row {
        self.placement = self.placement.map(|p| PlacementView {
            deleting: true,
            ..p
        });
        self
    }

    fn budget(mut self, budget: BudgetSpec) -> Row {
        self.budget = Some(budget);
        self
    }

    /// Changes binding `name` (b1 is the target).
    fn binding(mut self, name: &str, change: impl FnOnce(&mut BindingView)) -> Row {
        let b = self
            .bindings
            .iter_mut()
            .find(|b| b.name == name)
            .expect("binding of the row");
        change(b);
        self
    }

    fn target(self, change: impl FnOnce(&mut BindingView)) -> Row {
        self.binding("b1", change)
    }

    fn with_binding(mut self, binding: BindingView) -> Row {
        self.bindings.push(binding);
        self
    }

    fn without_binding(mut self, name: &str) -> Row {
        self.bindings.retain(|b| b.name != name);
        self
    }

    fn reserved_by_other(mut self, binding: &str) -> Row {
        self.others.push(HeldReservation {
            eviction: "other-eviction".into(),
            binding: binding.into(),
        });
        self
    }

    fn status(mut self, conditions: Vec<Condition>) -> Row {
        self.status = Some(EvictionStatus {
            conditions,
            ..Default::default()
        });
        self
    }

    fn ttl(mut self, ttl: &'static str) -> Row {
        self.ttl = Some(ttl);
        self
    }

    fn eviction(&self) -> ClusterResourcePlacementEviction {
        let mut eviction = ClusterResourcePlacementEviction::new(
            "evict-web-member-1",
            EvictionSpec {
                placement_name: "web".into(),
                cluster_name: CLUSTER.into(),
                eviction_conditions: None,
                strategy: None,
                ttl: self.ttl.map(Into::into),
                wait_for_budget: None,
                pod_migration: None,
            },
        );
        eviction.metadata.generation = Some(GENERATION);
        eviction.metadata.creation_timestamp = Some(Time(created()));
        eviction.status = self.status.clone();
        eviction
    }
}

fn created() -> Timestamp {
    "2026-03-01T10:00:00Z".parse().expect("timestamp")
}

/// Decides once as the controller does: without the budget first, and with the budget read
/// from the API if the decision asks for it. Returns the step and whether it asked.
fn decide_row(row: &Row) -> Result<(Step, bool), String> {
    let eviction = row.eviction();
    let now = created()
        .checked_add(Duration::from_secs(3600))
        .expect("now");
    let facts = |budget| Facts {
        eviction: &eviction,
        placement: row.placement.as_ref(),
        bindings: &row.bindings,
        others: &row.others,
        budget,
        now,
        default_ttl: Duration::from_secs(3600),
    };
    match decide(&facts(BudgetRead::NotRead)) {
        Step::NeedBudget => {
            let read = match &row.budget {
                Some(spec) => BudgetRead::Present(spec.clone()),
                None => BudgetRead::Absent,
            };
            match decide(&facts(read)) {
                Step::NeedBudget => Err("asked for the budget again after reading it".into()),
                step => Ok((step, true)),
            }
        }
        step => Ok((step, false)),
    }
}

type Wire = (String, String, String, String);

fn wire(update: &StatusUpdate) -> Vec<Wire> {
    update
        .conditions
        .iter()
        .map(|c| {
            (
                c.type_.to_string(),
                c.status.to_string(),
                c.reason.clone(),
                c.message.clone(),
            )
        })
        .collect()
}

fn wanted(type_: &str, status: &str, reason: &str, message: &str) -> Wire {
    (type_.into(), status.into(), reason.into(), message.into())
}

/// Checks what every verdict write must be: terminal, and each condition carrying the
/// eviction's generation once merged (§3 "Every condition carries observedGeneration").
fn check_verdict_write(update: &StatusUpdate) -> Result<(), String> {
    if !update.terminal {
        return Err("the verdict write is not marked terminal".into());
    }
    let merged = status::merge(None, update, GENERATION, created());
    if let Some(c) = merged
        .conditions
        .iter()
        .find(|c| c.observed_generation != Some(GENERATION))
    {
        return Err(format!("{} lacks observedGeneration {GENERATION}", c.type_));
    }
    Ok(())
}

fn check(row: &Row) -> Result<(), String> {
    let (step, read_budget) = decide_row(row)?;
    match &row.want {
        Want::Done => (step == Step::Done)
            .then_some(())
            .ok_or(format!("want Done, got {step:?}")),
        Want::Invalid { message, confirm } => {
            let Step::Write(update) = &step else {
                return Err(format!("want a Valid=False write, got {step:?}"));
            };
            let want = vec![wanted("Valid", "False", REASON_INVALID, message)];
            if wire(update) != want {
                return Err(format!("conditions {:?}, want {want:?}", wire(update)));
            }
            if update.confirm.is_some() != *confirm {
                return Err(format!("confirm {:?}, want {confirm}", update.confirm));
            }
            if read_budget {
                return Err("an invalid eviction read the budget".into());
            }
            check_verdict_write(update)
        }
        Want::Executed {
            status,
            reason,
            message,
            delete,
            budget,
        } => {
            let update = match (&step, delete) {
                (
                    Step::Act {
                        action: BindingAction::Delete(target),
                        then: Some(update),
                    },
                    true,
                ) => {
                    let want = BindingRef {
                        name: "b1".into(),
                        uid: "uid-b1".into(),
                        resource_version: TARGET_RV.into(),
                    };
                    if *target != want {
                        return Err(format!("deletes {target:?}, want {want:?}"));
                    }
                    update
                }
                (Step::Write(update), false) => update,
                _ => {
                    let what = if *delete { "a delete" } else { "a write" };
                    return Err(format!("want {what}, got {step:?}"));
                }
            };
            let want = vec![
                wanted("Valid", "True", REASON_VALID, VALID),
                wanted("Executed", status, reason, message),
            ];
            if wire(update) != want {
                return Err(format!("conditions {:?}, want {want:?}", wire(update)));
            }
            // A refusal drawn from the cached bindings or placement (MissingPlacement,
            // MisconfiguredPDB, blocked by the budget) is confirmed against the API before it
            // is written; an allowed verdict and "another eviction in progress" are not.
            let want_confirm = *status == "False" && *message != IN_PROGRESS;
            if update.confirm.is_some() != want_confirm {
                return Err(format!("confirm {:?}, want {want_confirm}", update.confirm));
            }
            match (budget, read_budget) {
                (BudgetUse::Read, false) => return Err("decided without the budget".into()),
                (BudgetUse::NotRead, true) => return Err("read the budget".into()),
                _ => {}
            }
            check_verdict_write(update)
        }
    }
}

#[test]
fn plain_decision_table() {
    use PlacementKind::*;
    let rows = vec![
        // §2 Validation, first failure wins.
        row("§2.1 MissingCRP: no placement", invalid_absent(MISSING_CRP)).no_placement(),
        row(
            "§2.1 MissingCRP wins over MissingCRB",
            invalid_absent(MISSING_CRP),
        )
        .no_placement()
        .without_binding("b1"),
        row("§2.2 DeletingCRP", invalid(DELETING_CRP)).placement_deleting(),
        row(
            "§2.2 DeletingCRP wins over PickFixed and MissingCRB",
            invalid(DELETING_CRP),
        )
        .kind(PickFixed)
        .placement_deleting()
        .without_binding("b1"),
        row("§2.3 PickFixed", invalid(PICK_FIXED)).kind(PickFixed),
        row("§2.3 PickFixed wins over MultipleCRB", invalid(PICK_FIXED))
            .kind(PickFixed)
            .with_binding(bound("b1-dup", CLUSTER)),
        row(
            "§2.4 MissingCRB: no binding targets the cluster",
            invalid_absent(MISSING_CRB),
        )
        .without_binding("b1"),
        row(
            "§2.4 MultipleCRB: two bindings target the cluster",
            invalid(MULTIPLE_CRB),
        )
        .with_binding(bound("b1-dup", CLUSTER)),
        row(
            "§2.4 MultipleCRB: a deleting binding on the cluster is counted",
            invalid(MULTIPLE_CRB),
        )
        .with_binding({
            let mut b = bound("b1-old", CLUSTER);
            b.deleting = true;
            b
        }),
        // §3 a
        row(
            "§3 a: target deleting → PlacementRemoved, no action, no budget",
            removed(),
        )
        .target(|b| b.deleting = true)
        .budget(BudgetSpec::default()),
        row("§3 a: deleting is checked before not-placed", removed()).target(|b| {
            b.deleting = true;
            b.state = Some(BindingState::Scheduled);
        }),
        // §3 b
        row(
            "§3 b: Scheduled → MissingPlacement",
            not_executed(MISSING_PLACEMENT, BudgetUse::NotRead),
        )
        .target(|b| b.state = Some(BindingState::Scheduled)),
        row(
            "§3 b: Unscheduled without previous-binding-state → MissingPlacement",
            not_executed(MISSING_PLACEMENT, BudgetUse::NotRead),
        )
        .target(|b| b.state = Some(BindingState::Unscheduled)),
        row(
            "§3 b: Unscheduled, previously Scheduled → MissingPlacement",
            not_executed(MISSING_PLACEMENT, BudgetUse::NotRead),
        )
        .target(|b| {
            b.state = Some(BindingState::Unscheduled);
            b.previous_state = Some("Scheduled".into());
        }),
        row(
            "§3 b: Unscheduled, previously Bound, is placed: the budget decides",
            no_pdb(),
        )
        .target(|b| {
            b.state = Some(BindingState::Unscheduled);
            b.previous_state = Some("Bound".into());
        }),
        row(
            "§3 b/§4: Unscheduled (previously Bound) target counts in A: minAvailable 2 allows",
            allowed(3, 3),
        )
        .budget(min(int(2)))
        .target(|b| {
            b.state = Some(BindingState::Unscheduled);
            b.previous_state = Some("Bound".into());
        }),
        // §3 c: failures evict without the budget (the empty budget would block).
        row("§3 c: Overridden False → PlacementFailed", failed())
            .budget(BudgetSpec::default())
            .target(|b| {
                b.conditions
                    .push(condition("Overridden", "False", "OverriddenFailed", 1))
            }),
        row("§3 c: WorkSynchronized False → PlacementFailed", failed())
            .budget(BudgetSpec::default())
            .target(|b| {
                b.conditions
                    .push(condition("WorkSynchronized", "False", "SyncWorkFailed", 1))
            }),
        row("§3 c: Applied False → PlacementFailed", failed())
            .budget(BudgetSpec::default())
            .target(|b| {
                b.conditions.push(condition(
                    "Applied",
                    "False",
                    "NotAllWorkHaveBeenApplied",
                    1,
                ))
            }),
        row("§3 c: Available False → PlacementFailed", failed())
            .budget(BudgetSpec::default())
            .target(unavailable),
        row(
            "§3 c: Overridden False OverriddenPending is not a failure",
            no_pdb(),
        )
        .target(|b| {
            b.conditions
                .push(condition("Overridden", "False", "OverriddenPending", 1))
        }),
        row(
            "§3 c: WorkSynchronized False WorkNotSynchronizedYet is not a failure",
            no_pdb(),
        )
        .target(|b| {
            b.conditions.push(condition(
                "WorkSynchronized",
                "False",
                "WorkNotSynchronizedYet",
                1,
            ))
        }),
        row(
            "§3 c: Applied False ApplyPending is not a failure",
            no_pdb(),
        )
        .target(|b| {
            b.conditions
                .push(condition("Applied", "False", "ApplyPending", 1))
        }),
        row(
            "§3 c: Available False ResourceNotAvailableYet is not a failure",
            no_pdb(),
        )
        .target(|b| {
            b.conditions = vec![condition(
                "Available",
                "False",
                "ResourceNotAvailableYet",
                1,
            )]
        }),
        row("§3 c: DiffReported True → PlacementFailed", failed())
            .budget(BudgetSpec::default())
            .target(|b| {
                b.conditions
                    .push(condition("DiffReported", "True", "DiffReported", 1))
            }),
        row(
            "§3 c: DiffReported False (any status) → PlacementFailed",
            failed(),
        )
        .budget(BudgetSpec::default())
        .target(|b| {
            b.conditions
                .push(condition("DiffReported", "False", "NoDiff", 1))
        }),
        row(
            "§3 c: DiffReported Unknown (any status) → PlacementFailed",
            failed(),
        )
        .budget(BudgetSpec::default())
        .target(|b| {
            b.conditions
                .push(condition("DiffReported", "Unknown", "Pending", 1))
        }),
        row(
            "§3 c: a failure of an older generation is ignored",
            no_pdb(),
        )
        .target(|b| {
            b.generation = 2;
            b.conditions = vec![
                condition("Available", "True", "AllWorkAreAvailable", 2),
                condition("Applied", "False", "NotAllWorkHaveBeenApplied", 1),
            ];
        }),
        row(
            "§3 c: a DiffReported of an older generation is ignored",
            no_pdb(),
        )
        .target(|b| {
            b.generation = 2;
            b.conditions = vec![
                condition("Available", "True", "AllWorkAreAvailable", 2),
                condition("DiffReported", "True", "DiffReported", 1),
            ];
        }),
        // §3 d
        row("§3 d: no CRPDB → NoPDB, binding deleted", no_pdb()),
        // §3 e
        row(
            "§3 e: PickAll with maxUnavailable int → MisconfiguredPDB",
            not_executed(MISCONFIGURED_PDB, BudgetUse::Read),
        )
        .budget(max(int(1))),
        row(
            "§3 e: PickAll with maxUnavailable % → MisconfiguredPDB",
            not_executed(MISCONFIGURED_PDB, BudgetUse::Read),
        )
        .budget(max(pct("50%"))),
        row(
            "§3 e: PickAll with minAvailable % → MisconfiguredPDB",
            not_executed(MISCONFIGURED_PDB, BudgetUse::Read),
        )
        .budget(min(pct("50%"))),
        // §3 f, g with the §4 type × budget table.
        row(
            "§4 PickAll minAvailable int: 3 − 2 > 0 → allowed",
            allowed(3, 3),
        )
        .budget(min(int(2))),
        row(
            "§4 PickAll minAvailable int: 3 − 3 = 0 → blocked",
            blocked(3, 3),
        )
        .budget(min(int(3))),
        row("§4 PickAll empty spec {} → blocked", blocked(3, 3)).budget(BudgetSpec::default()),
        row(
            "§4 PickN minAvailable int: 3 − 2 > 0 → allowed",
            allowed(3, 3),
        )
        .kind(PickN(3))
        .budget(min(int(2))),
        row(
            "§4 PickN minAvailable int: 3 − 3 = 0 → blocked",
            blocked(3, 3),
        )
        .kind(PickN(3))
        .budget(min(int(3))),
        row(
            "§4 PickN minAvailable \"34%\" of 3 = 2: A=3 → allowed",
            allowed(3, 3),
        )
        .kind(PickN(3))
        .budget(min(pct("34%"))),
        row(
            "§4 PickN minAvailable \"34%\" of 3 rounds up to 2 (not 1): A=2 → blocked",
            blocked(2, 3),
        )
        .kind(PickN(3))
        .budget(min(pct("34%")))
        .binding("b3", unavailable),
        row(
            "§4 PickN minAvailable \"02%\" parses as 2%: ceil(0.06) = 1, A=2 → allowed",
            allowed(2, 3),
        )
        .kind(PickN(3))
        .budget(min(pct("02%")))
        .binding("b3", unavailable),
        row(
            "§4 PickN minAvailable \"02%\" of 3 is 1 (not 0): A=1 → blocked",
            blocked(1, 3),
        )
        .kind(PickN(3))
        .budget(min(pct("02%")))
        .binding("b2", unavailable)
        .binding("b3", unavailable),
        row(
            "§4 PickN maxUnavailable int: 1 − (3 − 3) > 0 → allowed",
            allowed(3, 3),
        )
        .kind(PickN(3))
        .budget(max(int(1))),
        row(
            "§4 PickN maxUnavailable int: 1 − (3 − 2) = 0 → blocked",
            blocked(2, 3),
        )
        .kind(PickN(3))
        .budget(max(int(1)))
        .binding("b2", unavailable),
        row(
            "§4 PickN maxUnavailable \"34%\" of 3 = 2: 2 − 1 > 0 → allowed",
            allowed(2, 3),
        )
        .kind(PickN(3))
        .budget(max(pct("34%")))
        .binding("b2", unavailable),
        row(
            "§4 PickN maxUnavailable \"34%\" of 3 = 2: 2 − 2 = 0 → blocked",
            blocked(1, 3),
        )
        .kind(PickN(3))
        .budget(max(pct("34%")))
        .binding("b2", unavailable)
        .binding("b3", unavailable),
        row("§4 PickN empty spec {} → blocked", blocked(3, 3))
            .kind(PickN(3))
            .budget(BudgetSpec::default()),
        row(
            "§4 T counts deleting and unscheduled bindings: 2 − (5 − 3) = 0 → blocked",
            blocked(3, 5),
        )
        .kind(PickN(3))
        .budget(max(int(2)))
        .with_binding({
            let mut b = bound("b4", "member-4");
            b.state = Some(BindingState::Unscheduled);
            b.conditions.clear();
            b
        })
        .with_binding({
            let mut b = bound("b5", "member-5");
            b.deleting = true;
            b
        }),
        row(
            "§4 A: an Available of an older generation does not count",
            blocked(2, 3),
        )
        .budget(min(int(2)))
        .binding("b2", |b| b.generation = 2),
        // §4.3 The safety fix.
        row(
            "§4.3 a deleting binding counts as unavailable (KubeFleet would allow 3 − 2)",
            blocked(2, 3),
        )
        .budget(min(int(2)))
        .binding("b3", |b| b.deleting = true),
        row(
            "§4.3 a binding reserved by another eviction counts as unavailable",
            blocked(2, 3),
        )
        .budget(min(int(2)))
        .reserved_by_other("b2"),
        // §5.1 A plain eviction of a binding another eviction holds.
        row(
            "§5.1 another eviction holds a reservation on the target → in progress",
            not_executed(IN_PROGRESS, BudgetUse::Either),
        )
        .reserved_by_other("b1"),
        // §5 ttl alone is not an extension.
        row(
            "§5 ttl alone has no effect on a plain eviction (expired long ago)",
            no_pdb(),
        )
        .ttl("1s"),
        // §3 Decided once.
        row("§3 Valid=False is terminal → Done", Want::Done).status(vec![kube_condition(
            "Valid",
            "False",
            REASON_INVALID,
        )]),
        row("§3 Executed=False is terminal → Done", Want::Done).status(vec![
            kube_condition("Valid", "True", REASON_VALID),
            kube_condition("Executed", "False", REASON_NOT_EXECUTED),
        ]),
        row("§3 Executed=True is terminal → Done", Want::Done).status(vec![
            kube_condition("Valid", "True", REASON_VALID),
            kube_condition("Executed", "True", REASON_EXECUTED),
        ]),
    ];
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| check(row).err().map(|e| format!("{}: {e}", row.rule)))
        .collect();
    assert!(
        failures.is_empty(),
        "rows failing:\n{}",
        failures.join("\n")
    );
}

#[test]
fn ttl_alone_keeps_an_eviction_plain() {
    let row = row("§5 ttl alone does not make an eviction extended", no_pdb()).ttl("10m");
    assert!(!is_extended(&row.eviction()), "rule: {}", row.rule);
}
