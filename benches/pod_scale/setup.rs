//! Builds the fleet of a plan: the sandbox's `Fleet` (hub + idle members, each member
//! registered on the hub as in production: MemberCluster + kubeconfig Secret, its
//! PodMigrationJob CRDs installed, served over HTTP), then on every member its nodes (through
//! the API, as the sandbox creates them), namespaces, workloads and pods. Workloads and pods
//! are written straight into the member's store (the sandbox's library API: the same
//! validation as an API create, no HTTP, no accounting) — the quickest way in. Pods are
//! Running and Ready on their node, with `terminationGracePeriodSeconds: 0`, so that an
//! accepted eviction removes them at once (no kubelet runs on idle members).

use super::plan::{MemberPlan, Plan, RS_HASH, WorkloadKind};
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::sandbox::apiserver::server::ApiServer;
use fleet_eviction::sandbox::apiserver::write::WriteOptions;
use fleet_eviction::sandbox::fleet::{Fleet, FleetOptions, SIMULATED_MEMBERS_MAX};
use fleet_eviction::sandbox::sim::member::create_nodes;
use futures::StreamExt;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;

/// Members populated concurrently.
const CONCURRENCY: usize = 16;

pub async fn build(plan: &Plan, dir: &Path, seed: u64) -> Result<Fleet, String> {
    if plan.members.len() <= SIMULATED_MEMBERS_MAX {
        return Err(format!(
            "--members must be above {SIMULATED_MEMBERS_MAX}: smaller sandbox fleets simulate \
             their members (scheduler, kubelet, workload controllers that re-create evicted \
             pods); this bench needs idle members"
        ));
    }
    let options = FleetOptions {
        members: plan.members.len(),
        nodes_per_member: plan.shape.nodes,
        dir: dir.to_path_buf(),
        seed,
        clock: Arc::new(SystemClock),
    };
    let fleet = Fleet::start(&options)
        .await
        .map_err(|e| format!("starting the sandbox fleet: {e}"))?;
    {
        let mut pending = futures::stream::iter(plan.members.iter().zip(&fleet.members).map(
            |(member, cluster)| async move {
                populate(&cluster.server, &cluster.client(), member)
                    .await
                    .map_err(|e| format!("populating {}: {e}", member.name))
            },
        ))
        .buffer_unordered(CONCURRENCY);
        while let Some(result) = pending.next().await {
            result?;
        }
    }
    Ok(fleet)
}

async fn populate(
    server: &ApiServer,
    client: &kube::Client,
    member: &MemberPlan,
) -> Result<(), String> {
    create_nodes(client, member.nodes)
        .await
        .map_err(|e| format!("creating nodes: {e}"))?;
    for namespace in &member.namespaces {
        create(
            server,
            ("", "v1", "namespaces", "Namespace"),
            None,
            json!({"metadata": {"name": namespace}}),
        )?;
    }
    // Controller uids, per workload, for the pods' owner references.
    let mut owners: Vec<(String, String, String)> = Vec::new();
    for workload in &member.workloads {
        let ns = Some(workload.namespace.as_str());
        let labels = json!({"app": workload.name});
        let template = json!({
            "metadata": {"labels": labels},
            "spec": {"containers": [{"name": "app", "image": "registry.example/app:1"}]},
        });
        let owner = match workload.kind {
            WorkloadKind::Deployment => {
                let deployment = create(
                    server,
                    ("apps", "v1", "deployments", "Deployment"),
                    ns,
                    json!({
                        "metadata": {"name": workload.name, "namespace": workload.namespace},
                        "spec": {"replicas": workload.replicas, "selector": {"matchLabels": labels},
                                 "template": template},
                    }),
                )?;
                let rs_labels = json!({"app": workload.name, "pod-template-hash": RS_HASH});
                let rs = create(
                    server,
                    ("apps", "v1", "replicasets", "ReplicaSet"),
                    ns,
                    json!({
                        "metadata": {
                            "name": workload.replica_set(),
                            "namespace": workload.namespace,
                            "labels": rs_labels,
                            "ownerReferences": [owner_ref("apps/v1", "Deployment", &workload.name, &deployment)],
                        },
                        "spec": {"replicas": workload.replicas, "selector": {"matchLabels": rs_labels},
                                 "template": {"metadata": {"labels": rs_labels}, "spec": template["spec"]}},
                    }),
                )?;
                ("ReplicaSet".to_string(), workload.replica_set(), uid(&rs))
            }
            WorkloadKind::StatefulSet => {
                let sts = create(
                    server,
                    ("apps", "v1", "statefulsets", "StatefulSet"),
                    ns,
                    json!({
                        "metadata": {"name": workload.name, "namespace": workload.namespace},
                        "spec": {"replicas": workload.replicas, "serviceName": workload.name,
                                 "selector": {"matchLabels": labels}, "template": template},
                    }),
                )?;
                ("StatefulSet".to_string(), workload.name.clone(), uid(&sts))
            }
        };
        owners.push(owner);
    }
    for (ordinal, pod) in member.pods.iter().enumerate() {
        let mut metadata = json!({"name": pod.name, "namespace": pod.namespace});
        if let Some(w) = pod.workload {
            let (kind, name, uid) = &owners[w];
            metadata["labels"] = json!({"app": member.workloads[w].name});
            metadata["ownerReferences"] = json!([{
                "apiVersion": "apps/v1", "kind": kind, "name": name, "uid": uid,
                "controller": true, "blockOwnerDeletion": true,
            }]);
        }
        create(
            server,
            ("", "v1", "pods", "Pod"),
            Some(&pod.namespace),
            json!({
                "metadata": metadata,
                "spec": {
                    "nodeName": pod.node,
                    "terminationGracePeriodSeconds": 0,
                    "containers": [{"name": "app", "image": "registry.example/app:1"}],
                },
            }),
        )?;
        set_status(server, &pod.namespace, &pod.name, running(ordinal))?;
    }
    Ok(())
}

fn owner_ref(api_version: &str, kind: &str, name: &str, owner: &Value) -> Value {
    json!({"apiVersion": api_version, "kind": kind, "name": name, "uid": uid(owner),
           "controller": true, "blockOwnerDeletion": true})
}

fn uid(object: &Value) -> String {
    object["metadata"]["uid"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// What a kubelet reports for a started, ready pod.
fn running(ordinal: usize) -> Value {
    let at = "2026-03-01T10:00:00Z";
    let condition =
        |type_: &str| json!({"type": type_, "status": "True", "lastTransitionTime": at});
    json!({
        "phase": "Running",
        "conditions": [condition("PodScheduled"), condition("Initialized"),
                       condition("ContainersReady"), condition("Ready")],
        "podIP": format!("10.1.{}.{}", ordinal / 250, ordinal % 250 + 1),
        "startTime": at,
        "containerStatuses": [{"name": "app", "image": "registry.example/app:1", "imageID": "",
                               "ready": true, "restartCount": 0, "started": true,
                               "state": {"running": {"startedAt": at}}}],
    })
}

/// Creates `object` as a `(group, version, plural, kind)` in the store.
fn create(
    server: &ApiServer,
    (group, version, plural, kind): (&str, &str, &str, &str),
    namespace: Option<&str>,
    mut object: Value,
) -> Result<Value, String> {
    let mut state = server.state();
    let rt = state
        .registry
        .get(group, version, plural)
        .ok_or_else(|| format!("the member does not serve {plural}"))?;
    object["apiVersion"] = json!(if group.is_empty() {
        version.to_string()
    } else {
        format!("{group}/{version}")
    });
    object["kind"] = json!(kind);
    let options = WriteOptions {
        field_manager: "pod-scale-bench".into(),
        ..WriteOptions::default()
    };
    let name = object["metadata"]["name"].clone();
    state
        .create(&rt, namespace, object, &options)
        .map(|written| (*written.object).clone())
        .map_err(|e| format!("creating {plural} {name}: {} {}", e.code, e.message))
}

fn set_status(server: &ApiServer, namespace: &str, pod: &str, status: Value) -> Result<(), String> {
    let mut state = server.state();
    let rt = state
        .registry
        .get("", "v1", "pods")
        .ok_or("the member does not serve pods")?;
    state.replace_status(&rt.storage_key(), namespace, pod, status);
    Ok(())
}
