//! Legacy discovery documents (`/version`, `/api`, `/apis`, `/apis/<group>`, `/api/v1`,
//! `/apis/<group>/<version>`), shaped as kube-apiserver 1.32 answers them. kubectl first asks
//! for the aggregated form and falls back to these when the server answers plain JSON.

use super::registry::Registry;
use super::resource::ResourceType;
use serde_json::{Map, Value, json};
use std::cmp::Ordering;

/// Build fields of the upstream v1.32.0 release the sandbox imitates. Nobody we serve reads
/// them, but `version.Info` decoders require every field to be present.
const UPSTREAM_COMMIT: &str = "70d3cc986aa8221cd1dfb1121852688902d3bf53";
const UPSTREAM_BUILD_DATE: &str = "2024-12-11T17:59:15Z";
const UPSTREAM_GO_VERSION: &str = "go1.23.3";

/// Verbs of a built-in resource, in the (alphabetical) order the built-in installer lists them.
const BUILTIN_VERBS: &[&str] = &[
    "create",
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "update",
    "watch",
];
/// The apiextensions server lists a custom resource's verbs in this fixed order.
const CUSTOM_VERBS: &[&str] = &[
    "delete",
    "deletecollection",
    "get",
    "list",
    "patch",
    "create",
    "update",
    "watch",
];
/// Built-ins served without `deletecollection` (namespaces are deleted one by one).
const WITHOUT_DELETECOLLECTION: &[(&str, &str)] = &[("", "namespaces")];
const STATUS_VERBS: &[&str] = &["get", "patch", "update"];

/// The aggregator orders `/apis` by each group's `groupPriorityMinimum`, highest first, then
/// by name. Values from kube-apiserver's built-in APIService table.
const GROUP_PRIORITIES: &[(&str, u32)] = &[
    ("apiregistration.k8s.io", 18000),
    ("apps", 17800),
    ("events.k8s.io", 17750),
    ("authentication.k8s.io", 17700),
    ("authorization.k8s.io", 17600),
    ("autoscaling", 17500),
    ("batch", 17400),
    ("certificates.k8s.io", 17300),
    ("networking.k8s.io", 17200),
    ("policy", 17100),
    ("rbac.authorization.k8s.io", 17000),
    ("storage.k8s.io", 16800),
    ("admissionregistration.k8s.io", 16700),
    ("apiextensions.k8s.io", 16700),
    ("coordination.k8s.io", 16500),
    ("discovery.k8s.io", 16200),
];
/// What the CRD registration controller gives every custom resource group.
const CUSTOM_GROUP_PRIORITY: u32 = 1000;

/// `/version`. Major and minor come from `git_version` (`v1.32.0-sandbox` → "1", "32"); a
/// version that does not parse leaves them empty, as an unstamped real build reports.
pub fn version_info(git_version: &str) -> Value {
    let (major, minor) = major_minor(git_version);
    json!({
        "major": major,
        "minor": minor,
        "gitVersion": git_version,
        "gitCommit": UPSTREAM_COMMIT,
        "gitTreeState": "clean",
        "buildDate": UPSTREAM_BUILD_DATE,
        "goVersion": UPSTREAM_GO_VERSION,
        "compiler": "gc",
        "platform": platform(),
    })
}

fn major_minor(git_version: &str) -> (String, String) {
    let numbers = git_version.strip_prefix('v').unwrap_or_default();
    let mut parts = numbers.split(['.', '-', '+']);
    match (parts.next(), parts.next()) {
        (Some(major), Some(minor)) if is_number(major) && is_number(minor) => {
            (major.to_string(), minor.to_string())
        }
        _ => (String::new(), String::new()),
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

/// The host platform in Go's spelling (`linux/amd64`), as a real server reports its own.
fn platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "powerpc64" => "ppc64",
        other => other,
    };
    format!("{}/{arch}", std::env::consts::OS)
}

/// `/api`: the legacy core group's versions. The real server names no `apiVersion` here.
pub fn core_versions(server_address: &str) -> Value {
    json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [
            {"clientCIDR": "0.0.0.0/0", "serverAddress": server_address}
        ],
    })
}

/// `/apis`: every group but the core one, in the aggregator's order.
pub fn group_list(registry: &Registry) -> Value {
    let groups: Vec<Value> = ordered_groups(registry)
        .iter()
        .filter_map(|name| api_group(registry, name))
        .map(Value::Object)
        .collect();
    json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups})
}

/// `/apis/<group>`; `None` for a group the server does not serve (and for the core group,
/// which lives at `/api`).
pub fn group(registry: &Registry, group: &str) -> Option<Value> {
    let mut body = api_group(registry, group)?;
    body.insert("kind".into(), json!("APIGroup"));
    body.insert("apiVersion".into(), json!("v1"));
    Some(Value::Object(body))
}

/// `/api/v1` or `/apis/<group>/<version>`; `None` when nothing is served there.
pub fn resource_list(registry: &Registry, group: &str, version: &str) -> Option<Value> {
    let types = registry.in_group_version(group, version);
    if types.is_empty() {
        return None;
    }
    let mut resources: Vec<Map<String, Value>> = Vec::new();
    for t in &types {
        resources.push(resource_entry(t));
        resources.extend(
            t.subresources
                .iter()
                .filter_map(|s| subresource_entry(t, s)),
        );
    }
    resources.sort_by(|a, b| entry_name(a).cmp(entry_name(b)));
    let mut body = Map::new();
    body.insert("kind".into(), json!("APIResourceList"));
    if group.is_empty() {
        // The core group's list is written without `apiVersion`, unlike every other group's.
        body.insert("groupVersion".into(), json!(version));
    } else {
        body.insert("apiVersion".into(), json!("v1"));
        body.insert("groupVersion".into(), json!(format!("{group}/{version}")));
    }
    body.insert("resources".into(), json!(resources));
    Some(Value::Object(body))
}

fn entry_name(entry: &Map<String, Value>) -> &str {
    entry
        .get("name")
        .and_then(Value::as_str)
        .unwrap_or_default()
}

fn resource_entry(t: &ResourceType) -> Map<String, Value> {
    let mut entry = Map::new();
    entry.insert("name".into(), json!(t.resource));
    entry.insert("singularName".into(), json!(t.singular));
    entry.insert("namespaced".into(), json!(t.namespaced));
    entry.insert("kind".into(), json!(t.kind));
    entry.insert("verbs".into(), json!(verbs(t)));
    // Empty lists are omitted, as the real server's `omitempty` does.
    if !t.short_names.is_empty() {
        entry.insert("shortNames".into(), json!(t.short_names));
    }
    if !t.categories.is_empty() {
        entry.insert("categories".into(), json!(t.categories));
    }
    entry
}

fn verbs(t: &ResourceType) -> Vec<&'static str> {
    if t.is_custom() {
        return CUSTOM_VERBS.to_vec();
    }
    let no_collection = WITHOUT_DELETECOLLECTION
        .iter()
        .any(|(g, r)| *g == t.group && *r == t.resource);
    BUILTIN_VERBS
        .iter()
        .copied()
        .filter(|v| !(no_collection && *v == "deletecollection"))
        .collect()
}

/// Subresources name no singular. The eviction subresource takes a `policy/v1` Eviction;
/// kubectl drain looks for exactly that entry before using it. Unknown subresources are
/// left out rather than guessed.
fn subresource_entry(t: &ResourceType, sub: &str) -> Option<Map<String, Value>> {
    let mut entry = Map::new();
    entry.insert("name".into(), json!(format!("{}/{sub}", t.resource)));
    entry.insert("singularName".into(), json!(""));
    entry.insert("namespaced".into(), json!(t.namespaced));
    match sub {
        "status" => {
            entry.insert("kind".into(), json!(t.kind));
            entry.insert("verbs".into(), json!(STATUS_VERBS));
        }
        "eviction" => {
            entry.insert("group".into(), json!("policy"));
            entry.insert("version".into(), json!("v1"));
            entry.insert("kind".into(), json!("Eviction"));
            entry.insert("verbs".into(), json!(["create"]));
        }
        _ => return None,
    }
    Some(entry)
}

/// A group's body without `kind`/`apiVersion` (the list embeds it bare).
fn api_group(registry: &Registry, group: &str) -> Option<Map<String, Value>> {
    if group.is_empty() {
        return None;
    }
    let versions: Vec<Value> = served_versions(registry, group)
        .iter()
        .map(|v| json!({"groupVersion": format!("{group}/{v}"), "version": v}))
        .collect();
    let preferred = versions.first()?.clone();
    let mut body = Map::new();
    body.insert("name".into(), json!(group));
    body.insert("versions".into(), json!(versions));
    body.insert("preferredVersion".into(), preferred);
    Some(body)
}

/// A group's versions, preferred first. Every version of a custom group carries the same
/// version priority, so the order is Kubernetes' version order, whichever is stored.
pub fn served_versions(registry: &Registry, group: &str) -> Vec<String> {
    let mut versions: Vec<String> = registry
        .group_versions()
        .iter()
        .filter(|(g, _)| g == group)
        .map(|(_, v)| v.clone())
        .collect();
    versions.sort_by(|a, b| compare_kube_versions(b, a));
    versions.dedup();
    versions
}

fn ordered_groups(registry: &Registry) -> Vec<String> {
    let mut groups: Vec<String> = registry
        .group_versions()
        .iter()
        .map(|(g, _)| g.clone())
        .filter(|g| !g.is_empty())
        .collect();
    groups.sort_by(|a, b| {
        group_priority(b)
            .cmp(&group_priority(a))
            .then_with(|| a.cmp(b))
    });
    groups.dedup();
    groups
}

fn group_priority(group: &str) -> u32 {
    GROUP_PRIORITIES
        .iter()
        .find(|(g, _)| *g == group)
        .map_or(CUSTOM_GROUP_PRIORITY, |(_, p)| *p)
}

/// Kubernetes' version order: `Greater` when `a` is preferred over `b`. GA beats beta beats
/// alpha, then the higher major, then the higher minor (`v1 > v1beta2 > v1beta1 > v1alpha1`,
/// and `v1beta1 > v2alpha1`). Versions not shaped like `vN[alpha|betaM]` come after those and
/// among themselves in alphabetical order.
pub fn compare_kube_versions(a: &str, b: &str) -> Ordering {
    match (parse_kube_version(a), parse_kube_version(b)) {
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Greater,
        (None, Some(_)) => Ordering::Less,
        (None, None) => b.cmp(a),
    }
}

/// (stability, major, minor): alpha 0, beta 1, GA 2; GA has no minor.
fn parse_kube_version(v: &str) -> Option<(u8, u64, u64)> {
    let rest = v.strip_prefix('v')?;
    let digits_end = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let (major, tail) = rest.split_at(digits_end);
    let major = parse_digits(major)?;
    if tail.is_empty() {
        return Some((2, major, 0));
    }
    let (stability, minor) = if let Some(minor) = tail.strip_prefix("beta") {
        (1, minor)
    } else {
        (0, tail.strip_prefix("alpha")?)
    };
    Some((stability, major, parse_digits(minor)?))
}

fn parse_digits(s: &str) -> Option<u64> {
    if is_number(s) { s.parse().ok() } else { None }
}

#[cfg(test)]
#[path = "discovery_tests.rs"]
pub(super) mod tests;
