//! The eviction subresource against the Kubernetes rules (sandbox.md), without our executor:
//! evictions are POSTed directly and the answers, budgets and pods checked.

use fleet_eviction::sandbox::apiserver::delete::DeleteOptions;
use fleet_eviction::sandbox::apiserver::front::client;
use fleet_eviction::sandbox::apiserver::reply::Reply;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use kube::api::{Api, DeleteParams, EvictParams, Patch, PatchParams, PostParams};
use kube::{Client, Error};
use serde_json::{Value, json};

async fn setup(pods: &[(&str, bool)], budgets: &[Value]) -> (Api<Pod>, Api<PodDisruptionBudget>) {
    let client: Client = client(&ApiServer::new(ServerConfig::default()));
    let pod_api: Api<Pod> = Api::namespaced(client.clone(), "default");
    for (name, running) in pods {
        let pod: Pod = serde_json::from_value(json!({"metadata": {"name": name, "labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "nginx"}]}})).expect("pod");
        pod_api
            .create(&PostParams::default(), &pod)
            .await
            .expect("create pod");
        if *running {
            let status = json!({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}});
            pod_api
                .patch_status(name, &PatchParams::default(), &Patch::Merge(status))
                .await
                .expect("running");
        }
    }
    let pdb_api: Api<PodDisruptionBudget> = Api::namespaced(client, "default");
    for b in budgets {
        let pdb: PodDisruptionBudget = serde_json::from_value(b.clone()).expect("pdb");
        pdb_api
            .create(&PostParams::default(), &pdb)
            .await
            .expect("create pdb");
    }
    (pod_api, pdb_api)
}

fn budget(name: &str, min_available: i32) -> Value {
    json!({"metadata": {"name": name}, "spec": {"minAvailable": min_available, "selector": {"matchLabels": {"app": "web"}}}})
}

fn refusal(result: Result<kube::core::Status, Error>) -> kube::core::Status {
    match result {
        Err(Error::Api(s)) => *s,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn budget_status_is_kept_current() {
    let (_, pdbs) = setup(
        &[("a", true), ("b", true), ("c", true)],
        &[budget("web", 2)],
    )
    .await;
    let status = pdbs.get("web").await.expect("pdb").status.expect("status");
    assert_eq!(
        (
            status.current_healthy,
            status.desired_healthy,
            status.expected_pods,
            status.disruptions_allowed
        ),
        (3, 2, 3, 1)
    );
    assert_eq!(status.observed_generation, Some(1));
}

#[tokio::test]
async fn an_allowed_eviction_deletes_and_spends_the_budget_and_the_next_is_429() {
    let (pods, pdbs) = setup(
        &[("a", true), ("b", true), ("c", true)],
        &[budget("web", 2)],
    )
    .await;
    let ok = pods
        .evict("a", &EvictParams::default())
        .await
        .expect("first eviction allowed");
    assert_eq!(ok.code, 201);
    assert!(
        pods.get_opt("a").await.expect("get").is_none(),
        "an unscheduled pod goes at once"
    );
    let status = pdbs.get("web").await.expect("pdb").status.expect("status");
    assert_eq!(status.disruptions_allowed, 0);

    let e = refusal(pods.evict("b", &EvictParams::default()).await);
    assert_eq!((e.code, e.reason.as_str()), (429, "TooManyRequests"));
    assert_eq!(
        e.message,
        "Cannot evict pod as it would violate the pod's disruption budget."
    );
    assert!(pods.get_opt("b").await.expect("get").is_some());
}

#[tokio::test]
async fn the_429_names_the_budget_in_a_disruption_budget_cause() {
    let server = ApiServer::new(ServerConfig::default());
    let client: Client = client(&server);
    let pods: Api<Pod> = Api::namespaced(client.clone(), "default");
    let pod: Pod = serde_json::from_value(json!({"metadata": {"name": "only", "labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}})).expect("pod");
    pods.create(&PostParams::default(), &pod)
        .await
        .expect("pod");
    pods.patch_status("only", &PatchParams::default(), &Patch::Merge(json!({"status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}}))).await.expect("running");
    let pdbs: Api<PodDisruptionBudget> = Api::namespaced(client, "default");
    pdbs.create(
        &PostParams::default(),
        &serde_json::from_value(budget("web", 1)).expect("pdb"),
    )
    .await
    .expect("pdb");
    // The whole Status body, causes included, as the server answers it.
    let mut state = server.state();
    let rt = state.registry.get("", "v1", "pods").expect("pods served");
    let reply = state
        .evict(&rt, Some("default"), "only", &DeleteOptions::default())
        .expect("an answer");
    let Reply::Json(code, body, _) = reply else {
        panic!("a JSON answer")
    };
    assert_eq!(code, 429);
    assert_eq!(body["reason"], "TooManyRequests");
    assert_eq!(
        body["details"]["causes"][0],
        json!({"reason": "DisruptionBudget", "message": "The disruption budget web needs 1 healthy pods and has 1 currently"})
    );
}

#[tokio::test]
async fn two_budgets_covering_a_pod_are_a_500() {
    let (pods, _) = setup(
        &[("a", true), ("b", true)],
        &[budget("one", 1), budget("two", 1)],
    )
    .await;
    let e = refusal(pods.evict("a", &EvictParams::default()).await);
    assert_eq!(e.code, 500);
    assert_eq!(
        e.message,
        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
    );
}

#[tokio::test]
async fn a_pending_pod_is_evicted_whatever_the_budget() {
    let (pods, _) = setup(&[("pending", false), ("b", true)], &[budget("web", 5)]).await;
    pods.evict("pending", &EvictParams::default())
        .await
        .expect("pending pods skip the budget");
    let e = refusal(pods.evict("b", &EvictParams::default()).await);
    assert_eq!(e.code, 429);
}

#[tokio::test]
async fn a_scheduled_pod_terminates_gracefully_and_is_recorded_in_disrupted_pods() {
    let (pods, pdbs) = setup(&[("a", true), ("b", true)], &[budget("web", 1)]).await;
    pods.patch(
        "a",
        &PatchParams::default(),
        &Patch::Merge(json!({"spec": {"nodeName": "node-1"}})),
    )
    .await
    .expect("bind");
    let before = pdbs
        .get("web")
        .await
        .expect("pdb")
        .metadata
        .resource_version
        .expect("rv");
    pods.evict("a", &EvictParams::default())
        .await
        .expect("allowed");
    let terminating = pods.get("a").await.expect("still terminating");
    assert!(terminating.metadata.deletion_timestamp.is_some());
    let conditions = terminating
        .status
        .and_then(|s| s.conditions)
        .unwrap_or_default();
    assert!(
        conditions.iter().any(|c| c.type_ == "DisruptionTarget"
            && c.reason.as_deref() == Some("EvictionByEvictionAPI")),
        "{conditions:?}"
    );
    // The eviction recorded the pod in disruptedPods with the budget spent; the recount that
    // follows the pod's deletionTimestamp drops the entry, as the disruption controller does.
    let recorded = budget_states_since(&pdbs, &before).await;
    assert!(
        recorded.iter().any(|s| s
            .disrupted_pods
            .as_ref()
            .is_some_and(|d| d.contains_key("a"))
            && s.disruptions_allowed == 0),
        "{recorded:?}"
    );
    let status = pdbs.get("web").await.expect("pdb").status.expect("status");
    assert_eq!(
        (status.current_healthy, status.disruptions_allowed),
        (1, 0),
        "the terminating pod is not healthy"
    );
    pods.delete(
        "a",
        &DeleteParams {
            grace_period_seconds: Some(0),
            ..Default::default()
        },
    )
    .await
    .expect("finish");
    assert!(pods.get_opt("a").await.expect("get").is_none());
    let status = pdbs.get("web").await.expect("pdb").status.expect("status");
    assert!(status.disrupted_pods.unwrap_or_default().is_empty());
}

/// Every status the budget `web` went through after resourceVersion `since`.
async fn budget_states_since(
    pdbs: &Api<PodDisruptionBudget>,
    since: &str,
) -> Vec<k8s_openapi::api::policy::v1::PodDisruptionBudgetStatus> {
    use futures::StreamExt;
    let params = kube::api::WatchParams::default()
        .fields("metadata.name=web")
        .timeout(1);
    let mut stream = pdbs.watch(&params, since).await.expect("watch").boxed();
    let mut states = Vec::new();
    while let Some(Ok(event)) = stream.next().await {
        if let kube::api::WatchEvent::Modified(pdb) = event {
            states.extend(pdb.status);
        }
    }
    states
}

#[tokio::test]
async fn a_dry_run_eviction_changes_nothing() {
    let (pods, pdbs) = setup(&[("a", true), ("b", true)], &[budget("web", 1)]).await;
    let params = EvictParams {
        post_options: PostParams {
            dry_run: true,
            ..Default::default()
        },
        ..Default::default()
    };
    pods.evict("a", &params)
        .await
        .expect("allowed on a dry run");
    assert!(pods.get_opt("a").await.expect("get").is_some());
    assert_eq!(
        pdbs.get("web")
            .await
            .expect("pdb")
            .status
            .expect("status")
            .disruptions_allowed,
        1
    );
}
