//! One step of a scenario's timeline: a `title`, an optional `cluster`, and exactly one
//! action key. Read by hand (not a serde enum) so that a wrong key is named with the list of
//! step kinds, and serde-saphyr points at the step.

use super::format::{GoDuration, Manifest};
use super::step_args::{
    Expectation, ExpectationDoc, Faults, PodSelection, SetCondition, SetConditionDoc, Target,
    TargetDoc,
};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};
use std::fmt;
use std::time::Duration;

/// The cluster a step acts on when it names none.
pub const HUB: &str = "hub";

#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub title: String,
    /// Where the step's objects live: `hub` or a member's name.
    pub cluster: String,
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Create these objects on the step's cluster, in order.
    Create(Vec<Manifest>),
    /// Delete every object the target matches.
    Delete(Target),
    SetCondition(SetCondition),
    /// Annotate pods so the member simulation keeps them running but unready.
    BreakPods(PodSelection),
    /// Remove that annotation again.
    FixPods(PodSelection),
    /// The named cluster refuses every request until `reachable`.
    Unreachable(String),
    Reachable(String),
    /// End every open watch on the named cluster (clients re-watch).
    DropWatches(String),
    /// Latency and injected errors on the step's cluster.
    Faults(Faults),
    /// Ask the hub simulation to create the bindings the named placement is missing.
    Reschedule(String),
    /// Let time pass (a demo pause, not a synchronisation: use `expect` to wait for a state).
    Wait(Duration),
    Expect(Expectation),
}

/// Every action key, in the order docs/scenarios.md lists them.
pub const STEP_KINDS: &[&str] = &[
    "create",
    "delete",
    "setCondition",
    "breakPods",
    "fixPods",
    "unreachable",
    "reachable",
    "dropWatches",
    "faults",
    "reschedule",
    "wait",
    "expect",
];

impl Action {
    /// The YAML key of this action.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Create(_) => "create",
            Action::Delete(_) => "delete",
            Action::SetCondition(_) => "setCondition",
            Action::BreakPods(_) => "breakPods",
            Action::FixPods(_) => "fixPods",
            Action::Unreachable(_) => "unreachable",
            Action::Reachable(_) => "reachable",
            Action::DropWatches(_) => "dropWatches",
            Action::Faults(_) => "faults",
            Action::Reschedule(_) => "reschedule",
            Action::Wait(_) => "wait",
            Action::Expect(_) => "expect",
        }
    }
}

impl<'de> Deserialize<'de> for Step {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(StepVisitor)
    }
}

struct StepVisitor;

impl<'de> Visitor<'de> for StepVisitor {
    type Value = Step;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "a step: a mapping with a title and one of {}",
            STEP_KINDS.join(", ")
        )
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Step, A::Error> {
        let mut title: Option<String> = None;
        let mut cluster: Option<String> = None;
        let mut action: Option<Action> = None;
        while let Some(key) = map.next_key::<String>()? {
            let next = match key.as_str() {
                "title" => {
                    title = Some(map.next_value()?);
                    continue;
                }
                "cluster" => {
                    cluster = Some(map.next_value()?);
                    continue;
                }
                "create" => Action::Create(map.next_value()?),
                "delete" => Action::Delete(map.next_value::<TargetDoc>()?.into()),
                "setCondition" => Action::SetCondition(map.next_value::<SetConditionDoc>()?.into()),
                "breakPods" => Action::BreakPods(map.next_value()?),
                "fixPods" => Action::FixPods(map.next_value()?),
                "unreachable" => Action::Unreachable(map.next_value()?),
                "reachable" => Action::Reachable(map.next_value()?),
                "dropWatches" => Action::DropWatches(map.next_value()?),
                "faults" => Action::Faults(map.next_value()?),
                "reschedule" => Action::Reschedule(map.next_value()?),
                "wait" => Action::Wait(map.next_value::<GoDuration>()?.0),
                "expect" => Action::Expect(map.next_value::<ExpectationDoc>()?.into()),
                other => {
                    return Err(de::Error::custom(format!(
                        "unknown step kind `{other}`: a step has a title, an optional cluster, and one of {}",
                        STEP_KINDS.join(", ")
                    )));
                }
            };
            if let Some(first) = &action {
                return Err(de::Error::custom(format!(
                    "a step does one thing: `{}` and `{}` found in the same step; split it in two",
                    first.kind(),
                    next.kind()
                )));
            }
            action = Some(next);
        }
        let Some(action) = action else {
            return Err(de::Error::custom(format!(
                "the step{} does nothing: give it one of {}",
                title.map(|t| format!(" {t:?}")).unwrap_or_default(),
                STEP_KINDS.join(", ")
            )));
        };
        let Some(title) = title.filter(|t| !t.trim().is_empty()) else {
            return Err(de::Error::custom(format!(
                "the `{}` step has no title: every step needs a short `title` for the timeline",
                action.kind()
            )));
        };
        Ok(Step {
            title,
            cluster: cluster.unwrap_or_else(|| HUB.to_string()),
            action,
        })
    }
}
