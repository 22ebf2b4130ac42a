//! What the executor keeps in memory between passes, beside its caches: our own job writes
//! until the watch shows them (read-your-writes), admissions granted but not yet written,
//! refused evictions' retry times, and what is reported only once.

use crate::api::migration::PodMigrationJob;
use crate::pod::facts::passed_arbitration;
use crate::runtime::watch_cache::is_newer;
use k8s_openapi::jiff::Timestamp;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use tokio::sync::Notify;

/// Refused evictions of one job in a row, and when to try again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retry {
    pub refusals: u32,
    pub at: Timestamp,
}

#[derive(Debug, Default)]
pub struct State {
    written: Mutex<HashMap<String, Arc<PodMigrationJob>>>,
    /// Admitted by the admission pass; counted as admitted until the job's own annotation
    /// shows in the cache (or the job ends), so two passes never hand out one slot twice.
    grants: Mutex<HashSet<String>>,
    retries: Mutex<HashMap<String, Retry>>,
    /// Jobs whose eviction, delete or hand-off found the pod already gone.
    pod_left_first: Mutex<HashSet<String>>,
    /// Jobs already reported as left alone (log once, count once).
    ignored: Mutex<HashSet<String>>,
    /// When each job started waiting for its gates (`fleet_eviction_gate_wait_seconds`).
    gate_waits: Mutex<HashMap<String, Timestamp>>,
    /// The workload key of each admitted job, as resolved while its pod existed: the job keeps
    /// counting against its workload until it ends, also once the pod is gone (§5).
    /// `None` inside: the pod had no controller.
    workloads: Mutex<HashMap<String, Option<String>>>,
    /// Poked on every job change: the pod watch runs only while jobs are active.
    pub pod_watch: Notify,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl State {
    /// The job as we last know it: our write if the cache has not caught up with it yet.
    pub fn job(&self, cached: Arc<PodMigrationJob>) -> Arc<PodMigrationJob> {
        let name = cached.metadata.name.clone().unwrap_or_default();
        let mut written = lock(&self.written);
        match written.get(&name) {
            Some(ours)
                if is_newer(
                    ours.metadata.resource_version.as_deref(),
                    cached.metadata.resource_version.as_deref(),
                ) =>
            {
                ours.clone()
            }
            Some(_) => {
                written.remove(&name);
                cached
            }
            None => cached,
        }
    }

    pub fn remember(&self, job: PodMigrationJob) -> Arc<PodMigrationJob> {
        let name = job.metadata.name.clone().unwrap_or_default();
        let job = Arc::new(job);
        lock(&self.written).insert(name, job.clone());
        job
    }

    /// Forgets everything about a job (deleted, or a write conflicted: re-read the cache).
    pub fn forget_write(&self, name: &str) {
        lock(&self.written).remove(name);
    }

    pub fn forget(&self, name: &str) {
        self.forget_write(name);
        lock(&self.grants).remove(name);
        lock(&self.retries).remove(name);
        lock(&self.ignored).remove(name);
        lock(&self.pod_left_first).remove(name);
        lock(&self.gate_waits).remove(name);
        lock(&self.workloads).remove(name);
    }

    /// Remembers the workload of a job's pod (`seen`: the pod is in the cache, with its
    /// workload key or none); with the pod gone, returns what was remembered, `None` if no
    /// pass of this process ever saw the pod.
    pub fn workload_of_job(
        &self,
        name: &str,
        seen: Option<Option<String>>,
    ) -> Option<Option<String>> {
        let mut workloads = lock(&self.workloads);
        match seen {
            Some(key) => {
                workloads.insert(name.to_string(), key.clone());
                Some(key)
            }
            None => workloads.get(name).cloned(),
        }
    }

    pub fn grant(&self, name: &str) {
        lock(&self.grants).insert(name.to_string());
    }

    pub fn is_granted(&self, name: &str) -> bool {
        lock(&self.grants).contains(name)
    }

    /// Keeps the grants of jobs still waiting for their admission to be written; a job paused
    /// meanwhile gives its slot back (it is admitted again when unpaused, if it fits).
    pub fn prune_grants(&self, active: &HashMap<String, Arc<PodMigrationJob>>) {
        lock(&self.grants).retain(|name| {
            active
                .get(name)
                .is_some_and(|job| !passed_arbitration(job) && job.spec.paused != Some(true))
        });
    }

    pub fn retry(&self, name: &str) -> Option<Retry> {
        lock(&self.retries).get(name).copied()
    }

    pub fn set_retry(&self, name: &str, retry: Retry) {
        lock(&self.retries).insert(name.to_string(), retry);
    }

    /// A PDB changed in the job's namespace: try again at once (the count of refusals stays,
    /// so a PDB that keeps refusing still backs off).
    pub fn clear_retry(&self, name: &str) {
        if let Some(retry) = lock(&self.retries).get_mut(name) {
            retry.at = Timestamp::UNIX_EPOCH;
        }
    }

    pub fn set_pod_left_first(&self, name: &str) {
        lock(&self.pod_left_first).insert(name.to_string());
    }

    pub fn pod_left_first(&self, name: &str) -> bool {
        lock(&self.pod_left_first).contains(name)
    }

    /// True the first time a job is reported as left alone.
    pub fn first_ignore(&self, name: &str) -> bool {
        lock(&self.ignored).insert(name.to_string())
    }

    pub fn gate_wait_started(&self, name: &str, now: Timestamp) {
        lock(&self.gate_waits)
            .entry(name.to_string())
            .or_insert(now);
    }

    /// When the job began waiting for its gates, if it did; forgotten once read.
    pub fn gate_wait_ended(&self, name: &str) -> Option<Timestamp> {
        lock(&self.gate_waits).remove(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn job(version: &str, admitted: bool) -> PodMigrationJob {
        let mut value = json!({
            "metadata": {"name": "j", "resourceVersion": version},
            "spec": {"podRef": {"namespace": "ns", "name": "p"}}
        });
        if admitted {
            value["metadata"]["annotations"] =
                json!({"descheduler.koordinator.sh/passed-arbitration": "true"});
        }
        serde_json::from_value(value).expect("job")
    }

    #[test]
    fn our_write_is_read_until_the_cache_catches_up() {
        let state = State::default();
        state.remember(job("7", false));
        let read = |cached: &str| {
            state
                .job(Arc::new(job(cached, false)))
                .metadata
                .resource_version
                .clone()
        };
        assert_eq!(read("5").as_deref(), Some("7"), "the cache lags: ours");
        assert_eq!(read("7").as_deref(), Some("7"), "caught up");
        state.remember(job("9", false));
        assert_eq!(
            read("10").as_deref(),
            Some("10"),
            "newer in the cache: the cache's"
        );
        assert_eq!(read("8").as_deref(), Some("8"), "and ours is forgotten");
    }

    #[test]
    fn grants_last_until_the_admission_shows() {
        let state = State::default();
        state.grant("j");
        let mut active = HashMap::new();
        active.insert("j".to_string(), Arc::new(job("1", false)));
        state.prune_grants(&active);
        assert!(state.is_granted("j"), "not written yet: still granted");
        active.insert("j".to_string(), Arc::new(job("2", true)));
        state.prune_grants(&active);
        assert!(
            !state.is_granted("j"),
            "the annotation shows: counted from the cache"
        );
        state.grant("j");
        state.prune_grants(&HashMap::new());
        assert!(!state.is_granted("j"), "ended or deleted: released");
    }

    #[test]
    fn a_jobs_workload_outlives_its_pod() {
        let state = State::default();
        assert_eq!(
            state.workload_of_job("j", None),
            None,
            "never seen: unknown"
        );
        let web = Some("Deployment/shop/web".to_string());
        assert_eq!(
            state.workload_of_job("j", Some(web.clone())),
            Some(web.clone())
        );
        assert_eq!(
            state.workload_of_job("j", None),
            Some(web),
            "pod gone: remembered"
        );
        assert_eq!(state.workload_of_job("bare", Some(None)), Some(None));
        assert_eq!(
            state.workload_of_job("bare", None),
            Some(None),
            "a bare pod's job is known to have no workload"
        );
        state.forget("j");
        assert_eq!(
            state.workload_of_job("j", None),
            None,
            "forgotten with the job"
        );
    }

    #[test]
    fn a_pdb_change_makes_a_retry_due_but_keeps_the_count() {
        let state = State::default();
        let at: Timestamp = "2026-01-01T00:01:00Z".parse().expect("time");
        state.set_retry("j", Retry { refusals: 3, at });
        state.clear_retry("j");
        let retry = state.retry("j").expect("kept");
        assert_eq!(retry.refusals, 3);
        assert!(retry.at < at);
    }
}
