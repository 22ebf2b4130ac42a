use fleet_eviction::api::migration::PodMigrationJob;
use fleet_eviction::pod::arbitration::Limits;
use fleet_eviction::pod::executor::{Executor, ExecutorOptions, metrics::PodMetrics};
use fleet_eviction::pod::facts::Settings;
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::runtime::metrics::ControllerFamilies;
use fleet_eviction::sandbox::apiserver::front;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::fleet::registration::install_member_crds;
use fleet_eviction::sandbox::sim::member::{MemberSim, create_nodes};
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, PostParams};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;

#[tokio::test]
async fn smoke() {
    let _ = tracing_subscriber::fmt()
        .with_env_filter("fleet_eviction=debug")
        .try_init();
    let clock = Arc::new(SystemClock);
    let server = ApiServer::new(ServerConfig {
        name: "m".into(),
        clock: clock.clone(),
        ..Default::default()
    });
    let client = front::client(&server);
    install_member_crds(&client).await.unwrap();
    create_nodes(&client, 2).await.unwrap();
    let _sim = MemberSim::start(client.clone(), clock.clone());
    let registry = prometheus::Registry::new();
    let shared = ControllerFamilies::register(&registry).unwrap();
    let metrics = PodMetrics::register(&registry, &shared).unwrap();
    let options = ExecutorOptions {
        member: "m".into(),
        settings: Settings::default(),
        limits: Limits::default(),
        evict_qps: 10.0,
        evict_burst: 1,
        workers: 2,
        sweep_interval: Duration::from_secs(300),
        clock: clock.clone(),
    };
    let ex = Executor::start(client.clone(), options, metrics);
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "p1", "namespace": "default"}, "spec": {"terminationGracePeriodSeconds": 1, "containers": [{"name": "c", "image": "x"}]}})).unwrap();
    pods.create(&PostParams::default(), &pod).await.unwrap();
    let jobs: Api<PodMigrationJob> = Api::all(client.clone());
    let job: PodMigrationJob = serde_json::from_value(json!({"apiVersion": "scheduling.koordinator.sh/v1alpha1", "kind": "PodMigrationJob", "metadata": {"name": "j1"}, "spec": {"podRef": {"namespace": "default", "name": "p1"}}})).unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    jobs.create(&PostParams::default(), &job).await.unwrap();
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let j = jobs.get("j1").await.unwrap();
        if j.status
            .as_ref()
            .and_then(|s| s.phase.as_ref())
            .is_some_and(|p| {
                format!("{p:?}").contains("Succeeded") || format!("{p:?}").contains("Failed")
            })
        {
            println!("{}", serde_json::to_string_pretty(&j).unwrap());
            break;
        }
    }
    let j = jobs.get("j1").await.unwrap();
    println!("FINAL {}", serde_json::to_string_pretty(&j.status).unwrap());
    ex.stop().await;
}
