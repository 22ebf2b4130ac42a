//! The kinds a server currently serves, looked up by URL parts or by kind.

use super::builtin::builtin_types;
use super::resource::{ResourceType, StorageKey, Wire};
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Debug, Clone)]
pub struct Registry {
    /// By (group, version, plural).
    types: BTreeMap<(String, String, String), Arc<ResourceType>>,
    /// Group/versions in the order discovery lists them (built-ins first, then CRDs).
    order: Vec<(String, String)>,
}

impl Default for Registry {
    fn default() -> Self {
        let mut r = Registry {
            types: BTreeMap::new(),
            order: Vec::new(),
        };
        for t in builtin_types() {
            r.insert(t);
        }
        r
    }
}

impl Registry {
    pub fn insert(&mut self, t: ResourceType) {
        let gv = (t.group.clone(), t.version.clone());
        if !self.order.contains(&gv) {
            self.order.push(gv);
        }
        let key = (t.group.clone(), t.version.clone(), t.resource.clone());
        self.types.insert(key, Arc::new(t));
    }

    /// Drops every version served for a CRD.
    pub fn remove_crd(&mut self, crd_name: &str) {
        self.types.retain(|_, t| t.crd.as_deref() != Some(crd_name));
        let types = &self.types;
        self.order
            .retain(|(g, v)| types.keys().any(|(tg, tv, _)| tg == g && tv == v));
    }

    pub fn get(&self, group: &str, version: &str, resource: &str) -> Option<Arc<ResourceType>> {
        self.types
            .get(&(group.to_string(), version.to_string(), resource.to_string()))
            .cloned()
    }

    /// The served group/versions, in discovery order.
    pub fn group_versions(&self) -> &[(String, String)] {
        &self.order
    }

    /// Every type served at a group/version.
    pub fn in_group_version(&self, group: &str, version: &str) -> Vec<Arc<ResourceType>> {
        self.types
            .iter()
            .filter(|((g, v, _), _)| g == group && v == version)
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// Every served version of a group/plural, e.g. to find the storage version.
    pub fn versions_of(&self, group: &str, resource: &str) -> Vec<Arc<ResourceType>> {
        self.types
            .iter()
            .filter(|((g, _, r), _)| g == group && r == resource)
            .map(|(_, t)| t.clone())
            .collect()
    }

    /// The type whose wire form is the stored form of `key`'s objects.
    pub fn for_storage(&self, key: &StorageKey) -> Option<Arc<ResourceType>> {
        self.types
            .values()
            .find(|t| {
                t.storage_key() == *key && t.version == t.storage_version && t.wire == Wire::Same
            })
            .cloned()
    }

    pub fn all(&self) -> impl Iterator<Item = &Arc<ResourceType>> {
        self.types.values()
    }
}
