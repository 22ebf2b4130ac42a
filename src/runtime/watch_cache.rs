//! Watch-fed caches shared by both controllers: a watch keeps an index of stripped views up to
//! date, and every change names the keys it affects (placements at the fleet level, jobs at the
//! pod level), which are handed to a [`Touch`] (a work queue, or a router in front of one).

use futures::StreamExt;
use kube::Api;
use kube::api::{ApiResource, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};
use serde::de::DeserializeOwned;
use std::fmt::Debug;
use std::sync::{PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};
use tokio::sync::watch as signal;

/// One cache: how to strip an object, and which keys a change affects.
pub trait Index: Default + Send + Sync + 'static {
    type Object: kube::Resource<DynamicType = ()>
        + Clone
        + DeserializeOwned
        + Debug
        + Send
        + 'static;
    type View: Send;
    /// The view to keep, or `None` for objects the index does not keep.
    fn view(object: Self::Object) -> Option<Self::View>;
    fn upsert(&mut self, view: Self::View) -> Vec<String>;
    /// Removes the object with this [`object_key`].
    fn remove(&mut self, key: &str) -> Vec<String>;
    /// Keys with anything in the index (a relist replaces everything).
    fn keys(&self) -> Vec<String>;
}

/// Whoever is told which keys a change affects.
pub trait Touch: Sync {
    fn touch(&self, key: &str);
}

/// `namespace/name` for a namespaced object, `name` for a cluster-scoped one.
pub fn object_key<K: kube::Resource>(object: &K) -> String {
    let meta = object.meta();
    let name = meta.name.as_deref().unwrap_or_default();
    match meta.namespace.as_deref() {
        Some(namespace) if !namespace.is_empty() => format!("{namespace}/{name}"),
        _ => name.to_string(),
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

    pub fn is_synced(&self) -> bool {
        *self.synced.borrow()
    }

    /// Empties the cache and marks it unsynced (its watch was stopped: what it holds would
    /// only grow stale). Returns the keys it affected.
    pub fn reset(&self) -> Vec<String> {
        self.synced.send_replace(false);
        std::mem::take(&mut *self.write()).keys()
    }

    /// Follows the API's objects into the index until the stream ends, touching every key a
    /// change affects. A relist replaces the index at once (views are buffered while it runs,
    /// so a large list is never held twice as full objects).
    pub async fn follow(&self, client: kube::Client, touch: &dyn Touch, what: &'static str) {
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
                    let key = object_key(&object);
                    match decode::<I::Object>(object, what).and_then(I::view) {
                        Some(view) => self.write().upsert(view),
                        // Unreadable now, or no longer kept: out of the index.
                        None => self.write().remove(&key),
                    }
                }
                Ok(Event::Delete(object)) => self.write().remove(&object_key(&object)),
                Err(e) => {
                    tracing::warn!(cache = what, "watch failed, retrying: {e}");
                    Vec::new()
                }
            };
            for key in affected {
                touch.touch(&key);
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

/// `ours` is newer than `cached`. resourceVersions are opaque to clients in general, but
/// every server we talk to issues increasing integers; if either is not one, trust our write
/// until the cache shows the very same version.
pub fn is_newer(ours: Option<&str>, cached: Option<&str>) -> bool {
    match (ours, cached) {
        (Some(o), Some(c)) => match (o.parse::<u64>(), c.parse::<u64>()) {
            (Ok(o), Ok(c)) => o > c,
            _ => o != c,
        },
        (Some(_), None) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_versions_table() {
        let rows = [
            ("higher number is newer", Some("12"), Some("9"), true),
            ("same version is not newer", Some("9"), Some("9"), false),
            ("lower number is older", Some("8"), Some("9"), false),
            ("opaque and different: ours", Some("b"), Some("a"), true),
            ("opaque and equal: cached", Some("a"), Some("a"), false),
            ("nothing cached: ours", Some("1"), None, true),
            ("nothing of ours: cached", None, Some("1"), false),
        ];
        for (rule, ours, cached, want) in rows {
            assert_eq!(is_newer(ours, cached), want, "rule: {rule}");
        }
    }
}
