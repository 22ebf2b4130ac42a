//! The wire strings of pod-migration.md §2 and §4, spelled out as the spec spells them, for
//! the decision tables: a drift in `messages.rs` fails those tables instead of following
//! along.

pub const TIMEOUT: &str = "Abort job caused by timeout";

pub const INVALID_POD_REF: &str = "Abort job caused by invalid PodRef";

pub const RESERVATION_UNSUPPORTED: &str = "Abort job caused by missing Reservation API (reservations.scheduling.koordinator.sh) on this cluster";

pub const PASSED_ARBITRATION: &str = "descheduler.koordinator.sh/passed-arbitration";

pub const PROFILES: &str = "fleet-eviction.io/profiles";

pub const FINISHED_AT: &str = "fleet-eviction.io/finished-at";

pub const CREATED_BY: &str = "koordinator.sh/job-created-by";

pub const FINALIZER: &str = "fleet-eviction.io/cleanup";

pub fn missing_pod(ns: &str, name: &str) -> String {
    format!("Abort job caused by missing Pod \"{ns}/{name}\"")
}

pub fn evicting(ns: &str, name: &str, node: &str, reason: &str) -> String {
    format!("Pod \"{ns}/{name}\" evicted from node \"{node}\" by the reason \"{reason}\"")
}

pub fn descheduled(node: &str, reason: &str) -> String {
    format!("Pod evicted from node \"{node}\" by the reason \"{reason}\"")
}

pub fn evicted(ns: &str, name: &str) -> String {
    format!("Pod \"{ns}/{name}\" has been evicted")
}

pub fn evict_failed(ns: &str, name: &str, status: &str) -> String {
    format!("Failed evict Pod \"{ns}/{name}\" caused by {status}")
}

pub fn external_requested(ns: &str, name: &str) -> String {
    format!("External evacuation of Pod \"{ns}/{name}\" requested")
}

pub fn external_failed(message: &str) -> String {
    format!("Abort job caused by failed external evacuation: {message}")
}

pub fn waiting(gates: &[&str]) -> String {
    let quoted: Vec<String> = gates.iter().map(|g| format!("\"{g}\"")).collect();
    format!("Waiting for eviction conditions {}", quoted.join(", "))
}

pub fn denied(gate: &str, message: &str) -> String {
    format!("Abort job caused by eviction condition \"{gate}\" denied: {message}")
}
