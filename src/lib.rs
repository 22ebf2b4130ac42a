//! fleet-eviction: take workloads off member clusters of a Kubernetes fleet safely.
//!
//! Modules follow the product's architecture (see `docs/architecture.md`):
//! `api` holds the wire types only; `fleet` decides and runs placement evictions; `pod`
//! holds the PodMigrationJob decisions; `member` is the member-cluster registry; `gates` is
//! the one implementation of condition gating; `runtime` is process plumbing; `sandbox` is the embedded fleet used by the quick start,
//! tests and benchmarks — production modules never depend on it.

pub mod api;
pub mod fleet;
pub mod gates;
pub mod member;
pub mod pod;
pub mod runtime;

#[cfg(feature = "sandbox")]
pub mod sandbox;
