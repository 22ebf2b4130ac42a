//! Fleet level: ClusterResourcePlacementEviction guarded by
//! ClusterResourcePlacementDisruptionBudget (fleet-eviction.md).
//!
//! Pure decisions, one file per spec section, each with its table test:
//! - [`validation`]: §2, is the eviction valid and which binding does it target;
//! - [`target`]: §3 a–c, what state the target binding is in;
//! - [`budget`]: §4, the budget arithmetic;
//! - [`availability`]: §4.3, counting available bindings with in-flight disruptions;
//! - [`plain`]: §3, the one-shot decision of an eviction without extensions;
//! - [`extended`]: §5, the stage machine of an extended eviction;
//! - [`status`]: §5.4, merging our conditions into a status we share with other writers.
//!
//! [`controller`] is the IO around them: watches, the per-placement ledger, the work queue
//! and the writes.

pub mod availability;
pub mod budget;
pub mod conditions;
pub mod controller;
pub mod execution;
pub mod extended;
pub mod facts;
pub mod messages;
pub mod plain;
#[cfg(test)]
mod spec_strings;
pub mod status;
pub mod step;
pub mod target;
pub mod validation;
pub mod view;
