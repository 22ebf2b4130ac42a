//! Simulations of what a cluster's own components would do: the member cluster's scheduler,
//! kubelet and workload controllers, and KubeFleet's hub agents.

pub mod hub;
pub mod member;
