//! §2 step 4 and §1: jobs that cannot be executed fail with their reason and a Warning of
//! the same reason, touch nothing, and leave the other jobs alone; reserved gate names never
//! get in.

use super::harness::*;
use kube::api::{DynamicObject, PostParams};
use serde_json::{Value, json};

/// Waits for the job to fail with `reason`; asserts the Warning Event of the same reason
/// (its message the status message) and the terminal annotation; returns the job.
async fn failed_with(m: &Member, job: &str, reason: &str) -> Value {
    let found = m.wait_ended(job, "Failed").await;
    let (_, _, found_reason, message) = summary(&found);
    assert_eq!(found_reason, reason, "{found:#}");
    assert!(!message.is_empty(), "{found:#}");
    m.wait_event("PodMigrationJob", job, "Warning", reason, &message)
        .await;
    assert!(annotation(&found, FINISHED_AT).is_some(), "{found:#}");
    assert!(condition(&found, "Eviction").is_none(), "{found:#}");
    found
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_jobs_fail_with_their_reason_and_others_run() {
    let m = Member::start(1, &[]).await;
    let good = m.pod("default", "good", "node-1", json!({})).await;
    let typo = m
        .pod(
            "default",
            "typo",
            "node-1",
            json!({EVICT_POLICY: "Evicton"}),
        )
        .await;
    let koord_typo = m
        .pod(
            "default",
            "koord-typo",
            "node-1",
            json!({KOORD_EVICT_POLICY: "Deleet"}),
        )
        .await;
    let moded = m.pod("default", "moded", "node-1", json!({})).await;
    let job_typo = m.pod("default", "job-typo", "node-1", json!({})).await;

    m.create_job(
        "no-name",
        json!({}),
        json!({"podRef": {"namespace": "default", "name": ""}}),
    )
    .await;
    m.create_job(
        "no-namespace",
        json!({}),
        json!({"podRef": {"name": "good"}}),
    )
    .await;
    m.job("missing", "default", "nowhere", json!({})).await;
    m.job("bad-mode", "default", "moded", json!({"mode": "Teleport"}))
        .await;
    m.job("bad-policy", "default", "typo", json!({})).await;
    m.job("bad-koord-policy", "default", "koord-typo", json!({}))
        .await;
    m.create_job(
        "bad-job-policy",
        json!({"labels": {EVICT_POLICY: "Extrenal"}}),
        json!({"podRef": {"namespace": "default", "name": "job-typo"}}),
    )
    .await;
    m.job("fine", "default", "good", json!({})).await;

    for job in ["no-name", "no-namespace"] {
        let found = failed_with(&m, job, "InvalidPodRef").await;
        assert_eq!(summary(&found).3, says::INVALID_POD_REF, "{job}");
    }
    let found = failed_with(&m, "missing", "MissingPod").await;
    assert_eq!(summary(&found).3, says::missing_pod("default", "nowhere"));
    let found = failed_with(&m, "bad-mode", "InvalidMode").await;
    assert!(
        summary(&found).3.contains("Teleport"),
        "names the mode: {found:#}"
    );
    for (job, value) in [
        ("bad-policy", "Evicton"),
        ("bad-koord-policy", "Deleet"),
        ("bad-job-policy", "Extrenal"),
    ] {
        let found = failed_with(&m, job, "InvalidEvictPolicy").await;
        assert!(
            summary(&found).3.contains(value),
            "names the policy: {found:#}"
        );
    }

    // A typo never becomes an eviction.
    for pod in [&typo, &koord_typo, &moded, &job_typo] {
        let now = m
            .get_pod("default", &name(pod))
            .await
            .expect("pod untouched");
        assert_eq!(uid(&now), uid(pod));
        assert!(now.metadata.deletion_timestamp.is_none());
    }
    assert_succeeded(&m, "fine", "default", "good", &uid(&good)).await;

    let expected = [
        ("InvalidPodRef", 2.0),
        ("MissingPod", 1.0),
        ("InvalidMode", 1.0),
        ("InvalidEvictPolicy", 3.0),
    ];
    let series = |reason: &str| {
        format!(
            "fleet_eviction_pmj_total{{member=\"{MEMBER}\",phase=\"Failed\",reason=\"{reason}\"}}"
        )
    };
    m.wait_metrics("the failures counted by reason", |text| {
        expected
            .iter()
            .all(|(reason, count)| sample(text, &series(reason)) == Some(*count))
    })
    .await;
}

/// §4: a valid policy on the pod's key wins over an invalid one on the job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pods_policy_is_read_before_the_jobs() {
    let m = Member::start(1, &[]).await;
    let pod = m
        .pod(
            "default",
            "p",
            "node-1",
            json!({KOORD_EVICT_POLICY: "Eviction"}),
        )
        .await;
    m.create_job(
        "pod-wins",
        json!({"labels": {EVICT_POLICY: "Nonsense"}}),
        json!({"podRef": {"namespace": "default", "name": "p"}}),
    )
    .await;
    assert_succeeded(&m, "pod-wins", "default", "p", &uid(&pod)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reservation_first_without_the_reservation_api_fails() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    m.job(
        "reserve",
        "default",
        "p",
        json!({"mode": "ReservationFirst"}),
    )
    .await;
    let job = m.wait_ended("reserve", "Failed").await;
    let (_, _, reason, message) = summary(&job);
    assert_eq!(
        (reason.as_str(), message.as_str()),
        ("ReservationUnsupported", says::RESERVATION_UNSUPPORTED)
    );
    let now = m.get_pod("default", "p").await.expect("pod untouched");
    assert_eq!(uid(&now), uid(&pod));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reserved_gate_names_are_refused_by_the_crds() {
    let m = Member::start(1, &[]).await;
    for reserved in [
        "ReservationCreated",
        "ReservationScheduled",
        "Preemption",
        "Eviction",
        "PodScheduled",
        "PodBoundReservation",
        "BoundPodReady",
        "ReservationBound",
        "ExternalEvacuation",
    ] {
        let job: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1",
            "kind": "PodMigrationJob",
            "metadata": {"name": format!("gate-{}", reserved.to_lowercase())},
            "spec": {"podRef": {"namespace": "default", "name": "p"},
                     "evictionConditions": [{"name": "Fine"}, {"name": reserved}]},
        }))
        .expect("job");
        match m.jobs().create(&PostParams::default(), &job).await {
            Err(kube::Error::Api(s)) => assert_eq!(s.code, 422, "job gate {reserved}: {s:?}"),
            other => panic!("job gate {reserved} should be refused: {other:?}"),
        }
        let profile: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1",
            "kind": "PodMigrationJobProfile",
            "metadata": {"name": format!("gate-{}", reserved.to_lowercase())},
            "spec": {"evictionConditions": [{"name": reserved}]},
        }))
        .expect("profile");
        match m.profiles().create(&PostParams::default(), &profile).await {
            Err(kube::Error::Api(s)) => {
                assert_eq!(s.code, 422, "profile gate {reserved}: {s:?}")
            }
            other => panic!("profile gate {reserved} should be refused: {other:?}"),
        }
    }
    let listed = m.jobs().list(&Default::default()).await.expect("list jobs");
    assert!(listed.items.is_empty());
}
