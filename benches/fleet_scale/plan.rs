//! The fleet the benchmark builds (quality.md "Fleet scale"): members, placements with their
//! bindings and budgets, and which evictions the burst and the steady phase create. Pure and
//! deterministic, so every phase (and every run) sees the same fleet.

use serde_json::{Value, json};

/// Bindings of a PickAll placement: ~100k bindings in all with 2,500 of them.
pub const PICK_ALL_BINDINGS: usize = 34;

#[derive(Debug, Clone, Copy)]
pub struct Shape {
    pub members: usize,
    pub placements: usize,
    pub burst: usize,
    pub steady: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    PickAll,
    PickN(usize),
}

#[derive(Debug, Clone)]
pub struct Placement {
    pub name: String,
    pub policy: Policy,
    /// Target clusters, one binding each, all distinct.
    pub clusters: Vec<String>,
    /// The CRPDB's spec.
    pub budget: Value,
}

#[derive(Debug, Clone)]
pub struct Eviction {
    pub name: String,
    pub placement: String,
    pub cluster: String,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub members: Vec<String>,
    pub placements: Vec<Placement>,
    /// Created at once; on the first half of the placements.
    pub burst: Vec<Eviction>,
    /// Created at a steady rate; on the other half, which the burst never touches.
    pub steady: Vec<Eviction>,
}

impl Plan {
    pub fn new(shape: Shape) -> Plan {
        let members: Vec<String> = (1..=shape.members).map(member_name).collect();
        let placements: Vec<Placement> = (0..shape.placements)
            .map(|i| placement(i, &members))
            .collect();
        let half = placements.len().div_ceil(2);
        let (burst_half, steady_half) = placements.split_at(half);
        Plan {
            burst: spread("burst", burst_half, shape.burst),
            steady: spread("steady", steady_half, shape.steady),
            members,
            placements,
        }
    }

    pub fn bindings(&self) -> usize {
        self.placements.iter().map(|p| p.clusters.len()).sum()
    }

    pub fn count(&self, policy: fn(&Policy) -> bool) -> usize {
        self.placements.iter().filter(|p| policy(&p.policy)).count()
    }
}

pub fn member_name(i: usize) -> String {
    format!("member-{i}")
}

pub fn binding_name(placement: &str, cluster: &str) -> String {
    format!("{placement}-{cluster}")
}

/// Placement `i`: even ones PickAll on 34 clusters, odd ones PickN with N = 3..10, each on
/// a run of consecutive members starting at a spread-out offset.
fn placement(i: usize, members: &[String]) -> Placement {
    let name = format!("crp-{i:05}");
    let round = i / 2;
    let (policy, count, offset, budget) = if i.is_multiple_of(2) {
        let count = PICK_ALL_BINDINGS.min(members.len());
        // One to four disruptions allowed: the burst's four evictions get blocked partly.
        let allowed = 1 + round % 4;
        let budget = json!({"minAvailable": count.saturating_sub(allowed)});
        (Policy::PickAll, count, i * 37, budget)
    } else {
        let n = 3 + round % 8;
        (
            Policy::PickN(n),
            n.min(members.len()),
            i * 53,
            pick_n_budget(round / 8),
        )
    };
    let clusters = (0..count)
        .map(|j| members[(offset + j) % members.len()].clone())
        .collect();
    Placement {
        name,
        policy,
        clusters,
        budget,
    }
}

/// A mix of every budget form PickN takes: minAvailable as a percentage, maxUnavailable as
/// an integer and as a percentage.
fn pick_n_budget(variant: usize) -> Value {
    match variant % 6 {
        0 => json!({"minAvailable": "50%"}),
        1 => json!({"minAvailable": "75%"}),
        2 => json!({"maxUnavailable": 1}),
        3 => json!({"maxUnavailable": 2}),
        4 => json!({"maxUnavailable": "25%"}),
        _ => json!({"maxUnavailable": "40%"}),
    }
}

/// `total` evictions round-robin over `placements`: eviction k goes to placement k mod P,
/// on its binding number k / P (wrapping when a placement has fewer bindings, which makes a
/// second eviction of the same cluster).
fn spread(prefix: &str, placements: &[Placement], total: usize) -> Vec<Eviction> {
    if placements.is_empty() {
        return Vec::new();
    }
    (0..total)
        .map(|k| {
            let p = &placements[k % placements.len()];
            let cluster = &p.clusters[(k / placements.len()) % p.clusters.len()];
            Eviction {
                name: format!("{prefix}-{k:05}"),
                placement: p.name.clone(),
                cluster: cluster.clone(),
            }
        })
        .collect()
}
