//! What a decision asks the controller to do next. The controller applies one step, refreshes
//! its facts and decides again, until the decision is to wait or there is nothing left.

use super::view::BindingView;
pub use crate::api::wanted_condition::WantedCondition;
use k8s_openapi::jiff::Timestamp;

#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Read the budget from the API and decide again.
    NeedBudget,
    /// Add `fleet-eviction.io/cleanup` (before any reservation or signal).
    AddFinalizer,
    RemoveFinalizer,
    /// Write the status (a no-op write means: wait).
    Write(StatusUpdate),
    /// Act on the binding, then write the status if there is one.
    Act {
        action: BindingAction,
        then: Option<StatusUpdate>,
    },
    /// Nothing to do until something changes, or until the given time.
    Wait {
        until: Option<Timestamp>,
    },
    /// Nothing to do, ever.
    Done,
}

/// The binding as the action will address it: by name, guarded by uid and resourceVersion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingRef {
    pub name: String,
    pub uid: String,
    pub resource_version: String,
}

impl BindingRef {
    pub fn of(binding: &BindingView) -> BindingRef {
        BindingRef {
            name: binding.name.clone(),
            uid: binding.uid.clone(),
            resource_version: binding.resource_version.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BindingAction {
    /// Delete with uid and resourceVersion preconditions; NotFound is success.
    Delete(BindingRef),
    /// Raise the External hand-off signal (annotations naming the eviction).
    Signal(BindingRef),
    /// Remove our signal, guarded by resourceVersion, only if it still names this eviction.
    RemoveSignal(BindingRef),
}

/// What a final verdict drawn from the cache must be confirmed with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Confirm {
    /// A placement or binding was not found: read the placement and list its bindings.
    Absence,
    /// A refusal drawn from the bindings' state (MissingPlacement, MisconfiguredPDB, a budget
    /// refusal): read the placement and every binding the cache shows as not available —
    /// only those can have become available meanwhile.
    Refusal,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReservationChange {
    Keep,
    /// Reserve the budget for this binding.
    Reserve(String),
    Release,
}

/// An Event to record on the eviction when the write changes the condition it is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Note {
    pub warning: bool,
    /// The condition type whose change the event reports.
    pub about: &'static str,
    pub reason: String,
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusUpdate {
    /// Conditions to upsert, in the order they are first added.
    pub conditions: Vec<WantedCondition>,
    /// Pin the target binding.
    pub target: Option<(String, String)>,
    pub reservation: ReservationChange,
    pub deadline: Option<Timestamp>,
    pub note: Option<Note>,
    /// The verdict was drawn from cached state that may lag: confirm against the API before
    /// writing it.
    pub confirm: Option<Confirm>,
    /// The eviction reaches a terminal state with this write.
    pub terminal: bool,
}

impl StatusUpdate {
    pub fn new(conditions: Vec<WantedCondition>) -> StatusUpdate {
        StatusUpdate {
            conditions,
            target: None,
            reservation: ReservationChange::Keep,
            deadline: None,
            note: None,
            confirm: None,
            terminal: false,
        }
    }

    /// A terminal write whose Event reports its last condition (the verdict).
    pub fn terminal(conditions: Vec<WantedCondition>) -> StatusUpdate {
        let note = conditions.last().map(super::conditions::note_for);
        let mut update = StatusUpdate::new(conditions);
        update.note = note;
        update.terminal = true;
        update
    }
}
