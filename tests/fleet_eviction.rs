//! The eviction controller against a hub API server in process (quality.md tier 2): exact
//! conditions, side effects on bindings, the budget under concurrency, gates, External
//! hand-off, and restarts.

#[path = "fleet_eviction/bad_input.rs"]
mod bad_input;
#[path = "fleet_eviction/budget.rs"]
mod budget;
#[path = "fleet_eviction/external.rs"]
mod external;
#[path = "fleet_eviction/gates.rs"]
mod gates;
#[path = "fleet_eviction/harness.rs"]
mod harness;
#[path = "fleet_eviction/observability.rs"]
mod observability;
#[path = "fleet_eviction/outcomes.rs"]
mod outcomes;
#[path = "fleet_eviction/restart.rs"]
mod restart;
