//! Watch-fed caches of evictions, bindings (indexed by placement), placements and budget
//! names. Every change names the placements it affects, which the watch loop queues. Cached
//! bindings and placements are stripped to their views; budgets are only noticed here (the
//! decision reads them from the API).

use super::queue::WorkQueue;
use crate::api::budget::ClusterResourcePlacementDisruptionBudget;
use crate::api::eviction::ClusterResourcePlacementEviction;
use crate::api::keys::PARENT_CRP_LABEL;
use crate::api::kubefleet::{ClusterResourceBinding, ClusterResourcePlacement};
use crate::fleet::view::{BindingView, PlacementView};
use futures::StreamExt;
use kube::Api;
use kube::api::{ApiResource, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde::de::DeserializeOwned;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Debug;
use std::sync::{Arc, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use tokio::sync::watch as signal;

/// One cache: how to strip an object, and which placements a change affects.
pub trait Index: Default + Send + Sync + 'static {
    type Object: kube::Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + Debug
        + Send
        + 'static;
    type View: Send;
    /// The view to keep, or `None` for objects that concern no placement.
    fn view(object: Self::Object) -> Option<Self::View>;
    fn upsert(&mut self, view: Self::View) -> Vec<String>;
    fn remove(&mut self, name: &str) -> Vec<String>;
    /// Placements with anything in the index (a relist replaces everything).
    fn keys(&self) -> Vec<String>;
}

fn name_of<K: kube::Resource>(object: &K) -> String {
    object.meta().name.clone().unwrap_or_default()
}

#[derive(Debug, Default)]
pub struct EvictionIndex {
    by_name: HashMap<String, Arc<ClusterResourcePlacementEviction>>,
    by_placement: HashMap<String, BTreeSet<String>>,
}

impl Index for EvictionIndex {
    type Object = ClusterResourcePlacementEviction;
    type View = Arc<ClusterResourcePlacementEviction>;

    fn view(mut object: Self::Object) -> Option<Self::View> {
        object.metadata.managed_fields = None;
        Some(Arc::new(object))
    }

    fn upsert(&mut self, view: Self::View) -> Vec<String> {
        let name = name_of(view.as_ref());
        let placement = view.spec.placement_name.clone();
        let mut affected = vec![placement.clone()];
        if let Some(old) = self.by_name.insert(name.clone(), view)
            && old.spec.placement_name != placement
        {
            affected.extend(self.unlink(&old.spec.placement_name, &name));
        }
        self.by_placement.entry(placement).or_default().insert(name);
        affected
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        let name = name.to_string();
        match self.by_name.remove(&name) {
            Some(old) => self.unlink(&old.spec.placement_name, &name),
            None => Vec::new(),
        }
    }

    fn keys(&self) -> Vec<String> {
        self.by_placement.keys().cloned().collect()
    }
}

impl EvictionIndex {
    fn unlink(&mut self, placement: &str, name: &str) -> Vec<String> {
        if let Some(names) = self.by_placement.get_mut(placement) {
            names.remove(name);
            if names.is_empty() {
                self.by_placement.remove(placement);
            }
        }
        vec![placement.to_string()]
    }

    pub fn of_placement(&self, placement: &str) -> Vec<Arc<ClusterResourcePlacementEviction>> {
        self.by_placement
            .get(placement)
            .into_iter()
            .flatten()
            .filter_map(|name| self.by_name.get(name).cloned())
            .collect()
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

#[derive(Debug, Default)]
pub struct BindingIndex {
    by_placement: HashMap<String, BTreeMap<String, BindingView>>,
    placement_of: HashMap<String, String>,
}

fn parent_placement(binding: &ClusterResourceBinding) -> Option<String> {
    binding
        .metadata
        .labels
        .as_ref()
        .and_then(|l| l.get(PARENT_CRP_LABEL))
        .cloned()
}

impl Index for BindingIndex {
    type Object = ClusterResourceBinding;
    type View = (String, BindingView);

    fn view(object: Self::Object) -> Option<Self::View> {
        // A binding without its placement label is no placement's scheduler decision.
        let placement = parent_placement(&object)?;
        Some((placement, BindingView::from_binding(&object)))
    }

    fn upsert(&mut self, (placement, view): Self::View) -> Vec<String> {
        let mut affected = vec![placement.clone()];
        if let Some(old) = self
            .placement_of
            .insert(view.name.clone(), placement.clone())
            && old != placement
        {
            self.unlink(&old, &view.name);
            affected.push(old);
        }
        self.by_placement
            .entry(placement)
            .or_default()
            .insert(view.name.clone(), view);
        affected
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        let name = name.to_string();
        match self.placement_of.remove(&name) {
            Some(placement) => {
                self.unlink(&placement, &name);
                vec![placement]
            }
            None => Vec::new(),
        }
    }

    fn keys(&self) -> Vec<String> {
        self.by_placement.keys().cloned().collect()
    }
}

impl BindingIndex {
    fn unlink(&mut self, placement: &str, name: &str) {
        if let Some(bindings) = self.by_placement.get_mut(placement) {
            bindings.remove(name);
            if bindings.is_empty() {
                self.by_placement.remove(placement);
            }
        }
    }

    pub fn of_placement(&self, placement: &str) -> Vec<BindingView> {
        self.by_placement
            .get(placement)
            .map(|b| b.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn len(&self) -> usize {
        self.placement_of.len()
    }

    pub fn is_empty(&self) -> bool {
        self.placement_of.is_empty()
    }
}

#[derive(Debug, Default)]
pub struct PlacementIndex {
    by_name: HashMap<String, PlacementView>,
}

impl Index for PlacementIndex {
    type Object = ClusterResourcePlacement;
    type View = PlacementView;

    fn view(object: Self::Object) -> Option<Self::View> {
        Some(PlacementView::from_placement(&object))
    }

    fn upsert(&mut self, view: Self::View) -> Vec<String> {
        let name = view.name.clone();
        self.by_name.insert(name.clone(), view);
        vec![name]
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        let name = name.to_string();
        self.by_name.remove(&name);
        vec![name]
    }

    fn keys(&self) -> Vec<String> {
        self.by_name.keys().cloned().collect()
    }
}

impl PlacementIndex {
    pub fn get(&self, name: &str) -> Option<PlacementView> {
        self.by_name.get(name).cloned()
    }
}

/// Budgets are noticed, not kept: a change re-decides the placement of the same name.
#[derive(Debug, Default)]
pub struct BudgetNames {
    names: BTreeSet<String>,
}

impl Index for BudgetNames {
    type Object = ClusterResourcePlacementDisruptionBudget;
    type View = String;

    fn view(object: Self::Object) -> Option<Self::View> {
        Some(name_of(&object))
    }

    fn upsert(&mut self, name: Self::View) -> Vec<String> {
        self.names.insert(name.clone());
        vec![name]
    }

    fn remove(&mut self, name: &str) -> Vec<String> {
        let name = name.to_string();
        self.names.remove(&name);
        vec![name]
    }

    fn keys(&self) -> Vec<String> {
        self.names.iter().cloned().collect()
    }
}

/// A cache shared by the watch loop (writer) and the workers (readers).
#[derive(Debug)]
pub struct Cache<I> {
    index: RwLock<I>,
    synced: signal::Sender<bool>,
}

impl<I: Index> Default for Cache<I> {
    fn default() -> Self {
        Cache {
            index: RwLock::default(),
            synced: signal::channel(false).0,
        }
    }
}

impl<I: Index> Cache<I> {
    pub fn read(&self) -> RwLockReadGuard<'_, I> {
        self.index.read().unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self) -> RwLockWriteGuard<'_, I> {
        self.index.write().unwrap_or_else(PoisonError::into_inner)
    }

    /// Resolves once the first full list has been applied.
    pub async fn wait_synced(&self) {
        let mut synced = self.synced.subscribe();
        // The sender lives as long as the cache, so this only ends when synced.
        let _ = synced.wait_for(|s| *s).await;
    }

    /// Follows the API's objects into the index until the stream ends, queueing every
    /// placement a change affects. A relist replaces the index at once (views are buffered
    /// while it runs, so a fleet's bindings are never held twice as full objects).
    pub async fn follow(&self, client: kube::Client, queue: &WorkQueue, what: &'static str) {
        let resource = ApiResource::erase::<I::Object>(&());
        let api: Api<DynamicObject> = Api::all_with(client, &resource);
        let stream = watcher::watcher(api, watcher::Config::default()).default_backoff();
        futures::pin_mut!(stream);
        let mut relist: Option<I> = None;
        while let Some(event) = stream.next().await {
            let affected = match event {
                Ok(Event::Init) => {
                    relist = Some(I::default());
                    Vec::new()
                }
                Ok(Event::InitApply(object)) => {
                    if let Some(view) = decode::<I::Object>(object, what).and_then(I::view) {
                        relist.get_or_insert_with(I::default).upsert(view);
                    }
                    Vec::new()
                }
                Ok(Event::InitDone) => {
                    let fresh = relist.take().unwrap_or_default();
                    let mut keys = fresh.keys();
                    let old = std::mem::replace(&mut *self.write(), fresh);
                    keys.extend(old.keys());
                    self.synced.send_replace(true);
                    keys
                }
                Ok(Event::Apply(object)) => {
                    let name = name_of(&object);
                    match decode::<I::Object>(object, what).and_then(I::view) {
                        Some(view) => self.write().upsert(view),
                        // Unreadable now, or no longer any placement's: out of the index.
                        None => self.write().remove(&name),
                    }
                }
                Ok(Event::Delete(object)) => self.write().remove(&name_of(&object)),
                Err(e) => {
                    tracing::warn!(cache = what, "watch failed, retrying: {e}");
                    Vec::new()
                }
            };
            for key in affected {
                queue.add(&key);
            }
        }
    }
}

/// Reads one object into its typed form. An object this version cannot read (written
/// under another CRD version, or by hand against a looser schema) is reported and left
/// out, so it never stops the watch or the decisions about every other object.
pub fn decode<K: DeserializeOwned>(object: DynamicObject, what: &str) -> Option<K> {
    let name = object.metadata.name.clone().unwrap_or_default();
    let typed = serde_json::to_value(&object).and_then(serde_json::from_value::<K>);
    match typed {
        Ok(typed) => Some(typed),
        Err(e) => {
            tracing::warn!(cache = what, object = %name, "cannot read the object, ignoring it: {e}");
            None
        }
    }
}

/// The controller's caches.
#[derive(Debug, Default)]
pub struct Caches {
    pub evictions: Cache<EvictionIndex>,
    pub bindings: Cache<BindingIndex>,
    pub placements: Cache<PlacementIndex>,
    pub budgets: Cache<BudgetNames>,
}

impl Caches {
    pub async fn wait_synced(&self) {
        self.evictions.wait_synced().await;
        self.bindings.wait_synced().await;
        self.placements.wait_synced().await;
        self.budgets.wait_synced().await;
    }
}
