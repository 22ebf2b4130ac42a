//! Which jobs a change affects: every cache change names what it touched, and these routes
//! queue the jobs to decide again (and the member's admission pass, §5, when a change can
//! alter what it admits).

use super::caches::Caches;
use super::state::State;
use crate::runtime::watch_cache::Touch;
use crate::runtime::work_queue::WorkQueue;
use std::sync::Arc;

/// The queue key of the member's admission pass; `*` never appears in an object name.
pub const ADMISSION: &str = "*admission";

/// What routes need: the caches to look jobs up, the queue, and the in-memory state.
#[derive(Clone)]
pub struct Routes {
    pub caches: Arc<Caches>,
    pub queue: WorkQueue,
    pub state: Arc<State>,
}

impl Routes {
    /// Admission depends on every active job (limits count the admitted ones), so any job
    /// change may admit another; the pass is one key, coalesced by the queue.
    fn admission(&self) {
        self.queue.add(ADMISSION);
    }
}

/// A job changed: decide it again, and re-run admission.
pub struct JobChanges(pub Routes);

impl Touch for JobChanges {
    fn touch(&self, name: &str) {
        self.0.queue.add(name);
        self.0.admission();
        self.0.state.pod_watch.notify_one();
    }
}

/// A pod changed: the jobs naming it; and admission while jobs wait for it, since pods'
/// readiness and nodes feed the limits.
pub struct PodChanges(pub Routes);

impl Touch for PodChanges {
    fn touch(&self, key: &str) {
        let jobs = self.0.caches.jobs.read().of_pod(key);
        for job in &jobs {
            self.0.queue.add(job);
        }
        if self.0.caches.jobs.read().has_awaiting() {
            self.0.admission();
        }
    }
}

/// A PDB changed: refused evictions in its namespace are retried at once (§2 step 9), and
/// the jobs there see their External PDB again.
pub struct PdbChanges(pub Routes);

impl Touch for PdbChanges {
    fn touch(&self, key: &str) {
        let namespace = key.split_once('/').map_or(key, |(ns, _)| ns);
        for job in self.0.caches.jobs.read().of_namespace(namespace) {
            self.0.state.clear_retry(&job);
            self.0.queue.add(&job);
        }
    }
}

/// A namespace changed: its jobs (a job waits for its namespace's labels to match profiles).
pub struct NamespaceChanges(pub Routes);

impl Touch for NamespaceChanges {
    fn touch(&self, namespace: &str) {
        for job in self.0.caches.jobs.read().of_namespace(namespace) {
            self.0.queue.add(&job);
        }
    }
}

/// Profiles are read when a job is prepared; a change queues nothing.
pub struct Nothing;

impl Touch for Nothing {
    fn touch(&self, _: &str) {}
}
