//! Arbitration at every instant, with the bench's own counting: one watch per member on its
//! PodMigrationJobs; after every event (a new resourceVersion of the member's jobs, so every
//! state the member's job collection passes through) the admitted, non-terminal jobs are
//! counted per node, per namespace, on the member and per workload, from the bench's plan (which
//! node, namespace and workload each job's pod has), and compared with the limits the
//! controller was given (pod-migration.md §5). The watch also notes when each job was first
//! seen admitted, Running and terminal.

use super::plan::MemberPlan;
use futures::StreamExt;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ApiResource, DynamicObject};
use kube::runtime::watcher::{self, Event};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

const PASSED_ARBITRATION: &str = "descheduler.koordinator.sh/passed-arbitration";
/// Violations described in full; the rest are only counted.
const VIOLATIONS_KEPT: usize = 5;

pub fn job_resource() -> ApiResource {
    ApiResource {
        group: "scheduling.koordinator.sh".into(),
        version: "v1alpha1".into(),
        api_version: "scheduling.koordinator.sh/v1alpha1".into(),
        kind: "PodMigrationJob".into(),
        plural: "podmigrationjobs".into(),
    }
}

/// A per-workload limit as the flags take it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadValue {
    Count(usize),
    Percent(usize),
}

impl WorkloadValue {
    pub fn parse(text: &str) -> Option<WorkloadValue> {
        match text.strip_suffix('%') {
            Some(p) => p.parse().ok().map(WorkloadValue::Percent),
            None => text.parse().ok().map(WorkloadValue::Count),
        }
    }
}

/// §5's per-workload limit for `replicas`, written from the spec: an integer as is, a
/// percentage of the replicas rounded down; without a value 10% above 10 replicas, 2 for 4–10,
/// else 1; capped at the replicas, at least 1.
pub fn workload_limit(replicas: usize, value: Option<WorkloadValue>) -> usize {
    let raw = match value {
        Some(WorkloadValue::Count(n)) => n,
        Some(WorkloadValue::Percent(p)) => p * replicas / 100,
        None if replicas > 10 => replicas / 10,
        None if replicas >= 4 => 2,
        None => 1,
    };
    raw.min(replicas).max(1)
}

/// The limits the controller runs with (`None`: unlimited).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub per_node: Option<usize>,
    pub per_namespace: Option<usize>,
    pub globally: Option<usize>,
    pub per_workload: Option<WorkloadValue>,
    pub unavailable_per_workload: Option<WorkloadValue>,
}

/// A job as the watch last saw it.
#[derive(Debug, Clone, Default)]
struct JobState {
    admitted: bool,
    phase: String,
    reason: String,
    message: String,
}

fn resource_version(object: &DynamicObject) -> u64 {
    object
        .metadata
        .resource_version
        .as_deref()
        .and_then(|rv| rv.parse().ok())
        .unwrap_or(0)
}

fn is_terminal(phase: &str) -> bool {
    matches!(phase, "Succeeded" | "Succeed" | "Failed" | "Aborted")
}

impl JobState {
    fn of(object: &DynamicObject) -> JobState {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_string();
        let status = &object.data["status"];
        let phase = text(&status["phase"]);
        let annotated = object
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(PASSED_ARBITRATION))
            .is_some_and(|v| v == "true");
        JobState {
            admitted: annotated || phase == "Running",
            reason: text(&status["reason"]),
            message: text(&status["message"]),
            phase,
        }
    }

    /// Holds an arbitration slot: admitted and not terminal.
    fn migrating(&self) -> bool {
        self.admitted && !is_terminal(&self.phase)
    }
}

/// When a job was first seen in each state.
#[derive(Debug, Clone, Copy, Default)]
pub struct Seen {
    pub admitted: Option<Instant>,
    pub running: Option<Instant>,
    pub terminal: Option<Instant>,
}

/// The highest counts the check saw, and how many checks found a limit exactly reached.
#[derive(Debug, Clone, Default)]
pub struct Peaks {
    pub node: usize,
    pub namespace: usize,
    pub member: usize,
    /// Highest migrating count of any workload, with that workload's limit.
    pub workload: (usize, usize),
    pub checks_node_at_limit: u64,
    pub checks_namespace_at_limit: u64,
    pub checks_member_at_limit: u64,
    pub checks_workload_at_limit: u64,
    /// Admitted, non-terminal jobs over the whole fleet (summed as members report).
    pub fleet: usize,
}

/// A state of a member's jobs that exceeded a limit: the resourceVersion of the job event that
/// produced it, what was exceeded, and the migrating jobs involved with their phase.
#[derive(Debug, Clone)]
pub struct Violation {
    pub member: usize,
    pub rv: u64,
    pub what: String,
    /// (job index, phase) of the migrating jobs that count against the limit.
    pub jobs: Vec<(usize, String)>,
}

/// One member's record, written by its watch task.
#[derive(Default)]
struct MemberRecord {
    seen: Vec<Seen>,
    /// Final state per job: (phase, reason, message).
    last: Vec<Option<(String, String, String)>>,
    migrating: usize,
}

pub struct Observer {
    plans: Vec<Arc<MemberPlan>>,
    limits: Limits,
    records: Vec<Mutex<MemberRecord>>,
    terminal: AtomicUsize,
    changed: Notify,
    pub checks: AtomicU64,
    /// Checks that found at least one limit exceeded.
    pub violating_checks: AtomicU64,
    pub violations: AtomicU64,
    /// Distinct (member, limit) pairs ever exceeded, e.g. (3, "node node-2").
    exceeded: Mutex<std::collections::BTreeSet<(usize, String)>>,
    violation_notes: Mutex<Vec<Violation>>,
    /// Per member: pod `namespace/name` → the resourceVersion of its deletion (its pod watch).
    pod_deletions: Vec<Mutex<HashMap<String, u64>>>,
    peaks: Mutex<Peaks>,
    fleet_migrating: AtomicUsize,
    /// Relists after the first (a gap in which instants may have been missed) and errors.
    pub relists: AtomicU64,
    pub watch_errors: AtomicU64,
    synced: watch::Sender<usize>,
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Observer {
    /// Starts one watch per member; resolves once every watch has its initial list.
    pub async fn start(
        plans: Vec<Arc<MemberPlan>>,
        clients: Vec<kube::Client>,
        limits: Limits,
    ) -> Arc<Observer> {
        let records = plans
            .iter()
            .map(|p| {
                Mutex::new(MemberRecord {
                    seen: vec![Seen::default(); p.pods.len()],
                    last: vec![None; p.pods.len()],
                    migrating: 0,
                })
            })
            .collect();
        let members = plans.len();
        let observer = Arc::new(Observer {
            plans,
            limits,
            records,
            terminal: AtomicUsize::new(0),
            changed: Notify::new(),
            checks: AtomicU64::new(0),
            violating_checks: AtomicU64::new(0),
            violations: AtomicU64::new(0),
            exceeded: Mutex::default(),
            violation_notes: Mutex::default(),
            pod_deletions: (0..members).map(|_| Mutex::default()).collect(),
            peaks: Mutex::default(),
            fleet_migrating: AtomicUsize::new(0),
            relists: AtomicU64::new(0),
            watch_errors: AtomicU64::new(0),
            synced: watch::channel(0).0,
            tasks: Mutex::default(),
        });
        let mut synced = observer.synced.subscribe();
        let mut tasks = Vec::new();
        for (m, client) in clients.into_iter().enumerate() {
            let jobs = observer.clone();
            let pods = observer.clone();
            let pod_client = client.clone();
            tasks.push(tokio::spawn(async move { jobs.follow(m, client).await }));
            tasks.push(tokio::spawn(async move {
                pods.follow_pod_deletions(m, pod_client).await
            }));
        }
        *lock(&observer.tasks) = tasks;
        // The sender lives in `observer`, so this only ends once all have synced.
        let _ = synced.wait_for(|n| *n >= members).await;
        observer
    }

    async fn follow(&self, m: usize, client: kube::Client) {
        let plan = self.plans[m].clone();
        let index: HashMap<&str, usize> = plan
            .pods
            .iter()
            .enumerate()
            .map(|(i, p)| (p.job.as_str(), i))
            .collect();
        let api: Api<DynamicObject> = Api::all_with(client, &job_resource());
        let stream = watcher::watcher(api, watcher::Config::default());
        futures::pin_mut!(stream);
        let mut jobs: Vec<Option<JobState>> = vec![None; plan.pods.len()];
        let mut relist: Option<Vec<Option<JobState>>> = None;
        let mut listed_once = false;
        let mut rv = 0;
        while let Some(event) = stream.next().await {
            let now = Instant::now();
            let job_index = |o: &DynamicObject| {
                o.metadata
                    .name
                    .as_deref()
                    .and_then(|n| index.get(n).copied())
            };
            match event {
                Ok(Event::Init) => {
                    relist = Some(vec![None; plan.pods.len()]);
                    continue;
                }
                Ok(Event::InitApply(object)) => {
                    if let (Some(i), Some(list)) = (job_index(&object), relist.as_mut()) {
                        list[i] = Some(JobState::of(&object));
                    }
                    continue;
                }
                Ok(Event::InitDone) => {
                    jobs = relist.take().unwrap_or_else(|| vec![None; plan.pods.len()]);
                    if listed_once {
                        self.relists.fetch_add(1, Ordering::Relaxed);
                    } else {
                        listed_once = true;
                        self.synced.send_modify(|n| *n += 1);
                    }
                }
                Ok(Event::Apply(object)) => match job_index(&object) {
                    Some(i) => {
                        rv = resource_version(&object);
                        jobs[i] = Some(JobState::of(&object));
                    }
                    None => continue,
                },
                Ok(Event::Delete(object)) => match job_index(&object) {
                    Some(i) => {
                        rv = resource_version(&object);
                        jobs[i] = None;
                    }
                    None => continue,
                },
                Err(e) => {
                    self.watch_errors.fetch_add(1, Ordering::Relaxed);
                    eprintln!("{}: job watch failed, retrying: {e}", plan.name);
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    continue;
                }
            }
            self.note(m, &jobs, now);
            self.check(m, &jobs, rv);
        }
    }

    /// Notes when each of the member's pods was deleted (as a resourceVersion), to explain a
    /// violation: which migrating jobs still had their pod at that instant.
    async fn follow_pod_deletions(&self, m: usize, client: kube::Client) {
        let api: Api<DynamicObject> = Api::all_with(client, &ApiResource::erase::<Pod>(&()));
        let stream = watcher::watcher(api, watcher::Config::default());
        futures::pin_mut!(stream);
        while let Some(event) = stream.next().await {
            if let Ok(Event::Delete(pod)) = event {
                let key = format!(
                    "{}/{}",
                    pod.metadata.namespace.as_deref().unwrap_or_default(),
                    pod.metadata.name.as_deref().unwrap_or_default()
                );
                lock(&self.pod_deletions[m]).insert(key, resource_version(&pod));
            }
        }
    }

    /// Notes first-seen times and the member's count of migrating jobs.
    fn note(&self, m: usize, jobs: &[Option<JobState>], now: Instant) {
        let mut record = lock(&self.records[m]);
        let mut newly_terminal = 0;
        for (i, job) in jobs.iter().enumerate() {
            let Some(job) = job else { continue };
            let seen = &mut record.seen[i];
            if job.admitted && seen.admitted.is_none() {
                seen.admitted = Some(now);
            }
            if job.phase == "Running" && seen.running.is_none() {
                seen.running = Some(now);
            }
            if is_terminal(&job.phase) && seen.terminal.is_none() {
                seen.terminal = Some(now);
                newly_terminal += 1;
            }
            if is_terminal(&job.phase) {
                record.last[i] = Some((job.phase.clone(), job.reason.clone(), job.message.clone()));
            }
        }
        let migrating = jobs.iter().flatten().filter(|j| j.migrating()).count();
        let before = std::mem::replace(&mut record.migrating, migrating);
        drop(record);
        let fleet = if migrating >= before {
            self.fleet_migrating
                .fetch_add(migrating - before, Ordering::Relaxed)
                + (migrating - before)
        } else {
            self.fleet_migrating
                .fetch_sub(before - migrating, Ordering::Relaxed)
                - (before - migrating)
        };
        let mut peaks = lock(&self.peaks);
        peaks.fleet = peaks.fleet.max(fleet);
        drop(peaks);
        if newly_terminal > 0 {
            self.terminal.fetch_add(newly_terminal, Ordering::Relaxed);
            self.changed.notify_waiters();
        }
    }

    /// Counts the member's migrating jobs against every limit.
    fn check(&self, m: usize, jobs: &[Option<JobState>], rv: u64) {
        let plan = &self.plans[m];
        let limits = &self.limits;
        let mut nodes: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut namespaces: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        let mut workloads: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut member = Vec::new();
        for (i, job) in jobs.iter().enumerate() {
            if !job.as_ref().is_some_and(JobState::migrating) {
                continue;
            }
            let pod = &plan.pods[i];
            nodes.entry(&pod.node).or_default().push(i);
            namespaces.entry(&pod.namespace).or_default().push(i);
            member.push(i);
            if let Some(w) = pod.workload {
                workloads.entry(w).or_default().push(i);
            }
        }
        let phase = |i: &usize| {
            let phase = jobs[*i]
                .as_ref()
                .map(|j| j.phase.clone())
                .unwrap_or_default();
            (
                *i,
                if phase.is_empty() {
                    "Pending".into()
                } else {
                    phase
                },
            )
        };
        let involved = |group: &[usize]| group.iter().map(phase).collect::<Vec<_>>();
        self.checks.fetch_add(1, Ordering::Relaxed);
        let mut problems = Vec::new();
        let mut peaks = lock(&self.peaks);
        let at = |count: usize, limit: Option<usize>| limit == Some(count);
        for (node, on) in &nodes {
            peaks.node = peaks.node.max(on.len());
            if limits.per_node.is_some_and(|l| on.len() > l) {
                problems.push((
                    format!(
                        "node {node}: {} migrating (limit {})",
                        on.len(),
                        limits.per_node.unwrap_or_default()
                    ),
                    involved(on),
                ));
            }
        }
        if nodes.values().any(|on| at(on.len(), limits.per_node)) {
            peaks.checks_node_at_limit += 1;
        }
        for (namespace, on) in &namespaces {
            peaks.namespace = peaks.namespace.max(on.len());
            if limits.per_namespace.is_some_and(|l| on.len() > l) {
                problems.push((
                    format!(
                        "namespace {namespace}: {} migrating (limit {})",
                        on.len(),
                        limits.per_namespace.unwrap_or_default()
                    ),
                    involved(on),
                ));
            }
        }
        if namespaces
            .values()
            .any(|on| at(on.len(), limits.per_namespace))
        {
            peaks.checks_namespace_at_limit += 1;
        }
        peaks.member = peaks.member.max(member.len());
        if limits.globally.is_some_and(|l| member.len() > l) {
            problems.push((
                format!(
                    "member: {} migrating (limit {})",
                    member.len(),
                    limits.globally.unwrap_or_default()
                ),
                involved(&member),
            ));
        }
        if at(member.len(), limits.globally) {
            peaks.checks_member_at_limit += 1;
        }
        let mut workload_at_limit = false;
        for (w, on) in &workloads {
            let n = &on.len();
            let workload = &plan.workloads[*w];
            // Every pod is Ready until it is evicted, and evicted pods are not replaced here,
            // so a workload's unavailable pods are exactly its migrating ones.
            let migrating_limit = workload_limit(workload.replicas, limits.per_workload);
            let unavailable_limit =
                workload_limit(workload.replicas, limits.unavailable_per_workload);
            let limit = migrating_limit.min(unavailable_limit);
            if *n > peaks.workload.0 {
                peaks.workload = (*n, limit);
            }
            workload_at_limit |= *n == limit;
            if *n > limit {
                problems.push((
                    format!(
                        "{} {}/{} ({} replicas): {n} migrating (maxMigrating \
                         {migrating_limit}, maxUnavailable {unavailable_limit})",
                        workload.kind.name(),
                        workload.namespace,
                        workload.name,
                        workload.replicas
                    ),
                    involved(on),
                ));
            }
        }
        if workload_at_limit {
            peaks.checks_workload_at_limit += 1;
        }
        drop(peaks);
        if !problems.is_empty() {
            self.violating_checks.fetch_add(1, Ordering::Relaxed);
            self.violations
                .fetch_add(problems.len() as u64, Ordering::Relaxed);
            let mut exceeded = lock(&self.exceeded);
            for (what, _) in &problems {
                let limit = what.split(':').next().unwrap_or_default().to_string();
                exceeded.insert((m, limit));
            }
            drop(exceeded);
            let mut notes = lock(&self.violation_notes);
            for (what, jobs) in problems {
                if notes.len() < VIOLATIONS_KEPT {
                    notes.push(Violation {
                        member: m,
                        rv,
                        what,
                        jobs,
                    });
                }
            }
        }
    }

    /// Waits until `total` jobs were seen terminal, or `limit` passes; returns how many were.
    pub async fn wait_terminal(&self, total: usize, limit: Duration) -> usize {
        let deadline = Instant::now() + limit;
        loop {
            let notified = self.changed.notified();
            let done = self.terminal.load(Ordering::Relaxed);
            if done >= total || Instant::now() >= deadline {
                return done;
            }
            // A bounded wait: a change between the load and here is seen on the next turn.
            let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
        }
    }

    pub fn seen(&self, m: usize, job: usize) -> Seen {
        lock(&self.records[m]).seen[job]
    }

    /// Final (phase, reason, message) of every job seen terminal, and the jobs never seen so.
    pub fn outcomes(&self) -> (BTreeMap<String, usize>, Vec<String>) {
        let mut phases = BTreeMap::new();
        let mut not_succeeded = Vec::new();
        for (m, record) in self.records.iter().enumerate() {
            let record = lock(record);
            for (i, last) in record.last.iter().enumerate() {
                let job = &self.plans[m].pods[i].job;
                match last {
                    Some((phase, reason, message)) => {
                        let key = if reason.is_empty() {
                            phase.clone()
                        } else {
                            format!("{phase}/{reason}")
                        };
                        *phases.entry(key).or_default() += 1;
                        if phase != "Succeeded" {
                            not_succeeded.push(format!(
                                "{}/{job}: {phase} {reason}: {message}",
                                self.plans[m].name
                            ));
                        }
                    }
                    None => {
                        *phases.entry("not terminal".to_string()).or_default() += 1;
                        not_succeeded.push(format!("{}/{job}: never terminal", self.plans[m].name));
                    }
                }
            }
        }
        (phases, not_succeeded)
    }

    /// How many distinct (member, limit) pairs were ever exceeded, and of which kinds
    /// ("node", "Deployment", ...).
    pub fn exceeded(&self) -> (usize, BTreeMap<String, usize>) {
        let exceeded = lock(&self.exceeded);
        let mut kinds = BTreeMap::new();
        for (_, limit) in exceeded.iter() {
            let kind = limit.split(' ').next().unwrap_or_default().to_string();
            *kinds.entry(kind).or_default() += 1;
        }
        (exceeded.len(), kinds)
    }

    pub fn peaks(&self) -> Peaks {
        lock(&self.peaks).clone()
    }

    /// Each kept violation, described with its jobs and whether each job's pod still existed
    /// in that state (its deletion's resourceVersion against the state's).
    pub fn violation_notes(&self) -> Vec<String> {
        lock(&self.violation_notes)
            .iter()
            .map(|v| {
                let plan = &self.plans[v.member];
                let deletions = lock(&self.pod_deletions[v.member]);
                let jobs: Vec<String> = v
                    .jobs
                    .iter()
                    .map(|(i, phase)| {
                        let pod = &plan.pods[*i];
                        let key = format!("{}/{}", pod.namespace, pod.name);
                        let pod_state = match deletions.get(&key) {
                            Some(d) if *d < v.rv => format!("pod deleted at rv {d}, before"),
                            Some(d) => format!("pod present (deleted later, rv {d})"),
                            None => "pod present".to_string(),
                        };
                        format!("{} {phase}, {pod_state}", pod.job)
                    })
                    .collect();
                format!(
                    "{} at job rv {}: {} — {}",
                    plan.name,
                    v.rv,
                    v.what,
                    jobs.join("; ")
                )
            })
            .collect()
    }

    pub fn stop(&self) {
        for task in lock(&self.tasks).drain(..) {
            task.abort();
        }
    }
}
