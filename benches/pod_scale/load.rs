//! The load: every member's PodMigrationJobs created at once (one task per job, through an
//! in-process client of the member's API server), and the timing of what followed: latency is
//! from the start of a job's create call to the watch event that first showed it terminal.

use super::check::{Observer, job_resource};
use super::plan::MemberPlan;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One job's create call: when it started, and how it ended.
pub struct Created {
    pub member: usize,
    pub job: usize,
    pub started: Instant,
    pub error: Option<String>,
}

/// A plain EvictDirectly job for the pod (default eviction policy: the pod has no policy label).
fn job_object(namespace: &str, pod: &str, name: &str) -> Result<DynamicObject, String> {
    serde_json::from_value(json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJob",
        "metadata": {"name": name},
        "spec": {"mode": "EvictDirectly", "podRef": {"namespace": namespace, "name": pod}},
    }))
    .map_err(|e| format!("job {name}: {e}"))
}

async fn create_one(api: Api<DynamicObject>, plan: Arc<MemberPlan>, m: usize, i: usize) -> Created {
    let pod = &plan.pods[i];
    let started = Instant::now();
    let error = match job_object(&pod.namespace, &pod.name, &pod.job) {
        Ok(object) => api
            .create(&PostParams::default(), &object)
            .await
            .err()
            .map(|e| e.to_string()),
        Err(e) => Some(e),
    };
    Created {
        member: m,
        job: i,
        started,
        error,
    }
}

/// Every job of every member, created at once.
pub async fn burst(plans: &[Arc<MemberPlan>], clients: &[kube::Client]) -> Vec<Created> {
    let mut tasks = Vec::new();
    for (m, (plan, client)) in plans.iter().zip(clients).enumerate() {
        let api: Api<DynamicObject> = Api::all_with(client.clone(), &job_resource());
        for i in 0..plan.pods.len() {
            tasks.push(tokio::spawn(create_one(api.clone(), plan.clone(), m, i)));
        }
    }
    let mut created = Vec::with_capacity(tasks.len());
    for task in tasks {
        match task.await {
            Ok(c) => created.push(c),
            Err(e) => eprintln!("a create task failed: {e}"),
        }
    }
    created
}

/// What a load's timing came to.
pub struct Timing {
    /// Creation→terminal of each job seen terminal, sorted.
    pub latencies: Vec<Duration>,
    /// Creation→first seen admitted, sorted.
    pub to_admitted: Vec<Duration>,
    /// First seen admitted→first seen Running, and Running→terminal, sorted.
    pub admitted_to_running: Vec<Duration>,
    pub running_to_terminal: Vec<Duration>,
    /// From the first create call to the last terminal event.
    pub span: Duration,
    /// From the first create call to the last create call's start.
    pub creating: Duration,
}

impl Timing {
    pub fn of(created: &[Created], observer: &Observer) -> Timing {
        let mut latencies = Vec::new();
        let mut to_admitted = Vec::new();
        let mut admitted_to_running = Vec::new();
        let mut running_to_terminal = Vec::new();
        let mut last = None;
        for c in created {
            let seen = observer.seen(c.member, c.job);
            if let Some(t) = seen.terminal {
                latencies.push(t.saturating_duration_since(c.started));
                last = last.max(Some(t));
            }
            if let Some(a) = seen.admitted {
                to_admitted.push(a.saturating_duration_since(c.started));
            }
            if let (Some(a), Some(r)) = (seen.admitted, seen.running) {
                admitted_to_running.push(r.saturating_duration_since(a));
            }
            if let (Some(r), Some(t)) = (seen.running, seen.terminal) {
                running_to_terminal.push(t.saturating_duration_since(r));
            }
        }
        latencies.sort();
        to_admitted.sort();
        admitted_to_running.sort();
        running_to_terminal.sort();
        let first = created.iter().map(|c| c.started).min();
        let last_start = created.iter().map(|c| c.started).max();
        let since_first = |t: Option<Instant>| match (first, t) {
            (Some(f), Some(t)) => t.saturating_duration_since(f),
            _ => Duration::ZERO,
        };
        Timing {
            latencies,
            to_admitted,
            admitted_to_running,
            running_to_terminal,
            span: since_first(last),
            creating: since_first(last_start),
        }
    }

    pub fn throughput(&self) -> f64 {
        let seconds = self.span.as_secs_f64();
        if seconds > 0.0 {
            self.latencies.len() as f64 / seconds
        } else {
            0.0
        }
    }
}

/// Nearest-rank percentile of sorted durations.
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
