//! Watch-fed caches of evictions, bindings (indexed by placement), placements and budget
//! names. Every change names the placements it affects, which the watch loop queues. Cached
//! bindings and placements are stripped to their views; budgets are only noticed here (the
//! decision reads them from the API).

use crate::api::budget::ClusterResourcePlacementDisruptionBudget;
use crate::api::eviction::ClusterResourcePlacementEviction;
use crate::api::keys::PARENT_CRP_LABEL;
use crate::api::kubefleet::{ClusterResourceBinding, ClusterResourcePlacement};
use crate::fleet::view::{BindingView, PlacementView};
pub use crate::runtime::watch_cache::{Cache, Index, decode};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

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
        let name = view.metadata.name.clone().unwrap_or_default();
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
        Some(object.metadata.name.unwrap_or_default())
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
