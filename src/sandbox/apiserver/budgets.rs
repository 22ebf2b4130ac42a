//! PodDisruptionBudget status kept current synchronously: every pod or budget change
//! recomputes the budgets it touches, under the same lock, so an eviction always checks a
//! fresh status (the real disruption controller lags; tests want determinism).

use super::object;
use super::resource::{ResourceType, StorageKey};
use super::state::State;
use super::store::Location;
use crate::sandbox::disruption::{ControllerScale, ControllerScales, pdb_status};
use crate::sandbox::select::LabelSelector;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::Value;

fn pods_key() -> StorageKey {
    StorageKey::new("", "pods")
}

fn budgets_key() -> StorageKey {
    StorageKey::new("policy", "poddisruptionbudgets")
}

/// The pods a budget selects: policy/v1 treats an empty selector as every pod of the
/// namespace, and a missing one as none.
pub fn budget_selector(pdb: &Value) -> LabelSelector {
    match pdb.pointer("/spec/selector") {
        Some(s) if !s.is_null() => {
            LabelSelector::from_object(s).unwrap_or_else(|_| LabelSelector::nothing())
        }
        _ => LabelSelector::nothing(),
    }
}

impl State {
    pub fn sync_budgets_after(
        &mut self,
        rt: &ResourceType,
        old: Option<&Value>,
        new: Option<&Value>,
    ) {
        let key = rt.storage_key();
        let Some(any) = new.or(old) else { return };
        let namespace = object::namespace(any).to_string();
        if key == budgets_key() {
            if new.is_some() {
                self.sync_budget(&namespace, object::name(any));
            }
            return;
        }
        if key != pods_key() {
            return;
        }
        let touched: Vec<String> = self
            .store
            .range(&budgets_key(), Some(&namespace))
            .filter(|(_, pdb)| {
                let selector = budget_selector(pdb);
                [old, new]
                    .into_iter()
                    .flatten()
                    .any(|pod| selector.matches(object::labels(pod)))
            })
            .map(|(_, pdb)| object::name(pdb).to_string())
            .collect();
        for name in touched {
            self.sync_budget(&namespace, &name);
        }
    }

    /// The budgets in `namespace` whose selector matches `pod`.
    pub fn covering_budgets(&self, pod: &Value) -> Vec<PodDisruptionBudget> {
        self.store
            .range(&budgets_key(), Some(object::namespace(pod)))
            .filter(|(_, pdb)| budget_selector(pdb).matches(object::labels(pod)))
            .filter_map(|(_, pdb)| serde_json::from_value((**pdb).clone()).ok())
            .collect()
    }

    fn sync_budget(&mut self, namespace: &str, name: &str) {
        let loc = Location {
            key: budgets_key(),
            store_key: object::store_key(namespace, name),
        };
        let Some(current) = self.store.get(&loc.key, &loc.store_key).cloned() else {
            return;
        };
        let Ok(pdb) = serde_json::from_value::<PodDisruptionBudget>((*current).clone()) else {
            return;
        };
        let selector = budget_selector(&current);
        let pod_values: Vec<Value> = self
            .store
            .range(&pods_key(), Some(namespace))
            .filter(|(_, p)| selector.matches(object::labels(p)))
            .map(|(_, p)| (**p).clone())
            .collect();
        let pods: Vec<Pod> = pod_values
            .into_iter()
            .filter_map(|p| serde_json::from_value(p).ok())
            .collect();
        let scales = self.controller_scales(&pods);
        let now = Time(self.clock.now());
        let refs: Vec<&Pod> = pods.iter().collect();
        let status = pdb_status(&pdb, &refs, &scales, &now, pdb.status.as_ref());
        if Some(&status) == pdb.status.as_ref() {
            return;
        }
        let status = serde_json::to_value(&status).unwrap_or(Value::Null);
        self.replace_status(&loc.key, namespace, name, status);
    }

    /// The scale behind each pod's controller, as the disruption controller finds it.
    fn controller_scales(&self, pods: &[Pod]) -> ControllerScales {
        let mut scales = ControllerScales::new();
        for pod in pods {
            let Some(owner) = pod
                .metadata
                .owner_references
                .iter()
                .flatten()
                .find(|r| r.controller == Some(true))
            else {
                continue;
            };
            if let Some(scale) = self.scale_of(&owner.uid) {
                scales.insert(owner.uid.clone(), scale);
            }
        }
        scales
    }

    fn scale_of(&self, uid: &str) -> Option<ControllerScale> {
        let loc = self.store.location_of_uid(uid)?;
        let controller = self.store.get(&loc.key, &loc.store_key)?;
        if loc.key == StorageKey::new("apps", "replicasets")
            && let Some(deployment) =
                controller_owner(controller).and_then(|d| self.scale_of_deployment(&d))
        {
            return Some(deployment);
        }
        let replicas = controller.pointer("/spec/replicas")?.as_i64()?;
        Some(ControllerScale {
            scale_uid: uid.to_string(),
            replicas: i32::try_from(replicas).unwrap_or(i32::MAX),
        })
    }

    fn scale_of_deployment(&self, uid: &str) -> Option<ControllerScale> {
        let loc = self.store.location_of_uid(uid)?;
        let deployment = self.store.get(&loc.key, &loc.store_key)?;
        let replicas = deployment
            .pointer("/spec/replicas")
            .and_then(Value::as_i64)
            .unwrap_or(1);
        Some(ControllerScale {
            scale_uid: uid.to_string(),
            replicas: i32::try_from(replicas).unwrap_or(i32::MAX),
        })
    }
}

fn controller_owner(object: &Value) -> Option<String> {
    object
        .pointer("/metadata/ownerReferences")?
        .as_array()?
        .iter()
        .find(|r| {
            r.get("controller").and_then(Value::as_bool) == Some(true)
                && r.get("kind").and_then(Value::as_str) == Some("Deployment")
        })
        .and_then(|r| r.get("uid")?.as_str().map(str::to_string))
}
