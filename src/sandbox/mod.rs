//! The embedded fleet: a Kubernetes-compatible API server per cluster, in one process.
//! Test and demo infrastructure; production code never imports it.

pub mod apiserver;
pub mod attach;
pub mod command;
pub mod disruption;
pub mod fleet;
pub mod go_quote;
pub mod patch;
pub mod scenario;
pub mod schema;
pub mod select;
pub mod sim;
pub mod table;
