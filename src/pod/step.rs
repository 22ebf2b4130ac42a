//! What [`next_step`](super::next_step::next_step) asks the executor to do. The executor
//! applies one step, refreshes its facts and decides again, until the decision is to wait,
//! to ignore the job, or that nothing is left to do.

use std::collections::BTreeMap;

use crate::api::gate::EvictionCondition;
use crate::api::migration::PodMigrationJobPhase;
pub use crate::api::wanted_condition::WantedCondition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions;
use k8s_openapi::jiff::Timestamp;

#[derive(Debug, Clone, PartialEq)]
pub enum JobStep {
    /// Not ours to drive: never write to this job (log it once, count it in a metric).
    Ignore(Ignored),
    /// Nothing to do until something changes, or until `until`.
    Wait {
        until: Option<Timestamp>,
        why: Waiting,
    },
    /// Carry out the plan, then decide again. (Boxed: a plan is large, waits are small.)
    Apply(Box<Plan>),
    /// Garbage collection: delete the finished job (uid precondition).
    DeleteJob,
    /// Nothing to do, ever.
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignored {
    /// Annotated `koordinator.sh/job-created-by`: a koord-descheduler instance owns it.
    CreatedByKoordinator,
    /// `ReservationFirst` on a member that serves the Reservation API: Koordinator may own it.
    ReservationFirst,
    /// A phase this version does not know (nothing of ours left to clean up).
    UnknownPhase(String),
}

/// Why a job waits; for logs and metrics, and to pick what re-triggers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    Paused,
    /// Pending and not admitted by arbitration (§5).
    Arbitration,
    /// The pod's namespace is not in the cache yet; profiles cannot be matched without it.
    NamespaceLabels,
    /// Gates not met; the status already says so.
    EvictionConditions,
    /// A refused eviction waits for its retry time (or a PDB change in the namespace).
    EvictionBackoff,
    /// Evicted or deleted: the pod has yet to go.
    PodTermination,
    /// Signalled: the external controller has yet to answer.
    ExternalEvacuation,
    /// Finished: deleted at `until`.
    GarbageCollection,
}

impl JobStep {
    pub fn apply(plan: Plan) -> JobStep {
        JobStep::Apply(Box::new(plan))
    }
}

/// One step's writes, applied in this order: `action`, then `job`, then `status`; `events`
/// are recorded once all of them succeeded. Any failure: decide again from fresh facts.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    pub action: Option<PodAction>,
    pub job: Option<JobUpdate>,
    pub status: Option<StatusChange>,
    pub events: Vec<EventNote>,
    /// The verdict was drawn from the pod's absence in the cache: read the pod from the API
    /// first and, if it exists, refresh the cache and decide again instead of applying.
    pub confirm_absence: bool,
}

impl Plan {
    pub fn action(action: PodAction) -> Plan {
        Plan {
            action: Some(action),
            ..Plan::default()
        }
    }

    pub fn job(update: JobUpdate) -> Plan {
        Plan {
            job: Some(update),
            ..Plan::default()
        }
    }

    pub fn status(change: StatusChange, events: Vec<EventNote>) -> Plan {
        Plan {
            status: Some(change),
            events,
            ..Plan::default()
        }
    }
}

/// The pod an action addresses: by namespace and name, guarded by its uid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodTarget {
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PodAction {
    /// Take the pod down (Eviction, Delete or SoftEviction; Delete also after
    /// `ExternalEvacuation=True`). A refusal (429, or 500 for several PDBs) goes to
    /// [`refused`](super::next_step::refused); NotFound means the pod left before the call:
    /// skip the rest of the plan and decide again (the job then fails with `MissingPod`).
    Remove { pod: PodTarget, how: Removal },
    /// External hand-off (§4 External steps 1-2): create the PDB, then label and annotate the
    /// pod in one patch, so the signal never shows before the block.
    HandOff(HandOff),
    /// Remove what we created, each part only if it still names this job.
    Cleanup(Cleanup),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Removal {
    /// POST a `policy/v1` Eviction with these options.
    Evict(Option<DeleteOptions>),
    /// DELETE the pod with these options (plus a uid precondition).
    Delete(Option<DeleteOptions>),
    /// Set `scheduling.koordinator.sh/soft-eviction` to this JSON; someone else deletes the pod.
    SoftEvict { annotation: String },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandOff {
    pub pod: PodTarget,
    /// `fleet-eviction-<hash>`, in the pod's namespace, `maxUnavailable: 0`, selecting and
    /// labelled `fleet-eviction.io/evacuation: <label>`, owned by the pod (no
    /// blockOwnerDeletion).
    pub pdb: String,
    /// The value of `fleet-eviction.io/evacuation` on the pod and the PDB
    /// ([`evacuation_label`](super::policy::evacuation_label)).
    pub label: String,
    /// The job's name: the value of `fleet-eviction.io/evacuation-requested`.
    pub job: String,
    /// `fleet-eviction.io/evacuation-requested-at` (RFC 3339).
    pub requested_at: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cleanup {
    pub namespace: String,
    /// Our PDB: name and uid (delete with a uid precondition).
    pub pdb: Option<(String, String)>,
    pub pod: Option<PodCleanup>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodCleanup {
    pub name: String,
    pub uid: String,
    /// Remove the label `fleet-eviction.io/evacuation` (it names this job).
    pub label: bool,
    /// Remove `fleet-eviction.io/evacuation-requested` and `-requested-at` (they name this job).
    pub annotations: bool,
}

/// A write to the job itself (metadata and spec; one update with resourceVersion).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JobUpdate {
    pub add_finalizer: bool,
    pub remove_finalizer: bool,
    /// Annotations to set.
    pub annotations: BTreeMap<&'static str, String>,
    /// Record the pod's uid in `spec.podRef.uid`.
    pub pod_uid: Option<String>,
    /// Replace `spec.evictionConditions` with this list (the user's, then the profiles').
    pub eviction_conditions: Option<Vec<EvictionCondition>>,
}

impl JobUpdate {
    pub fn is_empty(&self) -> bool {
        *self == JobUpdate::default()
    }
}

/// A status write, merged into the freshly read status by [`apply`](super::status::apply).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct StatusChange {
    pub phase: Option<PodMigrationJobPhase>,
    /// Our conditions to upsert, in order; `status.status/reason/message` then mirror the last
    /// one that changed.
    pub conditions: Vec<WantedCondition>,
    /// Set after the mirroring; `None` leaves the field as it is (abort paths leave
    /// `status.status` alone), an empty string clears it.
    pub status: Option<String>,
    pub reason: Option<String>,
    pub message: Option<String>,
    /// `status.nodeName`: the node the pod ran on when the job started (Koordinator records it;
    /// arbitration keeps counting the job on that node once the pod is gone).
    pub node_name: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventTarget {
    Job,
    Pod(PodTarget),
    /// A PodMigrationJobProfile, by name.
    Profile(String),
}

/// An Event to record (action `Migrating`, see `messages::EVENT_ACTION`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventNote {
    pub target: EventTarget,
    pub warning: bool,
    pub reason: String,
    pub message: String,
}

impl EventNote {
    pub fn normal(target: EventTarget, reason: &str, message: impl Into<String>) -> EventNote {
        EventNote {
            target,
            warning: false,
            reason: reason.to_string(),
            message: message.into(),
        }
    }

    pub fn warning(target: EventTarget, reason: &str, message: impl Into<String>) -> EventNote {
        EventNote {
            target,
            warning: true,
            reason: reason.to_string(),
            message: message.into(),
        }
    }
}
