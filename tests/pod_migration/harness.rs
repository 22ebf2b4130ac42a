//! One member cluster in process: a sandbox API server with the PodMigrationJob CRDs, nodes,
//! the member simulation (scheduler, kubelets, workload controllers) and the executor under
//! test, all on one virtual clock that only the test moves.
//!
//! Jobs are read and written as plain JSON (`DynamicObject`), and every expected string is
//! spelled out here or in the tests from pod-migration.md, never taken from the product's
//! code, so that drift on either side is caught.

#![allow(dead_code)]

use clap::Parser;
use fleet_eviction::pod::executor::metrics::PodMetrics;
use fleet_eviction::pod::executor::{Executor, ExecutorOptions};
use fleet_eviction::runtime::clock::{ManualClock, SharedClock, SystemClock};
use fleet_eviction::runtime::metrics::ControllerFamilies;
use fleet_eviction::runtime::options::PmjArgs;
use fleet_eviction::sandbox::apiserver::front;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use fleet_eviction::sandbox::fleet::registration::install_member_crds;
use fleet_eviction::sandbox::sim::member::{MemberSim, SimHandle, create_nodes};
use k8s_openapi::api::core::v1::{Event, Namespace, Pod};
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::Client;
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
};
use prometheus::{Encoder, Registry, TextEncoder};
use serde_json::{Value, json};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

/// How long any wait may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(20);

/// The member's name, as the metrics label it.
pub const MEMBER: &str = "member-1";
/// Where the virtual clock starts: whole seconds, so creation timestamps are exact.
pub const START: &str = "2026-03-01T12:00:00Z";

// Keys and values from pod-migration.md and overview.md "Keys we own", spelled out.
pub const PASSED_ARBITRATION: &str = "descheduler.koordinator.sh/passed-arbitration";
pub const PROFILES: &str = "fleet-eviction.io/profiles";
pub const FINISHED_AT: &str = "fleet-eviction.io/finished-at";
pub const CLEANUP: &str = "fleet-eviction.io/cleanup";
pub const EVACUATION: &str = "fleet-eviction.io/evacuation";
pub const EVACUATION_REQUESTED: &str = "fleet-eviction.io/evacuation-requested";
pub const EVACUATION_REQUESTED_AT: &str = "fleet-eviction.io/evacuation-requested-at";
pub const EVICT_POLICY: &str = "fleet-eviction.io/evict-policy";
pub const KOORD_EVICT_POLICY: &str = "koordinator.sh/evict-policy";
pub const EVICT_REASON: &str = "koordinator.sh/evict-reason";
pub const EVICT_TRIGGER: &str = "koordinator.sh/evict-trigger";
pub const JOB_CREATED_BY: &str = "koordinator.sh/job-created-by";
pub const SOFT_EVICTION: &str = "scheduling.koordinator.sh/soft-eviction";

/// Flags every member here gets on top of the test's own: the token bucket must not be the
/// thing a test waits on while the virtual clock stands still (a refill may follow that
/// clock), so its burst covers every eviction a test makes.
const BASE_FLAGS: &[&str] = &["--pmj-evict-qps", "1000", "--pmj-evict-burst", "100"];

#[derive(Parser)]
struct Flags {
    #[command(flatten)]
    pmj: PmjArgs,
}

/// The executor's settings from command-line flags, as `fleet-eviction member` parses them.
pub fn pmj_args(flags: &[&str]) -> PmjArgs {
    let argv = std::iter::once("pod-migration-test")
        .chain(BASE_FLAGS.iter().copied())
        .chain(flags.iter().copied());
    Flags::try_parse_from(argv)
        .unwrap_or_else(|e| panic!("flags {flags:?}: {e}"))
        .pmj
}

pub fn pmj_resource() -> ApiResource {
    ApiResource {
        group: "scheduling.koordinator.sh".into(),
        version: "v1alpha1".into(),
        api_version: "scheduling.koordinator.sh/v1alpha1".into(),
        kind: "PodMigrationJob".into(),
        plural: "podmigrationjobs".into(),
    }
}

pub fn profile_resource() -> ApiResource {
    ApiResource {
        kind: "PodMigrationJobProfile".into(),
        plural: "podmigrationjobprofiles".into(),
        ..pmj_resource()
    }
}

/// Polls `probe` until it yields, failing after [`WAIT`] with "timed out waiting until `what`".
pub async fn eventually<T, F, Fut>(what: &str, mut probe: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        if let Some(value) = probe().await {
            return value;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(POLL).await;
    }
}

/// Which clock a member runs on.
pub enum Time {
    /// The shared virtual clock, moved only by [`Member::advance`].
    Manual,
    /// Wall-clock time (runs with many evictions, where nothing waits on time).
    System,
}

pub struct Member {
    pub server: Arc<ApiServer>,
    pub client: Client,
    /// Set when the member runs on the virtual clock.
    pub manual: Option<Arc<ManualClock>>,
    pub clock: SharedClock,
    pub registry: Registry,
    pub metrics: PodMetrics,
    pub nodes: usize,
    executor: Option<Executor>,
    markers: AtomicUsize,
    _sim: SimHandle,
}

impl Member {
    /// A member with `nodes` nodes and the simulation running, on the virtual clock, and the
    /// executor started with `flags` and synced.
    pub async fn start(nodes: usize, flags: &[&str]) -> Member {
        let mut member = Member::without_executor(nodes, Time::Manual).await;
        member.start_executor(flags).await;
        member
    }

    /// A member without an executor yet (to prepare objects it must find at start-up).
    /// One more node than asked for, `node-<nodes + 1>`, carries only [`Member::settle`]'s
    /// marker pods.
    pub async fn without_executor(nodes: usize, time: Time) -> Member {
        let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "off".into());
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_test_writer()
            .try_init();
        let (manual, clock): (Option<Arc<ManualClock>>, SharedClock) = match time {
            Time::Manual => {
                let manual = ManualClock::new(START.parse().expect("time"));
                (Some(manual.clone()), manual)
            }
            Time::System => (None, Arc::new(SystemClock)),
        };
        let server = ApiServer::new(ServerConfig {
            name: MEMBER.into(),
            clock: clock.clone(),
            ..ServerConfig::default()
        });
        let client = front::client(&server);
        install_member_crds(&client)
            .await
            .expect("the PodMigrationJob CRDs install");
        create_nodes(&client, nodes + 1)
            .await
            .expect("nodes register");
        let sim = MemberSim::start(client.clone(), clock.clone());
        let registry = Registry::new();
        let shared = ControllerFamilies::register(&registry).expect("shared families");
        let metrics = PodMetrics::register(&registry, &shared).expect("pod metrics");
        let member = Member {
            server,
            client,
            manual,
            clock,
            registry,
            metrics,
            nodes,
            executor: None,
            markers: AtomicUsize::new(0),
            _sim: sim,
        };
        member.namespace("markers", json!({})).await;
        member
    }

    pub async fn start_executor(&mut self, flags: &[&str]) {
        let options = ExecutorOptions::from_args(MEMBER, &pmj_args(flags), self.clock.clone());
        let executor = Executor::start(self.client.clone(), options, self.metrics.clone());
        tokio::time::timeout(WAIT, executor.synced())
            .await
            .expect("timed out waiting until the executor's caches synced");
        self.executor = Some(executor);
    }

    pub async fn stop_executor(&mut self) {
        if let Some(executor) = self.executor.take() {
            executor.stop().await;
        }
    }

    /// Moves the virtual clock (server, simulation and executor share it).
    pub fn advance(&self, seconds: i64) {
        self.manual
            .as_ref()
            .expect("advance needs the virtual clock")
            .advance(SignedDuration::from_secs(seconds));
    }

    pub fn now(&self) -> Timestamp {
        self.clock.now()
    }

    // ---- objects -------------------------------------------------------------------------

    pub async fn namespace(&self, name: &str, labels: Value) {
        let ns: Namespace =
            serde_json::from_value(json!({"metadata": {"name": name, "labels": labels}}))
                .expect("namespace");
        match Api::<Namespace>::all(self.client.clone())
            .create(&PostParams::default(), &ns)
            .await
        {
            Ok(_) => {}
            Err(kube::Error::Api(s)) if s.code == 409 => {}
            Err(e) => panic!("create namespace {name}: {e}"),
        }
    }

    pub fn pods(&self, namespace: &str) -> Api<Pod> {
        Api::namespaced(self.client.clone(), namespace)
    }

    pub fn pdbs(&self, namespace: &str) -> Api<PodDisruptionBudget> {
        Api::namespaced(self.client.clone(), namespace)
    }

    pub fn jobs(&self) -> Api<DynamicObject> {
        Api::all_with(self.client.clone(), &pmj_resource())
    }

    pub fn profiles(&self) -> Api<DynamicObject> {
        Api::all_with(self.client.clone(), &profile_resource())
    }

    /// A namespaced object from JSON (`apiVersion`/`kind` included).
    pub async fn create<K>(&self, namespace: &str, object: Value) -> K
    where
        K: kube::Resource<Scope = k8s_openapi::NamespaceResourceScope, DynamicType = ()>
            + Clone
            + serde::de::DeserializeOwned
            + serde::Serialize
            + std::fmt::Debug,
    {
        let object: K = serde_json::from_value(object).expect("object");
        Api::<K>::namespaced(self.client.clone(), namespace)
            .create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|e| panic!("create in {namespace}: {e}"))
    }

    /// A bare pod (no controller) bound to `node` with labels, zero grace period, once Running
    /// and Ready.
    pub async fn pod(&self, namespace: &str, name: &str, node: &str, labels: Value) -> Pod {
        self.pod_with(namespace, name, node, labels, 0).await
    }

    pub async fn pod_with(
        &self,
        namespace: &str,
        name: &str,
        node: &str,
        labels: Value,
        grace: i64,
    ) -> Pod {
        self.namespace(namespace, json!({})).await;
        let pod = json!({"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "labels": labels},
            "spec": {"nodeName": node, "terminationGracePeriodSeconds": grace,
                     "containers": [{"name": "app", "image": "nginx"}]}});
        self.create::<Pod>(namespace, pod).await;
        self.ready_pod(namespace, name).await
    }

    /// The pod once Running and Ready.
    pub async fn ready_pod(&self, namespace: &str, name: &str) -> Pod {
        let pods = self.pods(namespace);
        eventually(
            &format!("pod {namespace}/{name} is Running and Ready"),
            || {
                let pods = pods.clone();
                async move { pods.get_opt(name).await.ok().flatten().filter(is_ready) }
            },
        )
        .await
    }

    pub async fn get_pod(&self, namespace: &str, name: &str) -> Option<Pod> {
        self.pods(namespace)
            .get_opt(name)
            .await
            .unwrap_or_else(|e| panic!("read pod {namespace}/{name}: {e}"))
    }

    /// Waits until the pod with this uid is gone (the name may hold a new pod).
    pub async fn pod_gone(&self, namespace: &str, name: &str, uid: &str) {
        eventually(
            &format!("pod {namespace}/{name} ({uid}) is gone"),
            || async {
                let pod = self.get_pod(namespace, name).await;
                (pod.is_none_or(|p| p.metadata.uid.as_deref() != Some(uid))).then_some(())
            },
        )
        .await;
    }

    // ---- jobs ----------------------------------------------------------------------------

    /// Creates a PodMigrationJob from `metadata` and `spec` (JSON as a user writes it).
    pub async fn create_job(&self, name: &str, metadata: Value, spec: Value) -> Value {
        let mut meta = metadata;
        meta["name"] = json!(name);
        let object: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "scheduling.koordinator.sh/v1alpha1",
            "kind": "PodMigrationJob",
            "metadata": meta,
            "spec": spec,
        }))
        .expect("job");
        let created = self
            .jobs()
            .create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|e| panic!("create job {name}: {e}"));
        to_json(&created)
    }

    /// A job for `namespace/pod` with extra `spec` fields.
    pub async fn job(&self, name: &str, namespace: &str, pod: &str, extra: Value) -> Value {
        let mut spec = json!({"podRef": {"namespace": namespace, "name": pod}});
        merge(&mut spec, extra);
        self.create_job(name, json!({}), spec).await
    }

    pub async fn get_job(&self, name: &str) -> Option<Value> {
        self.jobs()
            .get_opt(name)
            .await
            .unwrap_or_else(|e| panic!("read job {name}: {e}"))
            .map(|j| to_json(&j))
    }

    /// Waits until the job satisfies `check`; the failure names the job's last state.
    pub async fn wait_job(&self, name: &str, what: &str, check: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let job = self.get_job(name).await;
            match &job {
                Some(j) if check(j) => return j.clone(),
                _ => {}
            }
            if tokio::time::Instant::now() >= deadline {
                panic!(
                    "timed out waiting until job {name} {what}; it is now: {}",
                    job.map(|j| serde_json::to_string_pretty(&j).unwrap_or_default())
                        .unwrap_or_else(|| "gone".into())
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits until the executor has ended the job: `phase` and the `finished-at` annotation
    /// (§2 "our terminal write sets the annotation"). The status subresource cannot carry
    /// an annotation, so these are two writes; the outcome is both.
    pub async fn wait_ended(&self, name: &str, phase: &str) -> Value {
        self.wait_job(name, &format!("has phase {phase} and {FINISHED_AT}"), |j| {
            field(j, "/status/phase") == Some(phase) && annotation(j, FINISHED_AT).is_some()
        })
        .await
    }

    pub async fn wait_job_gone(&self, name: &str) {
        eventually(&format!("job {name} is deleted"), || async {
            self.get_job(name).await.is_none().then_some(())
        })
        .await;
    }

    /// Sets condition `type_` on the job's status as an external controller does:
    /// read-modify-write through the status subresource with the resourceVersion, retried
    /// on conflict, keeping every other condition. Returns the condition as written.
    pub async fn set_condition(
        &self,
        job: &str,
        type_: &str,
        status: &str,
        reason: &str,
        message: &str,
    ) -> Value {
        let condition = json!({"type": type_, "status": status, "reason": reason,
            "message": message, "lastTransitionTime": rfc3339(self.now())});
        for _ in 0..50 {
            let mut current = self.get_job(job).await.expect("job exists");
            let conditions = current
                .pointer_mut("/status")
                .and_then(|s| {
                    if s.get("conditions").is_none() {
                        s["conditions"] = json!([]);
                    }
                    s.get_mut("conditions")
                })
                .and_then(Value::as_array_mut);
            match conditions {
                Some(list) => match list.iter_mut().find(|c| c["type"] == type_) {
                    Some(c) => *c = condition.clone(),
                    None => list.push(condition.clone()),
                },
                None => current["status"] = json!({"conditions": [condition.clone()]}),
            }
            match self.replace_status(job, &current).await {
                Ok(_) => return condition,
                Err(kube::Error::Api(s)) if s.code == 409 => continue,
                Err(e) => panic!("set condition {type_} on {job}: {e}"),
            }
        }
        panic!("set condition {type_} on {job}: conflicts never stopped");
    }

    /// Sets `status.phase` as a user aborting the job does (status subresource, with the
    /// resourceVersion, retried on conflict); returns the job as written.
    pub async fn set_phase(&self, job: &str, phase: &str) -> Value {
        for _ in 0..50 {
            let mut current = self.get_job(job).await.expect("job exists");
            if current.get("status").is_none_or(Value::is_null) {
                current["status"] = json!({});
            }
            current["status"]["phase"] = json!(phase);
            match self.replace_status(job, &current).await {
                Ok(written) => return written,
                Err(kube::Error::Api(s)) if s.code == 409 => continue,
                Err(e) => panic!("set phase on {job}: {e}"),
            }
        }
        panic!("set phase on {job}: conflicts never stopped");
    }

    async fn replace_status(&self, job: &str, object: &Value) -> kube::Result<Value> {
        let object: DynamicObject = serde_json::from_value(object.clone()).expect("job");
        self.jobs()
            .replace_status(job, &PostParams::default(), &object)
            .await
            .map(|j| to_json(&j))
    }

    /// Patches the job's spec (a merge patch, as `kubectl patch --type merge` does).
    pub async fn patch_job(&self, job: &str, patch: Value) -> Value {
        let patched = self
            .jobs()
            .patch(job, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .unwrap_or_else(|e| panic!("patch job {job}: {e}"));
        to_json(&patched)
    }

    pub async fn delete_job(&self, job: &str) {
        self.jobs()
            .delete(job, &DeleteParams::default())
            .await
            .unwrap_or_else(|e| panic!("delete job {job}: {e}"));
    }

    /// A barrier: a marker job, created now, for a bare pod on the marker node in its own
    /// namespace, has been executed to `Succeeded`. Every change made before the call was
    /// seen by the executor (one ordered watch) and queued ahead of the marker, whose run
    /// takes several passes; so a job that was going to act on those changes has acted.
    pub async fn settle(&self) {
        let n = self.markers.fetch_add(1, Ordering::SeqCst);
        let pod = format!("marker-{n}");
        let node = format!("node-{}", self.nodes + 1);
        self.pod("markers", &pod, &node, json!({"role": "marker"}))
            .await;
        let job = format!("zz-marker-{n}");
        self.job(&job, "markers", &pod, json!({})).await;
        self.wait_job(&job, "has phase Succeeded (settling)", |j| {
            field(j, "/status/phase") == Some("Succeeded")
        })
        .await;
    }

    // ---- events --------------------------------------------------------------------------

    /// The Events about the object (kind, name), as (type, reason, message), oldest first.
    pub async fn events(&self, kind: &str, name: &str) -> Vec<(String, String, String)> {
        let params = ListParams::default().fields(&format!("involvedObject.name={name}"));
        let mut events: Vec<Event> = Api::<Event>::all(self.client.clone())
            .list(&params)
            .await
            .expect("list events")
            .items
            .into_iter()
            .filter(|e| e.involved_object.kind.as_deref() == Some(kind))
            .collect();
        events.sort_by_key(|e| {
            e.metadata
                .resource_version
                .as_deref()
                .and_then(|rv| rv.parse::<u64>().ok())
        });
        events
            .into_iter()
            .map(|e| {
                (
                    e.type_.unwrap_or_default(),
                    e.reason.unwrap_or_default(),
                    e.message.unwrap_or_default(),
                )
            })
            .collect()
    }

    pub async fn job_events(&self, job: &str) -> Vec<(String, String, String)> {
        self.events("PodMigrationJob", job).await
    }

    /// Waits for an Event about (kind, name) with this type, reason and message.
    pub async fn wait_event(
        &self,
        kind: &str,
        name: &str,
        type_: &str,
        reason: &str,
        message: &str,
    ) {
        let wanted = (type_.to_string(), reason.to_string(), message.to_string());
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let events = self.events(kind, name).await;
            if events.contains(&wanted) {
                return;
            }
            if tokio::time::Instant::now() >= deadline {
                panic!(
                    "timed out waiting until {kind} {name} has the Event {wanted:?}; it has {events:#?}"
                );
            }
            tokio::time::sleep(POLL).await;
        }
    }

    // ---- metrics -------------------------------------------------------------------------

    pub fn metrics_text(&self) -> String {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&self.registry.gather(), &mut buf)
            .expect("encode metrics");
        String::from_utf8(buf).expect("utf-8")
    }
}

pub fn to_json<T: serde::Serialize>(object: &T) -> Value {
    serde_json::to_value(object).expect("json")
}

/// Merges the keys of `extra` (an object) into `base`, recursively.
pub fn merge(base: &mut Value, extra: Value) {
    match (base, extra) {
        (Value::Object(base), Value::Object(extra)) => {
            for (k, v) in extra {
                match base.get_mut(&k) {
                    Some(existing) if existing.is_object() && v.is_object() => merge(existing, v),
                    _ => {
                        base.insert(k, v);
                    }
                }
            }
        }
        (base, extra) => *base = extra,
    }
}

pub fn rfc3339(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// The string at a JSON pointer.
pub fn field<'a>(object: &'a Value, pointer: &str) -> Option<&'a str> {
    object.pointer(pointer).and_then(Value::as_str)
}

pub fn annotation<'a>(object: &'a Value, key: &str) -> Option<&'a str> {
    object
        .pointer("/metadata/annotations")
        .and_then(|a| a.get(key))
        .and_then(Value::as_str)
}

pub fn finalizers(object: &Value) -> Vec<String> {
    object
        .pointer("/metadata/finalizers")
        .and_then(Value::as_array)
        .map(|f| {
            f.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// A job's condition as (status, reason, message); absent reason/message read as "".
pub fn condition(job: &Value, type_: &str) -> Option<(String, String, String)> {
    job.pointer("/status/conditions")?
        .as_array()?
        .iter()
        .find(|c| c["type"] == type_)
        .map(|c| {
            let s = |k: &str| c.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (s("status"), s("reason"), s("message"))
        })
}

/// The types of the job's conditions, in order.
pub fn condition_types(job: &Value) -> Vec<String> {
    job.pointer("/status/conditions")
        .and_then(Value::as_array)
        .map(|cs| {
            cs.iter()
                .filter_map(|c| c["type"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// `(phase, status, reason, message)` of the job; absent fields read as "".
pub fn summary(job: &Value) -> (String, String, String, String) {
    let s = |p: &str| field(job, p).unwrap_or("").to_string();
    (
        s("/status/phase"),
        s("/status/status"),
        s("/status/reason"),
        s("/status/message"),
    )
}

pub fn is_terminal(job: &Value) -> bool {
    matches!(
        field(job, "/status/phase"),
        Some("Succeeded" | "Failed" | "Aborted" | "Succeed")
    )
}

pub fn is_ready(pod: &Pod) -> bool {
    let status = pod.status.as_ref();
    pod.metadata.deletion_timestamp.is_none()
        && status.and_then(|s| s.phase.as_deref()) == Some("Running")
        && status
            .and_then(|s| s.conditions.as_ref())
            .is_some_and(|cs| cs.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

pub fn uid(pod: &Pod) -> String {
    pod.metadata.uid.clone().unwrap_or_default()
}

pub fn labels(pod: &Pod) -> std::collections::BTreeMap<String, String> {
    pod.metadata.labels.clone().unwrap_or_default()
}

pub fn annotations(pod: &Pod) -> std::collections::BTreeMap<String, String> {
    pod.metadata.annotations.clone().unwrap_or_default()
}

/// One sample of the text exposition: the value of the line `series` names exactly.
pub fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .find_map(|line| line.strip_prefix(series)?.strip_prefix(' ')?.parse().ok())
}

/// The samples of `family` whose labels include every `label="value"` of `with`.
pub fn samples(text: &str, family: &str, with: &[(&str, &str)]) -> Vec<(String, f64)> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{family}{{")))
        .filter(|l| {
            with.iter()
                .all(|(k, v)| l.contains(&format!("{k}=\"{v}\"")))
        })
        .filter_map(|l| {
            let (series, value) = l.rsplit_once(' ')?;
            Some((series.to_string(), value.parse().ok()?))
        })
        .collect()
}

impl Member {
    /// What the API answers an Eviction of the pod now (dry run: nothing changes), as
    /// (code, Status message); `None` when it would be accepted.
    pub async fn eviction_answer(&self, namespace: &str, pod: &str) -> Option<(u16, String)> {
        let params = kube::api::EvictParams {
            delete_options: None,
            post_options: PostParams {
                dry_run: true,
                ..PostParams::default()
            },
        };
        match self.pods(namespace).evict(pod, &params).await {
            Ok(_) => None,
            Err(kube::Error::Api(s)) => Some((s.code, s.message)),
            Err(e) => panic!("evict {namespace}/{pod} (dry run): {e}"),
        }
    }

    /// A PodDisruptionBudget from its spec.
    pub async fn pdb(&self, namespace: &str, name: &str, spec: Value) -> PodDisruptionBudget {
        self.create::<PodDisruptionBudget>(
            namespace,
            json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                   "metadata": {"name": name, "namespace": namespace}, "spec": spec}),
        )
        .await
    }

    /// A Deployment of `replicas` pods labelled `app: <name>` (zero grace period), once
    /// every replica is Ready; returns the pods.
    pub async fn deployment(&self, namespace: &str, name: &str, replicas: usize) -> Vec<Pod> {
        self.namespace(namespace, json!({})).await;
        self.create::<k8s_openapi::api::apps::v1::Deployment>(
            namespace,
            json!({"apiVersion": "apps/v1", "kind": "Deployment",
                "metadata": {"name": name, "namespace": namespace},
                "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}},
                        "spec": {"terminationGracePeriodSeconds": 0,
                                 "containers": [{"name": "app", "image": "nginx"}]}}}}),
        )
        .await;
        self.ready_pods(namespace, name, replicas).await
    }

    /// The pods labelled `app: <app>`, once exactly `count` are active and all Ready.
    pub async fn ready_pods(&self, namespace: &str, app: &str, count: usize) -> Vec<Pod> {
        let pods = self.pods(namespace);
        let params = ListParams::default().labels(&format!("app={app}"));
        eventually(&format!("{count} Ready {app} pods in {namespace}"), || {
            let (pods, params) = (pods.clone(), params.clone());
            async move {
                let items = pods.list(&params).await.ok()?.items;
                let active: Vec<Pod> = items
                    .into_iter()
                    .filter(|p| p.metadata.deletion_timestamp.is_none())
                    .collect();
                (active.len() == count && active.iter().all(is_ready)).then_some(active)
            }
        })
        .await
    }
}

pub fn name(pod: &Pod) -> String {
    pod.metadata.name.clone().unwrap_or_default()
}

pub fn node(pod: &Pod) -> String {
    pod.spec
        .as_ref()
        .and_then(|s| s.node_name.clone())
        .unwrap_or_default()
}

/// The wire strings of pod-migration.md, spelled out (`%q` of a plain name is the name in
/// double quotes).
pub mod says {
    /// §2 step 10: the status message and `EvictComplete` event of a finished job.
    pub fn evicted(ns: &str, pod: &str) -> String {
        format!("Pod \"{ns}/{pod}\" has been evicted")
    }
    /// §2 step 9: the `Eviction=False` condition and the Normal `Evicting` event on the job.
    pub fn evicting(ns: &str, pod: &str, node: &str, reason: &str) -> String {
        format!("Pod \"{ns}/{pod}\" evicted from node \"{node}\" by the reason \"{reason}\"")
    }
    /// §2 step 9: the Normal `Descheduled` event on the pod.
    pub fn descheduled(node: &str, reason: &str) -> String {
        format!("Pod evicted from node \"{node}\" by the reason \"{reason}\"")
    }
    /// §2 step 9: the Warning `Evicting` event of a refused eviction.
    pub fn failed_evict(ns: &str, pod: &str, status_message: &str) -> String {
        format!("Failed evict Pod \"{ns}/{pod}\" caused by {status_message}")
    }
    pub const TIMEOUT: &str = "Abort job caused by timeout";
    pub const INVALID_POD_REF: &str = "Abort job caused by invalid PodRef";
    pub fn missing_pod(ns: &str, pod: &str) -> String {
        format!("Abort job caused by missing Pod \"{ns}/{pod}\"")
    }
    pub const RESERVATION_UNSUPPORTED: &str = "Abort job caused by missing Reservation API (reservations.scheduling.koordinator.sh) on this cluster";
    /// §2 step 8, the names quoted and joined with ", ".
    pub fn waiting_for(gates: &[&str]) -> String {
        let quoted: Vec<String> = gates.iter().map(|g| format!("\"{g}\"")).collect();
        format!("Waiting for eviction conditions {}", quoted.join(", "))
    }
    pub fn gate_denied(gate: &str, message: &str) -> String {
        format!("Abort job caused by eviction condition \"{gate}\" denied: {message}")
    }
    /// §4 External, step 2.
    pub fn evacuation_requested(ns: &str, pod: &str) -> String {
        format!("External evacuation of Pod \"{ns}/{pod}\" requested")
    }
    /// §4 External, step 3.
    pub fn evacuation_failed(message: &str) -> String {
        format!("Abort job caused by failed external evacuation: {message}")
    }
}

/// Asserts the full outcome of a job that evicted its pod (§2 steps 5, 6, 10) and returns it.
pub async fn assert_succeeded(m: &Member, job: &str, ns: &str, pod: &str, pod_uid: &str) -> Value {
    let found = m.wait_ended(job, "Succeeded").await;
    let message = says::evicted(ns, pod);
    assert_eq!(
        summary(&found),
        (
            "Succeeded".into(),
            "Complete".into(),
            String::new(),
            message.clone()
        ),
        "phase, status, reason, message of {job}"
    );
    let (status, reason, condition_message) =
        condition(&found, "Eviction").unwrap_or_else(|| panic!("{job} has an Eviction condition"));
    assert_eq!(
        (status.as_str(), reason.as_str()),
        ("True", "EvictComplete")
    );
    // §2 step 10 gives the message for the event; the condition carries it or none.
    assert!(
        condition_message.is_empty() || condition_message == message,
        "Eviction condition message of {job}: {condition_message:?}"
    );
    assert_eq!(
        field(&found, "/spec/podRef/uid"),
        Some(pod_uid),
        "{job} recorded the pod's uid"
    );
    assert_eq!(annotation(&found, PASSED_ARBITRATION), Some("true"));
    let finished =
        annotation(&found, FINISHED_AT).unwrap_or_else(|| panic!("{job} has {FINISHED_AT}"));
    finished
        .parse::<Timestamp>()
        .unwrap_or_else(|e| panic!("{FINISHED_AT} of {job} is RFC 3339: {finished:?}: {e}"));
    assert!(
        !finalizers(&found).iter().any(|f| f == CLEANUP),
        "{job} holds nothing to clean up: {:?}",
        finalizers(&found)
    );
    m.wait_event("PodMigrationJob", job, "Normal", "EvictComplete", &message)
        .await;
    found
}

/// Asserts the Events of an accepted eviction: Normal `Evicting` on the job, Normal
/// `Descheduled` on the pod, each once, and no Warning on the job.
pub async fn assert_eviction_events(
    m: &Member,
    job: &str,
    ns: &str,
    pod: &str,
    node: &str,
    reason: &str,
) {
    let evicting = says::evicting(ns, pod, node, reason);
    m.wait_event("PodMigrationJob", job, "Normal", "Evicting", &evicting)
        .await;
    m.wait_event(
        "Pod",
        pod,
        "Normal",
        "Descheduled",
        &says::descheduled(node, reason),
    )
    .await;
    let events = m.job_events(job).await;
    let count = |reason: &str| events.iter().filter(|e| e.1 == reason).count();
    assert_eq!(
        (count("Evicting"), count("EvictComplete")),
        (1, 1),
        "one of each on {job}: {events:#?}"
    );
    assert!(
        !events.iter().any(|e| e.0 == "Warning"),
        "no Warning on {job}: {events:#?}"
    );
}

impl Member {
    /// Waits until the PDB's status is current (observedGeneration = generation).
    pub async fn wait_pdb_observed(&self, name: &str) {
        let pdbs = self.pdbs("default");
        eventually(&format!("PDB {name} has a current status"), || {
            let pdbs = pdbs.clone();
            async move {
                let pdb = pdbs.get(name).await.ok()?;
                let observed = pdb.status.as_ref()?.observed_generation;
                (observed.is_some() && observed == pdb.metadata.generation).then_some(())
            }
        })
        .await;
    }
}

/// The registry's text exposition once `check` holds for it (counters move just after the
/// writes a test observes).
pub async fn wait_metrics(registry: &Registry, what: &str, check: impl Fn(&str) -> bool) -> String {
    let render = || {
        let mut buf = Vec::new();
        TextEncoder::new()
            .encode(&registry.gather(), &mut buf)
            .expect("encode metrics");
        String::from_utf8(buf).expect("utf-8")
    };
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let text = render();
        if check(&text) {
            return text;
        }
        if tokio::time::Instant::now() >= deadline {
            panic!("timed out waiting until the metrics show {what}:\n{text}");
        }
        tokio::time::sleep(POLL).await;
    }
}

/// The sum of the samples of `family` with the labels `with`.
pub fn total(text: &str, family: &str, with: &[(&str, &str)]) -> f64 {
    samples(text, family, with).iter().map(|(_, v)| v).sum()
}

impl Member {
    pub async fn wait_metrics(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        wait_metrics(&self.registry, what, check).await
    }
}
