//! What a scenario file says, as typed values (each step's arguments are in
//! [`super::step_args`]). docs/scenarios.md describes the format for
//! users; the field names here are the YAML keys (camelCase).
//!
//! Everything a file can get wrong by its shape is refused while it is read, so serde-saphyr
//! can point at the line: unknown keys, missing fields, a bad duration or condition status,
//! an object without `apiVersion`, `kind` or a name. What needs the whole file (does this
//! cluster exist? does this path parse?) is checked afterwards by [`super::checks`].

use super::step::Step;
use crate::api::duration;
use crate::runtime::clock::SharedClock;
use crate::sandbox::fleet::FleetOptions;
use serde::{Deserialize, Deserializer};
use serde_json::Value;
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
