//! The workload resolver of the PodMigrationJob executor against the in-process sandbox API
//! server: which workload a pod belongs to, its replicas, memoised ReplicaSet reads, and
//! errors returned rather than guessed.

use fleet_eviction::pod::executor::workloads::{WorkloadRef, Workloads};
use fleet_eviction::pod::facts::PodView;
use fleet_eviction::sandbox::apiserver::faults::{ErrorRule, FaultSettings};
use fleet_eviction::sandbox::apiserver::front;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::Api;
use kube::api::PostParams;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use std::fmt;
use std::sync::Arc;

const NS: &str = "shop";

async fn sandbox() -> (Arc<ApiServer>, kube::Client) {
    let server = ApiServer::new(ServerConfig::default());
    let client = front::client(&server);
    let namespace: Namespace =
        serde_json::from_value(json!({"metadata": {"name": NS}})).expect("namespace");
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("namespace created");
    (server, client)
}

/// Creates `object` in the test namespace; returns its uid.
async fn create<K>(client: &kube::Client, object: Value) -> String
where
    K: kube::Resource<Scope = NamespaceResourceScope, DynamicType = ()>
        + Clone
        + DeserializeOwned
        + serde::Serialize
        + fmt::Debug,
{
    let object: K = serde_json::from_value(object).expect("object");
    let created = Api::<K>::namespaced(client.clone(), NS)
        .create(&PostParams::default(), &object)
        .await
        .expect("created");
    created.meta().uid.clone().expect("uid")
}

/// An owner reference marked as the controller.
fn controller(api_version: &str, kind: &str, name: &str, uid: &str) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid, "controller": true})
}

/// A Deployment, ReplicaSet or StatefulSet spec; `replicas: None` leaves the field out.
fn workload(name: &str, replicas: Option<i32>, owner: Option<Value>) -> Value {
    let mut spec = json!({
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}},
                     "spec": {"containers": [{"name": "app", "image": "nginx"}]}}
    });
    if let Some(n) = replicas {
        spec["replicas"] = json!(n);
    }
    let mut metadata = json!({"name": name, "namespace": NS});
    if let Some(owner) = owner {
        metadata["ownerReferences"] = json!([owner]);
    }
    json!({"metadata": metadata, "spec": spec})
}

fn pod(owner: Option<Value>) -> PodView {
    let mut metadata = json!({"name": "p", "namespace": NS, "uid": "pod-uid"});
    if let Some(owner) = owner {
        // A non-controller owner first: only the controller names the workload.
        metadata["ownerReferences"] = json!([
            {"apiVersion": "v1", "kind": "ConfigMap", "name": "other", "uid": "cm"},
            owner
        ]);
    }
    let pod: Pod = serde_json::from_value(json!({"metadata": metadata})).expect("pod");
    PodView::from_pod(&pod)
}

/// The objects every table row reads; returns the Deployment's and its ReplicaSet's uids.
async fn seed(client: &kube::Client) -> (String, String) {
    let web = create::<Deployment>(client, workload("web", Some(3), None)).await;
    let owner = controller("apps/v1", "Deployment", "web", &web);
    let web_rs = create::<ReplicaSet>(client, workload("web-5d8", Some(5), Some(owner))).await;
    create::<ReplicaSet>(client, workload("lone", Some(2), None)).await;
    create::<ReplicaSet>(client, workload("plain", None, None)).await;
    let rollout = controller("argoproj.io/v1alpha1", "Rollout", "canary", "ro-1");
    create::<ReplicaSet>(client, workload("rolled", Some(4), Some(rollout))).await;
    create::<StatefulSet>(client, workload("db", Some(4), None)).await;
    (web, web_rs)
}

enum Want {
    NoWorkload,
    Replicas(&'static str, i32),
    /// The workload's key and the full error message.
    Error(&'static str, &'static str),
}

#[tokio::test]
async fn workload_and_replicas_table() {
    let (_server, client) = sandbox().await;
    let (_, web_rs) = seed(&client).await;
    let workloads = Workloads::new(client);
    let rs = |name: &str, uid: &str| Some(controller("apps/v1", "ReplicaSet", name, uid));
    let rows: Vec<(&str, Option<Value>, Want)> = vec![
        ("a bare pod has no workload", None, Want::NoWorkload),
        (
            "a ReplicaSet controlled by a Deployment: the Deployment and its replicas",
            rs("web-5d8", &web_rs),
            Want::Replicas("Deployment/shop/web", 3),
        ),
        (
            "a ReplicaSet without a controller: the ReplicaSet itself",
            rs("lone", "lone-uid"),
            Want::Replicas("ReplicaSet/shop/lone", 2),
        ),
        (
            "a ReplicaSet controlled by another kind: the ReplicaSet itself",
            rs("rolled", "rolled-uid"),
            Want::Replicas("ReplicaSet/shop/rolled", 4),
        ),
        (
            "a namesake of a deleted ReplicaSet (another uid): the pod's ReplicaSet itself",
            rs("web-5d8", "deleted-uid"),
            Want::Replicas("ReplicaSet/shop/web-5d8", 5),
        ),
        (
            "a ReplicaSet that is gone: the ReplicaSet itself; its replicas are unknown",
            rs("gone", "gone-uid"),
            Want::Error(
                "ReplicaSet/shop/gone",
                r#"cannot read the replicas of ReplicaSet "shop/gone": it was not found"#,
            ),
        ),
        (
            "a StatefulSet: itself",
            Some(controller("apps/v1", "StatefulSet", "db", "db-uid")),
            Want::Replicas("StatefulSet/shop/db", 4),
        ),
        (
            "spec.replicas absent: 1, as Kubernetes defaults it",
            rs("plain", "plain-uid"),
            Want::Replicas("ReplicaSet/shop/plain", 1),
        ),
        (
            "a ReplicationController: itself, read with a plain GET (the sandbox serves none)",
            Some(controller("v1", "ReplicationController", "rc", "rc-uid")),
            Want::Error(
                "ReplicationController/shop/rc",
                r#"cannot read the replicas of ReplicationController "shop/rc": it was not found"#,
            ),
        ),
        (
            "a kind of a group the server does not serve",
            Some(controller("example.com/v1", "Widget", "w", "w-uid")),
            Want::Error(
                "Widget/shop/w",
                r#"cannot read the replicas of Widget "shop/w": the API server serves no kind Widget in example.com/v1"#,
            ),
        ),
        (
            "a kind missing from a served group",
            Some(controller("apps/v1", "Frobnicator", "f", "f-uid")),
            Want::Error(
                "Frobnicator/shop/f",
                r#"cannot read the replicas of Frobnicator "shop/f": the API server serves no kind Frobnicator in apps/v1"#,
            ),
        ),
        (
            "a served kind without a scale subresource",
            Some(controller("v1", "ConfigMap", "settings", "cm-uid")),
            Want::Error(
                "ConfigMap/shop/settings",
                r#"cannot read the replicas of ConfigMap "shop/settings": its resource configmaps has no scale subresource"#,
            ),
        ),
        (
            "an apiVersion that is not group/version",
            Some(controller("example.com/v1/extra", "Widget", "w", "w-uid")),
            Want::Error(
                "Widget/shop/w",
                r#"cannot read the replicas of Widget "shop/w": its apiVersion "example.com/v1/extra" is not a group/version"#,
            ),
        ),
    ];
    for (rule, owner, want) in rows {
        let found = workloads
            .workload_of(&pod(owner))
            .await
            .unwrap_or_else(|e| panic!("{rule}: {e}"));
        match (found, want) {
            (None, Want::NoWorkload) => {}
            (Some(workload), Want::Replicas(key, replicas)) => {
                assert_eq!(workload.key(), key, "rule: {rule}");
                let read = workloads.replicas(&workload).await;
                assert_eq!(read.ok(), Some(replicas), "rule: {rule}");
            }
            (Some(workload), Want::Error(key, message)) => {
                assert_eq!(workload.key(), key, "rule: {rule}");
                let read = workloads.replicas(&workload).await;
                let error = read.err().map(|e| e.to_string());
                assert_eq!(error.as_deref(), Some(message), "rule: {rule}");
            }
            (found, _) => panic!("rule: {rule}: unexpected workload {found:?}"),
        }
    }
}

#[tokio::test]
async fn a_replica_set_is_read_once_for_all_its_pods() {
    let (server, client) = sandbox().await;
    let (web, web_rs) = seed(&client).await;
    let workloads = Workloads::new(client);
    let owner = controller("apps/v1", "ReplicaSet", "web-5d8", &web_rs);
    let want = WorkloadRef {
        api_version: "apps/v1".into(),
        kind: "Deployment".into(),
        namespace: NS.into(),
        name: "web".into(),
        uid: web,
    };
    for _ in 0..3 {
        let found = workloads.workload_of(&pod(Some(owner.clone()))).await;
        assert_eq!(found.ok().flatten().as_ref(), Some(&want));
    }
    assert_eq!(server.request_count("get", "replicasets"), 1, "memoised");
}

fn failing_gets(resource: &str) -> FaultSettings {
    FaultSettings {
        errors: vec![ErrorRule {
            rate: 1.0,
            code: 500,
            verb: Some("get".into()),
            resource: Some(resource.into()),
        }],
        ..FaultSettings::default()
    }
}

#[tokio::test]
async fn failed_reads_are_returned_and_not_remembered() {
    let (server, client) = sandbox().await;
    let (_, web_rs) = seed(&client).await;
    let workloads = Workloads::new(client);
    let owner = Some(controller("apps/v1", "ReplicaSet", "web-5d8", &web_rs));

    server.set_faults(failing_gets("replicasets"));
    let failed = workloads.workload_of(&pod(owner.clone())).await;
    let code = match failed {
        Err(kube::Error::Api(status)) => Some(status.code),
        _ => None,
    };
    assert_eq!(code, Some(500), "the error, not a guess");
    server.set_faults(FaultSettings::default());
    let found = workloads.workload_of(&pod(owner)).await;
    let web = found
        .ok()
        .flatten()
        .expect("read again once the server answers");
    assert_eq!(web.key(), "Deployment/shop/web");

    server.set_faults(failing_gets("deployments"));
    let failed = workloads.replicas(&web).await.map_err(|e| e.to_string());
    assert_eq!(
        failed,
        Err(r#"cannot read the replicas of Deployment "shop/web": injected fault: an error on the server has prevented the request from succeeding (500)"#.to_string())
    );
    server.set_faults(FaultSettings::default());
    assert_eq!(workloads.replicas(&web).await.ok(), Some(3), "read fresh");
}
