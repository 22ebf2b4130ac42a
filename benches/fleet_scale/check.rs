//! Correctness after a load, read back from the API and computed here from the spec
//! (fleet-eviction.md §4, §4.3), not with the controller's own budget code: every eviction
//! has a terminal verdict, and every placement's standing bindings satisfy its budget.

use super::load::{conditions, evictions_api, is_terminal};
use fleet_eviction::api::keys::PARENT_CRP_LABEL;
use kube::api::{Api, ApiResource, DynamicObject, ListParams};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};

const PAGE: u32 = 5_000;

fn resource(plural: &str, kind: &str) -> ApiResource {
    ApiResource {
        group: "placement.kubernetes-fleet.io".into(),
        version: "v1beta1".into(),
        api_version: "placement.kubernetes-fleet.io/v1beta1".into(),
        kind: kind.into(),
        plural: plural.into(),
    }
}

/// Every object of `api`, read page by page.
async fn list_all(api: &Api<DynamicObject>) -> Result<Vec<DynamicObject>, kube::Error> {
    let mut all = Vec::new();
    let mut token: Option<String> = None;
    loop {
        let mut params = ListParams::default().limit(PAGE);
        if let Some(t) = &token {
            params = params.continue_token(t);
        }
        let page = api.list(&params).await?;
        all.extend(page.items);
        token = page.metadata.continue_.filter(|t| !t.is_empty());
        if token.is_none() {
            return Ok(all);
        }
    }
}

/// Verdicts of the evictions whose names start with `prefix`, by kind; names without one.
pub struct Verdicts {
    pub counts: BTreeMap<&'static str, usize>,
    pub non_terminal: Vec<String>,
}

impl Verdicts {
    pub fn executed(&self) -> usize {
        self.sum("executed")
    }

    pub fn blocked(&self) -> usize {
        self.sum("blocked")
    }

    fn sum(&self, kind: &str) -> usize {
        self.counts
            .iter()
            .filter(|(k, _)| k.starts_with(kind))
            .map(|(_, n)| n)
            .sum()
    }
}

pub async fn verdicts(client: &kube::Client, prefix: &str) -> Result<Verdicts, kube::Error> {
    let mut counts = BTreeMap::new();
    let mut non_terminal = Vec::new();
    for e in list_all(&evictions_api(client)).await? {
        let name = e.metadata.name.clone().unwrap_or_default();
        if !name.starts_with(prefix) {
            continue;
        }
        if !is_terminal(&e) {
            non_terminal.push(name);
            continue;
        }
        *counts.entry(verdict_kind(&e)).or_default() += 1;
    }
    Ok(Verdicts {
        counts,
        non_terminal,
    })
}

/// The verdict of a terminal eviction, by the spec's messages (§3 "Exact strings").
fn verdict_kind(e: &DynamicObject) -> &'static str {
    let all = conditions(e);
    let find = |t: &str| all.iter().find(|(ty, _, _)| ty == t);
    if let Some((_, status, _)) = find("Valid")
        && status == "False"
    {
        return "invalid";
    }
    let Some((_, status, message)) = find("Executed") else {
        return "not terminal";
    };
    let has = |s: &str| message.contains(s);
    match (status.as_str(), message) {
        ("True", _) if has("allowed by specified") => "executed: allowed by the budget",
        ("True", _) if has("currently being removed") => {
            "executed: binding already deleting (PlacementRemoved)"
        }
        ("True", _) if has("no ClusterResourcePlacementDisruptionBudget") => "executed: no budget",
        ("True", _) if has("placement has failed") => "executed: placement failed",
        ("True", _) => "executed: other",
        (_, _) if has("blocked by specified") => "blocked: by the budget",
        (_, _) if has("misconfigured") => "blocked: misconfigured budget",
        (_, _) if has("not propagated") => "blocked: placement missing",
        _ => "blocked: other",
    }
}

/// The outcome of the budget check over every placement.
pub struct BudgetCheck {
    pub placements: usize,
    pub bindings: usize,
    pub deleting: usize,
    /// One line per placement below its budget.
    pub violations: Vec<String>,
    /// Placements exactly at their limit: no disruption left to spend.
    pub at_limit: usize,
    /// Placements whose budget sets no limit this check can compute (none in the plan).
    pub unchecked: usize,
}

pub async fn budgets(client: &kube::Client) -> Result<BudgetCheck, kube::Error> {
    let api = |plural: &str, kind: &str| Api::all_with(client.clone(), &resource(plural, kind));
    let placements = list_all(&api(
        "clusterresourceplacements",
        "ClusterResourcePlacement",
    ))
    .await?;
    let budgets: HashMap<String, Value> = list_all(&api(
        "clusterresourceplacementdisruptionbudgets",
        "ClusterResourcePlacementDisruptionBudget",
    ))
    .await?
    .into_iter()
    .map(|b| (b.metadata.name.unwrap_or_default(), b.data["spec"].clone()))
    .collect();
    let bindings = list_all(&api("clusterresourcebindings", "ClusterResourceBinding")).await?;
    let mut by_placement: HashMap<String, Vec<&DynamicObject>> = HashMap::new();
    for b in &bindings {
        if let Some(p) = b
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(PARENT_CRP_LABEL))
        {
            by_placement.entry(p.clone()).or_default().push(b);
        }
    }
    let mut check = BudgetCheck {
        placements: placements.len(),
        bindings: bindings.len(),
        deleting: bindings
            .iter()
            .filter(|b| b.metadata.deletion_timestamp.is_some())
            .count(),
        violations: Vec::new(),
        at_limit: 0,
        unchecked: 0,
    };
    for p in &placements {
        let name = p.metadata.name.clone().unwrap_or_default();
        let Some(budget) = budgets.get(&name) else {
            continue;
        };
        let of_placement = by_placement.get(&name).map(Vec::as_slice).unwrap_or(&[]);
        match judge(p, budget, of_placement) {
            Judgement::Holds { at_limit } => check.at_limit += usize::from(at_limit),
            Judgement::Violated(why) => check.violations.push(format!("{name}: {why}")),
            Judgement::NoLimit => check.unchecked += 1,
        }
    }
    Ok(check)
}

enum Judgement {
    Holds { at_limit: bool },
    Violated(String),
    NoLimit,
}

/// §4: `T` counts every binding (deleting ones included); `A` the bindings that are not
/// deleting (§4.3) and whose `Available` is True for their current generation. A budget
/// holds when `A ≥ minAvailable` or `T − A ≤ maxUnavailable`, percentages scaled against
/// PickN's N and rounded up.
fn judge(placement: &DynamicObject, budget: &Value, bindings: &[&DynamicObject]) -> Judgement {
    let policy = &placement.data["spec"]["policy"];
    let pick_n = policy["placementType"].as_str() == Some("PickN");
    let n = policy["numberOfClusters"].as_i64().unwrap_or(0);
    let total = bindings.len() as i64;
    let available = bindings.iter().filter(|b| is_available(b)).count() as i64;
    let limit = |v: &Value| resolve(v, pick_n, n);
    if let Some(min) = budget.get("minAvailable").and_then(limit) {
        return if available >= min {
            Judgement::Holds {
                at_limit: available == min,
            }
        } else {
            Judgement::Violated(format!(
                "{available} available of {total}, minAvailable {min}"
            ))
        };
    }
    if let Some(max) = budget.get("maxUnavailable").and_then(limit) {
        return if total - available <= max {
            Judgement::Holds {
                at_limit: total - available == max,
            }
        } else {
            Judgement::Violated(format!(
                "{} unavailable of {total}, maxUnavailable {max}",
                total - available
            ))
        };
    }
    Judgement::NoLimit
}

/// An integer as is; a percentage of PickN's N, rounded up. A percentage on a PickAll
/// placement is a misconfigured budget that blocks every eviction: no limit to check.
fn resolve(value: &Value, pick_n: bool, n: i64) -> Option<i64> {
    if let Some(i) = value.as_i64() {
        return Some(i);
    }
    let percent: i64 = value.as_str()?.strip_suffix('%')?.parse().ok()?;
    pick_n.then(|| (percent * n + 99) / 100)
}

fn is_available(binding: &DynamicObject) -> bool {
    if binding.metadata.deletion_timestamp.is_some() {
        return false;
    }
    let generation = binding.metadata.generation;
    binding.data["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| {
            c["type"] == "Available"
                && c["status"] == "True"
                && c["observedGeneration"].as_i64() == generation
        })
}
