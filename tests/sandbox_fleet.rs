//! The assembled sandbox fleet: members registered on the hub as in production, a simulated
//! placement's workloads running on every member (seen with the real kubectl), and a
//! binding's Available condition following the member's real pod readiness.

use fleet_eviction::api::keys::MEMBER_CLUSTER_LABEL;
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::sandbox::fleet::registration::{SYSTEM_NAMESPACE, member_cluster_resource};
use fleet_eviction::sandbox::fleet::{Fleet, FleetOptions};
use fleet_eviction::sandbox::sim::member::BROKEN_ANNOTATION;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::api::{Api, DynamicObject, ListParams, Patch, PatchParams, PostParams};
use serde_json::{Value, json};
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(20);

async fn fleet(dir: &std::path::Path) -> Fleet {
    let opts = FleetOptions {
        members: 3,
        nodes_per_member: 3,
        dir: dir.to_path_buf(),
        seed: 11,
        clock: Arc::new(SystemClock),
    };
    Fleet::start(&opts).await.expect("fleet starts")
}

fn resource(group: &str, kind: &str, plural: &str) -> kube::api::ApiResource {
    kube::api::ApiResource {
        group: group.into(),
        version: "v1beta1".into(),
        api_version: format!("{group}/v1beta1"),
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// Polls `check` until it yields, within `WAIT`.
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

async fn place_web(fleet: &Fleet) {
    let hub = fleet.hub.client();
    let ns: k8s_openapi::api::core::v1::Namespace =
        serde_json::from_value(json!({"metadata": {"name": "web"}})).expect("ns");
    Api::all(hub.clone())
        .create(&PostParams::default(), &ns)
        .await
        .expect("namespace");
    let deployment: k8s_openapi::api::apps::v1::Deployment = serde_json::from_value(json!({
        "metadata": {"name": "web", "namespace": "web"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "web"}},
                 "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "web", "image": "nginx"}]}}}
    })).expect("deployment");
    Api::namespaced(hub.clone(), "web")
        .create(&PostParams::default(), &deployment)
        .await
        .expect("deployment");
    let crp: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1", "kind": "ClusterResourcePlacement",
        "metadata": {"name": "web", "labels": {"sandbox.fleet-eviction.io/simulate": "true"}},
        "spec": {"resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": "web"}], "policy": {"placementType": "PickAll"}}
    })).expect("crp");
    let crps: Api<DynamicObject> = Api::all_with(
        hub,
        &resource(
            "placement.kubernetes-fleet.io",
            "ClusterResourcePlacement",
            "clusterresourceplacements",
        ),
    );
    crps.create(&PostParams::default(), &crp)
        .await
        .expect("crp");
}

fn condition(binding: &DynamicObject, kind: &str) -> Option<String> {
    binding.data["status"]["conditions"]
        .as_array()?
        .iter()
        .find(|c| c["type"] == kind)
        .and_then(|c| c["status"].as_str().map(str::to_string))
}

async fn bindings(fleet: &Fleet) -> Vec<DynamicObject> {
    let api: Api<DynamicObject> = Api::all_with(
        fleet.hub.client(),
        &resource(
            "placement.kubernetes-fleet.io",
            "ClusterResourceBinding",
            "clusterresourcebindings",
        ),
    );
    api.list(&ListParams::default())
        .await
        .expect("bindings")
        .items
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn members_are_registered_as_in_production() {
    let dir = tempfile::tempdir().expect("dir");
    let fleet = fleet(dir.path()).await;
    let hub = fleet.hub.client();
    let members: Api<DynamicObject> = Api::all_with(hub.clone(), &member_cluster_resource());
    let names: Vec<String> = members
        .list(&ListParams::default())
        .await
        .expect("members")
        .items
        .into_iter()
        .filter_map(|m| m.metadata.name)
        .collect();
    assert_eq!(names, ["member-1", "member-2", "member-3"]);
    let secrets: Api<Secret> = Api::namespaced(hub, SYSTEM_NAMESPACE);
    let listed = secrets
        .list(&ListParams::default().labels(&format!("{MEMBER_CLUSTER_LABEL}=member-2")))
        .await
        .expect("secrets");
    assert_eq!(listed.items.len(), 1);
    let text = listed.items[0]
        .data
        .as_ref()
        .and_then(|d| d.get("kubeconfig"))
        .map(|b| String::from_utf8_lossy(&b.0).into_owned())
        .expect("kubeconfig key");
    let config: kube::config::Kubeconfig = serde_saphyr::from_str(&text).expect("a kubeconfig");
    let url = config.clusters[0]
        .cluster
        .as_ref()
        .and_then(|c| c.server.clone())
        .expect("server");
    assert_eq!(url, fleet.member("member-2").expect("member-2").http.url());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placed_pods_run_on_every_member_and_kubectl_sees_them() {
    let dir = tempfile::tempdir().expect("dir");
    let fleet = fleet(dir.path()).await;
    place_web(&fleet).await;
    eventually("three bindings Available", || async {
        let b = bindings(&fleet).await;
        (b.len() == 3
            && b.iter()
                .all(|b| condition(b, "Available").as_deref() == Some("True")))
        .then_some(())
    })
    .await;
    let out = Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(dir.path().join("member-1.kubeconfig"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(["get", "pods", "-A", "-o", "json"])
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pods: Value = serde_json::from_slice(&out.stdout).expect("json");
    let running: Vec<&Value> = pods["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|p| p["metadata"]["namespace"] == "web" && p["status"]["phase"] == "Running")
        .collect();
    assert_eq!(running.len(), 2, "{pods}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn availability_follows_the_members_pods() {
    let dir = tempfile::tempdir().expect("dir");
    let fleet = fleet(dir.path()).await;
    place_web(&fleet).await;
    let on_member_2 = || async {
        bindings(&fleet)
            .await
            .into_iter()
            .find(|b| b.data["spec"]["targetCluster"] == "member-2")
            .and_then(|b| condition(&b, "Available"))
    };
    eventually("member-2 Available", || async {
        (on_member_2().await.as_deref() == Some("True")).then_some(())
    })
    .await;
    let pods: Api<Pod> =
        Api::namespaced(fleet.member("member-2").expect("member-2").client(), "web");
    let victim = pods.list(&ListParams::default()).await.expect("pods").items[0]
        .metadata
        .name
        .clone()
        .expect("name");
    let broken = json!({"metadata": {"annotations": {BROKEN_ANNOTATION: "true"}}});
    pods.patch(&victim, &PatchParams::default(), &Patch::Merge(broken))
        .await
        .expect("break");
    eventually("member-2 not Available", || async {
        (on_member_2().await.as_deref() == Some("False")).then_some(())
    })
    .await;
    let repaired = json!({"metadata": {"annotations": {BROKEN_ANNOTATION: null}}});
    pods.patch(&victim, &PatchParams::default(), &Patch::Merge(repaired))
        .await
        .expect("repair");
    eventually("member-2 Available again", || async {
        (on_member_2().await.as_deref() == Some("True")).then_some(())
    })
    .await;
}
