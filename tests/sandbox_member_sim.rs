//! The member-cluster simulation against a sandbox API server: in process on a virtual clock,
//! then `kubectl drain` over HTTP against budgets on the wall clock.

use fleet_eviction::runtime::clock::ManualClock;
use fleet_eviction::sandbox::apiserver::front;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::sim::member::{BROKEN_ANNOTATION, MemberSim, SimHandle, create_nodes};
use k8s_openapi::api::apps::v1::{Deployment, StatefulSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::jiff::SignedDuration;
use kube::Client;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::sync::Arc;

#[path = "sandbox_member_sim/drain.rs"]
mod drain;
#[path = "sandbox_member_sim/pods.rs"]
mod pods;

use pods::{deployment, eventually, is_ready, is_terminating, name_of, node_of, ready_pods};

struct Member {
    client: Client,
    clock: Arc<ManualClock>,
    pods: Api<Pod>,
    _sim: SimHandle,
}

async fn member(nodes: usize) -> Member {
    let clock = ManualClock::new("2026-03-01T12:00:00Z".parse().expect("time"));
    let server = ApiServer::new(ServerConfig {
        name: "member-1".into(),
        clock: clock.clone(),
        ..Default::default()
    });
    let client = front::client(&server);
    create_nodes(&client, nodes)
        .await
        .expect("nodes registered");
    let sim = MemberSim::start(client.clone(), clock.clone());
    let pods = Api::namespaced(client.clone(), "default");
    Member {
        client,
        clock,
        pods,
        _sim: sim,
    }
}

async fn create<K>(client: &Client, object: Value) -> K
where
    K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + serde::Serialize
        + std::fmt::Debug,
{
    let api: Api<K> = Api::namespaced(client.clone(), "default");
    let object: K = serde_json::from_value(object).expect("object");
    api.create(&PostParams::default(), &object)
        .await
        .expect("created")
}

fn nodes_of(pods: &[Pod]) -> Vec<String> {
    let mut nodes: Vec<String> = pods.iter().map(node_of).collect();
    nodes.sort();
    nodes
}

#[tokio::test]
async fn a_deployment_runs_ready_pods_spread_one_per_node() {
    let m = member(3).await;
    create::<Deployment>(&m.client, deployment("web", 3, 30)).await;
    let pods = ready_pods(&m.pods, "web", 3).await;
    assert_eq!(
        nodes_of(&pods),
        ["node-1", "node-2", "node-3"],
        "one per node"
    );
    for pod in &pods {
        let status = pod.status.clone().unwrap_or_default();
        assert!(
            status.pod_ip.is_some() && status.start_time.is_some(),
            "{status:?}"
        );
        let owner = &pod.metadata.owner_references.as_ref().expect("owned")[0];
        assert_eq!(
            (owner.kind.as_str(), owner.controller),
            ("ReplicaSet", Some(true))
        );
        assert!(
            name_of(pod).starts_with(&format!("{}-", owner.name)),
            "generated from the ReplicaSet's name"
        );
    }
    let deployments: Api<Deployment> = Api::namespaced(m.client.clone(), "default");
    let status = eventually("the deployment reports 3 available", || async {
        let status = deployments.get("web").await.ok()?.status?;
        (status.available_replicas == Some(3)).then_some(status)
    })
    .await;
    assert_eq!(
        (
            status.replicas,
            status.ready_replicas,
            status.updated_replicas
        ),
        (Some(3), Some(3), Some(3))
    );
    let available = status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Available");
    assert_eq!(available.map(|c| c.status).as_deref(), Some("True"));
}

#[tokio::test]
async fn a_deleted_pod_is_replaced_while_it_terminates() {
    let m = member(3).await;
    create::<Deployment>(&m.client, deployment("web", 3, 30)).await;
    let before = ready_pods(&m.pods, "web", 3).await;
    let victim = name_of(&before[0]);
    m.pods
        .delete(&victim, &DeleteParams::default())
        .await
        .expect("deleted");
    // The terminating pod no longer counts: a replacement is made at once.
    let after = ready_pods(&m.pods, "web", 3).await;
    assert!(!after.iter().any(|p| name_of(p) == victim));
    assert_eq!(
        nodes_of(&after),
        ["node-1", "node-2", "node-3"],
        "still one per node"
    );
    let old = m
        .pods
        .get(&victim)
        .await
        .expect("still there within its grace period");
    assert!(is_terminating(&old));
}

#[tokio::test]
async fn a_stateful_set_pod_comes_back_under_its_name_once_gone() {
    let m = member(2).await;
    let set = json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
        "metadata": {"name": "db", "namespace": "default"},
        "spec": {"replicas": 2, "serviceName": "db", "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}},
                "spec": {"containers": [{"name": "db", "image": "postgres"}]}}}});
    create::<StatefulSet>(&m.client, set).await;
    let pods = ready_pods(&m.pods, "db", 2).await;
    let mut names: Vec<String> = pods.iter().map(name_of).collect();
    names.sort();
    assert_eq!(names, ["db-0", "db-1"]);
    let old_uid = m.pods.get("db-1").await.expect("db-1").metadata.uid;
    m.pods
        .delete("db-1", &DeleteParams::default())
        .await
        .expect("deleted");
    assert!(is_terminating(
        &m.pods.get("db-1").await.expect("terminating")
    ));
    m.clock.advance(SignedDuration::from_secs(31));
    let again = eventually("db-1 re-created and ready", || async {
        let pod = m.pods.get("db-1").await.ok()?;
        (pod.metadata.uid != old_uid && is_ready(&pod)).then_some(pod)
    })
    .await;
    assert!(!is_terminating(&again));
}

#[tokio::test]
async fn a_cordoned_node_gets_no_new_pods() {
    let m = member(3).await;
    let nodes: Api<Node> = Api::all(m.client.clone());
    let cordon = Patch::Merge(json!({"spec": {"unschedulable": true}}));
    nodes
        .patch("node-1", &PatchParams::default(), &cordon)
        .await
        .expect("cordoned");
    // The node controller's taint shows the simulation has seen the cordon.
    eventually("the unschedulable taint", || async {
        let taints = nodes.get("node-1").await.ok()?.spec?.taints?;
        taints
            .iter()
            .any(|t| t.key == "node.kubernetes.io/unschedulable")
            .then_some(())
    })
    .await;
    create::<Deployment>(&m.client, deployment("web", 4, 30)).await;
    let pods = ready_pods(&m.pods, "web", 4).await;
    assert_eq!(nodes_of(&pods), ["node-2", "node-2", "node-3", "node-3"]);
}

#[tokio::test]
async fn without_a_schedulable_node_a_pod_stays_pending_and_unschedulable() {
    let m = member(0).await;
    let pod = json!({"metadata": {"name": "lonely"}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}});
    create::<Pod>(&m.client, pod).await;
    let condition = eventually("PodScheduled=False", || async {
        let status = m.pods.get("lonely").await.ok()?.status?;
        status
            .conditions?
            .into_iter()
            .find(|c| c.type_ == "PodScheduled")
    })
    .await;
    assert_eq!(
        (condition.status.as_str(), condition.reason.as_deref()),
        ("False", Some("Unschedulable"))
    );
    let pod = m.pods.get("lonely").await.expect("pod");
    assert_eq!(pod.status.and_then(|s| s.phase).as_deref(), Some("Pending"));
}

/// Waits until the simulation has completed a whole pass after this call: a marker pod made
/// Running proves one pass saw the present; a second proves that pass's changes were sent.
async fn settled(m: &Member, round: usize) {
    for step in 0..2 {
        let name = format!("marker-{round}-{step}");
        let pod = json!({"metadata": {"name": name, "labels": {"app": "marker"}},
            "spec": {"containers": [{"name": "c", "image": "pause"}]}});
        create::<Pod>(&m.client, pod).await;
        eventually(&format!("{name} running"), || async {
            m.pods.get(&name).await.ok().filter(is_ready)
        })
        .await;
    }
}

#[tokio::test]
async fn a_graceful_deletion_ends_when_the_grace_period_has_passed() {
    let m = member(1).await;
    let pod = json!({"metadata": {"name": "slow", "labels": {"app": "slow"}},
        "spec": {"terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "nginx"}]}});
    create::<Pod>(&m.client, pod).await;
    ready_pods(&m.pods, "slow", 1).await;
    m.pods
        .delete("slow", &DeleteParams::default())
        .await
        .expect("deleted");
    let deleting = m.pods.get("slow").await.expect("terminating");
    assert_eq!(
        deleting
            .metadata
            .deletion_timestamp
            .map(|t| t.0.to_string())
            .as_deref(),
        Some("2026-03-01T12:00:30Z")
    );
    m.clock.advance(SignedDuration::from_secs(29));
    settled(&m, 1).await;
    assert!(
        m.pods.get("slow").await.is_ok(),
        "still terminating one second before the deadline"
    );
    m.clock.advance(SignedDuration::from_secs(2));
    eventually("the pod gone", || async {
        m.pods.get_opt("slow").await.ok().filter(Option::is_none)
    })
    .await;
}

#[tokio::test]
async fn a_broken_pod_goes_unready_and_recovers_when_repaired() {
    let m = member(2).await;
    create::<Deployment>(&m.client, deployment("web", 2, 30)).await;
    let pods = ready_pods(&m.pods, "web", 2).await;
    let victim = name_of(&pods[0]);
    let annotate = |value: Value| {
        Patch::Merge(json!({"metadata": {"annotations": {BROKEN_ANNOTATION: value}}}))
    };
    m.pods
        .patch(&victim, &PatchParams::default(), &annotate(json!("true")))
        .await
        .expect("broken");
    let broken = eventually("the pod unready", || async {
        let pod = m.pods.get(&victim).await.ok()?;
        (!is_ready(&pod)).then_some(pod)
    })
    .await;
    let status = broken.status.unwrap_or_default();
    assert_eq!(status.phase.as_deref(), Some("Running"), "still running");
    let ready = status
        .conditions
        .unwrap_or_default()
        .into_iter()
        .find(|c| c.type_ == "Ready")
        .expect("Ready");
    assert_eq!(ready.reason.as_deref(), Some("ContainersNotReady"));
    m.pods
        .patch(&victim, &PatchParams::default(), &annotate(Value::Null))
        .await
        .expect("repaired");
    let names: BTreeSet<String> = ready_pods(&m.pods, "web", 2)
        .await
        .iter()
        .map(name_of)
        .collect();
    assert!(
        names.contains(&victim),
        "the same pod recovered, not replaced: {names:?}"
    );
}
