//! The member registry against a three-member sandbox fleet in process, with a recording
//! implementation of the per-member work: members registered as in production get their
//! work started with a client of their own cluster; deleting, breaking or updating a
//! member's Secret stops, refuses or restarts exactly that member's work; an unreachable
//! member is reported (state and gauge) and recovers.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use fleet_eviction::api::keys::MEMBER_CLUSTER_LABEL;
use fleet_eviction::member::{
    MemberMetrics, MemberRegistry, MemberWork, Members, Reachability, Registration,
    RegistryOptions, RunningWork,
};
use fleet_eviction::runtime::clock::SystemClock;
use fleet_eviction::sandbox::fleet::kubeconfig::kubeconfig_yaml;
use fleet_eviction::sandbox::fleet::registration::{
    SYSTEM_NAMESPACE, member_cluster_resource, register_member,
};
use fleet_eviction::sandbox::fleet::{Fleet, FleetOptions};
use futures::FutureExt;
use futures::future::BoxFuture;
use k8s_openapi::api::core::v1::{Namespace, Secret};
use kube::api::{Api, DeleteParams, DynamicObject, Patch, PatchParams, PostParams};
use prometheus::{Encoder, Registry, TextEncoder};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(20);
const PROBE_INTERVAL: Duration = Duration::from_millis(100);

/// Polls `check` until it yields, within `WAIT`.
async fn eventually<T, F, Fut>(what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The work for each member, as the registry drives it: every start (with its client) and
/// stop, and whether a start ever came while the member's previous work still ran.
#[derive(Default)]
struct Recorder {
    state: Mutex<Recorded>,
}

#[derive(Default)]
struct Recorded {
    starts: BTreeMap<String, usize>,
    stops: BTreeMap<String, usize>,
    clients: BTreeMap<String, kube::Client>,
    overlaps: Vec<String>,
}

impl Recorder {
    fn state(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn starts(&self, member: &str) -> usize {
        self.state().starts.get(member).copied().unwrap_or(0)
    }

    fn stops(&self, member: &str) -> usize {
        self.state().stops.get(member).copied().unwrap_or(0)
    }

    fn running(&self) -> Vec<String> {
        let state = self.state();
        state
            .starts
            .iter()
            .filter(|(m, n)| **n > state.stops.get(*m).copied().unwrap_or(0))
            .map(|(m, _)| m.clone())
            .collect()
    }

    fn client(&self, member: &str) -> Option<kube::Client> {
        self.state().clients.get(member).cloned()
    }

    fn overlaps(&self) -> Vec<String> {
        self.state().overlaps.clone()
    }
}

struct Running {
    member: String,
    recorder: Arc<Recorder>,
}

struct Work(Arc<Recorder>);

impl MemberWork for Work {
    fn start(&self, member: &str, client: kube::Client) -> Box<dyn RunningWork> {
        let mut state = self.0.state();
        let started = state.starts.get(member).copied().unwrap_or(0);
        let stopped = state.stops.get(member).copied().unwrap_or(0);
        if started != stopped {
            state.overlaps.push(member.to_string());
        }
        *state.starts.entry(member.to_string()).or_default() += 1;
        state.clients.insert(member.to_string(), client);
        Box::new(Running {
            member: member.to_string(),
            recorder: self.0.clone(),
        })
    }
}

impl RunningWork for Running {
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()> {
        async move {
            *self
                .recorder
                .state()
                .stops
                .entry(self.member.clone())
                .or_default() += 1;
        }
        .boxed()
    }
}

struct Setup {
    fleet: Fleet,
    registry: MemberRegistry,
    members: Members,
    recorder: Arc<Recorder>,
    metrics: Registry,
    _dir: tempfile::TempDir,
}

async fn setup() -> Setup {
    let dir = tempfile::tempdir().expect("dir");
    let fleet = Fleet::start(&FleetOptions {
        members: 3,
        nodes_per_member: 1,
        dir: dir.path().to_path_buf(),
        seed: 7,
        clock: Arc::new(SystemClock),
    })
    .await
    .expect("fleet starts");
    let metrics = Registry::new();
    let member_metrics = MemberMetrics::register(&metrics).expect("metrics");
    let recorder = Arc::new(Recorder::default());
    let registry = MemberRegistry::start(
        fleet.hub.client(),
        RegistryOptions {
            namespace: SYSTEM_NAMESPACE.into(),
            probe_interval: PROBE_INTERVAL,
            clock: fleet.clock.clone(),
        },
        Arc::new(Work(recorder.clone())),
        member_metrics,
    );
    tokio::time::timeout(WAIT, registry.synced())
        .await
        .expect("the registry syncs");
    let members = registry.members();
    Setup {
        fleet,
        registry,
        members,
        recorder,
        metrics,
        _dir: dir,
    }
}

/// The value of one series, `None` when the series does not exist.
fn sample(metrics: &Registry, series: &str) -> Option<f64> {
    let mut buf = Vec::new();
    TextEncoder::new()
        .encode(&metrics.gather(), &mut buf)
        .expect("encode");
    let text = String::from_utf8(buf).expect("utf-8");
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// Waits until the series has `value` (`None`: until it is gone). Gauges are updated right
/// after the state the handle reports, so a test that saw the state waits for the gauge.
async fn wait_sample(metrics: &Registry, series: &str, value: Option<f64>) {
    eventually(&format!("{series} is {value:?}"), || async {
        (sample(metrics, series) == value).then_some(())
    })
    .await;
}

fn reachable_series(member: &str) -> String {
    format!("fleet_eviction_member_reachable{{member=\"{member}\"}}")
}

fn registrations_series(state: &str) -> String {
    format!("fleet_eviction_member_registrations{{state=\"{state}\"}}")
}

fn secrets(setup: &Setup) -> Api<Secret> {
    Api::namespaced(setup.fleet.hub.client(), SYSTEM_NAMESPACE)
}

fn member_url(setup: &Setup, member: &str) -> String {
    setup.fleet.member(member).expect("member").http.url()
}

/// Replaces the `kubeconfig` key of a member's Secret.
async fn set_kubeconfig(setup: &Setup, secret: &str, text: &str) {
    let patch = json!({"data": {"kubeconfig": k8s_openapi::ByteString(text.as_bytes().to_vec())}});
    secrets(setup)
        .patch(secret, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch the Secret");
}

async fn wait_all_reachable(setup: &Setup) {
    for member in ["member-1", "member-2", "member-3"] {
        eventually(&format!("{member} is reachable"), || async {
            (setup.members.is_reachable(member) == Some(true)).then_some(())
        })
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_registered_member_gets_its_work_with_a_client_of_its_own_cluster() {
    let setup = setup().await;
    let all = ["member-1", "member-2", "member-3"];
    assert_eq!(setup.members.names(), all);
    assert_eq!(setup.recorder.running(), all, "synced means started");
    for member in all {
        assert_eq!(
            setup.members.registration(member),
            Some(Registration::Complete)
        );
    }
    assert_eq!(
        sample(&setup.metrics, &registrations_series("complete")),
        Some(3.0)
    );
    assert_eq!(
        sample(&setup.metrics, &registrations_series("missing_secret")),
        Some(0.0)
    );

    // The client handed to the work, and the registry's, reach that member and no other.
    let marker: Namespace =
        serde_json::from_value(json!({"metadata": {"name": "only-on-member-2"}})).expect("ns");
    Api::all(setup.fleet.members[1].client())
        .create(&PostParams::default(), &marker)
        .await
        .expect("create on member-2");
    let work_client = setup.recorder.client("member-2").expect("work client");
    let found = Api::<Namespace>::all(work_client)
        .get_opt("only-on-member-2")
        .await
        .expect("read member-2");
    assert!(found.is_some(), "the work's client is member-2's");
    let registry_client = setup.members.client("member-2").expect("registry client");
    let found = Api::<Namespace>::all(registry_client)
        .get_opt("only-on-member-2")
        .await
        .expect("read member-2");
    assert!(found.is_some(), "the registry's client is member-2's");
    let other = Api::<Namespace>::all(setup.members.client("member-1").expect("member-1"))
        .get_opt("only-on-member-2")
        .await
        .expect("read member-1");
    assert!(other.is_none(), "member-1's client is not member-2's");

    wait_all_reachable(&setup).await;
    for member in all {
        assert_eq!(sample(&setup.metrics, &reachable_series(member)), Some(1.0));
    }
    assert_eq!(setup.members.is_reachable("member-9"), None, "not a member");
    assert!(setup.recorder.overlaps().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_a_secret_stops_the_work_and_reports_the_missing_secret() {
    let setup = setup().await;
    wait_all_reachable(&setup).await;
    secrets(&setup)
        .delete("member-1-kubeconfig", &DeleteParams::default())
        .await
        .expect("delete the Secret");
    eventually("member-1's work stops", || async {
        (setup.recorder.stops("member-1") == 1).then_some(())
    })
    .await;
    eventually("member-1 is reported missing its Secret", || async {
        (setup.members.registration("member-1") == Some(Registration::MissingSecret)).then_some(())
    })
    .await;
    assert_eq!(setup.members.names(), ["member-2", "member-3"]);
    assert!(setup.members.client("member-1").is_none());
    assert_eq!(setup.members.is_reachable("member-1"), None);
    wait_sample(&setup.metrics, &reachable_series("member-1"), None).await;
    wait_sample(
        &setup.metrics,
        &registrations_series("missing_secret"),
        Some(1.0),
    )
    .await;
    wait_sample(&setup.metrics, &registrations_series("complete"), Some(2.0)).await;
    assert_eq!(setup.recorder.running(), ["member-2", "member-3"]);

    // The MemberCluster of member-3 goes: its Secret alone is reported, its work stops.
    let clusters: Api<DynamicObject> =
        Api::all_with(setup.fleet.hub.client(), &member_cluster_resource());
    clusters
        .delete("member-3", &DeleteParams::default())
        .await
        .expect("delete the MemberCluster");
    eventually("member-3 is reported missing its MemberCluster", || async {
        (setup.members.registration("member-3")
            == Some(Registration::MissingMemberCluster {
                secrets: vec!["member-3-kubeconfig".into()],
            }))
        .then_some(())
    })
    .await;
    eventually("member-3's work stops", || async {
        (setup.recorder.stops("member-3") == 1).then_some(())
    })
    .await;
    wait_sample(
        &setup.metrics,
        &registrations_series("missing_member_cluster"),
        Some(1.0),
    )
    .await;

    // Registered again: the work starts again, after the old one stopped.
    let mut secret = Secret::default();
    secret.metadata.name = Some("member-1-kubeconfig".into());
    secret.metadata.labels = Some([(MEMBER_CLUSTER_LABEL.to_string(), "member-1".into())].into());
    secret.data = Some(
        [(
            "kubeconfig".to_string(),
            k8s_openapi::ByteString(
                kubeconfig_yaml("member-1", &member_url(&setup, "member-1")).into_bytes(),
            ),
        )]
        .into(),
    );
    secrets(&setup)
        .create(&PostParams::default(), &secret)
        .await
        .expect("re-create the Secret");
    eventually("member-1's work starts again", || async {
        (setup.recorder.starts("member-1") == 2).then_some(())
    })
    .await;
    eventually("member-1 is reachable again", || async {
        (setup.members.is_reachable("member-1") == Some(true)).then_some(())
    })
    .await;
    assert_eq!(setup.recorder.starts("member-2"), 1, "others untouched");
    assert!(setup.recorder.overlaps().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_kubeconfig_with_a_file_path_or_a_plugin_is_refused_by_name() {
    let setup = setup().await;
    let server = member_url(&setup, "member-1");
    let with_user = |user: &str| {
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: m\nclusters:\n- name: m\n  cluster:\n    server: {server}\nusers:\n- name: admin\n  user:\n{user}contexts:\n- name: m\n  context:\n    cluster: m\n    user: admin\n"
        )
    };
    register_member(
        &setup.fleet.hub.client(),
        "member-4",
        &with_user("    tokenFile: /var/run/secrets/token\n"),
    )
    .await
    .expect("register member-4");
    let refused = |field: &'static str| {
        let members = setup.members.clone();
        move || {
            let registration = members.registration("member-4");
            async move {
                match registration {
                    Some(Registration::InvalidKubeconfig(message)) if message.contains(field) => {
                        Some(message)
                    }
                    _ => None,
                }
            }
        }
    };
    let message = eventually("member-4's token file is refused", refused("`tokenFile`")).await;
    assert!(
        message.starts_with(
            "member member-4: Secret fleet-eviction-system/member-4-kubeconfig: the kubeconfig \
             uses `tokenFile` (in user \"admin\"): only inline credentials are accepted"
        ),
        "{message}"
    );
    wait_sample(
        &setup.metrics,
        &registrations_series("invalid_kubeconfig"),
        Some(1.0),
    )
    .await;

    set_kubeconfig(
        &setup,
        "member-4-kubeconfig",
        &with_user("    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: gke-gcloud-auth-plugin\n"),
    )
    .await;
    let message = eventually("member-4's exec plugin is refused", refused("`exec`")).await;
    assert!(message.contains("member member-4"), "{message}");

    // Nothing ran for member-4; the others were left alone.
    assert_eq!(setup.recorder.starts("member-4"), 0);
    assert!(setup.members.client("member-4").is_none());
    assert_eq!(setup.members.names(), ["member-1", "member-2", "member-3"]);
    for member in ["member-1", "member-2", "member-3"] {
        assert_eq!(setup.recorder.starts(member), 1, "{member} untouched");
        assert_eq!(setup.recorder.stops(member), 0, "{member} untouched");
    }

    // Fixed: member-4 registers.
    set_kubeconfig(&setup, "member-4-kubeconfig", &with_user("    token: t\n")).await;
    eventually("member-4's work starts", || async {
        (setup.recorder.starts("member-4") == 1).then_some(())
    })
    .await;
    assert_eq!(
        setup.members.registration("member-4"),
        Some(Registration::Complete)
    );
    wait_sample(
        &setup.metrics,
        &registrations_series("invalid_kubeconfig"),
        Some(0.0),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_member_is_reported_after_three_failed_probes_and_recovers() {
    let setup = setup().await;
    wait_all_reachable(&setup).await;
    let member_2 = &setup.fleet.members[1];
    member_2.server.set_unreachable(true);
    let status = eventually("member-2 is unreachable", || async {
        setup
            .members
            .reachability("member-2")
            .filter(|s| s.reachability == Reachability::Unreachable)
    })
    .await;
    assert!(status.failures_in_a_row >= 3, "{status:?}");
    assert!(status.last_error.is_some(), "{status:?}");
    assert_eq!(setup.members.is_reachable("member-2"), Some(false));
    wait_sample(&setup.metrics, &reachable_series("member-2"), Some(0.0)).await;
    assert_eq!(setup.members.is_reachable("member-1"), Some(true));
    wait_sample(&setup.metrics, &reachable_series("member-1"), Some(1.0)).await;
    // The registry only reports: the member's work keeps running and retries by itself.
    assert_eq!(
        setup.recorder.running(),
        ["member-1", "member-2", "member-3"]
    );
    assert!(setup.members.client("member-2").is_some());

    member_2.server.set_unreachable(false);
    let status = eventually("member-2 is reachable again", || async {
        setup
            .members
            .reachability("member-2")
            .filter(|s| s.reachability == Reachability::Reachable)
    })
    .await;
    assert_eq!(status.failures_in_a_row, 0);
    assert_eq!(status.last_error, None);
    wait_sample(&setup.metrics, &reachable_series("member-2"), Some(1.0)).await;
    assert_eq!(setup.recorder.starts("member-2"), 1, "never restarted");
    assert_eq!(setup.recorder.stops("member-2"), 0, "never stopped");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn updating_a_secret_restarts_that_members_work() {
    let setup = setup().await;
    let rotated = kubeconfig_yaml("member-2", &member_url(&setup, "member-2"))
        .replace("token: sandbox", "token: rotated");
    set_kubeconfig(&setup, "member-2-kubeconfig", &rotated).await;
    eventually("member-2's work restarts", || async {
        (setup.recorder.starts("member-2") == 2).then_some(())
    })
    .await;
    assert_eq!(setup.recorder.stops("member-2"), 1);
    assert!(
        setup.recorder.overlaps().is_empty(),
        "stopped before started"
    );
    assert_eq!(
        setup.recorder.running(),
        ["member-1", "member-2", "member-3"]
    );

    // A change that leaves the kubeconfig as it was (an annotation) restarts nothing. The
    // Secrets watch delivers changes in order, so member-3's restart below comes after it.
    let annotate = json!({"metadata": {"annotations": {"owner": "platform"}}});
    secrets(&setup)
        .patch(
            "member-1-kubeconfig",
            &PatchParams::default(),
            &Patch::Merge(&annotate),
        )
        .await
        .expect("annotate");
    let rotated = kubeconfig_yaml("member-3", &member_url(&setup, "member-3"))
        .replace("token: sandbox", "token: rotated");
    set_kubeconfig(&setup, "member-3-kubeconfig", &rotated).await;
    eventually("member-3's work restarts", || async {
        (setup.recorder.starts("member-3") == 2).then_some(())
    })
    .await;
    assert_eq!(
        setup.recorder.starts("member-1"),
        1,
        "an annotation restarts nothing"
    );
    assert_eq!(setup.recorder.starts("member-2"), 2);
    eventually("member-3 is reachable with its new client", || async {
        (setup.members.is_reachable("member-3") == Some(true)).then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_the_registry_stops_every_members_work() {
    let setup = setup().await;
    let Setup {
        registry,
        recorder,
        members,
        ..
    } = setup;
    registry.stop().await;
    assert!(recorder.running().is_empty(), "{:?}", recorder.running());
    for member in ["member-1", "member-2", "member-3"] {
        assert_eq!(recorder.stops(member), 1);
    }
    // The handle outlives the registry; it still answers.
    assert_eq!(members.names().len(), 3);
}
