//! API requests during a run, from the sandbox's per-server request accounting, summed over
//! the members (and the hub apart): everything the controller sent after the accounting was
//! reset, less the bench's own job creates.

use fleet_eviction::sandbox::apiserver::server::ApiServer;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

const WRITE_VERBS: [&str; 4] = ["create", "update", "patch", "delete"];
const JOBS: &str = "podmigrationjobs";

/// (verb, resource) → (2xx, other codes as "code×n").
pub type Counts = BTreeMap<(String, String), BTreeMap<u16, u64>>;

/// Requests to `servers` since their accounting was reset, the bench's `bench_creates` job
/// creates taken out.
pub fn counted(servers: &[&ApiServer], bench_creates: u64) -> Counts {
    let mut counts = Counts::new();
    for server in servers {
        for (key, n) in server.request_counts() {
            *counts
                .entry((key.verb, key.resource))
                .or_default()
                .entry(key.code)
                .or_default() += n;
        }
    }
    if let Some(created) = counts
        .get_mut(&("create".to_string(), JOBS.to_string()))
        .and_then(|codes| codes.get_mut(&201))
    {
        *created = created.saturating_sub(bench_creates);
    }
    counts
}

fn total(counts: &Counts, pick: impl Fn(&str) -> bool) -> u64 {
    counts
        .iter()
        .filter(|((verb, _), _)| pick(verb))
        .flat_map(|(_, codes)| codes.values())
        .sum()
}

pub fn writes(counts: &Counts) -> u64 {
    total(counts, |v| WRITE_VERBS.contains(&v))
}

pub fn all(counts: &Counts) -> u64 {
    total(counts, |_| true)
}

/// Waits until the members' write counts stop moving for `quiet` (Events follow the terminal
/// status write), at most `limit`.
pub async fn settle(servers: &[&ApiServer], quiet: Duration, limit: Duration) {
    let deadline = Instant::now() + limit;
    let mut last = writes(&counted(servers, 0));
    let mut since = Instant::now();
    while Instant::now() < deadline && since.elapsed() < quiet {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = writes(&counted(servers, 0));
        if now != last {
            last = now;
            since = Instant::now();
        }
    }
}

pub fn print(counts: &Counts, jobs: usize) {
    let per = |n: u64| n as f64 / jobs.max(1) as f64;
    let (all, writes) = (all(counts), writes(counts));
    println!(
        "  member API requests by the controller: {all} ({:.2} per job), of which writes \
         {writes} ({:.2} per job)",
        per(all),
        per(writes)
    );
    for ((verb, resource), codes) in counts {
        let n: u64 = codes.values().sum();
        if n == 0 {
            continue;
        }
        let by_code = codes
            .iter()
            .filter(|(_, n)| **n > 0)
            .map(|(code, n)| format!("{code}×{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        let resource = if resource.is_empty() {
            "(no resource: /readyz…)"
        } else {
            resource
        };
        println!(
            "    {verb:<7} {resource:<28} {n:>7}  ({:.3} per job)  {by_code}",
            per(n)
        );
    }
}
