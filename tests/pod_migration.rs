//! The PodMigrationJob executor against a member cluster in process (quality.md tier 2),
//! written from pod-migration.md: full status, Events and side effects of each path —
//! eviction, budgets, pause, ttl, abort, gates and profiles, the External hand-off with
//! `kubectl drain`, arbitration limits at every step, bad input, and the executor as each
//! member's work under the member registry.

#![cfg(feature = "sandbox")]

#[path = "pod_migration/arbitration.rs"]
mod arbitration;
#[path = "pod_migration/bad_input.rs"]
mod bad_input;
#[path = "pod_migration/external.rs"]
mod external;
#[path = "pod_migration/gates.rs"]
mod gates;
#[path = "pod_migration/harness.rs"]
mod harness;
#[path = "pod_migration/lifecycle.rs"]
mod lifecycle;
#[path = "pod_migration/members.rs"]
mod members;
#[path = "pod_migration/policies.rs"]
mod policies;
