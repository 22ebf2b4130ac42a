//! Reading the simulated pods, and waiting for them with a deadline.

use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, ListParams};
use serde_json::{Value, json};
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

const WAIT: Duration = Duration::from_secs(20);

/// Polls `probe` until it returns a value, failing after `WAIT`.
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = Instant::now() + WAIT;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

pub fn is_ready(pod: &Pod) -> bool {
    let status = pod.status.as_ref();
    status.and_then(|s| s.phase.as_deref()) == Some("Running")
        && status
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

pub fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

pub fn node_of(pod: &Pod) -> String {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.clone())
        .unwrap_or_default()
}

pub fn name_of(pod: &Pod) -> String {
    pod.metadata.name.clone().unwrap_or_default()
}

/// `replicas` pods labelled `app: <name>`, with the given grace period.
pub fn deployment(name: &str, replicas: i32, grace: i64) -> Value {
    json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                "spec": {"terminationGracePeriodSeconds": grace,
                         "containers": [{"name": "app", "image": "nginx"}]}}}})
}

/// The pods labelled `app: <app>`, once exactly `count` are active and all of those Ready.
pub async fn ready_pods(pods: &Api<Pod>, app: &str, count: usize) -> Vec<Pod> {
    let params = ListParams::default().labels(&format!("app={app}"));
    eventually(&format!("{count} ready {app} pods"), || async {
        let list = pods.list(&params).await.ok()?;
        let active: Vec<Pod> = list
            .items
            .into_iter()
            .filter(|p| !is_terminating(p))
            .collect();
        (active.len() == count && active.iter().all(is_ready)).then_some(active)
    })
    .await
}
