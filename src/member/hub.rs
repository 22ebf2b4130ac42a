//! The hub objects the registry follows: MemberClusters (only their names matter here) and
//! the Secrets in the controller's namespace that carry the member-cluster label. Both are
//! watched as untyped objects and read field by field, so an odd object is reported for its
//! member and never stops a watch.

use std::collections::BTreeMap;

use futures::{Stream, StreamExt};
use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use kube::api::{ApiResource, DynamicObject};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};

use super::kubeconfig::{KUBECONFIG_KEY, KubeconfigProblem};
use super::registration::SecretView;
use crate::api::keys::MEMBER_CLUSTER_LABEL;
use crate::api::kubefleet::MemberCluster;

/// One event from either watch.
pub(super) enum HubEvent {
    MemberClusters(Result<Event<DynamicObject>, watcher::Error>),
    Secrets(Result<Event<DynamicObject>, watcher::Error>),
}

/// Both watches, merged into one stream (each retries with kube's default backoff).
pub(super) fn follow(hub: kube::Client, namespace: &str) -> impl Stream<Item = HubEvent> + use<> {
    let clusters: Api<DynamicObject> =
        Api::all_with(hub.clone(), &ApiResource::erase::<MemberCluster>(&()));
    let secrets: Api<DynamicObject> =
        Api::namespaced_with(hub, namespace, &ApiResource::erase::<Secret>(&()));
    let clusters = watcher::watcher(clusters, watcher::Config::default())
        .default_backoff()
        .map(HubEvent::MemberClusters);
    // Only labelled Secrets: the namespace may hold many others the registry must not keep.
    let labelled = watcher::Config::default().labels(MEMBER_CLUSTER_LABEL);
    let secrets = watcher::watcher(secrets, labelled)
        .default_backoff()
        .map(HubEvent::Secrets);
    futures::stream::select(clusters, secrets)
}

/// A list kept up to date by a watch: what the registry knows of one kind, by object name.
/// A relist is collected aside and replaces the whole at its end, so objects deleted while
/// the watch was down disappear too.
#[derive(Debug)]
pub(super) struct Listed<V> {
    pub objects: BTreeMap<String, V>,
    relist: Option<BTreeMap<String, V>>,
    pub synced: bool,
}

impl<V> Default for Listed<V> {
    fn default() -> Self {
        Listed {
            objects: BTreeMap::new(),
            relist: None,
            synced: false,
        }
    }
}

impl<V> Listed<V> {
    /// Applies one event; `true` when `objects` may have changed.
    pub fn apply(&mut self, event: Event<DynamicObject>, view: fn(&DynamicObject) -> V) -> bool {
        match event {
            Event::Init => {
                self.relist = Some(BTreeMap::new());
                false
            }
            Event::InitApply(object) => {
                if let Some(name) = object.metadata.name.clone() {
                    let relist = self.relist.get_or_insert_with(BTreeMap::new);
                    relist.insert(name, view(&object));
                }
                false
            }
            Event::InitDone => {
                self.objects = self.relist.take().unwrap_or_default();
                self.synced = true;
                true
            }
            Event::Apply(object) => match object.metadata.name.clone() {
                Some(name) => {
                    self.objects.insert(name, view(&object));
                    true
                }
                None => false,
            },
            Event::Delete(object) => match &object.metadata.name {
                Some(name) => self.objects.remove(name).is_some(),
                None => false,
            },
        }
    }
}

/// A MemberCluster matters only by its name: its spec belongs to KubeFleet.
pub(super) fn member_cluster_view(_: &DynamicObject) {}

/// The member label and the `kubeconfig` key, and nothing else of the Secret.
pub(super) fn secret_view(object: &DynamicObject) -> SecretView {
    let name = object.metadata.name.clone().unwrap_or_default();
    let member = object
        .metadata
        .labels
        .as_ref()
        .and_then(|labels| labels.get(MEMBER_CLUSTER_LABEL))
        .cloned()
        .unwrap_or_default();
    let kubeconfig = match object.data.get("data").and_then(|d| d.get(KUBECONFIG_KEY)) {
        None => Err(KubeconfigProblem::MissingKey),
        Some(value) => serde_json::from_value::<ByteString>(value.clone())
            .map(|bytes| bytes.0)
            .map_err(|e| {
                KubeconfigProblem::UnreadableSecret(format!("key `{KUBECONFIG_KEY}`: {e}"))
            }),
    };
    SecretView {
        name,
        member,
        kubeconfig,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: serde_json::Value) -> DynamicObject {
        serde_json::from_value(value).expect("an object")
    }

    #[test]
    fn secret_view_table() {
        let rows = [
            (
                json!({"metadata": {"name": "m-kc", "labels": {MEMBER_CLUSTER_LABEL: "m"}},
                       "data": {"kubeconfig": "a2M=", "other": "eA=="}}),
                Ok(b"kc".to_vec()),
                "the kubeconfig key, base64-decoded",
            ),
            (
                json!({"metadata": {"name": "m-kc", "labels": {MEMBER_CLUSTER_LABEL: "m"}},
                       "data": {"config": "a2M="}}),
                Err(KubeconfigProblem::MissingKey),
                "another key is not the kubeconfig",
            ),
            (
                json!({"metadata": {"name": "m-kc", "labels": {MEMBER_CLUSTER_LABEL: "m"}}}),
                Err(KubeconfigProblem::MissingKey),
                "no data at all",
            ),
        ];
        for (value, want, rule) in rows {
            let view = secret_view(&object(value));
            assert_eq!(view.name, "m-kc", "rule: {rule}");
            assert_eq!(view.member, "m", "rule: {rule}");
            assert_eq!(view.kubeconfig, want, "rule: {rule}");
        }
    }

    #[test]
    fn an_unreadable_value_is_reported_for_its_member() {
        let view = secret_view(&object(json!({
            "metadata": {"name": "m-kc", "labels": {MEMBER_CLUSTER_LABEL: "m"}},
            "data": {"kubeconfig": 42}
        })));
        assert!(
            matches!(view.kubeconfig, Err(KubeconfigProblem::UnreadableSecret(ref e)) if e.contains("kubeconfig")),
            "{:?}",
            view.kubeconfig
        );
    }

    #[test]
    fn a_relist_replaces_everything() {
        let named = |name: &str| object(json!({"metadata": {"name": name}}));
        let mut listed: Listed<()> = Listed::default();
        let view: fn(&DynamicObject) = member_cluster_view;
        assert!(!listed.apply(Event::Init, view));
        assert!(!listed.apply(Event::InitApply(named("a")), view));
        assert!(!listed.synced, "not synced before the list ends");
        assert!(listed.apply(Event::InitDone, view));
        assert!(listed.apply(Event::Apply(named("b")), view));
        assert_eq!(listed.objects.keys().collect::<Vec<_>>(), ["a", "b"]);
        // The watch restarts; "a" was deleted meanwhile.
        listed.apply(Event::Init, view);
        listed.apply(Event::InitApply(named("b")), view);
        assert_eq!(
            listed.objects.len(),
            2,
            "the old list stays until the relist ends"
        );
        listed.apply(Event::InitDone, view);
        assert_eq!(listed.objects.keys().collect::<Vec<_>>(), ["b"]);
        assert!(listed.apply(Event::Delete(named("b")), view));
        assert!(!listed.apply(Event::Delete(named("b")), view));
        assert!(listed.objects.is_empty());
    }
}
