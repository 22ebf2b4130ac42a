//! What follows a change, under the same lock: CRDs registering their kinds, budgets
//! recomputed, garbage collection of dependents, and the finalizers the server itself owns
//! (`orphan`, `foregroundDeletion`, a namespace's content).

use super::delete::DeleteOptions;
use super::object::{self, metadata_mut};
use super::resource::{ResourceType, StorageKey};
use super::state::State;
use super::store::Location;
use serde_json::{Value, json};
use std::sync::Arc;

impl State {
    /// Called after every stored change (`new` None: removed).
    pub fn after_change(
        &mut self,
        rt: &ResourceType,
        loc: &Location,
        old: Option<&Arc<Value>>,
        new: Option<&Arc<Value>>,
    ) {
        if loc.key == StorageKey::new("apiextensions.k8s.io", "customresourcedefinitions") {
            self.sync_crd(old.map(|o| o.as_ref()), new.map(|n| n.as_ref()));
        }
        self.sync_budgets_after(rt, old.map(|o| o.as_ref()), new.map(|n| n.as_ref()));
        match (old, new) {
            (Some(old), None) => self.after_removal(rt, old),
            (_, Some(new)) if object::is_deleting(new) => self.run_finalizers_we_own(rt, loc),
            _ => {}
        }
    }

    fn after_removal(&mut self, rt: &ResourceType, old: &Value) {
        let uid = object::uid(old).to_string();
        self.collect_dependents(&uid);
        for owner in object::owner_uids(old) {
            if let Some(loc) = self.store.location_of_uid(&owner).cloned()
                && let Some(owner_rt) = self.registry.for_storage(&loc.key)
            {
                self.run_finalizers_we_own(&owner_rt, &loc);
            }
        }
        if rt.namespaced {
            let ns_rt = self
                .registry
                .for_storage(&StorageKey::new("", "namespaces"));
            let ns_loc = Location {
                key: StorageKey::new("", "namespaces"),
                store_key: object::store_key("", object::namespace(old)),
            };
            if let Some(ns_rt) = ns_rt {
                self.run_finalizers_we_own(&ns_rt, &ns_loc);
            }
        }
    }

    /// Background garbage collection: a dependent none of whose owners exist any more goes.
    fn collect_dependents(&mut self, owner_uid: &str) {
        for dep in self.store.dependents_of(owner_uid) {
            let Some(object) = self.store.get(&dep.key, &dep.store_key).cloned() else {
                continue;
            };
            let orphaned = object::owner_uids(&object)
                .iter()
                .all(|u| self.store.location_of_uid(u).is_none());
            if orphaned && !object::is_deleting(&object) {
                self.delete_at(
                    &dep,
                    &DeleteOptions {
                        propagation_policy: Some("Background".into()),
                        ..Default::default()
                    },
                );
            }
        }
    }

    fn delete_at(&mut self, loc: &Location, opts: &DeleteOptions) {
        let Some(rt) = self.registry.for_storage(&loc.key) else {
            return;
        };
        let (ns, name) = loc
            .store_key
            .split_once('/')
            .unwrap_or(("", &loc.store_key));
        let ns = (!ns.is_empty()).then(|| ns.to_string());
        let name = name.to_string();
        // The object may have gone meanwhile (NotFound): nothing left to do.
        let _ = self.delete(&rt, ns.as_deref(), &name, opts);
    }

    /// Progresses a deleting object's server-owned finalizers.
    pub fn run_finalizers_we_own(&mut self, rt: &ResourceType, loc: &Location) {
        let Some(object) = self.store.get(&loc.key, &loc.store_key).cloned() else {
            return;
        };
        if !object::is_deleting(&object) {
            return;
        }
        let finalizers = object::finalizers(&object);
        let uid = object::uid(&object).to_string();
        if finalizers.iter().any(|f| f == "orphan") {
            self.orphan_dependents(&uid);
            self.drop_finalizer(rt, loc, "orphan");
        } else if finalizers.iter().any(|f| f == "foregroundDeletion") {
            for dep in self.store.dependents_of(&uid) {
                self.delete_at(&dep, &DeleteOptions::default());
            }
            if self.store.dependents_of(&uid).is_empty() {
                self.drop_finalizer(rt, loc, "foregroundDeletion");
            }
        } else if rt.resource == "namespaces" && rt.group.is_empty() {
            self.empty_namespace(rt, loc, object::name(&object).to_string());
        }
    }

    fn orphan_dependents(&mut self, owner_uid: &str) {
        for dep in self.store.dependents_of(owner_uid) {
            let (Some(old), Some(dep_rt)) = (
                self.store.get(&dep.key, &dep.store_key).cloned(),
                self.registry.for_storage(&dep.key),
            ) else {
                continue;
            };
            let mut new = (*old).clone();
            if let Some(refs) = metadata_mut(&mut new)
                .get_mut("ownerReferences")
                .and_then(Value::as_array_mut)
            {
                refs.retain(|r| r.get("uid").and_then(Value::as_str) != Some(owner_uid));
            }
            self.store_update(&dep_rt, &dep, new, &old);
        }
    }

    fn drop_finalizer(&mut self, rt: &ResourceType, loc: &Location, finalizer: &str) {
        let Some(old) = self.store.get(&loc.key, &loc.store_key).cloned() else {
            return;
        };
        let mut new = (*old).clone();
        let rest: Vec<String> = object::finalizers(&new)
            .into_iter()
            .filter(|f| f != finalizer)
            .collect();
        object::set_finalizers(&mut new, rest);
        self.store_update(rt, loc, new, &old);
    }

    /// A terminating namespace deletes its content, then itself once nothing is left.
    fn empty_namespace(&mut self, rt: &ResourceType, loc: &Location, namespace: String) {
        if !self.emptying.insert(namespace.clone()) {
            return;
        }
        self.delete_namespace_content(&namespace);
        self.emptying.remove(&namespace);
        if self.namespace_has_content(&namespace) {
            return;
        }
        let Some(old) = self.store.get(&loc.key, &loc.store_key).cloned() else {
            return;
        };
        let mut new = (*old).clone();
        new["spec"] = json!({});
        self.store_update(rt, loc, new, &old);
    }

    fn delete_namespace_content(&mut self, namespace: &str) {
        let mut namespaced: Vec<StorageKey> = self
            .registry
            .all()
            .filter(|t| t.namespaced)
            .map(|t| t.storage_key())
            .collect();
        namespaced.sort();
        namespaced.dedup();
        for key in namespaced {
            let in_ns: Vec<String> = self
                .store
                .range(&key, Some(namespace))
                .filter(|(_, v)| !object::is_deleting(v))
                .map(|(k, _)| k.clone())
                .collect();
            for store_key in in_ns {
                let opts = DeleteOptions {
                    grace_period_seconds: Some(0),
                    ..Default::default()
                };
                self.delete_at(
                    &Location {
                        key: key.clone(),
                        store_key,
                    },
                    &opts,
                );
            }
        }
    }

    fn namespace_has_content(&self, namespace: &str) -> bool {
        self.registry.all().filter(|t| t.namespaced).any(|t| {
            self.store
                .range(&t.storage_key(), Some(namespace))
                .next()
                .is_some()
        })
    }
}
