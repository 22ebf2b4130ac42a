//! The inputs of one job's decision, gathered by the executor from its caches, and the views
//! of pods and PDBs stripped to the fields the decisions read (the executor caches these, not
//! the objects).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::api::duration;
use crate::api::keys::{
    CLEANUP_FINALIZER, EVACUATION_LABEL, EVACUATION_REQUESTED, KOORD_PASSED_ARBITRATION,
};
use crate::api::migration::{
    PodMigrationJob, PodMigrationJobCondition, PodMigrationJobMode, PodMigrationJobPhase,
};
use crate::api::profile::PodMigrationJobProfile;
use crate::runtime::options::{EvictPolicy, PmjArgs, PmjMode};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::jiff::{SignedDuration, Timestamp};

/// The executor's settings the decisions read (`--pmj-*` flags).
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The mode of jobs that set none.
    pub default_mode: PmjMode,
    /// The policy when neither the pod nor the job names one.
    pub default_policy: EvictPolicy,
    /// How long a finished job is kept.
    pub gc_after: Duration,
}

impl Settings {
    pub fn from_args(args: &PmjArgs) -> Settings {
        Settings {
            default_mode: args.pmj_default_mode,
            default_policy: args.pmj_default_evict_policy,
            gc_after: args.pmj_gc_after,
        }
    }
}

impl Default for Settings {
    /// The flags' defaults.
    fn default() -> Self {
        Settings {
            default_mode: PmjMode::EvictDirectly,
            default_policy: EvictPolicy::Eviction,
            gc_after: Duration::from_secs(30 * 60),
        }
    }
}

/// Arbitration's verdict for a Pending job, from [`admit`](super::arbitration::admit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    Admit,
    Wait,
}

/// Whether the member serves `reservations.scheduling.koordinator.sh` (discovery).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReservationApi {
    Served,
    Absent,
}

/// A pod's controller, as its owner reference names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ControllerRef {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    pub uid: String,
}

/// A pod as the decisions see it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PodView {
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// `spec.nodeName`; empty while unscheduled.
    pub node_name: String,
    pub labels: BTreeMap<String, String>,
    /// The label `fleet-eviction.io/evacuation`: the job that blocked this pod.
    pub evacuation_label: Option<String>,
    /// The annotation `fleet-eviction.io/evacuation-requested`: the job that signalled it.
    pub evacuation_requested: Option<String>,
    pub controller: Option<ControllerRef>,
    /// Active (not terminating, not finished) and Ready: what the workload limits count as
    /// available (§5 "not-ready pods of the workload count as unavailable").
    pub available: bool,
}

impl PodView {
    pub fn from_pod(pod: &Pod) -> PodView {
        let meta = &pod.metadata;
        let labels = meta.labels.clone().unwrap_or_default();
        let annotation = |key: &str| meta.annotations.as_ref().and_then(|a| a.get(key)).cloned();
        let controller = meta
            .owner_references
            .iter()
            .flatten()
            .find(|o| o.controller == Some(true))
            .map(|o| ControllerRef {
                api_version: o.api_version.clone(),
                kind: o.kind.clone(),
                name: o.name.clone(),
                uid: o.uid.clone(),
            });
        let status = pod.status.as_ref();
        let finished = matches!(
            status.and_then(|s| s.phase.as_deref()),
            Some("Succeeded" | "Failed")
        );
        let ready = status
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"));
        PodView {
            namespace: meta.namespace.clone().unwrap_or_default(),
            name: meta.name.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            node_name: pod
                .spec
                .as_ref()
                .and_then(|s| s.node_name.clone())
                .unwrap_or_default(),
            evacuation_label: labels.get(EVACUATION_LABEL).cloned(),
            labels,
            evacuation_requested: annotation(EVACUATION_REQUESTED),
            controller,
            available: !finished && meta.deletion_timestamp.is_none() && ready,
        }
    }
}

/// The External PDB of a job, as found by name in the pod's namespace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdbView {
    pub name: String,
    pub uid: String,
    /// Its label `fleet-eviction.io/evacuation`: the job that created it.
    pub evacuation: Option<String>,
}

impl PdbView {
    pub fn from_pdb(pdb: &PodDisruptionBudget) -> PdbView {
        let meta = &pdb.metadata;
        PdbView {
            name: meta.name.clone().unwrap_or_default(),
            uid: meta.uid.clone().unwrap_or_default(),
            evacuation: meta
                .labels
                .as_ref()
                .and_then(|l| l.get(EVACUATION_LABEL))
                .cloned(),
        }
    }
}

/// Everything [`next_step`](super::next_step::next_step) reads about one job.
#[derive(Debug, Clone)]
pub struct JobFacts<'a> {
    pub job: &'a PodMigrationJob,
    /// The pod `spec.podRef` names, from the pod cache (`None`: not found).
    pub pod: Option<&'a PodView>,
    /// The PDB named [`pdb_name`](super::policy::pdb_name) in the pod's namespace, if any.
    pub pdb: Option<&'a PdbView>,
    /// Labels of the pod's namespace (`None`: not in the cache yet).
    pub namespace_labels: Option<&'a BTreeMap<String, String>>,
    /// Every PodMigrationJobProfile of the member.
    pub profiles: &'a [PodMigrationJobProfile],
    /// Arbitration's verdict, read only while the job is Pending and not yet admitted.
    pub admission: Admission,
    pub reservation_api: ReservationApi,
    /// The executor's retry time after a refused eviction (in memory; a PDB change in the
    /// namespace clears it).
    pub retry_at: Option<Timestamp>,
    /// This process saw an eviction, delete or hand-off of the job find the pod already gone
    /// (in memory): the pod left before we acted.
    pub pod_left_first: bool,
    pub settings: &'a Settings,
    pub now: Timestamp,
}

impl JobFacts<'_> {
    pub fn name(&self) -> &str {
        self.job.metadata.name.as_deref().unwrap_or_default()
    }
}

/// Where a job is in its lifecycle, as far as the decisions care.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    /// No phase, an empty one, or `Pending`.
    Pending,
    Running,
    /// `Succeeded`, `Failed`, `Aborted`, or the old spelling `Succeed`.
    Finished,
    /// A phase this version does not know.
    Unknown(String),
}

pub fn stage(job: &PodMigrationJob) -> Stage {
    use PodMigrationJobPhase::*;
    match job.status.as_ref().and_then(|s| s.phase.as_ref()) {
        None | Some(Pending) => Stage::Pending,
        Some(Other(phase)) if phase.is_empty() => Stage::Pending,
        Some(Running) => Stage::Running,
        Some(Succeeded | Failed | Aborted | SucceedLegacy) => Stage::Finished,
        Some(Other(phase)) => Stage::Unknown(phase.clone()),
    }
}

pub fn annotation<'a>(job: &'a PodMigrationJob, key: &str) -> Option<&'a str> {
    job.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

pub fn condition<'a>(
    job: &'a PodMigrationJob,
    type_: &str,
) -> Option<&'a PodMigrationJobCondition> {
    job.status
        .as_ref()
        .and_then(|s| s.conditions.iter().find(|c| c.type_ == type_))
}

pub fn has_cleanup_finalizer(job: &PodMigrationJob) -> bool {
    job.metadata
        .finalizers
        .as_ref()
        .is_some_and(|f| f.iter().any(|f| f == CLEANUP_FINALIZER))
}

/// Admitted by arbitration, ours or a koord-descheduler's before us.
pub fn passed_arbitration(job: &PodMigrationJob) -> bool {
    annotation(job, KOORD_PASSED_ARBITRATION) == Some("true")
}

/// `spec.podRef.uid` when set and non-empty.
pub fn recorded_uid(job: &PodMigrationJob) -> Option<&str> {
    job.spec
        .pod_ref
        .as_ref()
        .and_then(|r| r.uid.as_deref())
        .filter(|u| !u.is_empty())
}

/// The job's mode, the controller's default when it sets none.
pub fn mode(job: &PodMigrationJob, settings: &Settings) -> PodMigrationJobMode {
    match &job.spec.mode {
        Some(mode) => mode.clone(),
        None => match settings.default_mode {
            PmjMode::EvictDirectly => PodMigrationJobMode::EvictDirectly,
            PmjMode::ReservationFirst => PodMigrationJobMode::ReservationFirst,
        },
    }
}

/// The job's ttl as a point in time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Deadline {
    /// No ttl, `0s`, or no creationTimestamp (only on hand-built objects).
    None,
    At(Timestamp),
    /// Not a Go duration: the text as found.
    Invalid(String),
}

impl Deadline {
    pub fn at(&self) -> Option<Timestamp> {
        match self {
            Deadline::At(t) => Some(*t),
            _ => None,
        }
    }
}

/// `creationTimestamp + ttl` (§2 step 2).
pub fn deadline(job: &PodMigrationJob) -> Deadline {
    let Some(text) = job.spec.ttl.as_deref() else {
        return Deadline::None;
    };
    let Ok(ttl) = duration::parse(text) else {
        return Deadline::Invalid(text.to_string());
    };
    let Some(created) = job.metadata.creation_timestamp.as_ref() else {
        return Deadline::None;
    };
    if ttl.is_zero() {
        return Deadline::None;
    }
    Deadline::At(after(created.0, ttl))
}

/// `t + d`, saturating: a ttl of centuries simply never expires.
pub fn after(t: Timestamp, d: Duration) -> Timestamp {
    let d = SignedDuration::try_from(d).unwrap_or(SignedDuration::MAX);
    t.saturating_add(d).unwrap_or(Timestamp::MAX)
}

/// RFC 3339 in whole seconds, UTC: how Kubernetes (`metav1.Time`) writes times.
pub fn timestamp_text(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spelled as the spec spells them, not taken from `api::keys`.
    const EVACUATION: &str = "fleet-eviction.io/evacuation";
    const EVACUATION_REQUESTED: &str = "fleet-eviction.io/evacuation-requested";
    use serde_json::json;

    fn pod(value: serde_json::Value) -> PodView {
        PodView::from_pod(&serde_json::from_value(value).expect("pod"))
    }

    #[test]
    fn pod_view_table() {
        let ready =
            json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]});
        let base = |status: serde_json::Value, extra: serde_json::Value| {
            let mut meta = json!({"namespace": "shop", "name": "web-1", "uid": "u1"});
            if let (Some(m), Some(e)) = (meta.as_object_mut(), extra.as_object()) {
                m.extend(e.clone());
            }
            json!({"metadata": meta, "spec": {"nodeName": "node-a", "containers": []}, "status": status})
        };
        let rows: Vec<(&str, PodView, bool)> = vec![
            (
                "running and ready: available",
                pod(base(ready.clone(), json!({}))),
                true,
            ),
            (
                "not ready: unavailable",
                pod(base(
                    json!({"phase": "Running", "conditions": [{"type": "Ready", "status": "False"}]}),
                    json!({}),
                )),
                false,
            ),
            (
                "no conditions: unavailable",
                pod(base(json!({"phase": "Pending"}), json!({}))),
                false,
            ),
            (
                "terminating: unavailable even if ready",
                pod(base(
                    ready.clone(),
                    json!({"deletionTimestamp": "2026-01-01T00:00:00Z"}),
                )),
                false,
            ),
            (
                "finished: unavailable",
                pod(base(
                    json!({"phase": "Succeeded", "conditions": [{"type": "Ready", "status": "True"}]}),
                    json!({}),
                )),
                false,
            ),
        ];
        for (rule, view, available) in rows {
            assert_eq!(view.available, available, "rule: {rule}");
            assert_eq!(
                (
                    view.namespace.as_str(),
                    view.name.as_str(),
                    view.uid.as_str()
                ),
                ("shop", "web-1", "u1")
            );
            assert_eq!(view.node_name, "node-a", "rule: {rule}");
        }
    }

    #[test]
    fn pod_view_reads_our_marks_and_the_controller() {
        let view = pod(json!({
            "metadata": {
                "namespace": "shop", "name": "db-0", "uid": "u2",
                "labels": {EVACUATION: "job-a", "app": "db"},
                "annotations": {EVACUATION_REQUESTED: "job-a"},
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "ConfigMap", "name": "not-controller", "uid": "c0"},
                    {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db", "uid": "s1", "controller": true}
                ]
            }
        }));
        assert_eq!(view.evacuation_label.as_deref(), Some("job-a"));
        assert_eq!(view.evacuation_requested.as_deref(), Some("job-a"));
        assert_eq!(view.labels.get("app").map(String::as_str), Some("db"));
        assert_eq!(view.node_name, "", "unscheduled: empty node");
        assert_eq!(
            view.controller,
            Some(ControllerRef {
                api_version: "apps/v1".into(),
                kind: "StatefulSet".into(),
                name: "db".into(),
                uid: "s1".into(),
            }),
            "the owner reference marked controller"
        );
        let pdb: PodDisruptionBudget = serde_json::from_value(json!({
            "metadata": {"name": "fleet-eviction-x", "uid": "p1", "labels": {EVACUATION: "job-a"}}
        }))
        .expect("pdb");
        assert_eq!(
            PdbView::from_pdb(&pdb),
            PdbView {
                name: "fleet-eviction-x".into(),
                uid: "p1".into(),
                evacuation: Some("job-a".into())
            }
        );
    }

    fn job(phase: Option<&str>, ttl: Option<&str>, created: Option<&str>) -> PodMigrationJob {
        let mut value = json!({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "PodMigrationJob",
            "metadata": {"name": "j"},
            "spec": {"podRef": {"namespace": "shop", "name": "web-1"}}
        });
        if let Some(p) = phase {
            value["status"] = json!({"phase": p});
        }
        if let Some(t) = ttl {
            value["spec"]["ttl"] = json!(t);
        }
        if let Some(c) = created {
            value["metadata"]["creationTimestamp"] = json!(c);
        }
        serde_json::from_value(value).expect("job")
    }

    #[test]
    fn stage_table() {
        let rows = [
            ("no status: Pending", None, Stage::Pending),
            (
                "empty phase: Pending (Koordinator's reading)",
                Some(""),
                Stage::Pending,
            ),
            ("Pending", Some("Pending"), Stage::Pending),
            ("Running", Some("Running"), Stage::Running),
            ("Succeeded", Some("Succeeded"), Stage::Finished),
            ("Failed", Some("Failed"), Stage::Finished),
            (
                "Aborted is terminal when found",
                Some("Aborted"),
                Stage::Finished,
            ),
            (
                "the old spelling Succeed is terminal",
                Some("Succeed"),
                Stage::Finished,
            ),
            ("unknown", Some("Paused"), Stage::Unknown("Paused".into())),
        ];
        for (rule, phase, want) in rows {
            assert_eq!(stage(&job(phase, None, None)), want, "rule: {rule}");
        }
    }

    #[test]
    fn deadline_table() {
        let created = "2026-01-01T00:00:00Z";
        let at = |s: &str| Deadline::At(s.parse().expect("time"));
        let rows = [
            ("no ttl: none", None, Some(created), Deadline::None),
            ("0s: none", Some("0s"), Some(created), Deadline::None),
            (
                "creation plus ttl",
                Some("1h30m"),
                Some(created),
                at("2026-01-01T01:30:00Z"),
            ),
            (
                "fractions of a second count",
                Some("1.5s"),
                Some(created),
                at("2026-01-01T00:00:01.5Z"),
            ),
            (
                "not a Go duration",
                Some("1 hour"),
                Some(created),
                Deadline::Invalid("1 hour".into()),
            ),
            (
                "no creationTimestamp: none",
                Some("1m"),
                None,
                Deadline::None,
            ),
        ];
        for (rule, ttl, created, want) in rows {
            assert_eq!(deadline(&job(None, ttl, created)), want, "rule: {rule}");
        }
    }

    #[test]
    fn timestamps_are_written_in_whole_seconds() {
        let t: Timestamp = "2026-01-01T00:00:00.999Z".parse().expect("time");
        assert_eq!(timestamp_text(t), "2026-01-01T00:00:00Z");
    }
}
