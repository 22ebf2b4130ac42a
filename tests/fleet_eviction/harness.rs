//! A hub API server in process with our CRDs and KubeFleet's stand-ins, hand-made placements,
//! bindings and budgets with exact conditions, and the eviction controller attached over a
//! kube Client — all on one virtual clock.

use fleet_eviction::api::crds;
use fleet_eviction::api::eviction::ClusterResourcePlacementEviction;
use fleet_eviction::api::kubefleet::ClusterResourceBinding;
use fleet_eviction::fleet::controller::{ControllerOptions, EvictionController};
use fleet_eviction::runtime::clock::ManualClock;
use fleet_eviction::runtime::metrics::Metrics;
use fleet_eviction::sandbox::apiserver::front::client;
use fleet_eviction::sandbox::apiserver::server::{ApiServer, ServerConfig};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition;
use k8s_openapi::jiff::SignedDuration;
use kube::Client;
use kube::api::{Api, DynamicObject, PostParams};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

pub const WAIT: Duration = Duration::from_secs(15);
const POLL: Duration = Duration::from_millis(20);
pub const GROUP: &str = "placement.kubernetes-fleet.io/v1beta1";

pub struct Hub {
    pub server: Arc<ApiServer>,
    pub client: Client,
    pub clock: Arc<ManualClock>,
    pub metrics: Metrics,
    pub workers: usize,
    controller: Option<EvictionController>,
}

impl Hub {
    /// A hub with the CRDs and the controller attached and synced.
    pub async fn start() -> Hub {
        let mut hub = Hub::without_controller(7).await;
        hub.start_controller().await;
        hub
    }

    pub async fn without_controller(seed: u64) -> Hub {
        let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "off".into());
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_test_writer()
            .try_init();
        let clock = ManualClock::new("2026-03-01T10:00:00Z".parse().expect("time"));
        let server = ApiServer::new(ServerConfig {
            name: "hub".into(),
            seed,
            clock: clock.clone(),
            ..ServerConfig::default()
        });
        let client = client(&server);
        let crd_api: Api<CustomResourceDefinition> = Api::all(client.clone());
        for crd in crds::owned().into_iter().chain(crds::sandbox_stand_ins()) {
            crd_api
                .create(&PostParams::default(), &crd)
                .await
                .expect("CRD installs");
        }
        Hub {
            server,
            client,
            clock,
            metrics: Metrics::new().expect("metrics"),
            workers: 8,
            controller: None,
        }
    }

    pub async fn start_controller(&mut self) {
        let options = ControllerOptions {
            workers: self.workers,
            extended_ttl_default: Duration::from_secs(3600),
            clock: self.clock.clone(),
        };
        let controller =
            EvictionController::start(self.client.clone(), options, self.metrics.eviction.clone());
        tokio::time::timeout(WAIT, controller.synced())
            .await
            .expect("caches sync");
        self.controller = Some(controller);
    }

    /// Stops the controller as a crash would: no cleanup, in-memory state lost.
    pub fn kill_controller(&mut self) {
        if let Some(c) = self.controller.take() {
            c.stop();
        }
    }

    pub fn advance(&self, seconds: i64) {
        self.clock.advance(SignedDuration::from_secs(seconds));
    }

    pub fn api(&self, plural: &str, kind: &str) -> Api<DynamicObject> {
        let resource = kube::api::ApiResource {
            group: "placement.kubernetes-fleet.io".into(),
            version: "v1beta1".into(),
            api_version: GROUP.into(),
            kind: kind.into(),
            plural: plural.into(),
        };
        Api::all_with(self.client.clone(), &resource)
    }

    pub fn evictions(&self) -> Api<ClusterResourcePlacementEviction> {
        Api::all(self.client.clone())
    }

    pub fn bindings(&self) -> Api<ClusterResourceBinding> {
        Api::all(self.client.clone())
    }

    pub async fn create(&self, plural: &str, kind: &str, object: Value) -> DynamicObject {
        let mut object = object;
        object["apiVersion"] = json!(GROUP);
        object["kind"] = json!(kind);
        let object: DynamicObject = serde_json::from_value(object).expect("object");
        self.api(plural, kind)
            .create(&PostParams::default(), &object)
            .await
            .unwrap_or_else(|e| panic!("create {kind}: {e}"))
    }

    /// A hand-made placement; `policy` as in the CRP's spec (`null` = none: PickAll).
    pub async fn placement(&self, name: &str, policy: Value) {
        let mut spec = json!({"resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": name}]});
        if !policy.is_null() {
            spec["policy"] = policy;
        }
        self.create(
            "clusterresourceplacements",
            "ClusterResourcePlacement",
            json!({"metadata": {"name": name}, "spec": spec}),
        )
        .await;
    }

    pub async fn budget(&self, name: &str, spec: Value) {
        self.create(
            "clusterresourceplacementdisruptionbudgets",
            "ClusterResourcePlacementDisruptionBudget",
            json!({"metadata": {"name": name}, "spec": spec}),
        )
        .await;
    }

    /// A Bound binding of `placement` on `cluster` whose conditions are `conditions`
    /// (type, status, reason) for the current generation; `finalizer` keeps it while
    /// deleting, as KubeFleet's work cleanup does.
    pub async fn binding_with(
        &self,
        placement: &str,
        cluster: &str,
        state: &str,
        conditions: &[(&str, &str, &str)],
        finalizer: bool,
    ) -> ClusterResourceBinding {
        let name = format!("{placement}-{cluster}");
        let finalizers: Vec<&str> = if finalizer {
            vec!["kubernetes-fleet.io/work-cleanup"]
        } else {
            vec![]
        };
        self.create(
            "clusterresourcebindings",
            "ClusterResourceBinding",
            json!({"metadata": {"name": name, "labels": {"kubernetes-fleet.io/parent-CRP": placement}, "finalizers": finalizers},
                   "spec": {"state": state, "targetCluster": cluster}}),
        )
        .await;
        self.set_binding_conditions(&name, conditions).await
    }

    /// Bound, Available bindings of `placement` on member-1..=`clusters`; with `finalizer`
    /// a deleted one lingers as deleting.
    pub async fn available_bindings(&self, placement: &str, clusters: usize, finalizer: bool) {
        for i in 1..=clusters {
            let cluster = format!("member-{i}");
            let available = [("Available", "True", "AllWorkAreAvailable")];
            self.binding_with(placement, &cluster, "Bound", &available, finalizer)
                .await;
        }
    }

    /// How many of `placement`'s bindings on member-1..=`clusters` are being deleted.
    pub async fn deleting_bindings(&self, placement: &str, clusters: usize) -> usize {
        let mut deleting = 0;
        for i in 1..=clusters {
            let name = format!("{placement}-member-{i}");
            let binding = self.binding_exists(&name).await.expect("binding lingers");
            deleting += usize::from(binding.metadata.deletion_timestamp.is_some());
        }
        deleting
    }

    pub async fn binding(&self, placement: &str, cluster: &str) -> ClusterResourceBinding {
        self.binding_with(
            placement,
            cluster,
            "Bound",
            &[("Available", "True", "AllWorkAreAvailable")],
            false,
        )
        .await
    }

    pub async fn set_binding_conditions(
        &self,
        name: &str,
        conditions: &[(&str, &str, &str)],
    ) -> ClusterResourceBinding {
        let api = self.bindings();
        let mut binding = api.get(name).await.expect("binding");
        let generation = binding.metadata.generation;
        let status = binding.status.get_or_insert_with(Default::default);
        status.conditions = conditions
            .iter()
            .map(|(t, s, r)| Condition {
                type_: t.to_string(),
                status: s.to_string(),
                reason: r.to_string(),
                message: String::new(),
                observed_generation: generation,
                last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                    self.clock_now(),
                ),
            })
            .collect();
        api.replace_status(name, &PostParams::default(), &binding)
            .await
            .expect("binding status")
    }

    fn clock_now(&self) -> k8s_openapi::jiff::Timestamp {
        use fleet_eviction::runtime::clock::Clock;
        self.clock.now()
    }

    pub async fn eviction(&self, name: &str, placement: &str, cluster: &str, extra: Value) {
        let mut spec = json!({"placementName": placement, "clusterName": cluster});
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                spec[k] = v;
            }
        }
        self.create(
            "clusterresourceplacementevictions",
            "ClusterResourcePlacementEviction",
            json!({"metadata": {"name": name}, "spec": spec}),
        )
        .await;
    }

    pub async fn get(&self, name: &str) -> ClusterResourcePlacementEviction {
        self.evictions().get(name).await.expect("eviction")
    }

    /// Waits until `check` holds for the eviction.
    pub async fn wait_for(
        &self,
        name: &str,
        what: &str,
        check: impl Fn(&ClusterResourcePlacementEviction) -> bool,
    ) -> ClusterResourcePlacementEviction {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            if let Some(e) = self.evictions().get_opt(name).await.expect("read eviction") {
                if check(&e) {
                    return e;
                }
                if tokio::time::Instant::now() >= deadline {
                    panic!(
                        "eviction {name}: timed out waiting for {what}; status: {}",
                        serde_json::to_string_pretty(&e.status).unwrap_or_default()
                    );
                }
            } else if tokio::time::Instant::now() >= deadline {
                panic!("eviction {name}: timed out waiting for {what}; it does not exist");
            }
            tokio::time::sleep(POLL).await;
        }
    }

    /// Waits for the eviction's terminal verdict (`Valid=False` or any `Executed`).
    pub async fn verdict(&self, name: &str) -> ClusterResourcePlacementEviction {
        self.wait_for(name, "a verdict", |e| {
            condition(e, "Executed").is_some()
                || condition(e, "Valid").is_some_and(|c| c.status == "False")
        })
        .await
    }

    pub async fn stage(&self, name: &str, stage: &str) -> ClusterResourcePlacementEviction {
        self.wait_for(name, stage, |e| {
            condition(e, "Progressing").is_some_and(|c| c.reason == stage)
        })
        .await
    }

    /// Sets a condition on the eviction's status as an external controller does:
    /// read-modify-write with resourceVersion, retried on conflict, keeping everything else.
    pub async fn set_condition(&self, name: &str, type_: &str, status: &str, message: &str) {
        for _ in 0..50 {
            let mut e = self.get(name).await;
            let s = e.status.get_or_insert_with(Default::default);
            let condition = Condition {
                type_: type_.into(),
                status: status.into(),
                reason: "SetByTest".into(),
                message: message.into(),
                observed_generation: e.metadata.generation,
                last_transition_time: k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                    self.clock_now(),
                ),
            };
            match s.conditions.iter_mut().find(|c| c.type_ == type_) {
                Some(c) => *c = condition,
                None => s.conditions.push(condition),
            }
            match self
                .evictions()
                .replace_status(name, &PostParams::default(), &e)
                .await
            {
                Ok(_) => return,
                Err(kube::Error::Api(s)) if s.is_conflict() => continue,
                Err(e) => panic!("set condition: {e}"),
            }
        }
        panic!("set condition {type_} on {name}: conflicts never stopped");
    }

    /// Deletes binding `name`s at the API, returning whether a delete request was accepted.
    pub async fn binding_exists(&self, name: &str) -> Option<ClusterResourceBinding> {
        self.bindings().get_opt(name).await.expect("read binding")
    }
}

pub fn condition<'a>(
    e: &'a ClusterResourcePlacementEviction,
    type_: &str,
) -> Option<&'a Condition> {
    e.status
        .as_ref()?
        .conditions
        .iter()
        .find(|c| c.type_ == type_)
}

/// The eviction's conditions as (type, status, reason, message), in order.
pub fn conditions(e: &ClusterResourcePlacementEviction) -> Vec<(String, String, String, String)> {
    e.status
        .as_ref()
        .map(|s| {
            s.conditions
                .iter()
                .map(|c| {
                    (
                        c.type_.clone(),
                        c.status.clone(),
                        c.reason.clone(),
                        c.message.clone(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}
