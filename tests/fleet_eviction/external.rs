//! External hand-off at fleet level (§5.2): signal, wait for the external controller, its
//! verdicts, the ttl, and deletion of the eviction.

use super::harness::*;
use fleet_eviction::api::kubefleet::ClusterResourceBinding;
use kube::api::{DeleteParams, Preconditions};
use serde_json::{Value, json};

const SIGNAL: &str = "fleet-eviction.io/evacuation-requested";
const SIGNAL_AT: &str = "fleet-eviction.io/evacuation-requested-at";

async fn placed(hub: &Hub, finalizer: bool) {
    hub.placement("db", Value::Null).await;
    hub.available_bindings("db", 3, finalizer).await;
    hub.budget("db", json!({"minAvailable": 1})).await;
}

fn annotation<'a>(b: &'a ClusterResourceBinding, key: &str) -> Option<&'a str> {
    b.metadata
        .annotations
        .as_ref()
        .and_then(|a| a.get(key))
        .map(String::as_str)
}

/// Waits for the signal on the binding and returns the binding as the external controller
/// reads it.
async fn signalled(hub: &Hub, eviction: &str) -> ClusterResourceBinding {
    // The stage is written with the reservation, the condition with the signal.
    let e = hub
        .wait_for(eviction, "ExternalEvacuation", |e| {
            condition(e, "ExternalEvacuation").is_some()
        })
        .await;
    let requested = condition(&e, "ExternalEvacuation").expect("ExternalEvacuation");
    assert_eq!(
        (
            requested.status.as_str(),
            requested.reason.as_str(),
            requested.message.as_str()
        ),
        (
            "Unknown",
            "Requested",
            "External evacuation of the placement from cluster targeted by eviction requested"
        )
    );
    assert_eq!(
        condition(&e, "Progressing").map(|c| c.message.as_str()),
        Some(
            "Eviction is waiting for an external controller to remove the placement from cluster targeted by eviction"
        )
    );
    let binding = hub
        .binding_exists("db-member-1")
        .await
        .expect("binding kept");
    assert!(
        binding.metadata.deletion_timestamp.is_none(),
        "we do not delete it ourselves"
    );
    assert_eq!(annotation(&binding, SIGNAL), Some(eviction));
    assert!(annotation(&binding, SIGNAL_AT).is_some_and(|t| t.ends_with('Z')));
    binding
}

/// The external controller's delete, guarded by the resourceVersion it read the signal at.
async fn delete_as_external(hub: &Hub, seen: &ClusterResourceBinding) -> Result<(), kube::Error> {
    let params = DeleteParams {
        preconditions: Some(Preconditions {
            resource_version: seen.metadata.resource_version.clone(),
            uid: None,
        }),
        ..DeleteParams::default()
    };
    hub.bindings()
        .delete("db-member-1", &params)
        .await
        .map(|_| ())
}

const EXTERNAL_DONE: &str = "Eviction is allowed, an external controller removed the placement from cluster targeted by eviction";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_external_controller_removes_the_binding() {
    let hub = Hub::start().await;
    placed(&hub, false).await;
    hub.eviction("handoff", "db", "member-1", json!({"strategy": "External"}))
        .await;
    let seen = signalled(&hub, "handoff").await;
    delete_as_external(&hub, &seen)
        .await
        .expect("the external delete is accepted");
    let done = hub.verdict("handoff").await;
    let executed = condition(&done, "Executed").expect("verdict");
    assert_eq!(
        (executed.status.as_str(), executed.message.as_str()),
        ("True", EXTERNAL_DONE)
    );
    assert_eq!(
        condition(&done, "BudgetReserved").map(|c| c.reason.as_str()),
        Some("Released")
    );
    hub.wait_for("handoff", "the finalizer removed", |e| {
        e.metadata.finalizers.as_ref().is_none_or(|f| f.is_empty())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_true_asks_us_to_delete_and_false_fails() {
    let hub = Hub::start().await;
    placed(&hub, true).await;
    hub.eviction(
        "done-for-me",
        "db",
        "member-1",
        json!({"strategy": "External"}),
    )
    .await;
    signalled(&hub, "done-for-me").await;
    hub.set_condition(
        "done-for-me",
        "ExternalEvacuation",
        "True",
        "drained the database",
    )
    .await;
    let done = hub.verdict("done-for-me").await;
    assert_eq!(
        condition(&done, "Executed").map(|c| c.message.as_str()),
        Some(EXTERNAL_DONE)
    );
    let external = condition(&done, "ExternalEvacuation").expect("kept");
    assert_eq!(
        (external.status.as_str(), external.message.as_str()),
        ("True", "drained the database"),
        "never overwritten"
    );
    let binding = hub
        .binding_exists("db-member-1")
        .await
        .expect("lingers on its finalizer");
    assert!(
        binding.metadata.deletion_timestamp.is_some(),
        "we deleted it"
    );

    hub.eviction("gave-up", "db", "member-2", json!({"strategy": "External"}))
        .await;
    hub.stage("gave-up", "WaitingForExternal").await;
    hub.set_condition(
        "gave-up",
        "ExternalEvacuation",
        "False",
        "replica lag too high",
    )
    .await;
    let failed = hub.verdict("gave-up").await;
    let executed = condition(&failed, "Executed").expect("verdict");
    assert_eq!(
        (
            executed.status.as_str(),
            executed.reason.as_str(),
            executed.message.as_str()
        ),
        (
            "False",
            "ExternalEvacuationFailed",
            "Eviction is blocked, external evacuation failed: replica lag too high"
        )
    );
    let binding = hub
        .binding_exists("db-member-2")
        .await
        .expect("binding stays");
    assert!(binding.metadata.deletion_timestamp.is_none());
    assert_eq!(annotation(&binding, SIGNAL), None, "signal removed");
    assert_eq!(annotation(&binding, SIGNAL_AT), None);
}

/// The ttl expires while waiting for the external controller: the signal is removed first
/// (bumping the binding's resourceVersion), so the external controller's delete prepared
/// before then fails with 409 Conflict.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_removes_the_signal_and_a_stale_external_delete_gets_409() {
    let hub = Hub::start().await;
    placed(&hub, false).await;
    hub.eviction(
        "slow",
        "db",
        "member-1",
        json!({"strategy": "External", "ttl": "30s"}),
    )
    .await;
    let seen = signalled(&hub, "slow").await;
    let created = hub
        .get("slow")
        .await
        .metadata
        .creation_timestamp
        .expect("created")
        .0;
    hub.advance(29);
    hub.set_condition(
        "slow",
        "Unrelated",
        "True",
        "a change that makes the controller look",
    )
    .await;
    hub.wait_for("slow", "a look before the deadline", |e| {
        condition(e, "Unrelated").is_some()
    })
    .await;
    assert!(
        condition(&hub.get("slow").await, "Executed").is_none(),
        "no timeout before the ttl"
    );
    hub.advance(1);
    let timed_out = hub.verdict("slow").await;
    let executed = condition(&timed_out, "Executed").expect("verdict");
    assert_eq!(
        (
            executed.status.as_str(),
            executed.reason.as_str(),
            executed.message.as_str()
        ),
        (
            "False",
            "Timeout",
            "Eviction is blocked, ttl 30s expired while WaitingForExternal"
        )
    );
    let at = executed.last_transition_time.0;
    let elapsed = at.duration_since(created).as_secs_f64();
    assert!(
        (30.0..31.0).contains(&elapsed),
        "timed out {elapsed}s after creation"
    );
    let binding = hub
        .binding_exists("db-member-1")
        .await
        .expect("binding stays");
    assert_eq!(annotation(&binding, SIGNAL), None, "signal removed");
    let stale = delete_as_external(&hub, &seen).await;
    match stale {
        Err(kube::Error::Api(s)) => assert_eq!(s.code, 409, "{s:?}"),
        other => panic!("a stale external delete must fail with 409, got {other:?}"),
    }
    assert!(hub.binding_exists("db-member-1").await.is_some());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_signalled_eviction_removes_the_signal_then_the_finalizer() {
    let hub = Hub::start().await;
    placed(&hub, false).await;
    hub.eviction(
        "withdrawn",
        "db",
        "member-1",
        json!({"strategy": "External"}),
    )
    .await;
    signalled(&hub, "withdrawn").await;
    hub.evictions()
        .delete("withdrawn", &Default::default())
        .await
        .expect("delete");
    let deadline = tokio::time::Instant::now() + WAIT;
    while hub
        .evictions()
        .get_opt("withdrawn")
        .await
        .expect("read")
        .is_some()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the finalizer is never removed"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let binding = hub
        .binding_exists("db-member-1")
        .await
        .expect("binding stays");
    assert_eq!(
        annotation(&binding, SIGNAL),
        None,
        "signal removed before the finalizer"
    );
    assert!(binding.metadata.deletion_timestamp.is_none());
}
