//! API writes during a load, from the server's request counts: creates, updates, patches
//! and deletes by anyone but the bench (whose only writes are its eviction creates).

use fleet_eviction::sandbox::apiserver::accounting::CountKey;
use fleet_eviction::sandbox::apiserver::server::ApiServer;
use std::time::{Duration, Instant};

const WRITE_VERBS: [&str; 4] = ["create", "update", "patch", "delete"];
const EVICTIONS: &str = "clusterresourceplacementevictions";

fn is_controller_write(key: &CountKey) -> bool {
    WRITE_VERBS.contains(&key.verb.as_str()) && !(key.verb == "create" && key.resource == EVICTIONS)
}

/// The controller's writes as (verb, resource, code, count).
pub fn controller_writes(server: &ApiServer) -> Vec<(CountKey, u64)> {
    server
        .request_counts()
        .into_iter()
        .filter(|(k, _)| is_controller_write(k))
        .collect()
}

pub fn total(writes: &[(CountKey, u64)]) -> u64 {
    writes.iter().map(|(_, n)| n).sum()
}

/// Waits until the write count stops moving for `quiet` (Events follow the terminal status
/// write), at most `limit`.
pub async fn settle(server: &ApiServer, quiet: Duration, limit: Duration) {
    let deadline = Instant::now() + limit;
    let mut last = total(&controller_writes(server));
    let mut since = Instant::now();
    while Instant::now() < deadline && since.elapsed() < quiet {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = total(&controller_writes(server));
        if now != last {
            last = now;
            since = Instant::now();
        }
    }
}

pub fn print(writes: &[(CountKey, u64)], evictions: usize) {
    let sum = total(writes);
    println!(
        "  writes by the controller: {sum} for {evictions} evictions = {:.2} per eviction",
        sum as f64 / evictions.max(1) as f64
    );
    for (k, n) in writes {
        println!(
            "    {:<7} {:<45} {}: {n:>6}  ({:.3} per eviction)",
            k.verb,
            k.resource,
            k.code,
            *n as f64 / evictions.max(1) as f64
        );
    }
}

/// Requests of `verb` on `resource` with a 2xx answer.
pub fn succeeded(writes: &[(CountKey, u64)], verb: &str, resource: &str) -> u64 {
    writes
        .iter()
        .filter(|(k, _)| k.verb == verb && k.resource == resource && (200..300).contains(&k.code))
        .map(|(_, n)| n)
        .sum()
}
