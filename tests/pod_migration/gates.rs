//! §3 eviction conditions (gates) written by external controllers, and profiles that inject
//! them.

use super::harness::*;
use serde_json::{Value, json};

/// The job's gate conditions (every condition but ours), as written.
fn gate_conditions(job: &Value, gates: &[&str]) -> Vec<Value> {
    job.pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter(|c| gates.iter().any(|g| c["type"] == *g))
                .cloned()
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_waits_for_its_gates_and_evicts_once_all_are_true() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    let gates = json!([{"name": "TrafficShifted"}, {"name": "ChangeApproved"}]);
    m.job(
        "gated",
        "default",
        "p",
        json!({"evictionConditions": gates}),
    )
    .await;

    let waiting = says::waiting_for(&["TrafficShifted", "ChangeApproved"]);
    let job = m
        .wait_job("gated", "waits for both gates", |j| {
            field(j, "/status/message") == Some(waiting.as_str())
        })
        .await;
    assert_eq!(
        summary(&job),
        (
            "Running".into(),
            "WaitForEvictionConditions".into(),
            "WaitForEvictionConditions".into(),
            waiting.clone()
        )
    );
    assert!(
        condition_types(&job).is_empty(),
        "waiting adds no condition: {job:#}"
    );
    assert_eq!(annotation(&job, PASSED_ARBITRATION), Some("true"));
    assert_eq!(field(&job, "/spec/podRef/uid"), Some(uid(&pod).as_str()));
    assert_eq!(
        job.pointer("/spec/evictionConditions"),
        Some(&gates),
        "the user's gates as written"
    );

    // An external writer opens one gate: the message names the other.
    let traffic = m
        .set_condition(
            "gated",
            "TrafficShifted",
            "True",
            "Shifted",
            "traffic is away",
        )
        .await;
    let waiting_one = says::waiting_for(&["ChangeApproved"]);
    let job = m
        .wait_job("gated", "waits for ChangeApproved only", |j| {
            field(j, "/status/message") == Some(waiting_one.as_str())
        })
        .await;
    assert_eq!(
        summary(&job),
        (
            "Running".into(),
            "WaitForEvictionConditions".into(),
            "WaitForEvictionConditions".into(),
            waiting_one
        )
    );
    let now = m.get_pod("default", "p").await.expect("pod untouched");
    assert_eq!(uid(&now), uid(&pod));

    // Unknown still waits.
    let unknown = m
        .set_condition(
            "gated",
            "ChangeApproved",
            "Unknown",
            "Reviewing",
            "in review",
        )
        .await;
    m.settle().await;
    let job = m.get_job("gated").await.expect("job");
    assert_eq!(field(&job, "/status/phase"), Some("Running"));
    assert_eq!(
        gate_conditions(&job, &["TrafficShifted", "ChangeApproved"]),
        [traffic.clone(), unknown]
    );

    let approved = m
        .set_condition("gated", "ChangeApproved", "True", "Approved", "CHG-42")
        .await;
    let job = assert_succeeded(&m, "gated", "default", "p", &uid(&pod)).await;
    assert_eviction_events(&m, "gated", "default", "p", "node-1", "NotSet").await;
    assert_eq!(
        gate_conditions(&job, &["TrafficShifted", "ChangeApproved"]),
        [traffic, approved],
        "the executor never changes a gate"
    );
    assert_eq!(
        condition_types(&job),
        ["TrafficShifted", "ChangeApproved", "Eviction"],
        "gates kept, ours added after"
    );
    m.wait_metrics("the pod-level gate wait", |text| {
        sample(
            text,
            "fleet_eviction_gate_wait_seconds_count{level=\"pod\"}",
        )
        .unwrap_or(0.0)
            >= 1.0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_denied_gate_fails_the_job_and_the_pod_stays() {
    let m = Member::start(1, &[]).await;
    let pod = m.pod("default", "p", "node-1", json!({})).await;
    let gates = json!([{"name": "TrafficShifted"}, {"name": "ChangeApproved"}]);
    m.job(
        "denied",
        "default",
        "p",
        json!({"evictionConditions": gates}),
    )
    .await;
    // An unrelated job runs beside it, unaffected.
    let other = m.pod("default", "other", "node-1", json!({})).await;
    m.job("unrelated", "default", "other", json!({})).await;
    m.wait_job("denied", "waits for its gates", |j| {
        field(j, "/status/status") == Some("WaitForEvictionConditions")
    })
    .await;

    let traffic = m
        .set_condition("denied", "TrafficShifted", "True", "Shifted", "")
        .await;
    let denial = m
        .set_condition(
            "denied",
            "ChangeApproved",
            "False",
            "Rejected",
            "risk too high",
        )
        .await;
    let job = m.wait_ended("denied", "Failed").await;
    assert_eq!(
        summary(&job),
        (
            "Failed".into(),
            "WaitForEvictionConditions".into(),
            "EvictionConditionDenied".into(),
            says::gate_denied("ChangeApproved", "risk too high")
        ),
        "abort paths keep status.status"
    );
    assert!(annotation(&job, FINISHED_AT).is_some());
    assert_eq!(
        gate_conditions(&job, &["TrafficShifted", "ChangeApproved"]),
        [traffic, denial],
        "the executor never changes a gate"
    );
    assert!(condition(&job, "Eviction").is_none(), "{job:#}");
    let now = m.get_pod("default", "p").await.expect("pod untouched");
    assert_eq!(uid(&now), uid(&pod));
    assert!(now.metadata.deletion_timestamp.is_none());
    assert!(m.events("Pod", "p").await.is_empty());

    assert_succeeded(&m, "unrelated", "default", "other", &uid(&other)).await;
    let series = format!(
        "fleet_eviction_pmj_total{{member=\"{MEMBER}\",phase=\"Failed\",reason=\"EvictionConditionDenied\"}}"
    );
    m.wait_metrics(&format!("{series} 1"), |text| {
        sample(text, &series) == Some(1.0)
    })
    .await;
}

async fn profile(m: &Member, name: &str, spec: Value) {
    let object: kube::api::DynamicObject = serde_json::from_value(json!({
        "apiVersion": "scheduling.koordinator.sh/v1alpha1",
        "kind": "PodMigrationJobProfile",
        "metadata": {"name": name},
        "spec": spec,
    }))
    .expect("profile");
    m.profiles()
        .create(&kube::api::PostParams::default(), &object)
        .await
        .unwrap_or_else(|e| panic!("create profile {name}: {e}"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matching_profiles_inject_their_gates_once() {
    // Profiles exist before the executor starts, so its synced cache holds them.
    let mut m = Member::without_executor(1, Time::Manual).await;
    m.namespace("shop", json!({"team": "shop"})).await;
    m.namespace("lab", json!({"team": "lab"})).await;
    let web = m
        .pod("shop", "web-0", "node-1", json!({"app": "web"}))
        .await;
    let db = m.pod("shop", "db-0", "node-1", json!({"app": "db"})).await;
    let lab_web = m.pod("lab", "web-0", "node-1", json!({"app": "web"})).await;
    profile(
        &m,
        "b-traffic",
        json!({"namespaceSelector": {"matchLabels": {"team": "shop"}},
               "selector": {"matchLabels": {"app": "web"}},
               "evictionConditions": [{"name": "TrafficShifted"}, {"name": "ChangeApproved"}]}),
    )
    .await;
    profile(
        &m,
        "a-risk",
        json!({"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]},
               "evictionConditions": [{"name": "RiskApproved"}]}),
    )
    .await;
    // Matches the pod but not its namespace: both selectors must match.
    profile(
        &m,
        "c-lab",
        json!({"namespaceSelector": {"matchLabels": {"team": "lab"}},
               "evictionConditions": [{"name": "LabOnly"}]}),
    )
    .await;
    profile(
        &m,
        "d-broken",
        json!({"selector": {"matchExpressions": [{"key": "app", "operator": "Within", "values": ["web"]}]},
               "evictionConditions": [{"name": "Never"}]}),
    )
    .await;
    m.start_executor(&[]).await;

    m.job(
        "web",
        "shop",
        "web-0",
        json!({"evictionConditions": [{"name": "ChangeApproved"}]}),
    )
    .await;
    m.job("db", "shop", "db-0", json!({})).await;

    // User entries first, then profiles in name order, duplicates skipped.
    let injected =
        json!([{"name": "ChangeApproved"}, {"name": "RiskApproved"}, {"name": "TrafficShifted"}]);
    let waiting = says::waiting_for(&["ChangeApproved", "RiskApproved", "TrafficShifted"]);
    let job = m
        .wait_job("web", "waits for the injected gates", |j| {
            field(j, "/status/message") == Some(waiting.as_str())
        })
        .await;
    assert_eq!(job.pointer("/spec/evictionConditions"), Some(&injected));
    assert_eq!(annotation(&job, PROFILES), Some("a-risk,b-traffic"));
    assert_eq!(field(&job, "/spec/podRef/uid"), Some(uid(&web).as_str()));
    assert_eq!(summary(&job).1, "WaitForEvictionConditions", "{job:#}");

    // No profile matches db-0 (a-risk and b-traffic select app=web; c-lab another
    // namespace): nothing injected, and the job evicts at once.
    let db_job = assert_succeeded(&m, "db", "shop", "db-0", &uid(&db)).await;
    assert_eq!(db_job.pointer("/spec/evictionConditions"), None);
    assert_eq!(annotation(&db_job, PROFILES), Some(""));

    // The invalid selector: skipped, with a Warning on the profile.
    let broken = eventually("a Warning Event on profile d-broken", || async {
        let events = m.events("PodMigrationJobProfile", "d-broken").await;
        events.iter().any(|e| e.0 == "Warning").then_some(events)
    })
    .await;
    assert!(broken.iter().all(|e| e.0 == "Warning"), "{broken:#?}");

    // A profile edited later does not touch a running job.
    let mut risk = m.profiles().get("a-risk").await.expect("a-risk");
    risk.data["spec"]["evictionConditions"] = json!([{"name": "RiskApproved"}, {"name": "Extra"}]);
    m.profiles()
        .replace("a-risk", &kube::api::PostParams::default(), &risk)
        .await
        .expect("edit a-risk");
    m.settle().await;
    let job = m.get_job("web").await.expect("job");
    assert_eq!(job.pointer("/spec/evictionConditions"), Some(&injected));
    assert_eq!(field(&job, "/status/message"), Some(waiting.as_str()));

    for gate in ["ChangeApproved", "RiskApproved", "TrafficShifted"] {
        m.set_condition("web", gate, "True", "Done", "").await;
    }
    let job = assert_succeeded(&m, "web", "shop", "web-0", &uid(&web)).await;
    assert_eq!(job.pointer("/spec/evictionConditions"), Some(&injected));

    // The lab pod matches c-lab (namespace) and a-risk (now with Extra): injected at its
    // own step 6, with the profiles as they are now.
    m.job("lab", "lab", "web-0", json!({})).await;
    let job = m
        .wait_job("lab", "waits for the lab gates", |j| {
            field(j, "/status/status") == Some("WaitForEvictionConditions")
        })
        .await;
    assert_eq!(
        job.pointer("/spec/evictionConditions"),
        Some(&json!([{"name": "RiskApproved"}, {"name": "Extra"}, {"name": "LabOnly"}]))
    );
    assert_eq!(annotation(&job, PROFILES), Some("a-risk,c-lab"));
    assert_eq!(
        field(&job, "/status/message"),
        Some(says::waiting_for(&["RiskApproved", "Extra", "LabOnly"]).as_str())
    );
    let now = m.get_pod("lab", "web-0").await.expect("lab pod untouched");
    assert_eq!(uid(&now), uid(&lab_web));
}
