//! §5 arbitration: jobs that do not fit wait without blocking others, one job per pod, and
//! a run of 200 jobs whose admitted set, observed at every change, never exceeds a limit.

use super::harness::*;
use futures::StreamExt;
use kube::runtime::watcher;
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, PoisonError};

fn admitted(job: &Value) -> bool {
    annotation(job, PASSED_ARBITRATION) == Some("true")
        || field(job, "/status/phase") == Some("Running")
}

fn gate() -> Value {
    json!({"evictionConditions": [{"name": "Go"}]})
}

async fn waiting_on_gate(m: &Member, job: &str) -> Value {
    m.wait_job(job, "is admitted and waits on its gate", |j| {
        field(j, "/status/status") == Some("WaitForEvictionConditions")
    })
    .await
}

/// Not admitted: Pending (or no phase), no annotation, nothing recorded.
fn assert_waits_for_admission(job: &Value) {
    assert!(
        matches!(field(job, "/status/phase"), None | Some("Pending")),
        "{job:#}"
    );
    assert_eq!(annotation(job, PASSED_ARBITRATION), None, "{job:#}");
    assert_eq!(field(job, "/spec/podRef/uid"), None, "{job:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_that_does_not_fit_waits_without_blocking_the_next() {
    let m = Member::start(2, &["--pmj-max-migrating-per-node", "1"]).await;
    let a1 = m.pod("default", "a1", "node-1", json!({})).await;
    let a2 = m.pod("default", "a2", "node-1", json!({})).await;
    m.pod("default", "b1", "node-2", json!({})).await;
    // First come, first served: same creation second, so name order.
    m.job("j1", "default", "a1", gate()).await;
    m.job("j2", "default", "a2", gate()).await;
    m.job("j3", "default", "b1", gate()).await;

    waiting_on_gate(&m, "j1").await;
    waiting_on_gate(&m, "j3").await;
    m.settle().await;
    assert_waits_for_admission(&m.get_job("j2").await.expect("j2"));

    // j1 finishes: its node slot goes to j2.
    m.set_condition("j1", "Go", "True", "Go", "").await;
    assert_succeeded(&m, "j1", "default", "a1", &uid(&a1)).await;
    waiting_on_gate(&m, "j2").await;
    let j2 = m.get_job("j2").await.expect("j2");
    assert_eq!(annotation(&j2, PASSED_ARBITRATION), Some("true"));
    m.set_condition("j2", "Go", "True", "Go", "").await;
    assert_succeeded(&m, "j2", "default", "a2", &uid(&a2)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_pod_has_one_admitted_job_at_a_time() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    m.job("first", "default", "p", gate()).await;
    m.job("second", "default", "p", json!({})).await;
    waiting_on_gate(&m, "first").await;
    m.settle().await;
    assert_waits_for_admission(&m.get_job("second").await.expect("second"));

    // The first ends without evicting: the second is admitted and evicts the pod.
    m.set_phase("first", "Failed").await;
    assert_succeeded(&m, "second", "default", "p", &uid(&pod)).await;
    let first = m.get_job("first").await.expect("first");
    assert!(condition(&first, "Eviction").is_none(), "{first:#}");
}

/// §5 "Count as migrating only non-terminal jobs that passed arbitration": an admitted job
/// keeps its node slot until it ends, even once its pod is gone (here: paused after
/// admission, its pod deleted by someone else, so it stays Running).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_admitted_job_holds_its_slot_until_it_ends_even_without_its_pod() {
    let m = Member::start(1, &["--pmj-max-migrating-per-node", "1"]).await;
    let a1 = m.pod("default", "a1", "node-1", json!({})).await;
    let a2 = m.pod("default", "a2", "node-1", json!({})).await;
    m.job("j1", "default", "a1", gate()).await;
    waiting_on_gate(&m, "j1").await;
    m.patch_job("j1", json!({"spec": {"paused": true}})).await;
    m.settle().await;
    m.pods("default")
        .delete("a1", &Default::default())
        .await
        .expect("someone else deletes a1");
    m.pod_gone("default", "a1", &uid(&a1)).await;
    m.settle().await;
    let j1 = m.get_job("j1").await.expect("j1");
    assert!(
        admitted(&j1) && !is_terminal(&j1),
        "j1 still migrating: {j1:#}"
    );

    m.job("j2", "default", "a2", json!({})).await;
    m.settle().await;
    assert_waits_for_admission(&m.get_job("j2").await.expect("j2"));

    // j1 resumes, finds its pod missing and ends: its slot goes to j2.
    m.patch_job("j1", json!({"spec": {"paused": false}})).await;
    let j1 = m.wait_ended("j1", "Failed").await;
    assert_eq!(
        (summary(&j1).2, summary(&j1).3),
        ("MissingPod".into(), says::missing_pod("default", "a1"))
    );
    assert_succeeded(&m, "j2", "default", "a2", &uid(&a2)).await;
}

const NAMESPACES: usize = 4;
const DEPLOYMENTS_PER_NAMESPACE: usize = 5;
const REPLICAS: usize = 10;
const NODES: usize = 5;
const PER_NODE: usize = 3;
const PER_NAMESPACE: usize = 4;
const GLOBALLY: usize = 10;
const PER_WORKLOAD: usize = 2;
/// Unavailable pods allowed per workload (replacements still starting count).
const UNAVAILABLE_PER_WORKLOAD: usize = 3;

/// Where each job's pod is: (node, namespace, workload).
type Placement = BTreeMap<String, (String, String, String)>;

/// Follows the jobs one watch event at a time; after each, counts the admitted
/// non-terminal jobs per node, namespace, workload and in all, and keeps every excess and
/// the peaks.
#[derive(Default)]
struct Observer {
    jobs: BTreeMap<String, Value>,
    excesses: Vec<String>,
    peak_global: usize,
    events: usize,
}

impl Observer {
    fn observe(&mut self, placement: &Placement) {
        self.events += 1;
        let mut per_node: BTreeMap<&str, usize> = BTreeMap::new();
        let mut per_namespace: BTreeMap<&str, usize> = BTreeMap::new();
        let mut per_workload: BTreeMap<(&str, &str), usize> = BTreeMap::new();
        let mut global = 0;
        let mut who: BTreeMap<(&str, &str), Vec<String>> = BTreeMap::new();
        for (name, job) in &self.jobs {
            if !admitted(job) || is_terminal(job) {
                continue;
            }
            let Some((node, namespace, workload)) = placement.get(name) else {
                continue;
            };
            global += 1;
            *per_node.entry(node).or_default() += 1;
            *per_namespace.entry(namespace).or_default() += 1;
            *per_workload.entry((namespace, workload)).or_default() += 1;
            who.entry((namespace, workload)).or_default().push(format!(
                "{name} ({}, {:?})",
                field(job, "/status/phase").unwrap_or("no phase"),
                field(job, "/status/status")
            ));
        }
        self.peak_global = self.peak_global.max(global);
        let mut excess = Vec::new();
        if global > GLOBALLY {
            excess.push(format!("{global} globally"));
        }
        excess.extend(
            per_node
                .iter()
                .filter(|(_, n)| **n > PER_NODE)
                .map(|(k, n)| format!("{n} on {k}")),
        );
        excess.extend(
            per_namespace
                .iter()
                .filter(|(_, n)| **n > PER_NAMESPACE)
                .map(|(k, n)| format!("{n} in namespace {k}")),
        );
        excess.extend(
            per_workload
                .iter()
                .filter(|(_, n)| **n > PER_WORKLOAD)
                .map(|(k, n)| format!("{n} of workload {k:?}: {:?}", who.get(k))),
        );
        if !excess.is_empty() {
            self.excesses.push(format!(
                "at watch event {}: {}",
                self.events,
                excess.join(", ")
            ));
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_hundred_jobs_never_exceed_the_limits_and_all_succeed() {
    two_hundred_jobs(&[]).await;
}

/// The same run with the executor stopped and replaced by a fresh one (empty caches, no
/// memory) each time 50, 100 and 150 jobs have ended: admissions written before the stop keep
/// their slots, and nothing the old executor started is lost or breaks a limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarted_executors_keep_the_limits_and_finish_every_job() {
    two_hundred_jobs(&[50, 100, 150]).await;
}

/// 200 jobs under small limits, checked at every watch event; the executor is restarted once
/// each count in `restart_after` of jobs has ended.
async fn two_hundred_jobs(restart_after: &[usize]) {
    let per_node = PER_NODE.to_string();
    let per_namespace = PER_NAMESPACE.to_string();
    let globally = GLOBALLY.to_string();
    let per_workload = PER_WORKLOAD.to_string();
    let unavailable_per_workload = UNAVAILABLE_PER_WORKLOAD.to_string();
    let started = std::time::Instant::now();
    let mut m = Member::without_executor(NODES, Time::System).await;

    // 4 namespaces × 5 Deployments × 10 replicas, spread over 5 nodes.
    let mut placement = Placement::new();
    let mut targets = Vec::new();
    for n in 0..NAMESPACES {
        let namespace = format!("team-{n}");
        for d in 0..DEPLOYMENTS_PER_NAMESPACE {
            let workload = format!("app-{d}");
            for pod in m.deployment(&namespace, &workload, REPLICAS).await {
                let job = format!("job-{n}-{d}-{}", name(&pod));
                placement.insert(
                    job.clone(),
                    (node(&pod), namespace.clone(), workload.clone()),
                );
                targets.push((job, namespace.clone(), name(&pod)));
            }
        }
    }
    assert_eq!(targets.len(), 200);

    let observer = Arc::new(Mutex::new(Observer::default()));
    let placement = Arc::new(placement);
    let (listed, mut listed_rx) = tokio::sync::watch::channel(false);
    let follow = {
        let (observer, placement, api) = (observer.clone(), placement.clone(), m.jobs());
        tokio::spawn(async move {
            let mut events = watcher(api, watcher::Config::default()).boxed();
            while let Some(event) = events.next().await {
                let Ok(event) = event else { continue };
                let mut o = observer.lock().unwrap_or_else(PoisonError::into_inner);
                match event {
                    watcher::Event::Init => o.jobs.clear(),
                    watcher::Event::InitApply(j) | watcher::Event::Apply(j) => {
                        let j = to_json(&j);
                        let name = field(&j, "/metadata/name").unwrap_or("").to_string();
                        o.jobs.insert(name, j);
                        o.observe(&placement);
                    }
                    watcher::Event::Delete(j) => {
                        let name = j.metadata.name.clone().unwrap_or_default();
                        o.jobs.remove(&name);
                        o.observe(&placement);
                    }
                    watcher::Event::InitDone => {
                        let _ = listed.send(true);
                    }
                }
            }
        })
    };
    listed_rx
        .wait_for(|l| *l)
        .await
        .expect("the observer lists the jobs");

    m.start_executor(&[
        "--pmj-max-migrating-per-node",
        &per_node,
        "--pmj-max-migrating-per-namespace",
        &per_namespace,
        "--pmj-max-migrating-globally",
        &globally,
        "--pmj-max-migrating-per-workload",
        &per_workload,
        "--pmj-max-unavailable-per-workload",
        &unavailable_per_workload,
    ])
    .await;
    for (job, namespace, pod) in &targets {
        m.job(job, namespace, pod, json!({})).await;
    }

    let names: BTreeSet<String> = targets.iter().map(|t| t.0.clone()).collect();
    let flags = [
        "--pmj-max-migrating-per-node",
        &per_node,
        "--pmj-max-migrating-per-namespace",
        &per_namespace,
        "--pmj-max-migrating-globally",
        &globally,
        "--pmj-max-migrating-per-workload",
        &per_workload,
        "--pmj-max-unavailable-per-workload",
        &unavailable_per_workload,
    ];
    for &count in restart_after {
        eventually(&format!("{count} jobs are terminal"), || async {
            let o = observer.lock().unwrap_or_else(PoisonError::into_inner);
            let ended = names
                .iter()
                .filter_map(|n| o.jobs.get(n))
                .filter(|j| is_terminal(j))
                .count();
            (ended >= count).then_some(())
        })
        .await;
        m.stop_executor().await;
        m.start_executor(&flags).await;
    }
    let done = eventually("all 200 jobs are terminal", || async {
        let o = observer.lock().unwrap_or_else(PoisonError::into_inner);
        let terminal: Vec<&Value> = names
            .iter()
            .filter_map(|n| o.jobs.get(n))
            .filter(|j| is_terminal(j))
            .collect();
        (terminal.len() == names.len())
            .then(|| terminal.iter().map(|j| summary(j)).collect::<Vec<_>>())
    })
    .await;
    follow.abort();
    eprintln!(
        "200 jobs terminal after {:?} (pods and jobs set up included)",
        started.elapsed()
    );
    let (excesses, peak_global, events) = {
        let o = observer.lock().unwrap_or_else(PoisonError::into_inner);
        (o.excesses.clone(), o.peak_global, o.events)
    };
    let failed: Vec<_> = done.iter().filter(|s| s.0 != "Succeeded").collect();
    assert!(failed.is_empty(), "every job succeeds: {failed:#?}");
    assert!(
        excesses.is_empty(),
        "limits exceeded at {} of {events} watch events; the first: {:#?}",
        excesses.len(),
        &excesses[..excesses.len().min(5)]
    );
    assert!(
        peak_global >= 2,
        "jobs ran side by side (peak {peak_global}), so the limits were exercised"
    );
    for (job, namespace, pod) in &targets {
        assert!(
            m.get_pod(namespace, pod).await.is_none(),
            "{job}: {namespace}/{pod} evicted"
        );
    }
    m.stop_executor().await;
}
