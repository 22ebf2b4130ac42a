//! §2 the life of a job with the default policy (Eviction API): success, the eviction
//! reason, a slowly terminating pod, same-name re-creation, pause and approval, ttl, manual
//! abort, Koordinator's jobs, garbage collection, and the metrics of a run.

use super::harness::*;
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evict_directly_with_the_default_policy_succeeds() {
    let m = Member::start(2, &[]).await;
    let pod = m
        .pod("default", "web-0", "node-1", json!({"app": "web"}))
        .await;
    m.job("move-web-0", "default", "web-0", json!({})).await;

    let job = assert_succeeded(&m, "move-web-0", "default", "web-0", &uid(&pod)).await;
    assert_eq!(
        condition_types(&job),
        ["Eviction"],
        "only our step condition"
    );
    // §3: the contributing profiles, none here (written as an empty list).
    assert_eq!(annotation(&job, PROFILES), Some(""));
    // The terminal write, on the shared clock (which has not moved).
    assert_eq!(annotation(&job, FINISHED_AT), Some(START));
    assert_eviction_events(&m, "move-web-0", "default", "web-0", "node-1", "NotSet").await;
    assert!(
        m.get_pod("default", "web-0").await.is_none(),
        "the pod is gone"
    );

    // quality.md "Metrics names".
    let text = m
        .wait_metrics("the success, its eviction and its duration", |text| {
            total(
                text,
                "fleet_eviction_pmj_total",
                &[("member", MEMBER), ("phase", "Succeeded"), ("reason", "")],
            ) >= 1.0
                && total(
                    text,
                    "fleet_eviction_pod_evictions_total",
                    &[("member", MEMBER), ("policy", "Eviction")],
                ) >= 1.0
                && sample(text, "fleet_eviction_pmj_duration_seconds_count").unwrap_or(0.0) >= 1.0
        })
        .await;
    let succeeded = samples(
        &text,
        "fleet_eviction_pmj_total",
        &[("member", MEMBER), ("phase", "Succeeded"), ("reason", "")],
    );
    assert!(
        succeeded.iter().any(|(_, v)| *v >= 1.0),
        "pmj_total of the success: {succeeded:?}\n{text}"
    );
    let evictions = samples(
        &text,
        "fleet_eviction_pod_evictions_total",
        &[("member", MEMBER), ("policy", "Eviction")],
    );
    assert!(
        evictions.iter().map(|(_, v)| v).sum::<f64>() >= 1.0
            && evictions.iter().all(|(s, _)| s.contains("result=\"")),
        "pod_evictions_total of the eviction: {evictions:?}\n{text}"
    );
    assert!(
        sample(&text, "fleet_eviction_pmj_duration_seconds_count").unwrap_or(0.0) >= 1.0,
        "{text}"
    );
    // controller-runtime's families, with our controller's name.
    for family in [
        "controller_runtime_reconcile_total{controller=\"podmigrationjob-controller\"",
        "controller_runtime_reconcile_time_seconds_count{controller=\"podmigrationjob-controller\"}",
        "controller_runtime_active_workers{controller=\"podmigrationjob-controller\"}",
    ] {
        assert!(
            text.lines().any(|l| l.starts_with(family)),
            "{family}\n{text}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_eviction_reason_comes_from_the_job_and_the_workload_re_creates_the_pod() {
    let m = Member::start(2, &[]).await;
    let pods = m.deployment("shop", "web", 2).await;
    let (first, second) = (&pods[0], &pods[1]);
    let reason_job =
        json!({"annotations": {EVICT_REASON: "NodeMaintenance", EVICT_TRIGGER: "LowNodeLoad"}});
    let spec = |pod: &str| json!({"podRef": {"namespace": "shop", "name": pod}});
    m.create_job("by-reason", reason_job, spec(&name(first)))
        .await;
    m.create_job(
        "by-trigger",
        json!({"annotations": {EVICT_TRIGGER: "LowNodeLoad"}}),
        spec(&name(second)),
    )
    .await;

    assert_succeeded(&m, "by-reason", "shop", &name(first), &uid(first)).await;
    assert_eviction_events(
        &m,
        "by-reason",
        "shop",
        &name(first),
        &node(first),
        "NodeMaintenance",
    )
    .await;
    assert_succeeded(&m, "by-trigger", "shop", &name(second), &uid(second)).await;
    assert_eviction_events(
        &m,
        "by-trigger",
        "shop",
        &name(second),
        &node(second),
        "LowNodeLoad",
    )
    .await;

    // The Deployment made two new pods; the evicted ones are gone.
    let now = m.ready_pods("shop", "web", 2).await;
    for pod in [first, second] {
        assert!(
            m.get_pod("shop", &name(pod)).await.is_none(),
            "{} gone",
            name(pod)
        );
        assert!(!now.iter().any(|p| uid(p) == uid(pod)));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pod_that_terminates_slowly_keeps_the_job_running_until_it_is_gone() {
    let m = Member::start(1, &[]).await;
    let pod = m
        .pod_with("default", "slow", "node-1", json!({"app": "slow"}), 30)
        .await;
    m.create_job(
        "move-slow",
        json!({"annotations": {EVICT_REASON: "NodeMaintenance"}}),
        json!({"podRef": {"namespace": "default", "name": "slow"}}),
    )
    .await;
    let evicting = says::evicting("default", "slow", "node-1", "NodeMaintenance");
    let job = m
        .wait_job("move-slow", "has Eviction=False", |j| {
            condition(j, "Eviction").is_some_and(|c| c.0 == "False")
        })
        .await;
    assert_eq!(
        condition(&job, "Eviction"),
        Some(("False".into(), "Evicting".into(), evicting.clone()))
    );
    // status.status/reason/message mirror the condition we changed last (Koordinator's
    // updateCondition: status = the condition's type).
    assert_eq!(
        summary(&job),
        (
            "Running".into(),
            "Eviction".into(),
            "Evicting".into(),
            evicting.clone()
        )
    );
    let eviction_since = transition_time(&job, "Eviction");
    assert_eq!(eviction_since.as_deref(), Some(START));
    m.wait_event(
        "PodMigrationJob",
        "move-slow",
        "Normal",
        "Evicting",
        &evicting,
    )
    .await;
    m.wait_event(
        "Pod",
        "slow",
        "Normal",
        "Descheduled",
        &says::descheduled("node-1", "NodeMaintenance"),
    )
    .await;
    let terminating = m.get_pod("default", "slow").await.expect("still there");
    assert!(
        terminating.metadata.deletion_timestamp.is_some(),
        "terminating"
    );

    m.settle().await;
    let job = m.get_job("move-slow").await.expect("job");
    assert_eq!(
        field(&job, "/status/phase"),
        Some("Running"),
        "not done while the pod terminates"
    );

    // The grace period passes on the shared clock: the kubelet finishes the pod.
    m.advance(31);
    let job = assert_succeeded(&m, "move-slow", "default", "slow", &uid(&pod)).await;
    assert_eq!(condition_types(&job), ["Eviction"], "upserted in place");
    assert_eq!(
        transition_time(&job, "Eviction").as_deref(),
        Some(rfc3339(m.now()).as_str()),
        "lastTransitionTime moved with the status change"
    );
}

fn transition_time(job: &Value, type_: &str) -> Option<String> {
    job.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)?
        .get("lastTransitionTime")?
        .as_str()
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stateful_set_pod_re_created_under_its_name_completes_the_job() {
    let m = Member::start(2, &[]).await;
    m.namespace("db", json!({})).await;
    m.create::<k8s_openapi::api::apps::v1::StatefulSet>(
        "db",
        json!({"apiVersion": "apps/v1", "kind": "StatefulSet",
            "metadata": {"name": "pg", "namespace": "db"},
            "spec": {"replicas": 2, "serviceName": "pg", "selector": {"matchLabels": {"app": "pg"}},
                "template": {"metadata": {"labels": {"app": "pg"}},
                    "spec": {"terminationGracePeriodSeconds": 0,
                             "containers": [{"name": "pg", "image": "postgres"}]}}}}),
    )
    .await;
    m.ready_pods("db", "pg", 2).await;
    let old = m.get_pod("db", "pg-1").await.expect("pg-1");
    m.job("move-pg-1", "db", "pg-1", json!({})).await;

    assert_succeeded(&m, "move-pg-1", "db", "pg-1", &uid(&old)).await;
    let again = m.ready_pod("db", "pg-1").await;
    assert_ne!(uid(&again), uid(&old), "a new pod under the same name");
    let job = m.get_job("move-pg-1").await.expect("job");
    assert_eq!(
        field(&job, "/spec/podRef/uid"),
        Some(uid(&old).as_str()),
        "the recorded uid is the evicted pod's"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paused_job_waits_for_approval() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    m.job("approve-me", "default", "p", json!({"paused": true}))
        .await;
    m.settle().await;

    let job = m.get_job("approve-me").await.expect("job");
    let phase = field(&job, "/status/phase");
    assert!(
        matches!(phase, None | Some("Pending")),
        "nothing happened: {job:#}"
    );
    assert!(condition_types(&job).is_empty(), "{job:#}");
    assert_eq!(annotation(&job, PASSED_ARBITRATION), None, "not admitted");
    assert_eq!(field(&job, "/spec/podRef/uid"), None);
    assert!(m.job_events("approve-me").await.is_empty());
    let now = m.get_pod("default", "p").await.expect("pod untouched");
    assert_eq!(uid(&now), uid(&pod));
    assert!(now.metadata.deletion_timestamp.is_none());

    m.patch_job("approve-me", json!({"spec": {"paused": false}}))
        .await;
    assert_succeeded(&m, "approve-me", "default", "p", &uid(&pod)).await;
    assert_eviction_events(&m, "approve-me", "default", "p", "node-1", "NotSet").await;
}

/// §2 step 2: the ttl runs in every non-terminal state — paused, not admitted, waiting on a
/// gate, and retrying a refused eviction — and ends the job at the boundary.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_ttl_fails_a_job_in_any_state_and_touches_nothing() {
    let m = Member::start(2, &[]).await;
    let gated = m.pod("default", "gated", "node-1", json!({})).await;
    let paused = m.pod("default", "paused", "node-1", json!({})).await;
    let blocked = m
        .pod("default", "blocked", "node-2", json!({"app": "blocked"}))
        .await;
    m.pdb(
        "default",
        "blocked",
        json!({"maxUnavailable": 0, "selector": {"matchLabels": {"app": "blocked"}}}),
    )
    .await;
    let ttl = json!("5s");
    m.job(
        "t-gated",
        "default",
        "gated",
        json!({"ttl": ttl, "evictionConditions": [{"name": "Approved"}]}),
    )
    .await;
    // A second job for the same pod is never admitted next to the first (§2).
    m.job("t-second", "default", "gated", json!({"ttl": ttl}))
        .await;
    m.job(
        "t-paused",
        "default",
        "paused",
        json!({"ttl": ttl, "paused": true}),
    )
    .await;
    m.job("t-blocked", "default", "blocked", json!({"ttl": ttl}))
        .await;
    m.wait_job("t-gated", "waits for its gate", |j| {
        field(j, "/status/status") == Some("WaitForEvictionConditions")
    })
    .await;
    let refusal = m
        .eviction_answer("default", "blocked")
        .await
        .expect("the budget refuses");
    assert_eq!(refusal.0, 429);
    m.wait_event(
        "PodMigrationJob",
        "t-blocked",
        "Warning",
        "Evicting",
        &says::failed_evict("default", "blocked", &refusal.1),
    )
    .await;

    // One second before the ttl: nothing has ended.
    m.advance(4);
    m.settle().await;
    let jobs = ["t-gated", "t-second", "t-paused", "t-blocked"];
    let mut before = Vec::new();
    for name in jobs {
        let job = m.get_job(name).await.expect("job");
        assert!(!is_terminal(&job), "{name} ended early: {job:#}");
        before.push(job);
    }
    assert_eq!(
        annotation(&before[1], PASSED_ARBITRATION),
        None,
        "t-second is waiting for admission"
    );

    // At the boundary (`now − creationTimestamp ≥ ttl`): each fails with Timeout, its
    // status word unchanged (abort paths keep it).
    m.advance(1);
    for (name, before) in jobs.iter().zip(&before) {
        let job = m.wait_ended(name, "Failed").await;
        let (_, status_before, _, _) = summary(before);
        assert_eq!(
            summary(&job),
            (
                "Failed".into(),
                status_before,
                "Timeout".into(),
                says::TIMEOUT.into()
            ),
            "{name}"
        );
        assert_eq!(
            annotation(&job, FINISHED_AT),
            Some(rfc3339(m.now()).as_str()),
            "{name} finished now"
        );
        m.wait_event("PodMigrationJob", name, "Warning", "Timeout", says::TIMEOUT)
            .await;
        assert!(
            condition(&job, "Eviction").is_none_or(|c| c.0 != "True"),
            "{name}: {job:#}"
        );
    }
    for pod in [&gated, &paused, &blocked] {
        let now = m
            .get_pod("default", &name(pod))
            .await
            .expect("pod untouched");
        assert_eq!(uid(&now), uid(pod));
        assert!(now.metadata.deletion_timestamp.is_none(), "{}", name(pod));
    }
    assert!(
        m.events("Pod", "gated").await.is_empty() && m.events("Pod", "paused").await.is_empty(),
        "no Descheduled event"
    );
    let series = format!(
        "fleet_eviction_pmj_total{{member=\"{MEMBER}\",phase=\"Failed\",reason=\"Timeout\"}}"
    );
    m.wait_metrics(&format!("{series} 4"), |text| {
        sample(text, &series) == Some(4.0)
    })
    .await;
}

/// §2 "Manual abort": the user sets `status.phase=Failed`; we never touch the job again
/// except for `finished-at`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_the_user_aborts_is_never_touched_again() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    m.job(
        "abort-me",
        "default",
        "p",
        json!({"evictionConditions": [{"name": "Approved"}]}),
    )
    .await;
    m.wait_job("abort-me", "waits for its gate", |j| {
        field(j, "/status/status") == Some("WaitForEvictionConditions")
    })
    .await;
    let written = m.set_phase("abort-me", "Failed").await;
    let job = m
        .wait_job("abort-me", &format!("has {FINISHED_AT}"), |j| {
            annotation(j, FINISHED_AT).is_some()
        })
        .await;
    assert_eq!(
        annotation(&job, FINISHED_AT),
        Some(START),
        "the time we first saw it"
    );
    assert_eq!(job["status"], written["status"], "the status is the user's");

    // The gate opens: a live job would evict now; this one stays as the user left it.
    m.set_condition("abort-me", "Approved", "True", "Approved", "go")
        .await;
    let with_gate = m.get_job("abort-me").await.expect("job");
    m.settle().await;
    let job = m.get_job("abort-me").await.expect("job");
    assert_eq!(job["status"], with_gate["status"], "status untouched");
    assert_eq!(
        job["metadata"]["resourceVersion"], with_gate["metadata"]["resourceVersion"],
        "nothing written"
    );
    let now = m.get_pod("default", "p").await.expect("pod untouched");
    assert_eq!(uid(&now), uid(&pod));
    assert!(now.metadata.deletion_timestamp.is_none());
    assert!(m.events("Pod", "p").await.is_empty());
    assert!(
        !m.job_events("abort-me")
            .await
            .iter()
            .any(|e| e.1 == "Evicting"),
        "no eviction"
    );
}

/// §2 "Coexistence": a job a koord-descheduler created is left alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_created_by_koord_descheduler_is_left_alone() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    let created = m
        .create_job(
            "koord-owned",
            json!({"annotations": {JOB_CREATED_BY: "koord-descheduler"}}),
            json!({"podRef": {"namespace": "default", "name": "p"}}),
        )
        .await;
    m.settle().await;
    let job = m.get_job("koord-owned").await.expect("job");
    assert_eq!(
        job["metadata"]["resourceVersion"], created["metadata"]["resourceVersion"],
        "never written: {job:#}"
    );
    assert!(m.job_events("koord-owned").await.is_empty());
    let now = m.get_pod("default", "p").await.expect("pod untouched");
    assert_eq!(uid(&now), uid(&pod));
}

/// §2: finished jobs are deleted 30 min after they finished; unfinished ones never.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_jobs_are_garbage_collected_after_thirty_minutes() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    m.pod("default", "q", "node-1", json!({})).await;
    m.job("done", "default", "p", json!({})).await;
    m.job("on-hold", "default", "q", json!({"paused": true}))
        .await;
    assert_succeeded(&m, "done", "default", "p", &uid(&pod)).await;
    assert_eq!(
        annotation(&m.get_job("done").await.expect("job"), FINISHED_AT),
        Some(START)
    );

    m.advance(29 * 60 + 59);
    m.settle().await;
    assert!(m.get_job("done").await.is_some(), "kept until 30 min");

    m.advance(2);
    m.wait_job_gone("done").await;
    m.settle().await;
    let on_hold = m.get_job("on-hold").await;
    assert!(
        on_hold.as_ref().is_some_and(|j| !is_terminal(j)),
        "an unfinished job is never deleted: {on_hold:?}"
    );
}
