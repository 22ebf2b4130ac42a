//! The member registry (overview.md "Member cluster registration"): discovers the member
//! clusters registered on the hub (a MemberCluster plus a Secret labelled
//! `fleet-eviction.io/member-cluster: <name>` whose key `kubeconfig` holds an inline
//! kubeconfig), builds one client per member, probes each member's API server, and starts and
//! stops one piece of work per member through [`MemberWork`].
//!
//! Pure decisions, each with its table: [`registration::pair`] (which members are registered),
//! [`kubeconfig::not_inline`] (which kubeconfigs are refused), [`reachability::next`] (when a
//! member is unreachable) and [`probe::classify`] (what a health answer means).

mod hub;
pub mod kubeconfig;
mod member_task;
pub mod members;
pub mod metrics;
pub mod probe;
pub mod reachability;
pub mod registration;
pub mod registry;
pub mod work;

pub use members::{Members, ReachabilityStatus};
pub use metrics::MemberMetrics;
pub use reachability::Reachability;
pub use registration::Registration;
pub use registry::{MemberRegistry, RegistryOptions};
pub use work::{MemberWork, RunningWork};
