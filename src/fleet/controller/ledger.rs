//! Read-your-writes (§4.3): watch caches lag behind our own writes, and a decision made on a
//! cache that has not seen our last delete or reservation would spend the same disruption
//! twice. The ledger remembers, per placement, the objects our writes returned until the
//! cache shows them (or something newer), and the decisions read through it.

use crate::api::eviction::ClusterResourcePlacementEviction;
use crate::fleet::view::BindingView;
use crate::runtime::watch_cache::is_newer;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// A binding as our last write left it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BindingWrite {
    pub view: BindingView,
    /// Our delete removed it at once (no finalizers): it is gone, not just deleting.
    pub gone: bool,
}

#[derive(Debug, Default)]
struct PlacementMemory {
    evictions: HashMap<String, Arc<ClusterResourcePlacementEviction>>,
    bindings: HashMap<String, BindingWrite>,
}

#[derive(Debug, Default)]
pub struct Ledger {
    placements: Mutex<HashMap<String, PlacementMemory>>,
}

impl Ledger {
    fn with<T>(&self, placement: &str, f: impl FnOnce(&mut PlacementMemory) -> T) -> T {
        let mut all = self
            .placements
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let memory = all.entry(placement.to_string()).or_default();
        let out = f(memory);
        if memory.evictions.is_empty() && memory.bindings.is_empty() {
            all.remove(placement);
        }
        out
    }

    pub fn remember_eviction(&self, eviction: ClusterResourcePlacementEviction) {
        let placement = eviction.spec.placement_name.clone();
        let name = eviction.metadata.name.clone().unwrap_or_default();
        self.with(&placement, |m| m.evictions.insert(name, Arc::new(eviction)));
    }

    pub fn remember_binding(&self, placement: &str, write: BindingWrite) {
        self.with(placement, |m| {
            m.bindings.insert(write.view.name.clone(), write)
        });
    }

    /// The placement's evictions as we last know them; forgets what the cache caught up on
    /// and what it no longer has.
    pub fn evictions(
        &self,
        placement: &str,
        cached: Vec<Arc<ClusterResourcePlacementEviction>>,
    ) -> Vec<Arc<ClusterResourcePlacementEviction>> {
        self.with(placement, |m| {
            m.evictions.retain(|name, _| {
                cached
                    .iter()
                    .any(|c| c.metadata.name.as_deref() == Some(name))
            });
            cached
                .into_iter()
                .map(|c| {
                    let name = c.metadata.name.clone().unwrap_or_default();
                    match m.evictions.get(&name) {
                        Some(ours)
                            if newer(
                                &ours.metadata.resource_version,
                                &c.metadata.resource_version,
                            ) =>
                        {
                            ours.clone()
                        }
                        Some(_) => {
                            m.evictions.remove(&name);
                            c
                        }
                        None => c,
                    }
                })
                .collect()
        })
    }

    /// The placement's bindings with our own writes applied.
    pub fn bindings(&self, placement: &str, cached: Vec<BindingView>) -> Vec<BindingView> {
        self.with(placement, |m| {
            m.bindings
                .retain(|name, _| cached.iter().any(|c| &c.name == name));
            cached
                .into_iter()
                .map(|c| match m.bindings.get(&c.name).map(|w| overlay(&c, w)) {
                    Some(Overlay::Ours(view)) => *view,
                    Some(Overlay::Cached) => {
                        m.bindings.remove(&c.name);
                        c
                    }
                    None => c,
                })
                .collect()
        })
    }
}

fn newer(ours: &Option<String>, cached: &Option<String>) -> bool {
    is_newer(ours.as_deref(), cached.as_deref())
}

#[derive(Debug, PartialEq)]
enum Overlay {
    /// Decide on our write's view.
    Ours(Box<BindingView>),
    /// The cache caught up: forget our write.
    Cached,
}

fn overlay(cached: &BindingView, ours: &BindingWrite) -> Overlay {
    if cached.uid != ours.view.uid {
        // A different object under the same name: ours is gone.
        return Overlay::Cached;
    }
    if ours.gone {
        if cached.deleting {
            return Overlay::Cached;
        }
        return Overlay::Ours(Box::new(BindingView {
            deleting: true,
            ..cached.clone()
        }));
    }
    let o = Some(ours.view.resource_version.clone());
    let c = Some(cached.resource_version.clone());
    if newer(&o, &c) {
        Overlay::Ours(Box::new(ours.view.clone()))
    } else {
        Overlay::Cached
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::view::fixtures::bound;

    fn at(rv: &str, f: impl FnOnce(&mut BindingView)) -> BindingView {
        let mut b = bound("b1", "member-1");
        b.resource_version = rv.into();
        f(&mut b);
        b
    }

    #[test]
    fn binding_overlay_table() {
        let deleting = |b: &mut BindingView| b.deleting = true;
        let signalled = |b: &mut BindingView| b.signal = Some("evict-1".into());
        let rows: Vec<(&str, BindingView, BindingWrite, Overlay)> = vec![
            (
                "our delete (finalizers pending) before the cache sees it",
                at("5", |_| {}),
                BindingWrite {
                    view: at("6", deleting),
                    gone: false,
                },
                Overlay::Ours(Box::new(at("6", deleting))),
            ),
            (
                "the cache shows our delete",
                at("6", deleting),
                BindingWrite {
                    view: at("6", deleting),
                    gone: false,
                },
                Overlay::Cached,
            ),
            (
                "the cache shows something newer than our write",
                at("9", |_| {}),
                BindingWrite {
                    view: at("6", signalled),
                    gone: false,
                },
                Overlay::Cached,
            ),
            (
                "our signal before the cache sees it",
                at("5", |_| {}),
                BindingWrite {
                    view: at("6", signalled),
                    gone: false,
                },
                Overlay::Ours(Box::new(at("6", signalled))),
            ),
            (
                "deleted at once: deleting until the cache drops it",
                at("5", |_| {}),
                BindingWrite {
                    view: at("5", |_| {}),
                    gone: true,
                },
                Overlay::Ours(Box::new(at("5", deleting))),
            ),
            (
                "a new binding under the same name is not ours",
                at("9", |b| b.uid = "other".into()),
                BindingWrite {
                    view: at("6", deleting),
                    gone: false,
                },
                Overlay::Cached,
            ),
        ];
        for (rule, cached, ours, want) in rows {
            assert_eq!(overlay(&cached, &ours), want, "rule: {rule}");
        }
    }

    #[test]
    fn versions_compare_as_integers() {
        let v = |s: &str| Some(s.to_string());
        assert!(newer(&v("10"), &v("9")), "10 > 9 numerically, not as text");
        assert!(!newer(&v("9"), &v("10")));
        assert!(!newer(&v("9"), &v("9")));
        assert!(
            newer(&v("abc"), &v("abd")),
            "opaque: ours until the same version shows"
        );
        assert!(!newer(&v("abc"), &v("abc")));
    }

    #[test]
    fn ledger_forgets_what_the_cache_no_longer_has() {
        let ledger = Ledger::default();
        ledger.remember_binding(
            "web",
            BindingWrite {
                view: at("6", |b| b.deleting = true),
                gone: false,
            },
        );
        let seen = ledger.bindings("web", vec![at("5", |_| {})]);
        assert!(seen[0].deleting, "read-your-writes");
        assert!(ledger.bindings("web", vec![]).is_empty());
        let seen = ledger.bindings("web", vec![at("5", |_| {})]);
        assert!(
            !seen[0].deleting,
            "forgotten once the binding left the cache"
        );
    }
}
