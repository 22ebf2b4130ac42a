//! §2 The state machine of one PodMigrationJob, as one function: [`next_step`] reads the
//! job's facts and returns the one next thing to do. The executor applies it, refreshes its
//! facts and asks again, until the answer is to wait, to ignore the job or nothing.
//!
//! The order of the checks is the spec's (§2 steps 1-10), with three points made explicit:
//! - Coexistence comes first: jobs a koord-descheduler created, and `ReservationFirst` jobs on
//!   a member that serves the Reservation API ("leave the job alone entirely"), are never
//!   written to: not by the ttl, not by arbitration, not by garbage collection.
//! - `ReservationFirst` without the API fails with the validations of step 4, before
//!   arbitration: a job that can only fail must not take a slot nor be marked Running first.
//! - Once the pod was evicted or signalled, validation and gates are behind us: the pod going
//!   is then success, not `MissingPod`.
//!
//! Cleanup (our PDB, label and annotations; then the finalizer) runs whenever the job is
//! finished, deleted, or in a phase we do not know, before anything else; and with the
//! terminal write itself when we end the job.

use super::facts::{
    self, Admission, Deadline, JobFacts, PodView, ReservationApi, Stage, after, annotation,
    condition, has_cleanup_finalizer, passed_arbitration, recorded_uid, timestamp_text,
};
use super::messages::*;
use super::policy::{self, UnknownPolicy};
use super::profiles;
use super::step::{
    Cleanup, EventNote, EventTarget, HandOff, Ignored, JobStep, JobUpdate, Plan, PodAction,
    PodCleanup, PodTarget, Removal, StatusChange, Waiting, WantedCondition,
};
use crate::api::gate::MAX_GATES;
use crate::api::keys::{
    FINISHED_AT_ANNOTATION, KOORD_JOB_CREATED_BY, KOORD_PASSED_ARBITRATION, PROFILES_ANNOTATION,
};
use crate::api::migration::{PodMigrationJobMode, PodMigrationJobPhase};
use crate::gates::{self, GateVerdict, ObservedCondition};
use crate::runtime::options::EvictPolicy;
use k8s_openapi::jiff::Timestamp;

/// The one next step of a job (§2).
pub fn next_step(f: &JobFacts) -> JobStep {
    let job = f.job;
    if annotation(job, KOORD_JOB_CREATED_BY).is_some() {
        return JobStep::Ignore(Ignored::CreatedByKoordinator);
    }
    let mode = facts::mode(job, f.settings);
    if mode == PodMigrationJobMode::ReservationFirst && f.reservation_api == ReservationApi::Served
    {
        return JobStep::Ignore(Ignored::ReservationFirst);
    }
    // Step 1, and the manual abort: a finished job is only cleaned up and collected.
    match facts::stage(job) {
        Stage::Finished => return finished(f),
        Stage::Unknown(phase) => {
            return release(f).unwrap_or(JobStep::Ignore(Ignored::UnknownPhase(phase)));
        }
        Stage::Pending | Stage::Running => {}
    }
    if job.metadata.deletion_timestamp.is_some() {
        return release(f).unwrap_or(JobStep::Done);
    }
    // Step 2: the ttl, in every state, paused and not admitted included.
    let deadline = match facts::deadline(job) {
        Deadline::Invalid(ttl) => return fail(f, REASON_INVALID_TTL, invalid_ttl(&ttl)),
        deadline => deadline.at(),
    };
    if deadline.is_some_and(|d| f.now >= d) {
        return fail(f, REASON_TIMEOUT, TIMEOUT.to_string());
    }
    // Step 3.
    if job.spec.paused == Some(true) {
        return wait(deadline, Waiting::Paused);
    }
    if acted(f) {
        return after_acting(f, deadline);
    }
    // Step 4.
    let (pod, policy) = match validate(f, &mode) {
        Ok(valid) => valid,
        Err(step) => return step,
    };
    // Step 5.
    let pending = facts::stage(job) == Stage::Pending;
    if pending && !passed_arbitration(job) && f.admission == Admission::Wait {
        return wait(deadline, Waiting::Arbitration);
    }
    // Step 6: admission, the pod's uid and the profiles' gates in one update, then Running.
    let (mut update, events) = match prepare(f, pod, deadline) {
        Ok(prepared) => prepared,
        Err(step) => return step,
    };
    if pending {
        if !passed_arbitration(job) {
            update
                .annotations
                .insert(KOORD_PASSED_ARBITRATION, "true".to_string());
        }
        let running = StatusChange {
            phase: Some(PodMigrationJobPhase::Running),
            node_name: Some(pod.node_name.clone()).filter(|n| !n.is_empty()),
            ..StatusChange::default()
        };
        return JobStep::apply(Plan {
            job: (!update.is_empty()).then_some(update),
            status: Some(running),
            events,
            ..Plan::default()
        });
    }
    // Running but never prepared by us (another controller started it): prepare first, so
    // that the profiles' gates are checked before the eviction.
    if !update.is_empty() {
        return JobStep::apply(Plan {
            job: Some(update),
            events,
            ..Plan::default()
        });
    }
    // Step 8.
    match gate_verdict(f) {
        GateVerdict::Denied { gate, message } => fail(
            f,
            REASON_CONDITION_DENIED,
            condition_denied(&gate, &message),
        ),
        GateVerdict::Waiting(gates) => waiting_for_gates(f, &gates, deadline),
        // Step 9.
        GateVerdict::Open => evict(f, pod, policy, deadline),
    }
}

/// What to do after a refused eviction (429 from a PDB, 500 for several PDBs): a Warning
/// `Evicting` event on the job and no status change; keep `retry_at` as
/// [`JobFacts::retry_at`] until it passes or a PDB of the namespace changes. `refusals`
/// counts the refusals in a row, this one included.
pub fn refused(f: &JobFacts, refusals: u32, status_message: &str) -> Refusal {
    let (namespace, name) = pod_name(f);
    Refusal {
        event: EventNote::warning(
            EventTarget::Job,
            REASON_EVICTING,
            evict_failed(namespace, name, status_message),
        ),
        retry_at: after(f.now, policy::retry_backoff(refusals)),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub event: EventNote,
    pub retry_at: Timestamp,
}

/// Step 4: podRef, the pod, the mode (and the Reservation API), the eviction policy.
fn validate<'a>(
    f: &JobFacts<'a>,
    mode: &PodMigrationJobMode,
) -> Result<(&'a PodView, EvictPolicy), JobStep> {
    let (namespace, name) = pod_name(f);
    if namespace.is_empty() || name.is_empty() {
        return Err(fail(f, REASON_INVALID_POD_REF, INVALID_POD_REF.to_string()));
    }
    let Some(pod) = f.pod else {
        let mut plan = if evicted_before_a_restart(f) {
            succeed_plan(f)
        } else {
            abort(f, REASON_MISSING_POD, missing_pod(namespace, name))
        };
        // Drawn from the cache: a pod created just before its job may not be in it yet.
        plan.confirm_absence = true;
        return Err(JobStep::apply(plan));
    };
    // The pod the job was made for is gone and another took its name.
    if recorded_uid(f.job).is_some_and(|uid| uid != pod.uid) {
        return Err(fail(f, REASON_MISSING_POD, missing_pod(namespace, name)));
    }
    match mode {
        PodMigrationJobMode::EvictDirectly => {}
        PodMigrationJobMode::ReservationFirst => {
            // A member that serves the API never gets here (the job is left alone).
            return Err(fail(
                f,
                REASON_RESERVATION_UNSUPPORTED,
                RESERVATION_UNSUPPORTED.to_string(),
            ));
        }
        PodMigrationJobMode::Other(mode) => {
            return Err(fail(f, REASON_INVALID_MODE, invalid_mode(mode)));
        }
    }
    let policy = policy::resolve(
        &pod.labels,
        f.job.metadata.labels.as_ref(),
        f.settings.default_policy,
    );
    match policy {
        Ok(policy) => Ok((pod, policy)),
        Err(UnknownPolicy {
            value,
            label,
            on_pod,
        }) => {
            let origin = if on_pod {
                PolicyOrigin::Pod { namespace, name }
            } else {
                PolicyOrigin::Job
            };
            let message = invalid_evict_policy(&value, label, origin);
            Err(fail(f, REASON_INVALID_EVICT_POLICY, message))
        }
    }
}

/// Step 6: what the job still lacks before it may run: the pod's uid, and the profiles' gates
/// with the `fleet-eviction.io/profiles` record (written even when empty, so a lost status
/// write is retried without injecting twice, and a job is never run without injection).
fn prepare(
    f: &JobFacts,
    pod: &PodView,
    deadline: Option<Timestamp>,
) -> Result<(JobUpdate, Vec<EventNote>), JobStep> {
    let mut update = JobUpdate::default();
    let mut events = Vec::new();
    if recorded_uid(f.job) != Some(pod.uid.as_str()) {
        update.pod_uid = Some(pod.uid.clone());
    }
    if annotation(f.job, PROFILES_ANNOTATION).is_some() {
        return Ok((update, events));
    }
    let Some(namespace_labels) = f.namespace_labels else {
        return Err(wait(deadline, Waiting::NamespaceLabels));
    };
    let user_gates = f
        .job
        .spec
        .eviction_conditions
        .as_deref()
        .unwrap_or_default();
    let injection = profiles::inject(user_gates, f.profiles, namespace_labels, &pod.labels);
    for skipped in &injection.skipped {
        events.push(EventNote::warning(
            EventTarget::Profile(skipped.profile.clone()),
            EVENT_INVALID_SELECTOR,
            skipped.message.clone(),
        ));
    }
    if injection.gates.len() > MAX_GATES {
        let message =
            too_many_eviction_conditions(injection.gates.len(), MAX_GATES, &injection.applied);
        return Err(fail(f, REASON_TOO_MANY_EVICTION_CONDITIONS, message));
    }
    if injection.gates != user_gates {
        update.eviction_conditions = Some(injection.gates);
    }
    update.annotations.insert(
        PROFILES_ANNOTATION,
        profiles::annotation_value(&injection.applied),
    );
    Ok((update, events))
}

/// Step 8, waiting: say so in the status once (no condition is added).
fn waiting_for_gates(f: &JobFacts, gates: &[String], deadline: Option<Timestamp>) -> JobStep {
    let message = waiting_for_eviction_conditions(gates);
    let change = StatusChange {
        status: Some(WAIT_FOR_EVICTION_CONDITIONS.to_string()),
        reason: Some(WAIT_FOR_EVICTION_CONDITIONS.to_string()),
        message: Some(message.clone()),
        ..StatusChange::default()
    };
    let status = f.job.status.as_ref();
    let unchanged = status.and_then(|s| s.status.as_deref()) == Some(WAIT_FOR_EVICTION_CONDITIONS)
        && status.and_then(|s| s.reason.as_deref()) == Some(WAIT_FOR_EVICTION_CONDITIONS)
        && status.and_then(|s| s.message.as_deref()) == Some(message.as_str());
    if unchanged {
        return wait(deadline, Waiting::EvictionConditions);
    }
    let event = EventNote::normal(EventTarget::Job, WAIT_FOR_EVICTION_CONDITIONS, message);
    JobStep::apply(Plan::status(change, vec![event]))
}

/// Step 9: take the pod down with the resolved policy, or hand it off.
fn evict(f: &JobFacts, pod: &PodView, policy: EvictPolicy, deadline: Option<Timestamp>) -> JobStep {
    if let Some(retry_at) = f.retry_at.filter(|r| f.now < *r) {
        let until = deadline.map_or(retry_at, |d| d.min(retry_at));
        return wait(Some(until), Waiting::EvictionBackoff);
    }
    let delete_options = f.job.spec.delete_options.clone();
    let how = match policy {
        EvictPolicy::Eviction => Removal::Evict(delete_options),
        EvictPolicy::Delete => Removal::Delete(delete_options),
        EvictPolicy::SoftEviction => {
            let annotations = f.job.metadata.annotations.as_ref();
            Removal::SoftEvict {
                annotation: policy::soft_eviction_annotation(
                    f.now,
                    delete_options.as_ref(),
                    policy::evict_trigger(annotations),
                    policy::evict_reason(annotations),
                ),
            }
        }
        EvictPolicy::External => return hand_off(f, pod),
    };
    remove(f, pod, how)
}

/// The removal with its `Eviction=False/Evicting` condition, the job's `Evicting` event and
/// the Pod's `Descheduled` event.
fn remove(f: &JobFacts, pod: &PodView, how: Removal) -> JobStep {
    let reason = policy::evict_reason(f.job.metadata.annotations.as_ref());
    let message = evicting(&pod.namespace, &pod.name, &pod.node_name, reason);
    let target = target(pod);
    let change = StatusChange {
        conditions: vec![WantedCondition::new(
            EVICTION,
            "False",
            REASON_EVICTING,
            message.clone(),
        )],
        ..StatusChange::default()
    };
    JobStep::apply(Plan {
        action: Some(PodAction::Remove {
            pod: target.clone(),
            how,
        }),
        status: Some(change),
        events: vec![
            EventNote::normal(EventTarget::Job, REASON_EVICTING, message),
            EventNote::normal(
                EventTarget::Pod(target),
                EVENT_DESCHEDULED,
                descheduled(&pod.node_name, reason),
            ),
        ],
        ..Plan::default()
    })
}

/// §4 External steps 1-2: the finalizer first (we are about to hold something), then block
/// and signal.
fn hand_off(f: &JobFacts, pod: &PodView) -> JobStep {
    if !has_cleanup_finalizer(f.job) {
        return JobStep::apply(Plan::job(JobUpdate {
            add_finalizer: true,
            ..JobUpdate::default()
        }));
    }
    let mut plan = external_requested_plan(pod);
    plan.action = Some(PodAction::HandOff(HandOff {
        pod: target(pod),
        pdb: policy::pdb_name(f.name()),
        label: policy::evacuation_label(f.name()),
        job: f.name().to_string(),
        requested_at: timestamp_text(f.now),
    }));
    JobStep::apply(plan)
}

/// `ExternalEvacuation=Unknown/Requested` and its Normal event.
fn external_requested_plan(pod: &PodView) -> Plan {
    let message = external_requested(&pod.namespace, &pod.name);
    let change = StatusChange {
        conditions: vec![WantedCondition::new(
            EXTERNAL_EVACUATION,
            "Unknown",
            REASON_REQUESTED,
            message.clone(),
        )],
        ..StatusChange::default()
    };
    let event = EventNote::normal(EventTarget::Job, EVENT_EXTERNAL_REQUESTED, message);
    Plan::status(change, vec![event])
}

/// The pod was evicted or signalled: by our conditions, or by our signal on the pod (its
/// status write may have been lost). Gates are not checked again after this point (§3).
fn acted(f: &JobFacts) -> bool {
    condition(f.job, EVICTION).is_some()
        || condition(f.job, EXTERNAL_EVACUATION).is_some()
        || f.pod
            .is_some_and(|p| p.evacuation_requested.as_deref() == Some(f.name()))
}

/// Step 10 and §4 External step 3: wait for the pod to go, or for the external answer.
fn after_acting(f: &JobFacts, deadline: Option<Timestamp>) -> JobStep {
    let pod = f
        .pod
        .filter(|p| recorded_uid(f.job).is_none_or(|uid| uid == p.uid));
    let Some(pod) = pod else {
        return succeed(f);
    };
    if let Some(eviction) = condition(f.job, EVICTION) {
        if eviction.status == "True" {
            return succeed(f);
        }
        return wait(deadline, Waiting::PodTermination);
    }
    let Some(external) = condition(f.job, EXTERNAL_EVACUATION) else {
        // Signalled, but the status write was lost: write it now.
        return JobStep::apply(external_requested_plan(pod));
    };
    match external.status.as_str() {
        "True" => {
            if let Some(retry_at) = f.retry_at.filter(|r| f.now < *r) {
                let until = deadline.map_or(retry_at, |d| d.min(retry_at));
                return wait(Some(until), Waiting::EvictionBackoff);
            }
            remove(f, pod, Removal::Delete(f.job.spec.delete_options.clone()))
        }
        "False" => {
            let message = external.message.as_deref().unwrap_or_default();
            fail(f, REASON_EXTERNAL_FAILED, external_failed(message))
        }
        _ => wait(deadline, Waiting::ExternalEvacuation),
    }
}

/// The pod is gone and the job has no record of acting, but it may have acted: the eviction
/// call comes before the status write that records it, and a stop between the two (a crash,
/// a restart, a lost leadership) loses the record while the pod goes. A job we started
/// (Running, its pod's uid recorded), cleared by its gates, that this process never saw
/// refused, nor saw an action find the pod gone, counts the pod as evicted rather than
/// missing: it was cleared to go, and it went.
fn evicted_before_a_restart(f: &JobFacts) -> bool {
    facts::stage(f.job) == Stage::Running
        && recorded_uid(f.job).is_some()
        && f.retry_at.is_none()
        && !f.pod_left_first
        && gate_verdict(f) == GateVerdict::Open
}

/// Step 10: `Eviction=True/EvictComplete`, then `Succeeded/Complete` with the reason cleared,
/// in one status write (the event reports the condition, once).
fn succeed(f: &JobFacts) -> JobStep {
    JobStep::apply(succeed_plan(f))
}

fn succeed_plan(f: &JobFacts) -> Plan {
    let (namespace, name) = pod_name(f);
    let message = evicted(namespace, name);
    let change = StatusChange {
        phase: Some(PodMigrationJobPhase::Succeeded),
        conditions: vec![WantedCondition::new(
            EVICTION,
            "True",
            REASON_EVICT_COMPLETE,
            message.clone(),
        )],
        status: Some(STATUS_COMPLETE.to_string()),
        reason: Some(String::new()),
        message: Some(message.clone()),
        node_name: None,
    };
    let already = condition(f.job, EVICTION).is_some_and(|c| c.status == "True");
    let events = if already {
        vec![]
    } else {
        vec![EventNote::normal(
            EventTarget::Job,
            REASON_EVICT_COMPLETE,
            message,
        )]
    };
    Plan::status(change, events)
}

/// An abort: phase Failed with its reason and message (`status.status` left as it was), a
/// Warning event of the same reason, and our PDB, label and annotations removed first.
fn fail(f: &JobFacts, reason: &str, message: String) -> JobStep {
    JobStep::apply(abort(f, reason, message))
}

fn abort(f: &JobFacts, reason: &str, message: String) -> Plan {
    let change = StatusChange {
        phase: Some(PodMigrationJobPhase::Failed),
        reason: Some(reason.to_string()),
        message: Some(message.clone()),
        ..StatusChange::default()
    };
    Plan {
        action: holdings(f).map(PodAction::Cleanup),
        status: Some(change),
        events: vec![EventNote::warning(EventTarget::Job, reason, message)],
        ..Plan::default()
    }
}

/// A finished job: clean up, drop the finalizer, record `finished-at` (for a job someone
/// else ended, the time we first saw it finished), then collect it `gc_after` later.
fn finished(f: &JobFacts) -> JobStep {
    if f.job.metadata.deletion_timestamp.is_some() {
        return release(f).unwrap_or(JobStep::Done);
    }
    if let Some(cleanup) = holdings(f) {
        return JobStep::apply(Plan::action(PodAction::Cleanup(cleanup)));
    }
    let finished_at = annotation(f.job, FINISHED_AT_ANNOTATION).and_then(|t| t.parse().ok());
    let mut update = JobUpdate {
        remove_finalizer: has_cleanup_finalizer(f.job),
        ..JobUpdate::default()
    };
    if finished_at.is_none() {
        update
            .annotations
            .insert(FINISHED_AT_ANNOTATION, timestamp_text(f.now));
    }
    if !update.is_empty() {
        return JobStep::apply(Plan::job(update));
    }
    let due = after(finished_at.unwrap_or(f.now), f.settings.gc_after);
    if f.now >= due {
        JobStep::DeleteJob
    } else {
        wait(Some(due), Waiting::GarbageCollection)
    }
}

/// Remove what we hold, then our finalizer; `None` when there is nothing of ours left.
fn release(f: &JobFacts) -> Option<JobStep> {
    if let Some(cleanup) = holdings(f) {
        return Some(JobStep::apply(Plan::action(PodAction::Cleanup(cleanup))));
    }
    has_cleanup_finalizer(f.job).then(|| {
        JobStep::apply(Plan::job(JobUpdate {
            remove_finalizer: true,
            ..JobUpdate::default()
        }))
    })
}

/// Our PDB, label and annotations that still name this job.
fn holdings(f: &JobFacts) -> Option<Cleanup> {
    let label_value = policy::evacuation_label(f.name());
    let names = |v: Option<&String>, want: &str| v.is_some_and(|v| v == want);
    let pdb = f
        .pdb
        .filter(|p| names(p.evacuation.as_ref(), &label_value))
        .map(|p| (p.name.clone(), p.uid.clone()));
    let pod = f.pod.and_then(|p| {
        let label = names(p.evacuation_label.as_ref(), &label_value);
        let annotations = names(p.evacuation_requested.as_ref(), f.name());
        (label || annotations).then(|| PodCleanup {
            name: p.name.clone(),
            uid: p.uid.clone(),
            label,
            annotations,
        })
    });
    if pdb.is_none() && pod.is_none() {
        return None;
    }
    let (namespace, _) = pod_name(f);
    Some(Cleanup {
        namespace: namespace.to_string(),
        pdb,
        pod,
    })
}

fn gate_verdict(f: &JobFacts) -> GateVerdict {
    let observed: Vec<ObservedCondition> = f
        .job
        .status
        .iter()
        .flat_map(|s| &s.conditions)
        .map(|c| ObservedCondition {
            type_: &c.type_,
            status: &c.status,
            message: c.message.as_deref().unwrap_or_default(),
        })
        .collect();
    let gates = f.job.spec.eviction_conditions.iter().flatten();
    gates::evaluate(gates.map(|g| g.name.as_str()), &observed)
}

/// `spec.podRef` namespace and name, empty when absent.
fn pod_name<'a>(f: &JobFacts<'a>) -> (&'a str, &'a str) {
    let pod_ref = f.job.spec.pod_ref.as_ref();
    (
        pod_ref
            .and_then(|r| r.namespace.as_deref())
            .unwrap_or_default(),
        pod_ref.and_then(|r| r.name.as_deref()).unwrap_or_default(),
    )
}

fn target(pod: &PodView) -> PodTarget {
    PodTarget {
        namespace: pod.namespace.clone(),
        name: pod.name.clone(),
        uid: pod.uid.clone(),
    }
}

fn wait(until: Option<Timestamp>, why: Waiting) -> JobStep {
    JobStep::Wait { until, why }
}

#[cfg(test)]
#[path = "next_step_tests.rs"]
mod tests;
