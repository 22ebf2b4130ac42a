//! Leader election against a sandbox API server in process: one leader at a time, failover
//! after the lease expires, a leader that cannot renew stops acting, a clean stop releases.

use fleet_eviction::runtime::clock::{Clock, ManualClock};
use fleet_eviction::runtime::leader::{ElectionConfig, LeaderError, elect};
use fleet_eviction::sandbox::apiserver::faults::{ErrorRule, FaultSettings};
use fleet_eviction::sandbox::apiserver::front::client;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::SignedDuration;
use kube::Api;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

const WAIT: Duration = Duration::from_secs(10);

struct Replica {
    leading: watch::Receiver<bool>,
    stop: Option<oneshot::Sender<()>>,
    task: JoinHandle<Result<(), LeaderError>>,
}

fn replica(api: &Api<Lease>, clock: &Arc<ManualClock>, identity: &str) -> Replica {
    let config = ElectionConfig {
        namespace: "default".into(),
        lease_name: "fleet-eviction".into(),
        identity: identity.into(),
        lease_duration: Duration::from_secs(15),
        renew_deadline: Duration::from_secs(10),
        retry_period: Duration::from_millis(20),
        clock: clock.clone(),
    };
    let (leading_tx, leading) = watch::channel(false);
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(elect(api.clone(), config, leading_tx, async move {
        let _ = stop_rx.await;
    }));
    Replica {
        leading,
        stop: Some(stop_tx),
        task,
    }
}

async fn until(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = tokio::time::Instant::now() + WAIT;
    while !check() {
        assert!(tokio::time::Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

async fn holder(api: &Api<Lease>) -> Option<String> {
    api.get_opt("fleet-eviction")
        .await
        .expect("read lease")
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
}

fn setup() -> (Arc<ApiServer>, Api<Lease>, Arc<ManualClock>) {
    let clock = ManualClock::new("2026-05-01T00:00:00Z".parse().expect("time"));
    let server = ApiServer::new(ServerConfig {
        clock: clock.clone(),
        ..ServerConfig::default()
    });
    let api = Api::namespaced(client(&server), "default");
    (server, api, clock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_leader_then_failover_after_expiry() {
    let (_server, api, clock) = setup();
    let a = replica(&api, &clock, "a");
    until("a leads", || *a.leading.borrow()).await;
    let b = replica(&api, &clock, "b");
    // b keeps trying while a renews: it never leads.
    for _ in 0..20 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!*b.leading.borrow(), "two leaders");
    }
    assert_eq!(holder(&api).await.as_deref(), Some("a"));
    // a dies without releasing; b takes over only once the lease has expired.
    a.task.abort();
    clock.advance(SignedDuration::from_secs(10));
    for _ in 0..10 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!*b.leading.borrow(), "took over a valid lease");
    }
    clock.advance(SignedDuration::from_secs(6));
    until("b leads after expiry", || *b.leading.borrow()).await;
    let lease = api.get("fleet-eviction").await.expect("lease");
    let spec = lease.spec.expect("spec");
    assert_eq!(spec.holder_identity.as_deref(), Some("b"));
    assert_eq!(spec.lease_transitions, Some(1));
    assert_eq!(spec.lease_duration_seconds, Some(15));
    assert_eq!(spec.acquire_time.map(|t| t.0), Some(clock.now()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_that_cannot_renew_stops_acting() {
    let (server, api, clock) = setup();
    let a = replica(&api, &clock, "a");
    until("a leads", || *a.leading.borrow()).await;
    server.set_faults(FaultSettings {
        errors: vec![ErrorRule {
            rate: 1.0,
            code: 500,
            verb: Some("update".into()),
            resource: Some("leases".into()),
        }],
        ..FaultSettings::default()
    });
    clock.advance(SignedDuration::from_secs(11));
    let ended = tokio::time::timeout(WAIT, a.task)
        .await
        .expect("ends")
        .expect("joins");
    assert!(matches!(ended, Err(LeaderError::Lost { .. })), "{ended:?}");
    assert!(!*a.leading.borrow(), "stops acting");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clean_stop_releases_the_lease() {
    let (_server, api, clock) = setup();
    let mut a = replica(&api, &clock, "a");
    until("a leads", || *a.leading.borrow()).await;
    let _ = a.stop.take().expect("stop").send(());
    let ended = tokio::time::timeout(WAIT, a.task)
        .await
        .expect("ends")
        .expect("joins");
    assert!(ended.is_ok());
    assert_eq!(holder(&api).await, None, "released");
    let b = replica(&api, &clock, "b");
    until("b leads at once, no expiry wait", || *b.leading.borrow()).await;
}
