//! What a scenario file says, as typed values. docs/scenarios.md describes the format for
//! users; the field names here are the YAML keys (camelCase).
//!
//! Everything a file can get wrong by its shape is refused while it is read, so serde-saphyr
//! can point at the line: unknown keys, missing fields, a bad duration or condition status,
//! an object without `apiVersion`, `kind` or a name. What needs the whole file (does this
//! cluster exist? does this path parse?) is checked afterwards by [`super::checks`].

use super::step::Step;
use crate::api::duration;
use crate::runtime::clock::SharedClock;
use crate::sandbox::apiserver::faults::ErrorRule;
use crate::sandbox::fleet::FleetOptions;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Nodes each member starts with when the file does not say.
pub const DEFAULT_NODES_PER_MEMBER: usize = 3;
/// How long an `expect` step waits when neither it nor the file says.
pub const DEFAULT_EXPECT_TIMEOUT: Duration = Duration::from_secs(30);

/// A whole scenario file.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    /// Shown in the output; the file name when absent.
    #[serde(default)]
    pub name: Option<String>,
    /// Printed before the timeline: what the scenario shows.
    #[serde(default)]
    pub description: Option<String>,
    /// Members `member-1`..`member-N`.
    pub members: usize,
    #[serde(default = "default_nodes")]
    pub nodes_per_member: usize,
    /// Seed of the fleet (uids, generated names, injected faults); `--seed` overrides it.
    #[serde(default)]
    pub seed: Option<u64>,
    /// Deadline of `expect` steps that do not give their own `within`.
    #[serde(default = "default_timeout")]
    pub timeout: GoDuration,
    /// Objects created on the hub, in order, before the first step.
    #[serde(default)]
    pub setup: Vec<Manifest>,
    pub steps: Vec<Step>,
}

impl Scenario {
    /// The fleet this scenario plays on.
    pub fn fleet_options(&self, dir: PathBuf, seed: u64, clock: SharedClock) -> FleetOptions {
        FleetOptions {
            members: self.members,
            nodes_per_member: self.nodes_per_member,
            dir,
            seed,
            clock,
        }
    }
}

fn default_nodes() -> usize {
    DEFAULT_NODES_PER_MEMBER
}

fn default_timeout() -> GoDuration {
    GoDuration(DEFAULT_EXPECT_TIMEOUT)
}

/// A Go duration string (`500ms`, `30s`, `2m`), as in `ttl` fields and `--lease-duration`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GoDuration(pub Duration);

impl<'de> Deserialize<'de> for GoDuration {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        duration::parse(&text)
            .map(GoDuration)
            .map_err(serde::de::Error::custom)
    }
}

/// A Kubernetes object written inline, as `kubectl apply` would read it.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest(pub Value);

impl Manifest {
    pub fn api_version(&self) -> &str {
        self.0["apiVersion"].as_str().unwrap_or_default()
    }

    pub fn kind(&self) -> &str {
        self.0["kind"].as_str().unwrap_or_default()
    }

    /// `namespace/name`, or the name alone, or `generateName…` for generated names.
    pub fn display_name(&self) -> String {
        let meta = &self.0["metadata"];
        let name = match meta["name"].as_str() {
            Some(name) => name.to_string(),
            None => format!("{}…", meta["generateName"].as_str().unwrap_or_default()),
        };
        match meta["namespace"].as_str() {
            Some(ns) => format!("{ns}/{name}"),
            None => name,
        }
    }
}

impl<'de> Deserialize<'de> for Manifest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        let has = |v: &Value| v.as_str().is_some_and(|s| !s.is_empty());
        let meta = &value["metadata"];
        if !value.is_object() {
            return Err(serde::de::Error::custom(
                "expected a Kubernetes object (a mapping with apiVersion, kind and metadata)",
            ));
        }
        if !has(&value["apiVersion"]) || !has(&value["kind"]) {
            return Err(serde::de::Error::custom(
                "a Kubernetes object needs apiVersion and kind",
            ));
        }
        if !has(&meta["name"]) && !has(&meta["generateName"]) {
            return Err(serde::de::Error::custom(format!(
                "the {} needs metadata.name (or metadata.generateName)",
                value["kind"].as_str().unwrap_or_default()
            )));
        }
        Ok(Manifest(value))
    }
}

/// The objects a step acts on or looks at, on the step's cluster.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Target {
    /// `kind` (with optional `apiVersion`), or the `binding` shorthand.
    pub kind: Option<String>,
    pub api_version: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
    /// A label selector, as `kubectl get -l` takes it.
    pub selector: Option<String>,
    /// Further filters: JSONPath (kubectl's syntax) → the value it must print.
    pub where_: BTreeMap<String, Value>,
    pub binding: Option<BindingRef>,
}

/// `binding: {placement: web, member: member-2}`: the ClusterResourceBinding(s) of a
/// placement (on one member when given), whatever their generated names.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BindingRef {
    pub placement: String,
    #[serde(default)]
    pub member: Option<String>,
}

/// The target fields as they appear in `delete` (no other keys).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TargetDoc {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    #[serde(default, rename = "where")]
    where_: BTreeMap<String, Value>,
    #[serde(default)]
    binding: Option<BindingRef>,
}

impl From<TargetDoc> for Target {
    fn from(d: TargetDoc) -> Target {
        Target {
            kind: d.kind,
            api_version: d.api_version,
            name: d.name,
            namespace: d.namespace,
            selector: d.selector,
            where_: d.where_,
            binding: d.binding,
        }
    }
}

/// `True`, `False` or `Unknown` (YAML's bare `true`/`false` are accepted too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConditionStatus {
    True,
    False,
    Unknown,
}

impl ConditionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ConditionStatus::True => "True",
            ConditionStatus::False => "False",
            ConditionStatus::Unknown => "Unknown",
        }
    }
}

impl<'de> Deserialize<'de> for ConditionStatus {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Bool(bool),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Bool(true) => Ok(ConditionStatus::True),
            Raw::Bool(false) => Ok(ConditionStatus::False),
            Raw::Text(t) => match t.as_str() {
                "True" => Ok(ConditionStatus::True),
                "False" => Ok(ConditionStatus::False),
                "Unknown" => Ok(ConditionStatus::Unknown),
                other => Err(serde::de::Error::custom(format!(
                    "condition status must be True, False or Unknown, not {other:?}"
                ))),
            },
        }
    }
}

/// `expect: {condition: ...}`: the object has a condition of this type and status, and
/// optionally this reason and a message containing this text.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConditionCheck {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: ConditionStatus,
    #[serde(default)]
    pub reason: Option<String>,
    /// A substring of the message.
    #[serde(default)]
    pub message: Option<String>,
}

/// `expect`: the target objects reach a state within a deadline.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    pub target: Target,
    /// `false`: nothing matches the target (it is gone, or never was).
    pub exists: bool,
    /// Exactly this many objects match.
    pub count: Option<usize>,
    pub condition: Option<ConditionCheck>,
    /// JSONPath → the value it must print, on every matching object.
    pub fields: BTreeMap<String, Value>,
    pub within: Option<Duration>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectationDoc {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    #[serde(default, rename = "where")]
    where_: BTreeMap<String, Value>,
    #[serde(default)]
    binding: Option<BindingRef>,
    #[serde(default = "yes")]
    exists: bool,
    #[serde(default)]
    count: Option<usize>,
    #[serde(default)]
    condition: Option<ConditionCheck>,
    #[serde(default)]
    fields: BTreeMap<String, Value>,
    #[serde(default)]
    within: Option<GoDuration>,
}

fn yes() -> bool {
    true
}

impl From<ExpectationDoc> for Expectation {
    fn from(d: ExpectationDoc) -> Expectation {
        Expectation {
            target: Target {
                kind: d.kind,
                api_version: d.api_version,
                name: d.name,
                namespace: d.namespace,
                selector: d.selector,
                where_: d.where_,
                binding: d.binding,
            },
            exists: d.exists,
            count: d.count,
            condition: d.condition,
            fields: d.fields,
            within: d.within.map(|w| w.0),
        }
    }
}

/// `setCondition`: what an external controller does to open (or shut) a gate.
#[derive(Debug, Clone, PartialEq)]
pub struct SetCondition {
    pub target: Target,
    pub type_: String,
    pub status: ConditionStatus,
    pub reason: String,
    pub message: String,
}

/// The reason written when the step gives none (condition reasons cannot be empty).
pub const DEFAULT_REASON: &str = "SetByScenario";

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SetConditionDoc {
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    selector: Option<String>,
    #[serde(default, rename = "where")]
    where_: BTreeMap<String, Value>,
    #[serde(default)]
    binding: Option<BindingRef>,
    #[serde(rename = "type")]
    type_: String,
    status: ConditionStatus,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    message: String,
}

impl From<SetConditionDoc> for SetCondition {
    fn from(d: SetConditionDoc) -> SetCondition {
        SetCondition {
            target: Target {
                kind: d.kind,
                api_version: d.api_version,
                name: d.name,
                namespace: d.namespace,
                selector: d.selector,
                where_: d.where_,
                binding: d.binding,
            },
            type_: d.type_,
            status: d.status,
            reason: d.reason.unwrap_or_else(|| DEFAULT_REASON.to_string()),
            message: d.message,
        }
    }
}

/// `breakPods` / `fixPods`: pods of a namespace on the step's member.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PodSelection {
    pub namespace: String,
    #[serde(default)]
    pub selector: Option<String>,
    /// Only the first N pods by name; all matching pods when absent.
    #[serde(default)]
    pub count: Option<usize>,
}

/// `faults`: what the step's cluster does to every request from now on (replaces the
/// previous settings; reachability is left as it is).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Faults {
    #[serde(default)]
    pub latency_ms: u64,
    #[serde(default)]
    pub errors: Vec<ErrorRule>,
}
