//! One job's pass: gather its facts, ask [`next_step`], apply the step, and ask again with
//! what the writes returned, until the answer is to wait (with an optional wake-up time).

use super::Context;
use super::caches::pod_ref;
use super::routes::ADMISSION;
use super::state::Retry;
use super::writes::{Removed, apply_update, job_reference, pod_reference};
use crate::api::migration::{PodMigrationJob, PodMigrationJobMode, PodMigrationJobPhase};
use crate::pod::facts::{self, Admission, JobFacts, PdbView, PodView, ReservationApi};
use crate::pod::next_step::{next_step, refused};
use crate::pod::policy;
use crate::pod::status;
use crate::pod::step::{
    EventNote, EventTarget, Ignored, JobStep, Plan, PodAction, Removal, Waiting,
};
use crate::runtime::options::EvictPolicy;
use k8s_openapi::jiff::Timestamp;
use std::sync::Arc;

/// Steps applied in one pass before the job goes back to the queue (a safety net: a job
/// normally needs two or three).
const MAX_STEPS: usize = 8;

#[derive(Debug, thiserror::Error)]
#[error("{what}: {source}")]
pub struct ReconcileError {
    pub what: &'static str,
    #[source]
    pub source: kube::Error,
}

impl crate::runtime::worker::PassError for ReconcileError {
    fn metric_label(&self) -> &'static str {
        self.what
    }
}

fn api(what: &'static str) -> impl FnOnce(kube::Error) -> ReconcileError {
    move |source| ReconcileError { what, source }
}

/// The pod as this pass knows it beyond the cache: read from the API, or known gone.
#[derive(Debug, Clone)]
enum PodOverride {
    Cache,
    Present(Arc<PodView>),
    Absent,
}

/// Decides and acts for one job; `Ok(Some(t))`: come back at `t`.
pub async fn reconcile(ctx: &Context, name: &str) -> Result<Option<Timestamp>, ReconcileError> {
    if name == ADMISSION {
        super::admission::admission_pass(ctx)
            .await
            .map_err(api("admission"))?;
        return Ok(None);
    }
    let mut pod_override = PodOverride::Cache;
    for _ in 0..MAX_STEPS {
        let Some(cached) = ctx.caches.jobs.read().get(name) else {
            ctx.state.forget(name);
            return Ok(None);
        };
        let job = ctx.state.job(cached);
        if super::caches::needs_pods(&job) && !ctx.caches.pods.is_synced() {
            // The pod watch starts with the first such job; its sync queues every one.
            ctx.state.pod_watch.notify_one();
            return Ok(None);
        }
        let now = ctx.clock.now();
        let reservation_api = reservation_api(ctx, &job).await?;
        let (pod, pdb) = observed(ctx, &job, &pod_override);
        let namespace_labels = ctx.caches.namespaces.read().labels(&pod_ref(&job).0);
        let profiles = ctx.caches.profiles.read().all();
        let facts = JobFacts {
            job: &job,
            pod: pod.as_deref(),
            pdb: pdb.as_ref(),
            namespace_labels: namespace_labels.as_ref(),
            profiles: &profiles,
            admission: if ctx.state.is_granted(name) {
                Admission::Admit
            } else {
                Admission::Wait
            },
            reservation_api,
            retry_at: ctx.state.retry(name).map(|r| r.at),
            pod_left_first: ctx.state.pod_left_first(name),
            settings: &ctx.settings,
            now,
        };
        match next_step(&facts) {
            JobStep::Ignore(why) => {
                ignored(ctx, name, &why);
                return Ok(None);
            }
            JobStep::Wait { until, why } => {
                if why == Waiting::EvictionConditions {
                    ctx.state.gate_wait_started(name, now);
                }
                return Ok(until);
            }
            JobStep::Done => return Ok(None),
            JobStep::DeleteJob => {
                ctx.writer
                    .delete_job(&job)
                    .await
                    .map_err(api("delete job"))?;
                return Ok(None);
            }
            JobStep::Apply(plan) => {
                if plan.confirm_absence {
                    let (namespace, pod_name) = pod_ref(&job);
                    let found = ctx
                        .writer
                        .pod(&namespace, &pod_name)
                        .await
                        .map_err(api("read pod"))?;
                    if let Some(found) = found {
                        pod_override = PodOverride::Present(Arc::new(PodView::from_pod(&found)));
                        continue;
                    }
                }
                match apply(ctx, &facts, *plan).await? {
                    Applied::Again => {}
                    Applied::PodGone => {
                        ctx.state.set_pod_left_first(name);
                        pod_override = PodOverride::Absent;
                    }
                    Applied::WaitUntil(at) => return Ok(Some(at)),
                }
            }
        }
    }
    ctx.queue.add(name);
    Ok(None)
}

/// The job's pod and External PDB, from the caches unless this pass knows better.
fn observed(
    ctx: &Context,
    job: &PodMigrationJob,
    pod_override: &PodOverride,
) -> (Option<Arc<PodView>>, Option<PdbView>) {
    let (namespace, name) = pod_ref(job);
    let pod = match pod_override {
        PodOverride::Cache => ctx.caches.pods.read().get(&namespace, &name),
        PodOverride::Present(pod) => Some(pod.clone()),
        PodOverride::Absent => None,
    };
    let job_name = job.metadata.name.as_deref().unwrap_or_default();
    let pdb = ctx
        .caches
        .pdbs
        .read()
        .get(&namespace, &policy::pdb_name(job_name));
    (pod, pdb)
}

enum Applied {
    /// Decide again.
    Again,
    /// The pod went before the action reached it: decide again without it.
    PodGone,
    /// A refused eviction: retry then (or on a PDB change).
    WaitUntil(Timestamp),
}

/// Applies one plan in its order: action, job update, status, then Events.
async fn apply(ctx: &Context, facts: &JobFacts<'_>, plan: Plan) -> Result<Applied, ReconcileError> {
    let name = facts.name().to_string();
    let mut job = Arc::new(facts.job.clone());
    if let Some(action) = &plan.action {
        match act(ctx, facts, action).await? {
            Applied::Again => {}
            other => return Ok(other),
        }
    }
    if let Some(update) = &plan.job {
        let updated = apply_update(&job, update);
        let written = ctx.writer.replace_job(&updated).await;
        job = remember(ctx, &name, written, "update job")?;
    }
    if let Some(change) = &plan.status {
        let now = ctx.clock.now();
        let new_status = status::apply(job.status.as_ref(), change, now);
        let written = ctx.writer.write_status(&job, new_status).await;
        job = remember(ctx, &name, written, "write status")?;
        if let Some(phase) = &change.phase {
            ended(ctx, &job, phase, now);
        }
    }
    for note in &plan.events {
        record(ctx, &job, note).await;
    }
    Ok(Applied::Again)
}

fn remember(
    ctx: &Context,
    name: &str,
    written: kube::Result<PodMigrationJob>,
    what: &'static str,
) -> Result<Arc<PodMigrationJob>, ReconcileError> {
    match written {
        Ok(job) => Ok(ctx.state.remember(job)),
        Err(e) => {
            // A conflict means our view is stale: decide again from the cache.
            ctx.state.forget_write(name);
            Err(api(what)(e))
        }
    }
}

/// The pod action of a plan.
async fn act(
    ctx: &Context,
    facts: &JobFacts<'_>,
    action: &PodAction,
) -> Result<Applied, ReconcileError> {
    let name = facts.name();
    match action {
        PodAction::Remove { pod, how } => {
            ctx.bucket.take().await;
            gate_wait_over(ctx, name);
            let result = ctx.writer.remove(pod, how).await;
            let policy = removal_policy(how, facts);
            let outcome = match &result {
                Ok(Removed::Accepted) => "accepted",
                Ok(Removed::Refused { .. }) => "refused",
                Ok(Removed::Gone) => "gone",
                Err(_) => "error",
            };
            ctx.metrics
                .pod_evictions_total
                .with_label_values(&[&ctx.member, policy, outcome])
                .inc();
            match result.map_err(api("remove pod"))? {
                Removed::Accepted => Ok(Applied::Again),
                Removed::Gone => Ok(Applied::PodGone),
                Removed::Refused { message } => {
                    let refusals = ctx.state.retry(name).map_or(0, |r| r.refusals) + 1;
                    let refusal = refused(facts, refusals, &message);
                    ctx.state.set_retry(
                        name,
                        Retry {
                            refusals,
                            at: refusal.retry_at,
                        },
                    );
                    record(ctx, facts.job, &refusal.event).await;
                    let until = facts::deadline(facts.job)
                        .at()
                        .map_or(refusal.retry_at, |d| d.min(refusal.retry_at));
                    Ok(Applied::WaitUntil(until))
                }
            }
        }
        PodAction::HandOff(hand_off) => {
            gate_wait_over(ctx, name);
            let result = ctx.writer.hand_off(hand_off).await;
            let outcome = match &result {
                Ok(true) => "accepted",
                Ok(false) => "gone",
                Err(_) => "error",
            };
            ctx.metrics
                .pod_evictions_total
                .with_label_values(&[&ctx.member, "External", outcome])
                .inc();
            match result.map_err(api("hand off pod"))? {
                true => Ok(Applied::Again),
                false => Ok(Applied::PodGone),
            }
        }
        PodAction::Cleanup(cleanup) => {
            let label = policy::evacuation_label(name);
            ctx.writer
                .cleanup(cleanup, name, &label)
                .await
                .map_err(api("clean up"))?;
            Ok(Applied::Again)
        }
    }
}

/// The policy label of `fleet_eviction_pod_evictions_total`.
fn removal_policy(how: &Removal, facts: &JobFacts) -> &'static str {
    let external = facts
        .pod
        .map(|p| {
            policy::resolve(
                &p.labels,
                facts.job.metadata.labels.as_ref(),
                facts.settings.default_policy,
            )
        })
        .is_some_and(|p| p == Ok(EvictPolicy::External));
    match how {
        Removal::Evict(_) => "Eviction",
        // The delete that follows `ExternalEvacuation=True`.
        Removal::Delete(_) if external => "External",
        Removal::Delete(_) => "Delete",
        Removal::SoftEvict { .. } => "SoftEviction",
    }
}

fn gate_wait_over(ctx: &Context, name: &str) {
    if let Some(since) = ctx.state.gate_wait_ended(name) {
        let seconds = ctx.clock.now().duration_since(since).as_secs_f64().max(0.0);
        ctx.metrics
            .shared
            .gate_wait_seconds
            .with_label_values(&["pod"])
            .observe(seconds);
    }
}

/// Metrics of a job we ended.
fn ended(ctx: &Context, job: &PodMigrationJob, phase: &PodMigrationJobPhase, now: Timestamp) {
    let phase = match phase {
        PodMigrationJobPhase::Succeeded => "Succeeded",
        PodMigrationJobPhase::Failed => "Failed",
        _ => return,
    };
    let reason = job
        .status
        .as_ref()
        .and_then(|s| s.reason.as_deref())
        .unwrap_or_default();
    ctx.metrics
        .pmj_total
        .with_label_values(&[&ctx.member, phase, reason])
        .inc();
    if let Some(created) = &job.metadata.creation_timestamp {
        let seconds = now.duration_since(created.0).as_secs_f64().max(0.0);
        ctx.metrics.pmj_duration_seconds.observe(seconds);
    }
}

async fn record(ctx: &Context, job: &PodMigrationJob, note: &EventNote) {
    let reference = match &note.target {
        EventTarget::Job => job_reference(job),
        EventTarget::Pod(pod) => pod_reference(pod),
        EventTarget::Profile(name) => {
            let profiles = ctx.caches.profiles.read().all();
            match profiles
                .iter()
                .find(|p| p.metadata.name.as_deref() == Some(name))
            {
                Some(profile) => kube::Resource::object_ref(profile, &()),
                None => return,
            }
        }
    };
    ctx.writer.record(reference, note).await;
}

fn ignored(ctx: &Context, name: &str, why: &Ignored) {
    if !ctx.state.first_ignore(name) {
        return;
    }
    let label = match why {
        Ignored::CreatedByKoordinator => "created_by_koordinator",
        Ignored::ReservationFirst => "reservation_first",
        Ignored::UnknownPhase(_) => "unknown_phase",
    };
    tracing::info!(member = %ctx.member, job = name, why = ?why, "leaving the job alone");
    ctx.metrics
        .pmj_ignored_total
        .with_label_values(&[&ctx.member, label])
        .inc();
}

/// Whether the member serves `reservations.scheduling.koordinator.sh`; asked only for
/// `ReservationFirst` jobs, once per executor.
async fn reservation_api(
    ctx: &Context,
    job: &PodMigrationJob,
) -> Result<ReservationApi, ReconcileError> {
    if facts::mode(job, &ctx.settings) != PodMigrationJobMode::ReservationFirst {
        return Ok(ReservationApi::Absent);
    }
    if let Some(known) = *ctx.reservation_api.lock().await {
        return Ok(known);
    }
    let served = match ctx
        .client
        .list_api_group_resources("scheduling.koordinator.sh/v1alpha1")
        .await
    {
        Ok(list) => list.resources.iter().any(|r| r.name == "reservations"),
        Err(kube::Error::Api(s)) if s.is_not_found() => false,
        Err(e) => return Err(api("discover the Reservation API")(e)),
    };
    let known = if served {
        ReservationApi::Served
    } else {
        ReservationApi::Absent
    };
    *ctx.reservation_api.lock().await = Some(known);
    Ok(known)
}
