//! What each step kind takes: which objects (a [`Target`]), what to expect, which condition
//! to set, which pods, which faults. The `*Doc` structs are the YAML as written (every key
//! listed, so a misspelt one is refused with the list of valid ones); they turn into the
//! types the runner uses.

use super::format::{ConditionStatus, GoDuration};
use crate::sandbox::apiserver::faults::ErrorRule;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::time::Duration;

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
