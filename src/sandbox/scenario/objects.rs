//! Finding the objects a step names on one cluster of the fleet: the kind through the
//! cluster's discovery (as kubectl does), then a get or a list, then the `where` filters.

use super::format::Manifest;
use super::path;
use super::step_args::Target;
use crate::api::keys::PARENT_CRP_LABEL;
use crate::sandbox::fleet::{Cluster, Fleet};
use kube::Client;
use kube::api::{Api, DynamicObject, GroupVersionKind, ListParams};
use kube::core::gvk::ParseGroupVersionError;
use kube::discovery::{self, ApiCapabilities, ApiResource, Discovery, Scope};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Mutex;

const BINDING_API_VERSION: &str = "placement.kubernetes-fleet.io/v1beta1";
const BINDING_KIND: &str = "ClusterResourceBinding";

/// The fleet as steps see it: clusters by name, and what each cluster serves.
pub struct Clusters<'f> {
    fleet: &'f Fleet,
    /// One discovery per cluster, run when a step first names a kind without apiVersion and
    /// again when a kind is not found (a CRD may have been created since).
    discovered: Mutex<BTreeMap<String, std::sync::Arc<Discovery>>>,
}

/// A kind resolved on one cluster.
#[derive(Clone, Debug)]
pub struct Kind {
    pub resource: ApiResource,
    pub namespaced: bool,
    pub has_status: bool,
}

impl<'f> Clusters<'f> {
    pub fn new(fleet: &'f Fleet) -> Self {
        Clusters {
            fleet,
            discovered: Mutex::new(BTreeMap::new()),
        }
    }

    pub fn fleet(&self) -> &'f Fleet {
        self.fleet
    }

    pub fn cluster(&self, name: &str) -> Result<&'f Cluster, String> {
        if name == self.fleet.hub.name {
            return Ok(&self.fleet.hub);
        }
        self.fleet
            .member(name)
            .ok_or_else(|| format!("no cluster named {name}"))
    }

    pub fn client(&self, name: &str) -> Result<Client, String> {
        self.cluster(name).map(Cluster::client)
    }

    /// The kind `kind` (in `api_version` when given) as `cluster` serves it.
    pub async fn kind(
        &self,
        cluster: &str,
        api_version: Option<&str>,
        kind: &str,
    ) -> Result<Kind, String> {
        let client = self.client(cluster)?;
        if let Some(api_version) = api_version {
            let gvk =
                gvk(api_version, kind).map_err(|e| format!("apiVersion {api_version:?}: {e}"))?;
            let (resource, caps) = discovery::pinned_kind(&client, &gvk)
                .await
                .map_err(|e| format!("{cluster} serves no {kind} in {api_version}: {e}"))?;
            return Ok(Kind::new(resource, &caps));
        }
        for refresh in [false, true] {
            let found = self.discovery(cluster, &client, refresh).await?;
            if let Some(kind) = find_kind(&found, kind) {
                return Ok(kind);
            }
        }
        Err(format!("{cluster} serves no kind {kind}"))
    }

    async fn discovery(
        &self,
        cluster: &str,
        client: &Client,
        refresh: bool,
    ) -> Result<std::sync::Arc<Discovery>, String> {
        if !refresh && let Some(found) = self.lock().get(cluster) {
            return Ok(found.clone());
        }
        let found = Discovery::new(client.clone())
            .run()
            .await
            .map_err(|e| format!("discovery on {cluster} failed: {e}"))?;
        let found = std::sync::Arc::new(found);
        self.lock().insert(cluster.to_string(), found.clone());
        Ok(found)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, std::sync::Arc<Discovery>>> {
        self.discovered
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The kind of an inline object.
    pub async fn kind_of(&self, cluster: &str, object: &Manifest) -> Result<Kind, String> {
        self.kind(cluster, Some(object.api_version()), object.kind())
            .await
    }

    /// Every object `target` matches on `cluster`, sorted by namespace and name.
    pub async fn find(&self, cluster: &str, target: &Target) -> Result<Vec<Value>, String> {
        let (kind, selection) = self.selection(cluster, target).await?;
        let api = self.api(cluster, &kind, target.namespace.as_deref())?;
        let in_one_place = !kind.namespaced || target.namespace.is_some();
        let objects = match &selection.name {
            Some(name) if in_one_place => api
                .get_opt(name)
                .await
                .map_err(|e| describe_error(&e))?
                .into_iter()
                .collect(),
            // A namespaced kind named without its namespace: that name in any namespace.
            name => {
                let mut params = ListParams::default();
                if let Some(name) = name {
                    params = params.fields(&format!("metadata.name={name}"));
                }
                if let Some(selector) = &selection.selector {
                    params = params.labels(selector);
                }
                api.list(&params)
                    .await
                    .map_err(|e| describe_error(&e))?
                    .items
            }
        };
        let mut found: Vec<Value> = objects
            .into_iter()
            .filter_map(|o| serde_json::to_value(o).ok())
            .filter(|o| selection.keeps(o))
            .collect();
        found.sort_by_key(|o| (namespace_of(o), name_of(o)));
        Ok(found)
    }

    /// An API for `kind` on `cluster`: in `namespace` (or `default`) for namespaced kinds.
    pub fn api(
        &self,
        cluster: &str,
        kind: &Kind,
        namespace: Option<&str>,
    ) -> Result<Api<DynamicObject>, String> {
        let client = self.client(cluster)?;
        Ok(if kind.namespaced {
            match namespace {
                Some(ns) => Api::namespaced_with(client, ns, &kind.resource),
                None => Api::all_with(client, &kind.resource),
            }
        } else {
            Api::all_with(client, &kind.resource)
        })
    }

    /// The kind and filters `target` stands for (the `binding` shorthand expanded).
    pub async fn selection(
        &self,
        cluster: &str,
        target: &Target,
    ) -> Result<(Kind, Selection), String> {
        let mut selection = Selection {
            name: target.name.clone(),
            selector: target.selector.clone(),
            filters: Vec::new(),
        };
        for (key, value) in &target.where_ {
            selection
                .filters
                .push((path::compile(key)?, path::scalar_text(value)));
        }
        let kind = match (&target.kind, &target.binding) {
            (Some(kind), _) => {
                self.kind(cluster, target.api_version.as_deref(), kind)
                    .await?
            }
            (None, Some(binding)) => {
                let parent = format!("{PARENT_CRP_LABEL}={}", binding.placement);
                selection.selector = Some(match selection.selector.take() {
                    Some(more) => format!("{parent},{more}"),
                    None => parent,
                });
                if let Some(member) = &binding.member {
                    selection
                        .filters
                        .push((path::compile(".spec.targetCluster")?, member.clone()));
                }
                self.kind(cluster, Some(BINDING_API_VERSION), BINDING_KIND)
                    .await?
            }
            (None, None) => return Err("the step names no kind".into()),
        };
        Ok((kind, selection))
    }
}

/// How a target narrows a kind's objects.
pub struct Selection {
    pub name: Option<String>,
    pub selector: Option<String>,
    /// Path → the value it must print.
    pub filters: Vec<(crate::sandbox::table::jsonpath::CompiledPath, String)>,
}

impl Selection {
    fn keeps(&self, object: &Value) -> bool {
        self.filters
            .iter()
            .all(|(path, want)| path::printed(path, object) == *want)
    }
}

impl Kind {
    fn new(resource: ApiResource, caps: &ApiCapabilities) -> Kind {
        Kind {
            namespaced: caps.scope == Scope::Namespaced,
            has_status: caps.subresources.iter().any(|(r, _)| r.plural == "status"),
            resource,
        }
    }
}

fn gvk(api_version: &str, kind: &str) -> Result<GroupVersionKind, ParseGroupVersionError> {
    let gv: kube::core::GroupVersion = api_version.parse()?;
    Ok(GroupVersionKind::gvk(&gv.group, &gv.version, kind))
}

/// The kind in `found`, preferring the core group (as kubectl does for `Event`).
fn find_kind(found: &Discovery, kind: &str) -> Option<Kind> {
    let mut groups: Vec<_> = found.groups().collect();
    groups.sort_by_key(|g| g.name() != "");
    groups
        .into_iter()
        .find_map(|g| g.recommended_kind(kind))
        .map(|(resource, caps)| Kind::new(resource, &caps))
}

pub fn name_of(object: &Value) -> String {
    object["metadata"]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

pub fn namespace_of(object: &Value) -> String {
    object["metadata"]["namespace"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `ns/name` or `name`.
pub fn display_name(object: &Value) -> String {
    match namespace_of(object).as_str() {
        "" => name_of(object),
        ns => format!("{ns}/{}", name_of(object)),
    }
}

/// An API error as one line: the server's message, or the transport failure.
pub fn describe_error(error: &kube::Error) -> String {
    match error {
        kube::Error::Api(status) => {
            format!("{} ({} {})", status.message, status.code, status.reason)
        }
        other => other.to_string(),
    }
}
