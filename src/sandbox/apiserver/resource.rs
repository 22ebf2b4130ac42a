//! What the server knows about each kind it serves: built-in types from a fixed table,
//! custom resources from registered CRDs.

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::JSONSchemaProps;
use serde_json::Value;
use std::sync::Arc;

/// Where a resource's objects live: one table per group and plural, whatever the version.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StorageKey {
    pub group: String,
    pub resource: String,
}

impl StorageKey {
    pub fn new(group: &str, resource: &str) -> StorageKey {
        StorageKey {
            group: group.to_string(),
            resource: resource.to_string(),
        }
    }

    /// `pods` for the core group, `deployments.apps` otherwise: how error messages name it.
    pub fn qualified(&self) -> String {
        if self.group.is_empty() {
            self.resource.clone()
        } else {
            format!("{}.{}", self.resource, self.group)
        }
    }
}

/// How writes to this kind are checked and normalised.
#[derive(Clone)]
pub enum Shape {
    /// A built-in type: decoded into its typed form and encoded back, which drops unknown
    /// fields and refuses wrong types the way the real server's decoder does.
    Builtin(fn(Value) -> Result<Value, String>),
    /// A custom resource version: pruned, defaulted and validated against its schema.
    Custom(Arc<JSONSchemaProps>),
}

impl std::fmt::Debug for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Shape::Builtin(_) => f.write_str("Builtin"),
            Shape::Custom(_) => f.write_str("Custom"),
        }
    }
}

/// Stored and wire forms are the same except for `events.k8s.io/v1` Events, which share the
/// core Events' store with their fields renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    Same,
    EventsV1,
}

/// One served group/version/resource.
#[derive(Debug, Clone)]
pub struct ResourceType {
    pub group: String,
    pub version: String,
    /// The plural, as in URLs.
    pub resource: String,
    pub singular: String,
    pub kind: String,
    pub namespaced: bool,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    /// Subresources served besides the object itself (`status`, `eviction`).
    pub subresources: Vec<String>,
    /// Whether `metadata.generation` counts changes outside metadata and status, as the real
    /// server does for custom resources, workloads, PDBs and CRDs (not for pods in 1.32).
    pub tracks_generation: bool,
    /// How the stored form maps to this version's wire form.
    pub wire: Wire,
    pub shape: Shape,
    /// A CRD version's `additionalPrinterColumns`, as JSON.
    pub printer_columns: Option<Value>,
    /// The version objects are kept in; others are served by rewriting `apiVersion`.
    pub storage_version: String,
    /// The group whose table holds the objects (the core group for `events.k8s.io` Events).
    pub storage_group: String,
    /// For custom resources, the CRD's name.
    pub crd: Option<String>,
}

impl ResourceType {
    pub fn storage_key(&self) -> StorageKey {
        StorageKey::new(&self.storage_group, &self.resource)
    }

    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    pub fn has_status(&self) -> bool {
        self.subresources.iter().any(|s| s == "status")
    }

    pub fn is_custom(&self) -> bool {
        self.crd.is_some()
    }
}
