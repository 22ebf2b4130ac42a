//! §5 Admission, as one pass per member: the pass is a single queue key, so admissions of a
//! member are serialised; it gathers every active job with its pod and workload, asks
//! [`admit`] which Pending jobs fit, grants those (in memory, until each job's own write
//! shows) and queues them. Jobs that do not fit wait for the next pass, which any job or pod
//! change triggers.

use super::Context;
use super::caches::{awaits_admission, pod_ref};
use super::workloads::WorkloadRef;
use crate::api::keys::KOORD_JOB_CREATED_BY;
use crate::api::migration::PodMigrationJob;
use crate::pod::arbitration::{Candidate, WorkloadState, admit};
use crate::pod::facts::{PodView, Stage, annotation, passed_arbitration, stage};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

pub async fn admission_pass(ctx: &Context) -> Result<(), kube::Error> {
    // Until the pods are known, nothing can be counted; their sync queues this pass again.
    if !ctx.caches.pods.is_synced() {
        return Ok(());
    }
    let jobs: HashMap<String, Arc<PodMigrationJob>> = ctx
        .caches
        .jobs
        .read()
        .active_jobs()
        .into_iter()
        .map(|job| {
            let job = ctx.state.job(job);
            (job.metadata.name.clone().unwrap_or_default(), job)
        })
        .collect();
    ctx.state.prune_grants(&jobs);
    let awaiting = |job: &PodMigrationJob| {
        let name = job.metadata.name.as_deref().unwrap_or_default();
        awaits_admission(job)
            && job.metadata.deletion_timestamp.is_none()
            && annotation(job, KOORD_JOB_CREATED_BY).is_none()
            && !ctx.state.is_granted(name)
    };
    if !jobs.values().any(|j| awaiting(j)) {
        return Ok(());
    }
    let mut candidates = Vec::with_capacity(jobs.len());
    let mut pending_workloads = BTreeMap::new();
    for job in jobs.values() {
        let name = job.metadata.name.as_deref().unwrap_or_default();
        let admitted =
            passed_arbitration(job) || stage(job) == Stage::Running || ctx.state.is_granted(name);
        if !admitted && !awaiting(job) {
            continue;
        }
        let (namespace, pod_name) = pod_ref(job);
        let pod = ctx.caches.pods.read().get(&namespace, &pod_name);
        let workload = match &pod {
            Some(pod) => workload_key(ctx, pod, !admitted).await,
            None => None,
        };
        if let Some((key, Some(workload))) = &workload {
            pending_workloads.insert(key.clone(), workload.clone());
        }
        // Remembered from the first pass that saw the pod: a job admitted in one pass may have
        // evicted its pod before the next.
        let seen = pod.as_ref().map(|_| workload.map(|(key, _)| key));
        let key = match ctx.state.workload_of_job(name, seen) {
            Some(key) => key,
            // Admitted, its pod gone before this process saw it (a restart): its workload is
            // unknown, so admit nothing now. Such a job ends at its own next pass, which runs
            // admission again (a paused one waits for its ttl: counted without a workload).
            None if admitted && job.spec.paused != Some(true) => {
                tracing::debug!(member = %ctx.member, job = %name, "admission deferred: an admitted job's workload is unknown");
                return Ok(());
            }
            None => None,
        };
        let mut candidate = Candidate::of(job, pod.as_deref(), key);
        candidate.admitted = admitted;
        candidates.push(candidate);
    }
    let workloads = workload_states(ctx, &pending_workloads).await;
    let verdicts = admit(&candidates, &workloads, &ctx.limits);
    for (job, why) in &verdicts.waiting {
        tracing::debug!(member = %ctx.member, job = %job, ?why, "waiting for admission");
    }
    for job in &verdicts.admit {
        tracing::debug!(member = %ctx.member, job = %job, "admitted");
        ctx.state.grant(job);
        ctx.queue.add(job);
    }
    Ok(())
}

/// The pod's workload key, and the workload itself when it must be read (pending jobs).
/// A workload that cannot be resolved gets a key no replicas are known for, so a pending
/// job waits (`WorkloadUnknown`) instead of being admitted on a guess.
async fn workload_key(
    ctx: &Context,
    pod: &PodView,
    pending: bool,
) -> Option<(String, Option<WorkloadRef>)> {
    match ctx.workloads.workload_of(pod).await {
        Ok(Some(workload)) => Some((workload.key(), pending.then_some(workload))),
        Ok(None) => None,
        Err(e) => {
            tracing::warn!(member = %ctx.member, pod = %pod.name, "cannot resolve the pod's workload: {e}");
            let controller = pod.controller.as_ref().map(|c| c.uid.as_str());
            Some((format!("?{}", controller.unwrap_or_default()), None))
        }
    }
}

/// Replicas (read fresh) and unavailable pods of each workload pending jobs belong to.
async fn workload_states(
    ctx: &Context,
    workloads: &BTreeMap<String, WorkloadRef>,
) -> BTreeMap<String, WorkloadState> {
    let mut states = BTreeMap::new();
    for (key, workload) in workloads {
        let replicas = match ctx.workloads.replicas(workload).await {
            Ok(replicas) => replicas,
            Err(e) => {
                tracing::warn!(member = %ctx.member, workload = %key, "{e}");
                continue;
            }
        };
        let pods = ctx.caches.pods.read().in_namespace(&workload.namespace);
        let mut members = Vec::new();
        for pod in pods {
            if let Ok(Some(w)) = ctx.workloads.workload_of(&pod).await
                && w.key() == *key
            {
                members.push(pod);
            }
        }
        states.insert(
            key.clone(),
            WorkloadState::from_pods(replicas, members.iter().map(|p| p.as_ref())),
        );
    }
    states
}
