//! The executor's watch-fed indexes of one member: jobs (with lookups by pod and namespace),
//! pods stripped to [`PodView`], PDBs stripped to [`PdbView`], profiles and namespace labels.
//! Each change names what it touched (a job name, a pod or PDB key `namespace/name`, a
//! namespace name); [`super::routes`] turns that into the jobs to decide again.

use crate::api::migration::PodMigrationJob;
use crate::api::profile::PodMigrationJobProfile;
use crate::pod::facts::{
    PdbView, PodView, Stage, has_cleanup_finalizer, passed_arbitration, stage,
};
use crate::runtime::watch_cache::{Cache, Index};
use k8s_openapi::api::core::v1::{Namespace, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// `namespace/name`: how pods and PDBs are keyed.
pub fn pod_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

/// The namespace and name `spec.podRef` names (empty when absent).
pub fn pod_ref(job: &PodMigrationJob) -> (String, String) {
    let r = job.spec.pod_ref.as_ref();
    (
        r.and_then(|r| r.namespace.clone()).unwrap_or_default(),
        r.and_then(|r| r.name.clone()).unwrap_or_default(),
    )
}

/// Not finished: the jobs the executor still drives.
pub fn is_active(job: &PodMigrationJob) -> bool {
    matches!(stage(job), Stage::Pending | Stage::Running)
}

/// Decisions about the job read its pod: it is active, or it still holds our finalizer (a
/// finished job's cleanup must see the pod's marks).
pub fn needs_pods(job: &PodMigrationJob) -> bool {
    is_active(job) || has_cleanup_finalizer(job)
}

/// Waits for admission (§5): Pending and not yet admitted.
pub fn awaits_admission(job: &PodMigrationJob) -> bool {
    stage(job) == Stage::Pending && !passed_arbitration(job) && job.spec.paused != Some(true)
}

#[derive(Debug, Default)]
pub struct JobIndex {
    by_name: HashMap<String, Arc<PodMigrationJob>>,
    by_pod: HashMap<String, BTreeSet<String>>,
    by_namespace: HashMap<String, BTreeSet<String>>,
    /// Jobs that [`needs_pods`]: while any exists, the pod watch runs.
    need_pods: BTreeSet<String>,
    awaiting: BTreeSet<String>,
}

impl Index for JobIndex {
    type Object = PodMigrationJob;
    type View = Arc<PodMigrationJob>;

    fn view(mut object: PodMigrationJob) -> Option<Self::View> {
        object.metadata.managed_fields = None;
        Some(Arc::new(object))
    }

    fn upsert(&mut self, job: Self::View) -> Vec<String> {
        let name = job.metadata.name.clone().unwrap_or_default();
        self.remove(&name);
        let (namespace, pod) = pod_ref(&job);
        link(&mut self.by_pod, pod_key(&namespace, &pod), &name);
        link(&mut self.by_namespace, namespace, &name);
        if needs_pods(&job) {
            self.need_pods.insert(name.clone());
        }
        if awaits_admission(&job) {
            self.awaiting.insert(name.clone());
        }
        self.by_name.insert(name.clone(), job);
        vec![name]
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        let Some(old) = self.by_name.remove(name) else {
            return Vec::new();
        };
        let (namespace, pod) = pod_ref(&old);
        unlink(&mut self.by_pod, &pod_key(&namespace, &pod), name);
        unlink(&mut self.by_namespace, &namespace, name);
        self.need_pods.remove(name);
        self.awaiting.remove(name);
        vec![name.to_string()]
    }

    fn keys(&self) -> Vec<String> {
        self.by_name.keys().cloned().collect()
    }
}

fn link(map: &mut HashMap<String, BTreeSet<String>>, key: String, name: &str) {
    map.entry(key).or_default().insert(name.to_string());
}

fn unlink(map: &mut HashMap<String, BTreeSet<String>>, key: &str, name: &str) {
    if let Some(names) = map.get_mut(key) {
        names.remove(name);
        if names.is_empty() {
            map.remove(key);
        }
    }
}

impl JobIndex {
    pub fn get(&self, name: &str) -> Option<Arc<PodMigrationJob>> {
        self.by_name.get(name).cloned()
    }

    pub fn of_pod(&self, key: &str) -> Vec<String> {
        self.by_pod
            .get(key)
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }

    pub fn of_namespace(&self, namespace: &str) -> Vec<String> {
        self.by_namespace
            .get(namespace)
            .into_iter()
            .flatten()
            .cloned()
            .collect()
    }

    /// Names of the jobs that [`needs_pods`].
    pub fn needing_pods(&self) -> Vec<String> {
        self.need_pods.iter().cloned().collect()
    }

    /// Some job waits for admission (§5).
    pub fn has_awaiting(&self) -> bool {
        !self.awaiting.is_empty()
    }

    pub fn any_needs_pods(&self) -> bool {
        !self.need_pods.is_empty()
    }

    /// Every job not finished yet.
    pub fn active_jobs(&self) -> Vec<Arc<PodMigrationJob>> {
        self.need_pods
            .iter()
            .filter_map(|n| self.by_name.get(n))
            .filter(|job| is_active(job))
            .cloned()
            .collect()
    }

    /// Every job name.
    pub fn keys_snapshot(&self) -> Vec<String> {
        self.by_name.keys().cloned().collect()
    }

    pub fn contains(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }
}

#[derive(Debug, Default)]
pub struct PodIndex {
    by_key: HashMap<String, Arc<PodView>>,
    by_namespace: HashMap<String, BTreeSet<String>>,
}

impl Index for PodIndex {
    type Object = Pod;
    type View = PodView;

    fn view(pod: Pod) -> Option<PodView> {
        Some(PodView::from_pod(&pod))
    }

    fn upsert(&mut self, pod: PodView) -> Vec<String> {
        let key = pod_key(&pod.namespace, &pod.name);
        link(&mut self.by_namespace, pod.namespace.clone(), &pod.name);
        self.by_key.insert(key.clone(), Arc::new(pod));
        vec![key]
    }

    fn remove(&mut self, key: &str) -> Vec<String> {
        let Some(old) = self.by_key.remove(key) else {
            return Vec::new();
        };
        unlink(&mut self.by_namespace, &old.namespace, &old.name);
        vec![key.to_string()]
    }

    fn keys(&self) -> Vec<String> {
        self.by_key.keys().cloned().collect()
    }
}

impl PodIndex {
    pub fn get(&self, namespace: &str, name: &str) -> Option<Arc<PodView>> {
        self.by_key.get(&pod_key(namespace, name)).cloned()
    }

    /// Every pod of the namespace (to count a workload's unavailable pods).
    pub fn in_namespace(&self, namespace: &str) -> Vec<Arc<PodView>> {
        self.by_namespace
            .get(namespace)
            .into_iter()
            .flatten()
            .filter_map(|name| self.by_key.get(&pod_key(namespace, name)).cloned())
            .collect()
    }
}

#[derive(Debug, Default)]
pub struct PdbIndex {
    by_key: HashMap<String, (String, PdbView)>,
}

impl Index for PdbIndex {
    type Object = PodDisruptionBudget;
    type View = (String, PdbView);

    fn view(pdb: PodDisruptionBudget) -> Option<Self::View> {
        let namespace = pdb.metadata.namespace.clone().unwrap_or_default();
        Some((namespace, PdbView::from_pdb(&pdb)))
    }

    fn upsert(&mut self, (namespace, pdb): Self::View) -> Vec<String> {
        let key = pod_key(&namespace, &pdb.name);
        self.by_key.insert(key.clone(), (namespace, pdb));
        vec![key]
    }

    fn remove(&mut self, key: &str) -> Vec<String> {
        self.by_key.remove(key);
        vec![key.to_string()]
    }

    fn keys(&self) -> Vec<String> {
        self.by_key.keys().cloned().collect()
    }
}

impl PdbIndex {
    pub fn get(&self, namespace: &str, name: &str) -> Option<PdbView> {
        self.by_key
            .get(&pod_key(namespace, name))
            .map(|(_, pdb)| pdb.clone())
    }

    /// PDBs labelled `fleet-eviction.io/evacuation`, with their namespace (the orphan sweep).
    pub fn ours(&self) -> Vec<(String, PdbView)> {
        self.by_key
            .values()
            .filter(|(_, pdb)| pdb.evacuation.is_some())
            .cloned()
            .collect()
    }
}

#[derive(Debug, Default)]
pub struct ProfileIndex {
    by_name: BTreeMap<String, PodMigrationJobProfile>,
}

impl Index for ProfileIndex {
    type Object = PodMigrationJobProfile;
    type View = PodMigrationJobProfile;

    fn view(mut profile: PodMigrationJobProfile) -> Option<PodMigrationJobProfile> {
        profile.metadata.managed_fields = None;
        Some(profile)
    }

    fn upsert(&mut self, profile: PodMigrationJobProfile) -> Vec<String> {
        let name = profile.metadata.name.clone().unwrap_or_default();
        self.by_name.insert(name, profile);
        Vec::new()
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        self.by_name.remove(name);
        Vec::new()
    }

    fn keys(&self) -> Vec<String> {
        Vec::new()
    }
}

impl ProfileIndex {
    /// Every profile, in name order.
    pub fn all(&self) -> Vec<PodMigrationJobProfile> {
        self.by_name.values().cloned().collect()
    }
}

#[derive(Debug, Default)]
pub struct NamespaceIndex {
    labels: HashMap<String, BTreeMap<String, String>>,
}

impl Index for NamespaceIndex {
    type Object = Namespace;
    type View = (String, BTreeMap<String, String>);

    fn view(namespace: Namespace) -> Option<Self::View> {
        let name = namespace.metadata.name.unwrap_or_default();
        Some((name, namespace.metadata.labels.unwrap_or_default()))
    }

    fn upsert(&mut self, (name, labels): Self::View) -> Vec<String> {
        self.labels.insert(name.clone(), labels);
        vec![name]
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        self.labels.remove(name);
        vec![name.to_string()]
    }

    fn keys(&self) -> Vec<String> {
        self.labels.keys().cloned().collect()
    }
}

impl NamespaceIndex {
    pub fn labels(&self, namespace: &str) -> Option<BTreeMap<String, String>> {
        self.labels.get(namespace).cloned()
    }
}

/// The executor's caches of one member.
#[derive(Debug, Default)]
pub struct Caches {
    pub jobs: Cache<JobIndex>,
    /// Followed only while the member has active jobs (§2 "Event-driven").
    pub pods: Cache<PodIndex>,
    pub pdbs: Cache<PdbIndex>,
    pub profiles: Cache<ProfileIndex>,
    pub namespaces: Cache<NamespaceIndex>,
}

impl Caches {
    /// Every cache but the pods' (which follows only while there are active jobs).
    pub async fn wait_synced(&self) {
        self.jobs.wait_synced().await;
        self.pdbs.wait_synced().await;
        self.profiles.wait_synced().await;
        self.namespaces.wait_synced().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(name: &str, pod: &str, extra: serde_json::Value) -> Arc<PodMigrationJob> {
        let mut value = json!({
            "metadata": {"name": name},
            "spec": {"podRef": {"namespace": "shop", "name": pod}}
        });
        if let (Some(v), Some(e)) = (value.as_object_mut(), extra.as_object()) {
            for (key, part) in e {
                if let (Some(into), Some(part)) = (
                    v.get_mut(key).and_then(|x| x.as_object_mut()),
                    part.as_object(),
                ) {
                    into.extend(part.clone());
                } else {
                    v.insert(key.clone(), part.clone());
                }
            }
        }
        Arc::new(serde_json::from_value(value).expect("job"))
    }

    #[test]
    fn job_index_tracks_lookups_and_what_needs_pods() {
        let rows: Vec<(&str, Arc<PodMigrationJob>, bool, bool)> = vec![
            (
                "new job: active and awaiting admission",
                job("a", "p1", json!({})),
                true,
                true,
            ),
            (
                "paused: active, not awaiting",
                job("b", "p1", json!({"spec": {"paused": true}})),
                true,
                false,
            ),
            (
                "admitted: active, not awaiting",
                job(
                    "c",
                    "p2",
                    json!({"metadata": {"annotations": {"descheduler.koordinator.sh/passed-arbitration": "true"}}}),
                ),
                true,
                false,
            ),
            (
                "finished: neither",
                job("d", "p3", json!({"status": {"phase": "Succeeded"}})),
                false,
                false,
            ),
            (
                "finished with our finalizer: needs pods for its cleanup",
                job(
                    "e",
                    "p3",
                    json!({"metadata": {"finalizers": ["fleet-eviction.io/cleanup"]}, "status": {"phase": "Failed"}}),
                ),
                true,
                false,
            ),
        ];
        for (rule, job, needs, awaiting) in rows {
            let mut index = JobIndex::default();
            let name = job.metadata.name.clone().unwrap_or_default();
            assert_eq!(index.upsert(job), vec![name.clone()], "rule: {rule}");
            assert_eq!(index.any_needs_pods(), needs, "rule: {rule}");
            assert_eq!(index.has_awaiting(), awaiting, "rule: {rule}");
            index.remove(&name);
            assert!(
                !index.any_needs_pods() && !index.has_awaiting(),
                "rule: {rule}: removed"
            );
        }
    }

    #[test]
    fn a_job_moved_to_another_pod_is_found_only_under_the_new_one() {
        let mut index = JobIndex::default();
        index.upsert(job("a", "p1", json!({})));
        index.upsert(job("b", "p1", json!({})));
        assert_eq!(index.of_pod("shop/p1"), ["a", "b"]);
        index.upsert(job("a", "p2", json!({})));
        assert_eq!(index.of_pod("shop/p1"), ["b"]);
        assert_eq!(index.of_pod("shop/p2"), ["a"]);
        assert_eq!(index.of_namespace("shop"), ["a", "b"]);
        index.remove("b");
        assert!(index.of_pod("shop/p1").is_empty());
        assert_eq!(index.active_jobs().len(), 1);
    }
}
