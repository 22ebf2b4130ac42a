//! Every API call the executor makes on a member, each guarded as §2 and §4 require: job
//! writes carry the resourceVersion they were computed from (status merged into what we
//! read, so external writers' conditions survive), pod removals carry the pod's uid, and our
//! marks on pods and PDBs are only removed while they still name the job.

use crate::api::keys::{
    CLEANUP_FINALIZER, EVACUATION_LABEL, EVACUATION_REQUESTED, EVACUATION_REQUESTED_AT,
    KOORD_SOFT_EVICTION,
};
use crate::api::migration::{PodMigrationJob, PodMigrationJobStatus};
use crate::fleet::controller::writes::REPORTER;
use crate::pod::messages::EVENT_ACTION;
use crate::pod::step::{Cleanup, EventNote, HandOff, JobUpdate, PodCleanup, PodTarget, Removal};
use k8s_openapi::api::core::v1::{ObjectReference, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions;
use kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, Preconditions, PropagationPolicy,
};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::{Api, Client, Resource};
use serde_json::{Value, json};

/// How a removal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Removed {
    Accepted,
    /// 429 (a PDB allows no disruption) or 500 (several PDBs cover the pod): retried later.
    Refused {
        message: String,
    },
    /// The pod is gone, or another pod took its name.
    Gone,
}

#[derive(Clone)]
pub struct Writer {
    client: Client,
    jobs: Api<PodMigrationJob>,
    reporter: Reporter,
}

impl Writer {
    pub fn new(client: Client) -> Writer {
        Writer {
            jobs: Api::all(client.clone()),
            reporter: Reporter {
                controller: REPORTER.into(),
                instance: std::env::var("POD_NAME").ok(),
            },
            client,
        }
    }

    fn pods(&self, namespace: &str) -> Api<Pod> {
        Api::namespaced(self.client.clone(), namespace)
    }

    fn pdbs(&self, namespace: &str) -> Api<PodDisruptionBudget> {
        Api::namespaced(self.client.clone(), namespace)
    }

    pub async fn pod(&self, namespace: &str, name: &str) -> kube::Result<Option<Pod>> {
        self.pods(namespace).get_opt(name).await
    }

    /// Pods carrying our `fleet-eviction.io/evacuation` label (the orphan sweep).
    pub async fn marked_pods(&self) -> kube::Result<Vec<Pod>> {
        let api: Api<Pod> = Api::all(self.client.clone());
        Ok(api
            .list(&ListParams::default().labels(EVACUATION_LABEL))
            .await?
            .items)
    }

    pub async fn job(&self, name: &str) -> kube::Result<Option<PodMigrationJob>> {
        self.jobs.get_opt(name).await
    }

    pub async fn list_jobs(&self) -> kube::Result<Vec<PodMigrationJob>> {
        Ok(self.jobs.list(&ListParams::default()).await?.items)
    }

    /// Replaces metadata and spec (the status subresource is untouched by a PUT), guarded by
    /// the resourceVersion `job` carries.
    pub async fn replace_job(&self, job: &PodMigrationJob) -> kube::Result<PodMigrationJob> {
        let name = job.metadata.name.clone().unwrap_or_default();
        self.jobs.replace(&name, &PostParams::default(), job).await
    }

    /// Replaces the status, guarded by the resourceVersion `job` carries.
    pub async fn write_status(
        &self,
        job: &PodMigrationJob,
        status: PodMigrationJobStatus,
    ) -> kube::Result<PodMigrationJob> {
        let mut object = job.clone();
        object.status = Some(status);
        let name = object.metadata.name.clone().unwrap_or_default();
        self.jobs
            .replace_status(&name, &PostParams::default(), &object)
            .await
    }

    /// Garbage collection: deletes the job if it is still the one we decided on.
    pub async fn delete_job(&self, job: &PodMigrationJob) -> kube::Result<()> {
        let name = job.metadata.name.clone().unwrap_or_default();
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: job.metadata.uid.clone(),
                resource_version: None,
            }),
            ..DeleteParams::default()
        };
        match self.jobs.delete(&name, &params).await {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.is_not_found() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Takes the pod down as `how` says (§4 Eviction, Delete, SoftEviction).
    pub async fn remove(&self, pod: &PodTarget, how: &Removal) -> kube::Result<Removed> {
        let result = match how {
            Removal::Evict(options) => self.evict(pod, options.as_ref()).await,
            Removal::Delete(options) => {
                let params = delete_params(options.as_ref(), &pod.uid);
                self.pods(&pod.namespace)
                    .delete(&pod.name, &params)
                    .await
                    .map(|_| ())
            }
            Removal::SoftEvict { annotation } => {
                let annotations = json!({ KOORD_SOFT_EVICTION: annotation });
                return Ok(match self.patch_pod(pod, json!({}), annotations).await? {
                    true => Removed::Accepted,
                    false => Removed::Gone,
                });
            }
        };
        match result {
            Ok(()) => Ok(Removed::Accepted),
            Err(kube::Error::Api(s)) if s.code == 429 || s.code == 500 => Ok(Removed::Refused {
                message: s.message.clone(),
            }),
            // NotFound: gone; Conflict: the uid precondition failed, another pod has the name.
            Err(kube::Error::Api(s)) if s.is_not_found() || s.code == 409 => Ok(Removed::Gone),
            Err(e) => Err(e),
        }
    }

    /// POSTs a `policy/v1` Eviction (kube's helper names the options `delete_options`, which
    /// API servers ignore, so the body is written here).
    async fn evict(&self, pod: &PodTarget, options: Option<&DeleteOptions>) -> kube::Result<()> {
        let mut options = options.cloned().unwrap_or_default();
        options.preconditions = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Preconditions {
                uid: Some(pod.uid.clone()),
                resource_version: options.preconditions.and_then(|p| p.resource_version),
            },
        );
        let body = json!({
            "apiVersion": "policy/v1",
            "kind": "Eviction",
            "metadata": {"name": pod.name, "namespace": pod.namespace},
            "deleteOptions": options,
        });
        self.pods(&pod.namespace)
            .create_subresource::<Value, Value>(
                "eviction",
                &pod.name,
                &PostParams::default(),
                &body,
            )
            .await
            .map(|_| ())
    }

    /// §4 External steps 1-2: the PDB, then the label and the signal on the pod in one patch.
    /// `Ok(false)`: the pod is gone or another took its name.
    pub async fn hand_off(&self, hand_off: &HandOff) -> kube::Result<bool> {
        let pod = &hand_off.pod;
        let pdb: PodDisruptionBudget = serde_json::from_value(json!({
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {
                "name": hand_off.pdb,
                "namespace": pod.namespace,
                "labels": {EVACUATION_LABEL: hand_off.label},
                "ownerReferences": [{
                    "apiVersion": "v1", "kind": "Pod", "name": pod.name, "uid": pod.uid,
                }],
            },
            "spec": {
                "maxUnavailable": 0,
                "selector": {"matchLabels": {EVACUATION_LABEL: hand_off.label}},
            },
        }))
        .map_err(kube::Error::SerdeError)?;
        match self
            .pdbs(&pod.namespace)
            .create(&PostParams::default(), &pdb)
            .await
        {
            Ok(_) => {}
            // Ours from an earlier attempt (the name is the job's hash): keep it.
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => return Err(e),
        }
        let labels = json!({ EVACUATION_LABEL: hand_off.label });
        let annotations = json!({
            EVACUATION_REQUESTED: hand_off.job,
            EVACUATION_REQUESTED_AT: hand_off.requested_at,
        });
        self.patch_pod(pod, labels, annotations).await
    }

    /// §4 External step 5: our PDB (uid precondition) and our marks on the pod, each only if
    /// it still names the job.
    pub async fn cleanup(&self, cleanup: &Cleanup, job: &str, label: &str) -> kube::Result<()> {
        if let Some((name, uid)) = &cleanup.pdb {
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    uid: Some(uid.clone()),
                    resource_version: None,
                }),
                ..DeleteParams::default()
            };
            match self.pdbs(&cleanup.namespace).delete(name, &params).await {
                Ok(_) => {}
                Err(kube::Error::Api(s)) if s.is_not_found() || s.code == 409 => {}
                Err(e) => return Err(e),
            }
        }
        if let Some(pod) = &cleanup.pod {
            self.unmark_pod(&cleanup.namespace, pod, job, label).await?;
        }
        Ok(())
    }

    /// Removes our label and signal from a pod (those `pod` asks for), re-reading it so that
    /// only marks that still name `job` (label value `label`) go, guarded by the
    /// resourceVersion read.
    pub async fn unmark_pod(
        &self,
        namespace: &str,
        pod: &PodCleanup,
        job: &str,
        label: &str,
    ) -> kube::Result<()> {
        let Some(current) = self.pod(namespace, &pod.name).await? else {
            return Ok(());
        };
        if current.metadata.uid.as_deref() != Some(pod.uid.as_str()) {
            return Ok(());
        }
        let labels = current.metadata.labels.unwrap_or_default();
        let annotations = current.metadata.annotations.unwrap_or_default();
        let drop_label =
            pod.label && labels.get(EVACUATION_LABEL).map(String::as_str) == Some(label);
        let drop_signal = pod.annotations
            && annotations.get(EVACUATION_REQUESTED).map(String::as_str) == Some(job);
        if !drop_label && !drop_signal {
            return Ok(());
        }
        let mut patch = json!({"metadata": {"resourceVersion": current.metadata.resource_version}});
        if drop_label {
            patch["metadata"]["labels"] = json!({ EVACUATION_LABEL: null });
        }
        if drop_signal {
            patch["metadata"]["annotations"] =
                json!({ EVACUATION_REQUESTED: null, EVACUATION_REQUESTED_AT: null });
        }
        match self
            .pods(namespace)
            .patch(&pod.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => Ok(()),
            Err(kube::Error::Api(s)) if s.is_not_found() => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Deletes one of our PDBs (the orphan sweep), if it is still the one found.
    pub async fn delete_pdb(&self, namespace: &str, name: &str, uid: &str) -> kube::Result<()> {
        let cleanup = Cleanup {
            namespace: namespace.to_string(),
            pdb: Some((name.to_string(), uid.to_string())),
            pod: None,
        };
        self.cleanup(&cleanup, "", "").await
    }

    /// Merges labels and annotations into the pod, guarded by its uid and the resourceVersion
    /// read just before. `Ok(false)`: the pod is gone or another took its name.
    async fn patch_pod(
        &self,
        pod: &PodTarget,
        labels: Value,
        annotations: Value,
    ) -> kube::Result<bool> {
        let Some(current) = self.pod(&pod.namespace, &pod.name).await? else {
            return Ok(false);
        };
        if current.metadata.uid.as_deref() != Some(pod.uid.as_str()) {
            return Ok(false);
        }
        let patch = json!({"metadata": {
            "resourceVersion": current.metadata.resource_version,
            "labels": labels,
            "annotations": annotations,
        }});
        match self
            .pods(&pod.namespace)
            .patch(&pod.name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
        {
            Ok(_) => Ok(true),
            Err(kube::Error::Api(s)) if s.is_not_found() => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// Records an Event; a failure is logged, never retried (the status is the record).
    pub async fn record(&self, reference: ObjectReference, note: &EventNote) {
        let event = Event {
            type_: if note.warning {
                EventType::Warning
            } else {
                EventType::Normal
            },
            reason: note.reason.clone(),
            note: Some(note.message.clone()),
            action: EVENT_ACTION.to_string(),
            secondary: None,
        };
        // A recorder per Event, as at the fleet level (see fleet::controller::writes).
        let recorder = Recorder::new(self.client.clone(), self.reporter.clone());
        if let Err(e) = recorder.publish(&event, &reference).await {
            tracing::warn!(
                object = reference.name.as_deref().unwrap_or_default(),
                reason = %note.reason,
                "cannot record an Event: {e}"
            );
        }
    }
}

/// The job's reference, for its Events.
pub fn job_reference(job: &PodMigrationJob) -> ObjectReference {
    job.object_ref(&())
}

pub fn pod_reference(pod: &PodTarget) -> ObjectReference {
    ObjectReference {
        api_version: Some("v1".into()),
        kind: Some("Pod".into()),
        namespace: Some(pod.namespace.clone()),
        name: Some(pod.name.clone()),
        uid: Some(pod.uid.clone()),
        ..ObjectReference::default()
    }
}

/// The job's deleteOptions as kube's delete parameters, with the pod's uid as precondition.
fn delete_params(options: Option<&DeleteOptions>, uid: &str) -> DeleteParams {
    let options = options.cloned().unwrap_or_default();
    let propagation_policy = match options.propagation_policy.as_deref() {
        Some("Orphan") => Some(PropagationPolicy::Orphan),
        Some("Background") => Some(PropagationPolicy::Background),
        Some("Foreground") => Some(PropagationPolicy::Foreground),
        _ => None,
    };
    DeleteParams {
        dry_run: options.dry_run.is_some_and(|d| !d.is_empty()),
        grace_period_seconds: options
            .grace_period_seconds
            .and_then(|g| u32::try_from(g).ok()),
        propagation_policy,
        preconditions: Some(Preconditions {
            uid: Some(uid.to_string()),
            resource_version: options.preconditions.and_then(|p| p.resource_version),
        }),
    }
}

/// The job with `update` applied to its metadata and spec (written with [`Writer::replace_job`]).
pub fn apply_update(job: &PodMigrationJob, update: &JobUpdate) -> PodMigrationJob {
    let mut job = job.clone();
    if update.add_finalizer {
        with_finalizer(&mut job, true);
    }
    if update.remove_finalizer {
        with_finalizer(&mut job, false);
    }
    if !update.annotations.is_empty() {
        let annotations = job
            .metadata
            .annotations
            .get_or_insert_with(Default::default);
        for (key, value) in &update.annotations {
            annotations.insert((*key).to_string(), value.clone());
        }
    }
    if let Some(uid) = &update.pod_uid {
        job.spec.pod_ref.get_or_insert_with(Default::default).uid = Some(uid.clone());
    }
    if let Some(gates) = &update.eviction_conditions {
        job.spec.eviction_conditions = Some(gates.clone());
    }
    job
}

/// Adds or removes our finalizer on a copy of the job, keeping every other one.
pub fn with_finalizer(job: &mut PodMigrationJob, present: bool) {
    let mut finalizers: Vec<String> = job
        .metadata
        .finalizers
        .take()
        .unwrap_or_default()
        .into_iter()
        .filter(|f| f != CLEANUP_FINALIZER)
        .collect();
    if present {
        finalizers.push(CLEANUP_FINALIZER.to_string());
    }
    job.metadata.finalizers = (!finalizers.is_empty()).then_some(finalizers);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delete_options_become_delete_params_with_the_uid() {
        let options: DeleteOptions = serde_json::from_value(json!({
            "gracePeriodSeconds": 5, "propagationPolicy": "Foreground",
            "preconditions": {"resourceVersion": "7"}
        }))
        .expect("options");
        let params = delete_params(Some(&options), "u1");
        assert_eq!(params.grace_period_seconds, Some(5));
        assert_eq!(
            params.propagation_policy,
            Some(PropagationPolicy::Foreground)
        );
        assert_eq!(
            params.preconditions,
            Some(Preconditions {
                uid: Some("u1".into()),
                resource_version: Some("7".into())
            })
        );
        let none = delete_params(None, "u2");
        assert_eq!(
            none.grace_period_seconds, None,
            "the pod's own grace period"
        );
        assert!(!none.dry_run);
        let negative: DeleteOptions =
            serde_json::from_value(json!({"gracePeriodSeconds": -1})).expect("options");
        assert_eq!(
            delete_params(Some(&negative), "u3").grace_period_seconds,
            None,
            "a negative grace period is not sent"
        );
    }

    #[test]
    fn updates_touch_only_what_they_name() {
        let job: PodMigrationJob = serde_json::from_value(json!({
            "metadata": {"name": "j", "annotations": {"keep": "me"}},
            "spec": {"podRef": {"namespace": "ns", "name": "p"},
                     "evictionConditions": [{"name": "A"}]}
        }))
        .expect("job");
        let mut update = JobUpdate {
            pod_uid: Some("u1".into()),
            ..JobUpdate::default()
        };
        update
            .annotations
            .insert("fleet-eviction.io/profiles", "p1".into());
        let updated = apply_update(&job, &update);
        let annotations = updated.metadata.annotations.clone().unwrap_or_default();
        assert_eq!(annotations.get("keep").map(String::as_str), Some("me"));
        assert_eq!(
            annotations
                .get("fleet-eviction.io/profiles")
                .map(String::as_str),
            Some("p1")
        );
        let pod_ref = updated.spec.pod_ref.clone().unwrap_or_default();
        assert_eq!(pod_ref.uid.as_deref(), Some("u1"));
        assert_eq!(
            pod_ref.name.as_deref(),
            Some("p"),
            "the rest of podRef stays"
        );
        assert_eq!(
            updated.spec.eviction_conditions,
            job.spec.eviction_conditions
        );
        assert_eq!(updated.metadata.finalizers, None);
        let gates = JobUpdate {
            eviction_conditions: Some(vec![]),
            add_finalizer: true,
            ..JobUpdate::default()
        };
        let updated = apply_update(&job, &gates);
        assert_eq!(updated.spec.eviction_conditions, Some(vec![]));
        assert_eq!(
            updated.metadata.finalizers,
            Some(vec![CLEANUP_FINALIZER.to_string()])
        );
    }

    #[test]
    fn the_finalizer_is_added_once_and_removed_alone() {
        let mut job: PodMigrationJob = serde_json::from_value(json!({
            "metadata": {"name": "j", "finalizers": ["other/keep"]},
            "spec": {"podRef": {"namespace": "ns", "name": "p"}}
        }))
        .expect("job");
        with_finalizer(&mut job, true);
        with_finalizer(&mut job, true);
        assert_eq!(
            job.metadata.finalizers,
            Some(vec![
                "other/keep".to_string(),
                CLEANUP_FINALIZER.to_string()
            ])
        );
        with_finalizer(&mut job, false);
        assert_eq!(
            job.metadata.finalizers,
            Some(vec!["other/keep".to_string()])
        );
    }
}
