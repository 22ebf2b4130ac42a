//! A consistent snapshot of the cluster, as the simulated components see it.

use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use k8s_openapi::jiff::Timestamp;
use std::sync::Arc;

/// The stores at one instant, each sorted by namespace and name, and the shared clock's time.
#[derive(Debug, Clone)]
pub struct View {
    pub now: Timestamp,
    pub nodes: Vec<Arc<Node>>,
    pub pods: Vec<Arc<Pod>>,
    pub replica_sets: Vec<Arc<ReplicaSet>>,
    pub deployments: Vec<Arc<Deployment>>,
    pub stateful_sets: Vec<Arc<StatefulSet>>,
}

impl View {
    /// `now` as the API writes it: whole seconds, so a status written now compares equal to
    /// the same status read back.
    pub fn now_time(&self) -> Time {
        Time(Timestamp::from_second(self.now.as_second()).unwrap_or(self.now))
    }

    /// The pods whose controller is the object with `uid`.
    pub fn pods_controlled_by<'a>(&'a self, uid: &str) -> impl Iterator<Item = &'a Pod> + 'a {
        let uid = uid.to_string();
        self.pods
            .iter()
            .map(Arc::as_ref)
            .filter(move |p| super::pods::controller_uid(&p.metadata) == Some(uid.as_str()))
    }

    pub fn pod(&self, namespace: &str, name: &str) -> Option<&Pod> {
        self.pods.iter().map(Arc::as_ref).find(|p| {
            p.metadata.namespace.as_deref() == Some(namespace)
                && p.metadata.name.as_deref() == Some(name)
        })
    }

    /// A node by name, with its position in name order (pod IPs use it).
    pub fn node(&self, name: &str) -> Option<(usize, &Node)> {
        self.nodes
            .iter()
            .enumerate()
            .find(|(_, n)| n.metadata.name.as_deref() == Some(name))
            .map(|(i, n)| (i, n.as_ref()))
    }
}
