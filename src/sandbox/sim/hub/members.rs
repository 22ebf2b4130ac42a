//! The member clusters the hub simulation can reach, by MemberCluster name. Shared and
//! mutable: a scenario registers members while the simulation runs.

use std::collections::BTreeMap;
use std::sync::{Arc, PoisonError, RwLock};

/// Member name → client of that member's API server. Cloning shares the map.
#[derive(Clone, Default)]
pub struct MemberClients(Arc<RwLock<BTreeMap<String, kube::Client>>>);

impl MemberClients {
    pub fn new() -> MemberClients {
        MemberClients::default()
    }

    /// Adds or replaces the client of a member.
    pub fn insert(&self, name: impl Into<String>, client: kube::Client) {
        self.0
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.into(), client);
    }

    pub fn remove(&self, name: &str) -> Option<kube::Client> {
        self.0
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name)
    }

    pub fn get(&self, name: &str) -> Option<kube::Client> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(name)
            .cloned()
    }

    /// The registered member names, sorted.
    pub fn names(&self) -> Vec<String> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .keys()
            .cloned()
            .collect()
    }
}

impl std::fmt::Debug for MemberClients {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("MemberClients").field(&self.names()).finish()
    }
}
