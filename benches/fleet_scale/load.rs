//! Load and its timing: creating evictions (all at once, or at a steady rate) and a watcher
//! that notes when each eviction is first seen with a terminal verdict (`Valid=False` or
//! any `Executed`). Latency is from the start of the create call to that watch event.

use super::plan::Eviction;
use futures::StreamExt;
use kube::api::{Api, ApiResource, DynamicObject, PostParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, watch};
use tokio::task::JoinHandle;

pub fn eviction_resource() -> ApiResource {
    ApiResource {
        group: "placement.kubernetes-fleet.io".into(),
        version: "v1beta1".into(),
        api_version: "placement.kubernetes-fleet.io/v1beta1".into(),
        kind: "ClusterResourcePlacementEviction".into(),
        plural: "clusterresourceplacementevictions".into(),
    }
}

pub fn evictions_api(client: &kube::Client) -> Api<DynamicObject> {
    Api::all_with(client.clone(), &eviction_resource())
}

/// The eviction's conditions as (type, status, message).
pub fn conditions(object: &DynamicObject) -> Vec<(String, String, String)> {
    let text = |c: &Value, key: &str| c[key].as_str().unwrap_or_default().to_string();
    object.data["status"]["conditions"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|c| (text(c, "type"), text(c, "status"), text(c, "message")))
                .collect()
        })
        .unwrap_or_default()
}

/// `Valid=False` or any `Executed`: a plain eviction is never decided again.
pub fn is_terminal(object: &DynamicObject) -> bool {
    conditions(object)
        .iter()
        .any(|(t, s, _)| t == "Executed" || (t == "Valid" && s == "False"))
}

/// When each eviction was first seen terminal.
pub struct Terminals {
    seen: Mutex<HashMap<String, Instant>>,
    changed: Notify,
    synced: watch::Sender<bool>,
    task: Mutex<Option<JoinHandle<()>>>,
}

impl Terminals {
    /// Starts watching; resolves once the watch has its initial list.
    pub async fn watch(client: &kube::Client) -> Arc<Terminals> {
        let terminals = Arc::new(Terminals {
            seen: Mutex::default(),
            changed: Notify::new(),
            synced: watch::channel(false).0,
            task: Mutex::default(),
        });
        let api = evictions_api(client);
        let follower = terminals.clone();
        let task = tokio::spawn(async move { follower.follow(api).await });
        *terminals
            .task
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(task);
        let mut synced = terminals.synced.subscribe();
        // The sender lives in `terminals`, so this only ends once synced.
        let _ = synced.wait_for(|s| *s).await;
        terminals
    }

    async fn follow(&self, api: Api<DynamicObject>) {
        let stream = watcher::watcher(api, watcher::Config::default()).default_backoff();
        futures::pin_mut!(stream);
        while let Some(event) = stream.next().await {
            let now = Instant::now();
            match event {
                Ok(Event::Apply(object) | Event::InitApply(object)) => self.note(&object, now),
                Ok(Event::InitDone) => {
                    self.synced.send_replace(true);
                }
                Ok(Event::Init | Event::Delete(_)) => {}
                Err(e) => eprintln!("eviction watch failed, retrying: {e}"),
            }
        }
    }

    fn note(&self, object: &DynamicObject, now: Instant) {
        if !is_terminal(object) {
            return;
        }
        let Some(name) = object.metadata.name.clone() else {
            return;
        };
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(name)
            .or_insert(now);
        self.changed.notify_waiters();
    }

    pub fn get(&self, name: &str) -> Option<Instant> {
        self.seen
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .copied()
    }

    fn missing(&self, names: &[String]) -> usize {
        let seen = self.seen.lock().unwrap_or_else(PoisonError::into_inner);
        names.iter().filter(|n| !seen.contains_key(*n)).count()
    }

    /// Waits until every one of `names` was seen terminal, or `limit` passes; returns how
    /// many were not.
    pub async fn wait_all(&self, names: &[String], limit: Duration) -> usize {
        let deadline = Instant::now() + limit;
        loop {
            let notified = self.changed.notified();
            let missing = self.missing(names);
            if missing == 0 || Instant::now() >= deadline {
                return missing;
            }
            // A bounded wait: a change between the count and here is seen on the next turn.
            let _ = tokio::time::timeout(Duration::from_millis(200), notified).await;
        }
    }

    pub fn stop(&self) {
        if let Some(task) = self
            .task
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            task.abort();
        }
    }
}

/// An eviction's create call: when it started, and how it ended.
pub struct Created {
    pub name: String,
    pub started: Instant,
    pub error: Option<String>,
}

fn eviction_object(eviction: &Eviction) -> Result<DynamicObject, String> {
    serde_json::from_value(json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacementEviction",
        "metadata": {"name": eviction.name},
        "spec": {"placementName": eviction.placement, "clusterName": eviction.cluster},
    }))
    .map_err(|e| format!("eviction {}: {e}", eviction.name))
}

async fn create_one(api: Api<DynamicObject>, eviction: Eviction) -> Created {
    let started = Instant::now();
    let error = match eviction_object(&eviction) {
        Ok(object) => api
            .create(&PostParams::default(), &object)
            .await
            .err()
            .map(|e| e.to_string()),
        Err(e) => Some(e),
    };
    Created {
        name: eviction.name,
        started,
        error,
    }
}

/// Every eviction's create call issued at once.
pub async fn burst(client: &kube::Client, evictions: &[Eviction]) -> Vec<Created> {
    let api = evictions_api(client);
    futures::future::join_all(
        evictions
            .iter()
            .map(|e| tokio::spawn(create_one(api.clone(), e.clone()))),
    )
    .await
    .into_iter()
    .zip(evictions)
    .map(|(joined, e)| joined.unwrap_or_else(|j| failed_task(e, &j)))
    .collect()
}

/// One create call every 1/rate seconds, each on its own task (a slow answer does not delay
/// the next arrival).
pub async fn steady(client: &kube::Client, evictions: &[Eviction], rate: f64) -> Vec<Created> {
    let api = evictions_api(client);
    let mut ticks = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    let mut tasks = Vec::with_capacity(evictions.len());
    for e in evictions {
        ticks.tick().await;
        tasks.push(tokio::spawn(create_one(api.clone(), e.clone())));
    }
    let mut created = Vec::with_capacity(tasks.len());
    for (task, e) in tasks.into_iter().zip(evictions) {
        created.push(task.await.unwrap_or_else(|j| failed_task(e, &j)));
    }
    created
}

fn failed_task(e: &Eviction, j: &tokio::task::JoinError) -> Created {
    Created {
        name: e.name.clone(),
        started: Instant::now(),
        error: Some(format!("create task failed: {j}")),
    }
}

/// What a load's timing came to.
pub struct Timing {
    /// Creation→terminal of each eviction seen terminal, sorted.
    pub latencies: Vec<Duration>,
    /// From the first create call to the last terminal event.
    pub span: Duration,
}

impl Timing {
    pub fn of(created: &[Created], terminals: &Terminals) -> Timing {
        let mut latencies: Vec<Duration> = created
            .iter()
            .filter_map(|c| terminals.get(&c.name).map(|t| t.duration_since(c.started)))
            .collect();
        latencies.sort();
        let first = created.iter().map(|c| c.started).min();
        let last = created.iter().filter_map(|c| terminals.get(&c.name)).max();
        let span = match (first, last) {
            (Some(first), Some(last)) => last.duration_since(first),
            _ => Duration::ZERO,
        };
        Timing { latencies, span }
    }

    /// Nearest-rank percentile.
    pub fn percentile(&self, p: f64) -> Duration {
        if self.latencies.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((p / 100.0) * self.latencies.len() as f64).ceil() as usize;
        self.latencies[rank.clamp(1, self.latencies.len()) - 1]
    }

    pub fn max(&self) -> Duration {
        self.latencies.last().copied().unwrap_or_default()
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

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
