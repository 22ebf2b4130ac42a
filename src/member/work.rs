//! The seam between the registry and whatever runs per member (the PodMigrationJob
//! executor): the registry decides when "the work for member X" starts and stops and with
//! which client; the work decides everything else.
//!
//! Work keeps running while its member is unreachable: its own requests fail and retry, and
//! it resumes by itself when the member answers again. The registry only reports
//! reachability ([`super::Members::is_reachable`]); stopping and restarting executors on
//! every network blip would throw away their caches for nothing.

use futures::future::BoxFuture;

/// Starts the work for one member.
pub trait MemberWork: Send + Sync + 'static {
    /// Called when `member` becomes registered, and again with a fresh client after its
    /// kubeconfig changed (the previous work has been stopped by then). Must not block:
    /// spawn what runs.
    fn start(&self, member: &str, client: kube::Client) -> Box<dyn RunningWork>;
}

/// The work for one member, while it runs.
pub trait RunningWork: Send + 'static {
    /// Stops the work; the future resolves once it has stopped. The registry waits for it
    /// before starting the member's next work, so two executors never act on one member at
    /// once. It should finish promptly (abort tasks rather than drain queues): the member's
    /// replacement waits on it.
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()>;
}
