//! The executor as each member's work under the member registry (pod-migration.md: "one per
//! member cluster (via the member registry)"), on a three-member sandbox fleet registered as
//! in production, reached over HTTP from their kubeconfig Secrets.

use super::harness::{
    PASSED_ARBITRATION, WAIT, annotation, eventually, field, pmj_args, pmj_resource, sample, says,
    summary, to_json, wait_metrics,
};
use fleet_eviction::member::{MemberMetrics, MemberRegistry, Registration, RegistryOptions};
use fleet_eviction::pod::executor::metrics::PodMetrics;
use fleet_eviction::pod::executor::work::ExecutorWork;
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::runtime::metrics::ControllerFamilies;
use fleet_eviction::sandbox::apiserver::handler::{Incoming, handle};
use fleet_eviction::sandbox::apiserver::server::ApiServer;
use fleet_eviction::sandbox::fleet::registration::SYSTEM_NAMESPACE;
use fleet_eviction::sandbox::fleet::{Fleet, FleetOptions};
use http_body_util::BodyExt;
use k8s_openapi::api::core::v1::{Pod, Secret};
use kube::Client;
use kube::api::{Api, DeleteParams, DynamicObject, PostParams};
use prometheus::Registry;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A client for someone inside the member cluster: it reaches the API server even while the
/// member is unreachable from outside (the fault cuts the hub's path, not the cluster).
fn inside_client(server: &Arc<ApiServer>) -> Client {
    let server = server.clone();
    let service = tower::service_fn(move |req: http::Request<kube::client::Body>| {
        let server = server.clone();
        async move {
            let (parts, body) = req.into_parts();
            let body = body.collect().await?.to_bytes();
            let incoming = Incoming::from_request(http::Request::from_parts(parts, body));
            Ok::<_, BoxError>(handle(server, incoming).await)
        }
    });
    Client::new(service, "default")
}

async fn create_pod(client: &Client, name: &str) -> Pod {
    let pod: Pod = serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"terminationGracePeriodSeconds": 0,
                 "containers": [{"name": "app", "image": "nginx"}]}}))
    .expect("pod");
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    pods.create(&PostParams::default(), &pod)
        .await
        .expect("create pod");
    eventually(&format!("pod {name} is Ready"), || {
        let pods = pods.clone();
        async move {
            pods.get_opt(name)
                .await
                .ok()
                .flatten()
                .filter(super::harness::is_ready)
        }
    })
    .await
}

async fn create_job(client: &Client, name: &str, pod: &str) {
    let job: DynamicObject = serde_json::from_value(json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJob",
        "metadata": {"name": name},
        "spec": {"podRef": {"namespace": "default", "name": pod}},
    }))
    .expect("job");
    Api::<DynamicObject>::all_with(client.clone(), &pmj_resource())
        .create(&PostParams::default(), &job)
        .await
        .unwrap_or_else(|e| panic!("create job {name}: {e}"));
}

async fn get_job(client: &Client, name: &str) -> Value {
    let job = Api::<DynamicObject>::all_with(client.clone(), &pmj_resource())
        .get(name)
        .await
        .unwrap_or_else(|e| panic!("read job {name}: {e}"));
    to_json(&job)
}

async fn succeeded(client: &Client, member: &str, job: &str, pod: &str) {
    let found = eventually(&format!("job {job} on {member} succeeded"), || async {
        let j = get_job(client, job).await;
        (field(&j, "/status/phase") == Some("Succeeded")).then_some(j)
    })
    .await;
    assert_eq!(
        summary(&found),
        (
            "Succeeded".into(),
            "Complete".into(),
            String::new(),
            says::evicted("default", pod)
        ),
        "{member}"
    );
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    assert!(
        pods.get_opt(pod).await.expect("read pod").is_none(),
        "{member}: {pod} evicted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_registered_member_runs_its_own_executor() {
    let dir = tempfile::tempdir().expect("dir");
    let clock = Arc::new(SystemClock);
    let fleet = Fleet::start(&FleetOptions {
        members: 3,
        nodes_per_member: 2,
        dir: dir.path().to_path_buf(),
        seed: 11,
        clock: clock.clone(),
    })
    .await
    .expect("fleet starts");
    let registry = Registry::new();
    let shared = ControllerFamilies::register(&registry).expect("families");
    let pod_metrics = PodMetrics::register(&registry, &shared).expect("pod metrics");
    let member_metrics = MemberMetrics::register(&registry).expect("member metrics");
    let work = ExecutorWork::new(&pmj_args(&[]), clock.clone(), pod_metrics);
    let members = MemberRegistry::start(
        fleet.hub.client(),
        RegistryOptions {
            namespace: SYSTEM_NAMESPACE.into(),
            probe_interval: Duration::from_millis(100),
            clock: clock.clone(),
        },
        Arc::new(work),
        member_metrics,
    );
    tokio::time::timeout(WAIT, members.synced())
        .await
        .expect("timed out waiting until the registry synced");
    let handle = members.members();

    // A job on each member is executed there.
    let clients: Vec<Client> = fleet.members.iter().map(|m| m.client()).collect();
    for (i, client) in clients.iter().enumerate() {
        create_pod(client, &format!("p-{i}")).await;
        create_job(client, "move", &format!("p-{i}")).await;
    }
    for (i, client) in clients.iter().enumerate() {
        succeeded(
            client,
            &format!("member-{}", i + 1),
            "move",
            &format!("p-{i}"),
        )
        .await;
    }
    for member in ["member-1", "member-2", "member-3"] {
        let series = format!(
            "fleet_eviction_pmj_total{{member=\"{member}\",phase=\"Succeeded\",reason=\"\"}}"
        );
        wait_metrics(&registry, &format!("{series} 1"), |text| {
            sample(text, &series) == Some(1.0)
        })
        .await;
    }

    // member-1's Secret goes: its executor stops, a new job there stays untouched.
    Api::<Secret>::namespaced(fleet.hub.client(), SYSTEM_NAMESPACE)
        .delete("member-1-kubeconfig", &DeleteParams::default())
        .await
        .expect("delete the Secret");
    eventually("member-1 is reported missing its Secret", || async {
        (handle.registration("member-1") == Some(Registration::MissingSecret)).then_some(())
    })
    .await;
    create_pod(&clients[0], "after").await;
    create_job(&clients[0], "untouched", "after").await;
    // The others still run: a job on member-2 created after it completes.
    create_pod(&clients[1], "after").await;
    create_job(&clients[1], "after", "after").await;
    succeeded(&clients[1], "member-2", "after", "after").await;
    let untouched = get_job(&clients[0], "untouched").await;
    assert_eq!(untouched.get("status"), None, "{untouched:#}");
    assert_eq!(annotation(&untouched, PASSED_ARBITRATION), None);
    let pods: Api<Pod> = Api::namespaced(clients[0].clone(), "default");
    assert!(pods.get_opt("after").await.expect("read").is_some());

    // member-3 becomes unreachable; a job created inside it meanwhile completes once it is
    // reachable again.
    let member_3 = &fleet.members[2];
    create_pod(&clients[2], "late").await;
    member_3.server.set_unreachable(true);
    eventually("member-3 is unreachable", || async {
        (handle.is_reachable("member-3") == Some(false)).then_some(())
    })
    .await;
    let inside = inside_client(&member_3.server);
    create_job(&inside, "while-away", "late").await;
    let away = get_job(&inside, "while-away").await;
    assert_eq!(away.get("status"), None, "nobody reached it: {away:#}");
    member_3.server.set_unreachable(false);
    eventually("member-3 is reachable again", || async {
        (handle.is_reachable("member-3") == Some(true)).then_some(())
    })
    .await;
    succeeded(&clients[2], "member-3", "while-away", "late").await;

    members.stop().await;
}
