//! §4 the policies besides the default: Delete, SoftEviction, and the job's deleteOptions;
//! budgets that refuse an eviction (§2 step 9).

use super::harness::*;
use k8s_openapi::jiff::Timestamp;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_budget_holds_the_eviction_until_it_is_relaxed() {
    let m = Member::start(2, &[]).await;
    let pods = m.deployment("default", "web", 2).await;
    let target = &pods[0];
    m.pdb(
        "default",
        "web",
        json!({"minAvailable": 2, "selector": {"matchLabels": {"app": "web"}}}),
    )
    .await;
    m.wait_pdb_observed("web").await;
    let (code, refusal) = m
        .eviction_answer("default", &name(target))
        .await
        .expect("the budget refuses");
    assert_eq!(code, 429);
    let before = refused_evictions(&m, &name(target));
    m.job("move", "default", &name(target), json!({})).await;
    m.wait_event(
        "PodMigrationJob",
        "move",
        "Warning",
        "Evicting",
        &says::failed_evict("default", &name(target), &refusal),
    )
    .await;

    let job = m.get_job("move").await.expect("job");
    assert_eq!(field(&job, "/status/phase"), Some("Running"), "{job:#}");
    assert!(
        condition(&job, "Eviction").is_none_or(|c| c.0 != "True"),
        "{job:#}"
    );
    assert!(
        !job_has_normal_evicting(&m, "move").await,
        "not evicted yet"
    );
    assert!(
        m.events("Pod", &name(target)).await.is_empty(),
        "no Descheduled"
    );
    let now = m
        .get_pod("default", &name(target))
        .await
        .expect("pod untouched");
    assert_eq!(uid(&now), uid(target));
    assert!(now.metadata.deletion_timestamp.is_none());

    // Retried with a backoff on the shared clock: not while it stands still, and within the
    // 30 s cap once it moves.
    m.settle().await;
    assert_eq!(
        refused_evictions(&m, &name(target)) - before,
        1,
        "no retry while the clock stands still"
    );
    m.advance(30);
    eventually("the eviction is retried within 30 s", || async {
        (refused_evictions(&m, &name(target)) - before >= 2).then_some(())
    })
    .await;
    let job = m.get_job("move").await.expect("job");
    assert_eq!(field(&job, "/status/phase"), Some("Running"), "{job:#}");

    // The budget is relaxed: the change retries at once (no clock step).
    m.pdbs("default")
        .patch(
            "web",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Merge(json!({"spec": {"minAvailable": 1}})),
        )
        .await
        .expect("relax the budget");
    assert_succeeded(&m, "move", "default", &name(target), &uid(target)).await;
    m.wait_event(
        "PodMigrationJob",
        "move",
        "Normal",
        "Evicting",
        &says::evicting("default", &name(target), &node(target), "NotSet"),
    )
    .await;
}

async fn job_has_normal_evicting(m: &Member, job: &str) -> bool {
    m.job_events(job)
        .await
        .iter()
        .any(|e| e.0 == "Normal" && e.1 == "Evicting")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pod_under_two_budgets_is_refused_until_one_goes() {
    let m = Member::start(2, &[]).await;
    let pods = m.deployment("default", "web", 2).await;
    let target = &pods[0];
    for budget in ["one", "two"] {
        m.pdb(
            "default",
            budget,
            json!({"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}}),
        )
        .await;
        m.wait_pdb_observed(budget).await;
    }
    let (code, refusal) = m
        .eviction_answer("default", &name(target))
        .await
        .expect("two budgets refuse");
    assert_eq!(code, 500);
    m.job("move", "default", &name(target), json!({})).await;
    m.wait_event(
        "PodMigrationJob",
        "move",
        "Warning",
        "Evicting",
        &says::failed_evict("default", &name(target), &refusal),
    )
    .await;
    assert!(m.get_pod("default", &name(target)).await.is_some());

    m.pdbs("default")
        .delete("two", &Default::default())
        .await
        .expect("delete a budget");
    assert_succeeded(&m, "move", "default", &name(target), &uid(target)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_removes_the_pod_past_its_budget_with_the_jobs_delete_options() {
    let m = Member::start(1, &[]).await;
    // A 30 s grace period the job's deleteOptions override, and a budget that would refuse
    // any eviction.
    let pod = m
        .pod_with("default", "p", "node-1", json!({"app": "p"}), 30)
        .await;
    m.pdb(
        "default",
        "p",
        json!({"maxUnavailable": 0, "selector": {"matchLabels": {"app": "p"}}}),
    )
    .await;
    m.create_job(
        "delete-it",
        json!({"labels": {EVICT_POLICY: "Delete"}}),
        json!({"podRef": {"namespace": "default", "name": "p"},
               "deleteOptions": {"gracePeriodSeconds": 0}}),
    )
    .await;
    assert_succeeded(&m, "delete-it", "default", "p", &uid(&pod)).await;
    assert_eviction_events(&m, "delete-it", "default", "p", "node-1", "NotSet").await;
    m.wait_metrics("the delete counted under policy Delete", |text| {
        total(
            text,
            "fleet_eviction_pod_evictions_total",
            &[("member", MEMBER), ("policy", "Delete")],
        ) >= 1.0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eviction_uses_the_jobs_delete_options() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod_with("default", "p", "node-1", json!({}), 30).await;
    m.job(
        "evict-now",
        "default",
        "p",
        json!({"deleteOptions": {"gracePeriodSeconds": 0}}),
    )
    .await;
    // Without the options the pod would terminate for 30 s on a clock that stands still.
    assert_succeeded(&m, "evict-now", "default", "p", &uid(&pod)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn soft_eviction_annotates_the_pod_and_someone_else_deletes_it() {
    let m = Member::start(1, &[]).await;
    let pod = m
        .pod(
            "default",
            "p",
            "node-1",
            json!({EVICT_POLICY: "SoftEviction"}),
        )
        .await;
    m.create_job(
        "soft",
        json!({"annotations": {EVICT_REASON: "Rebalance"}}),
        json!({"podRef": {"namespace": "default", "name": "p"},
               "deleteOptions": {"gracePeriodSeconds": 7}}),
    )
    .await;
    let annotated = eventually("the pod carries the soft-eviction annotation", || async {
        let pod = m.get_pod("default", "p").await?;
        annotations(&pod).get(SOFT_EVICTION).cloned()
    })
    .await;
    let soft: Value = serde_json::from_str(&annotated)
        .unwrap_or_else(|e| panic!("{SOFT_EVICTION} is JSON: {annotated:?}: {e}"));
    let keys: Vec<&str> = soft
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert!(
        keys.iter()
            .all(|k| ["timestamp", "deleteOptions", "initiator", "reason"].contains(k)),
        "{soft:#}"
    );
    let timestamp = soft["timestamp"].as_str().expect("timestamp");
    assert_eq!(
        timestamp.parse::<Timestamp>().expect("RFC 3339"),
        m.now(),
        "{soft:#}"
    );
    assert_eq!(soft["reason"], "Rebalance", "{soft:#}");
    assert_eq!(soft["deleteOptions"]["gracePeriodSeconds"], 7, "{soft:#}");

    // Someone else deletes the pod; until then the job runs and the pod stays.
    m.settle().await;
    let job = m.get_job("soft").await.expect("job");
    assert_eq!(field(&job, "/status/phase"), Some("Running"), "{job:#}");
    let now = m.get_pod("default", "p").await.expect("pod stays");
    assert!(now.metadata.deletion_timestamp.is_none());
    m.pods("default")
        .delete("p", &Default::default())
        .await
        .expect("delete");
    assert_succeeded(&m, "soft", "default", "p", &uid(&pod)).await;
}

/// Evictions of `pod` the API refused with 429, from the server's request log.
fn refused_evictions(m: &Member, pod: &str) -> usize {
    m.server
        .request_log()
        .iter()
        .filter(|r| r.verb == "create" && r.name == pod && r.resource.contains("eviction"))
        .filter(|r| r.code == 429)
        .count()
}
