//! One reflector per watched kind, across all namespaces, as the real components' informers.

use super::versions::{Kind, Versions, parse};
use super::view::View;
use futures::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::jiff::Timestamp;
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Client, Resource};
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::sync::Arc;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

#[derive(Clone)]
pub struct Informers {
    nodes: Store<Node>,
    pods: Store<Pod>,
    replica_sets: Store<ReplicaSet>,
    deployments: Store<Deployment>,
    stateful_sets: Store<StatefulSet>,
    pub versions: Arc<Versions>,
}

impl Informers {
    /// Starts the watches; every applied event wakes `wake`.
    pub fn start(client: &Client, wake: Arc<Notify>) -> (Informers, Vec<JoinHandle<()>>) {
        let versions = Arc::new(Versions::default());
        let mut tasks = Vec::new();
        let inform = |kind| (versions.clone(), wake.clone(), kind);
        let (nodes, t) = spawn(Api::all(client.clone()), inform(Kind::Node));
        tasks.push(t);
        let (pods, t) = spawn(Api::all(client.clone()), inform(Kind::Pod));
        tasks.push(t);
        let (replica_sets, t) = spawn(Api::all(client.clone()), inform(Kind::ReplicaSet));
        tasks.push(t);
        let (deployments, t) = spawn(Api::all(client.clone()), inform(Kind::Deployment));
        tasks.push(t);
        let (stateful_sets, t) = spawn(Api::all(client.clone()), inform(Kind::StatefulSet));
        tasks.push(t);
        let informers = Informers {
            nodes,
            pods,
            replica_sets,
            deployments,
            stateful_sets,
            versions,
        };
        (informers, tasks)
    }

    /// Waits for every store's first complete list.
    pub async fn wait_until_ready(&self) {
        // A writer is dropped only when its task ends, which happens only on abort.
        let _ = self.nodes.wait_until_ready().await;
        let _ = self.pods.wait_until_ready().await;
        let _ = self.replica_sets.wait_until_ready().await;
        let _ = self.deployments.wait_until_ready().await;
        let _ = self.stateful_sets.wait_until_ready().await;
    }

    /// A snapshot of the stores, each sorted by namespace and name.
    pub fn view(&self, now: Timestamp) -> View {
        View {
            now,
            nodes: sorted(self.nodes.state()),
            pods: sorted(self.pods.state()),
            replica_sets: sorted(self.replica_sets.state()),
            deployments: sorted(self.deployments.state()),
            stateful_sets: sorted(self.stateful_sets.state()),
        }
    }
}

fn sorted<K: Resource>(mut objects: Vec<Arc<K>>) -> Vec<Arc<K>> {
    objects.sort_by(|a, b| {
        let key = |o: &Arc<K>| (o.meta().namespace.clone(), o.meta().name.clone());
        key(a).cmp(&key(b))
    });
    objects
}

fn spawn<K>(
    api: Api<K>,
    (versions, wake, kind): (Arc<Versions>, Arc<Notify>, Kind),
) -> (Store<K>, JoinHandle<()>)
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    let (reader, mut writer) = reflector::store();
    let task = tokio::spawn(async move {
        let mut events = watcher(api, watcher::Config::default())
            .default_backoff()
            .boxed();
        // A relist shows in the store only at its end: its versions count from then on.
        let mut listing = 0;
        while let Some(event) = events.next().await {
            match event {
                Ok(event) => {
                    writer.apply_watcher_event(&event);
                    match &event {
                        watcher::Event::Apply(o) | watcher::Event::Delete(o) => {
                            versions.saw(kind, o.meta().resource_version.as_deref());
                        }
                        watcher::Event::Init => listing = 0,
                        watcher::Event::InitApply(o) => {
                            listing = listing.max(parse(o.meta().resource_version.as_deref()));
                        }
                        watcher::Event::InitDone => versions.saw(kind, Some(&listing.to_string())),
                    }
                    wake.notify_one();
                }
                Err(error) => tracing::debug!(?kind, %error, "member simulation: watch failed"),
            }
        }
    });
    (reader, task)
}
