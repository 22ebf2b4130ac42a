//! The workload of a pod and its desired replicas, for arbitration's workload limits
//! (pod-migration.md §5).
//!
//! A pod's workload is its controller, with a ReplicaSet resolved to the Deployment that
//! controls it: a rollout spreads one Deployment's pods over several ReplicaSets, and the
//! limits are about the Deployment. StatefulSets, ReplicationControllers and any other
//! controller kind are their own workload; the replicas of kinds we have no type for come from
//! their `/scale` subresource.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};

use k8s_openapi::NamespaceResourceScope;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::ReplicationController;
use kube::api::{Api, DynamicObject};
use kube::core::GroupVersion;
use kube::discovery::{ApiResource, Scope};
use serde::de::DeserializeOwned;

use crate::pod::facts::{ControllerRef, PodView};

/// A workload as arbitration keys it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct WorkloadRef {
    pub api_version: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub uid: String,
}

impl WorkloadRef {
    /// The key arbitration uses (e.g. "Deployment/shop/web"); unique per namespace+kind+name.
    /// The uid is left out on purpose: a workload deleted and re-created under its name is the
    /// same workload to its users, and its pods' jobs keep counting against it.
    pub fn key(&self) -> String {
        format!("{}/{}/{}", self.kind, self.namespace, self.name)
    }

    /// The controller of a pod in `namespace` (owner references never cross namespaces).
    fn of(controller: &ControllerRef, namespace: &str) -> WorkloadRef {
        WorkloadRef {
            api_version: controller.api_version.clone(),
            kind: controller.kind.clone(),
            namespace: namespace.to_string(),
            name: controller.name.clone(),
            uid: controller.uid.clone(),
        }
    }
}

impl fmt::Display for WorkloadRef {
    /// `Deployment "shop/web"`, as the job messages name objects.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} \"{}/{}\"", self.kind, self.namespace, self.name)
    }
}

/// Why a workload's replicas could not be read. The caller waits and asks again later.
#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error("cannot read the replicas of {workload}: it was not found")]
    NotFound { workload: WorkloadRef },
    #[error("cannot read the replicas of {workload}: {}", cause(source))]
    Read {
        workload: WorkloadRef,
        #[source]
        source: kube::Error,
    },
    #[error(
        "cannot read the replicas of {workload}: its apiVersion {:?} is not a group/version",
        workload.api_version
    )]
    InvalidApiVersion { workload: WorkloadRef },
    #[error(
        "cannot read the replicas of {workload}: the API server serves no kind {} in {}",
        workload.kind,
        workload.api_version
    )]
    NotServed { workload: WorkloadRef },
    #[error(
        "cannot read the replicas of {workload}: its resource {resource} has no scale subresource"
    )]
    NoScale {
        workload: WorkloadRef,
        /// `plural.group`, as `kubectl api-resources` names it.
        resource: String,
    },
    #[error(
        "cannot read the replicas of {workload}: discovering the resource of {} in {} failed: {}",
        workload.kind,
        workload.api_version,
        cause(source)
    )]
    Discovery {
        workload: WorkloadRef,
        #[source]
        source: kube::Error,
    },
}

/// An API error as the server worded it; kube's own rendering of one adds a debug dump that
/// has no place in a job's message.
fn cause(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => format!("{} ({})", status.message, status.code),
        other => other.to_string(),
    }
}

/// The kinds read with their typed API; every other kind goes through `/scale`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TypedKind {
    Deployment,
    ReplicaSet,
    StatefulSet,
    ReplicationController,
}

/// Matches on the group only: the server serves one object under every version of a group, so
/// an owner reference written with an older version still names the same object. `extensions`
/// is the pre-1.16 group of Deployments and ReplicaSets, still found in old owner references.
fn typed_kind(api_version: &str, kind: &str) -> Option<TypedKind> {
    let group = api_version.rsplit_once('/').map_or("", |(group, _)| group);
    match (group, kind) {
        ("apps" | "extensions", "Deployment") => Some(TypedKind::Deployment),
        ("apps" | "extensions", "ReplicaSet") => Some(TypedKind::ReplicaSet),
        ("apps", "StatefulSet") => Some(TypedKind::StatefulSet),
        ("", "ReplicationController") => Some(TypedKind::ReplicationController),
        _ => None,
    }
}

/// Past this many remembered ReplicaSets the memo starts over: re-reading a ReplicaSet is
/// cheap, an unbounded map on a long-lived executor is not.
const MEMO_LIMIT: usize = 10_000;

/// A kind served with a scale subresource, as discovery found it.
#[derive(Debug, Clone)]
struct ScaleResource {
    resource: ApiResource,
    scope: Scope,
}

/// Resolves pods to workloads and reads workloads' replicas on one member cluster.
pub struct Workloads {
    client: kube::Client,
    /// ReplicaSet uid → its pods' workload (the Deployment, or the ReplicaSet itself).
    owners: Mutex<HashMap<String, WorkloadRef>>,
    /// (apiVersion, kind) → its resource, for kinds read through `/scale`. Only successes are
    /// kept, so a CRD installed later is found on the next read.
    scale_resources: Mutex<HashMap<(String, String), ScaleResource>>,
}

/// A poisoned lock only means another task panicked between two map operations; each
/// operation leaves the map whole, so its contents are still good.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Workloads {
    pub fn new(client: kube::Client) -> Workloads {
        Workloads {
            client,
            owners: Mutex::new(HashMap::new()),
            scale_resources: Mutex::new(HashMap::new()),
        }
    }

    /// The workload of `pod` (from its `controller` ref, see facts::PodView): a ReplicaSet is
    /// read once (GET, memoised by the RS uid, the owner of an RS never changes in practice) to
    /// find its controlling Deployment. `Ok(None)`: no controller. A ReplicaSet that no longer
    /// exists: the RS itself.
    pub async fn workload_of(&self, pod: &PodView) -> kube::Result<Option<WorkloadRef>> {
        let Some(controller) = &pod.controller else {
            return Ok(None);
        };
        let own = WorkloadRef::of(controller, &pod.namespace);
        if typed_kind(&own.api_version, &own.kind) != Some(TypedKind::ReplicaSet) {
            return Ok(Some(own));
        }
        if let Some(owner) = self.remembered_owner(&own.uid) {
            return Ok(Some(owner));
        }
        let owner = self.owner_of_replica_set(own).await?;
        self.remember_owner(&controller.uid, &owner);
        Ok(Some(owner))
    }

    fn remembered_owner(&self, uid: &str) -> Option<WorkloadRef> {
        lock(&self.owners).get(uid).cloned()
    }

    /// Owner references always carry a uid; a hand-built one without is simply not memoised,
    /// so that two such ReplicaSets never share an entry.
    fn remember_owner(&self, uid: &str, owner: &WorkloadRef) {
        if uid.is_empty() {
            return;
        }
        let mut owners = lock(&self.owners);
        if owners.len() >= MEMO_LIMIT {
            owners.clear();
        }
        owners.insert(uid.to_string(), owner.clone());
    }

    /// The Deployment controlling `rs`, else `rs` itself: when it has no controller, when its
    /// controller is not a Deployment (as Koordinator reads it: other controllers of
    /// ReplicaSets need not serve `/scale`, the ReplicaSet always has replicas), and when it is
    /// gone (its remaining pods still form one workload).
    async fn owner_of_replica_set(&self, rs: WorkloadRef) -> kube::Result<WorkloadRef> {
        let api: Api<ReplicaSet> = Api::namespaced(self.client.clone(), &rs.namespace);
        let found = api.get_opt(&rs.name).await?;
        // A ReplicaSet of the same name but another uid is a namesake: the pod's one is gone.
        let same =
            found.filter(|f| rs.uid.is_empty() || f.metadata.uid.as_deref() == Some(&rs.uid));
        let Some(found) = same else {
            tracing::debug!(replica_set = %rs, "the pod's ReplicaSet is gone; it is its own workload");
            return Ok(rs);
        };
        Ok(controlling_deployment(&found, &rs.namespace).unwrap_or(rs))
    }

    /// Desired replicas, read fresh from the API: `spec.replicas` of Deployment, StatefulSet,
    /// ReplicaSet, ReplicationController (absent spec.replicas = 1, as Kubernetes defaults it);
    /// any other kind through its `/scale` subresource (found with discovery). Errors are
    /// returned, never guessed (the caller then waits). The object is read by name, as the
    /// [key](WorkloadRef::key) names it.
    pub async fn replicas(&self, workload: &WorkloadRef) -> Result<i32, WorkloadError> {
        let read = match typed_kind(&workload.api_version, &workload.kind) {
            Some(TypedKind::Deployment) => {
                self.spec_replicas::<Deployment>(workload, |d| d.spec.as_ref()?.replicas)
                    .await
            }
            Some(TypedKind::ReplicaSet) => {
                self.spec_replicas::<ReplicaSet>(workload, |r| r.spec.as_ref()?.replicas)
                    .await
            }
            Some(TypedKind::StatefulSet) => {
                self.spec_replicas::<StatefulSet>(workload, |s| s.spec.as_ref()?.replicas)
                    .await
            }
            Some(TypedKind::ReplicationController) => {
                self.spec_replicas::<ReplicationController>(workload, |r| r.spec.as_ref()?.replicas)
                    .await
            }
            None => return self.scale_replicas(workload).await,
        };
        read.map_err(|source| read_error(workload, source))
    }

    async fn spec_replicas<K>(
        &self,
        workload: &WorkloadRef,
        replicas: fn(&K) -> Option<i32>,
    ) -> kube::Result<i32>
    where
        K: kube::Resource<Scope = NamespaceResourceScope, DynamicType = ()>
            + Clone
            + DeserializeOwned
            + fmt::Debug,
    {
        let api: Api<K> = Api::namespaced(self.client.clone(), &workload.namespace);
        let object = api.get(&workload.name).await?;
        // The API server defaults an absent spec.replicas to 1 for all four kinds.
        Ok(replicas(&object).unwrap_or(1))
    }

    async fn scale_replicas(&self, workload: &WorkloadRef) -> Result<i32, WorkloadError> {
        let found = self.scale_resource(workload).await?;
        let api: Api<DynamicObject> = match found.scope {
            Scope::Namespaced => {
                Api::namespaced_with(self.client.clone(), &workload.namespace, &found.resource)
            }
            Scope::Cluster => Api::all_with(self.client.clone(), &found.resource),
        };
        let scale = api
            .get_scale(&workload.name)
            .await
            .map_err(|source| read_error(workload, source))?;
        // Scale's spec.replicas is a plain int32 that Go omits when 0: absent reads as 0 here,
        // unlike the typed kinds' pointer that the server defaults to 1.
        Ok(scale.spec.and_then(|s| s.replicas).unwrap_or(0))
    }

    /// The resource serving the workload's kind, checked to have a scale subresource.
    async fn scale_resource(&self, workload: &WorkloadRef) -> Result<ScaleResource, WorkloadError> {
        let memo_key = (workload.api_version.clone(), workload.kind.clone());
        if let Some(found) = lock(&self.scale_resources).get(&memo_key) {
            return Ok(found.clone());
        }
        let gvk = group_version(&workload.api_version)
            .ok_or_else(|| WorkloadError::InvalidApiVersion {
                workload: workload.clone(),
            })?
            .with_kind(&workload.kind);
        let (resource, capabilities) = kube::discovery::pinned_kind(&self.client, &gvk)
            .await
            .map_err(|source| discovery_error(workload, source))?;
        if !capabilities
            .subresources
            .iter()
            .any(|(sub, _)| sub.plural == "scale")
        {
            return Err(WorkloadError::NoScale {
                workload: workload.clone(),
                resource: qualified_plural(&resource),
            });
        }
        let found = ScaleResource {
            resource,
            scope: capabilities.scope,
        };
        lock(&self.scale_resources).insert(memo_key, found.clone());
        Ok(found)
    }
}

/// The Deployment named by the controller reference of a ReplicaSet in `namespace`, if that
/// controller is a Deployment.
fn controlling_deployment(rs: &ReplicaSet, namespace: &str) -> Option<WorkloadRef> {
    let controller = rs
        .metadata
        .owner_references
        .iter()
        .flatten()
        .find(|o| o.controller == Some(true))?;
    if typed_kind(&controller.api_version, &controller.kind) != Some(TypedKind::Deployment) {
        return None;
    }
    Some(WorkloadRef {
        api_version: controller.api_version.clone(),
        kind: controller.kind.clone(),
        namespace: namespace.to_string(),
        name: controller.name.clone(),
        uid: controller.uid.clone(),
    })
}

/// `v1` or `group/version`, both parts non-empty. Stricter than `GroupVersion`'s parser, which
/// takes `a/b/c` as group `a`, version `b/c` and would send discovery to a wrong path.
fn group_version(api_version: &str) -> Option<GroupVersion> {
    let (group, version) = match api_version.split_once('/') {
        Some(("", _)) => return None,
        Some((group, version)) => (group, version),
        None => ("", api_version),
    };
    let valid = !version.is_empty() && !version.contains('/');
    valid.then(|| GroupVersion::gv(group, version))
}

fn read_error(workload: &WorkloadRef, source: kube::Error) -> WorkloadError {
    match source {
        kube::Error::Api(status) if status.is_not_found() => WorkloadError::NotFound {
            workload: workload.clone(),
        },
        source => WorkloadError::Read {
            workload: workload.clone(),
            source,
        },
    }
}

/// A group/version the server does not serve answers 404; a served one without the kind
/// answers without it: both mean the kind is not served.
fn discovery_error(workload: &WorkloadRef, source: kube::Error) -> WorkloadError {
    match source {
        kube::Error::Api(status) if status.is_not_found() => WorkloadError::NotServed {
            workload: workload.clone(),
        },
        kube::Error::Discovery(kube::error::DiscoveryError::MissingKind(_)) => {
            WorkloadError::NotServed {
                workload: workload.clone(),
            }
        }
        source => WorkloadError::Discovery {
            workload: workload.clone(),
            source,
        },
    }
}

fn qualified_plural(resource: &ApiResource) -> String {
    if resource.group.is_empty() {
        resource.plural.clone()
    } else {
        format!("{}.{}", resource.plural, resource.group)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    const NS: &str = "shop";

    #[test]
    fn group_version_table() {
        let gv = |g: &str, v: &str| Some(GroupVersion::gv(g, v));
        let rows = [
            ("the core group", "v1", gv("", "v1")),
            ("a named group", "apps/v1", gv("apps", "v1")),
            (
                "a dotted group",
                "example.com/v1beta1",
                gv("example.com", "v1beta1"),
            ),
            ("empty", "", None),
            ("no group before the slash", "/v1", None),
            ("no version after the slash", "apps/", None),
            ("two slashes", "example.com/v1/extra", None),
        ];
        for (rule, input, want) in rows {
            assert_eq!(group_version(input), want, "rule: {rule}");
        }
    }

    /// A stand-in for an API server that serves `/scale`, which our test API server lacks: canned
    /// answers by path (404 otherwise), and the log of requested paths.
    mod canned {
        use serde_json::{Value, json};
        use std::collections::BTreeMap;
        use std::sync::{Arc, Mutex};

        pub type Log = Arc<Mutex<Vec<String>>>;

        pub fn client(answers: BTreeMap<String, (u16, Value)>) -> (kube::Client, Log) {
            let log = Log::default();
            let seen = log.clone();
            let service = tower::service_fn(move |req: http::Request<kube::client::Body>| {
                let path = req.uri().path().to_string();
                seen.lock().expect("log").push(path.clone());
                let (code, body) = answers.get(&path).cloned().unwrap_or_else(not_found);
                async move {
                    http::Response::builder()
                        .status(code)
                        .header("content-type", "application/json")
                        .body(http_body_util::Full::new(bytes::Bytes::from(
                            body.to_string(),
                        )))
                }
            });
            (kube::Client::new(service, "default"), log)
        }

        fn not_found() -> (u16, Value) {
            let status = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
                "message": "the server could not find the requested resource",
                "reason": "NotFound", "code": 404});
            (404, status)
        }

        pub fn count(log: &Log, path: &str) -> usize {
            log.lock()
                .expect("log")
                .iter()
                .filter(|p| *p == path)
                .count()
        }
    }

    const GROUP_PATH: &str = "/apis/example.com/v1";
    const WIDGET_SCALE: &str = "/apis/example.com/v1/namespaces/shop/widgets/w/scale";

    fn scale_answers() -> std::collections::BTreeMap<String, (u16, Value)> {
        let resource = |name: &str, kind: &str, namespaced: bool| {
            json!({"name": name, "singularName": "", "namespaced": namespaced, "kind": kind,
                   "verbs": ["get"]})
        };
        let scale_of = |name: &str, namespaced: bool| {
            json!({"name": format!("{name}/scale"), "singularName": "", "namespaced": namespaced,
                   "group": "autoscaling", "version": "v1", "kind": "Scale",
                   "verbs": ["get", "patch", "update"]})
        };
        let discovery = json!({"kind": "APIResourceList", "apiVersion": "v1",
        "groupVersion": "example.com/v1", "resources": [
            resource("widgets", "Widget", true), scale_of("widgets", true),
            resource("gadgets", "Gadget", false), scale_of("gadgets", false),
            resource("gizmos", "Gizmo", true),
        ]});
        let scale = |name: &str, spec: Value| {
            json!({"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": name},
                   "spec": spec, "status": {"replicas": 0}})
        };
        let broken = json!({"kind": "Status", "apiVersion": "v1", "status": "Failure",
            "message": "etcd is down", "reason": "InternalError", "code": 500});
        [
            (GROUP_PATH, (200, discovery)),
            (WIDGET_SCALE, (200, scale("w", json!({"replicas": 7})))),
            (
                "/apis/example.com/v1/namespaces/shop/widgets/idle/scale",
                (200, scale("idle", json!({}))),
            ),
            (
                "/apis/example.com/v1/gadgets/g/scale",
                (200, scale("g", json!({"replicas": 5}))),
            ),
            ("/apis/broken.example.com/v1", (500, broken)),
        ]
        .into_iter()
        .map(|(path, answer)| (path.to_string(), answer))
        .collect()
    }

    fn other(api_version: &str, kind: &str, name: &str) -> WorkloadRef {
        WorkloadRef {
            api_version: api_version.into(),
            kind: kind.into(),
            namespace: NS.into(),
            name: name.into(),
            uid: format!("{name}-uid"),
        }
    }

    #[tokio::test]
    async fn scale_subresource_table() {
        let (client, _) = canned::client(scale_answers());
        let workloads = Workloads::new(client);
        let rows: Vec<(&str, WorkloadRef, Result<i32, &str>)> = vec![
            (
                "a namespaced kind: spec.replicas of its scale",
                other("example.com/v1", "Widget", "w"),
                Ok(7),
            ),
            (
                "scale without spec.replicas: 0 (Go omits a zero int32)",
                other("example.com/v1", "Widget", "idle"),
                Ok(0),
            ),
            (
                "a cluster-scoped kind: its scale without a namespace",
                other("example.com/v1", "Gadget", "g"),
                Ok(5),
            ),
            (
                "the object is gone",
                other("example.com/v1", "Widget", "gone"),
                Err(r#"cannot read the replicas of Widget "shop/gone": it was not found"#),
            ),
            (
                "a kind without a scale subresource",
                other("example.com/v1", "Gizmo", "z"),
                Err(
                    r#"cannot read the replicas of Gizmo "shop/z": its resource gizmos.example.com has no scale subresource"#,
                ),
            ),
        ];
        for (rule, workload, want) in rows {
            let read = workloads.replicas(&workload).await;
            let read = read.map_err(|e| e.to_string());
            assert_eq!(read, want.map_err(str::to_string), "rule: {rule}");
        }
    }

    #[tokio::test]
    async fn a_failed_discovery_is_returned_with_its_cause() {
        let (client, _) = canned::client(scale_answers());
        let workloads = Workloads::new(client);
        let read = workloads
            .replicas(&other("broken.example.com/v1", "Widget", "w"))
            .await;
        let Err(error @ WorkloadError::Discovery { .. }) = read else {
            panic!("expected a discovery error, got {read:?}");
        };
        assert_eq!(
            error.to_string(),
            r#"cannot read the replicas of Widget "shop/w": discovering the resource of Widget in broken.example.com/v1 failed: etcd is down (500)"#
        );
    }

    #[tokio::test]
    async fn replicas_are_read_fresh_and_the_resource_is_discovered_once() {
        let (client, log) = canned::client(scale_answers());
        let workloads = Workloads::new(client);
        let widget = other("example.com/v1", "Widget", "w");
        for _ in 0..3 {
            assert_eq!(workloads.replicas(&widget).await.ok(), Some(7));
        }
        assert_eq!(canned::count(&log, GROUP_PATH), 1, "discovery memoised");
        assert_eq!(canned::count(&log, WIDGET_SCALE), 3, "replicas read fresh");
    }
}
