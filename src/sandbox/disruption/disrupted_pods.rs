//! `status.disruptedPods`: pods the eviction subresource has approved for deletion but the
//! controller has not yet seen terminating. They do not count as healthy for
//! `DeletionTimeout` (2 minutes); after that the controller assumes the deletion will not
//! happen and drops them.

use super::pod_health::{is_pod_ready, is_terminating, pod_name};
use super::timestamps::{is_after_after_adding, is_before_after_adding, plus_seconds};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudgetStatus;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use std::collections::BTreeMap;

/// The disruption controller's `DeletionTimeout`.
pub const DELETION_TIMEOUT_SECONDS: i64 = 120;

/// Entries to carry over (`buildDisruptedPodMap`): only for pods still selected and not yet
/// terminating, and only while `approvedAt + DeletionTimeout` is not before `now`.
pub(super) fn kept_disruptions(
    previous: Option<&BTreeMap<String, Time>>,
    pods: &[&Pod],
    now: &Time,
) -> BTreeMap<String, Time> {
    let Some(previous) = previous else {
        return BTreeMap::new();
    };
    pods.iter()
        .filter(|pod| !is_terminating(pod))
        .filter_map(|pod| {
            let name = pod_name(pod);
            let approved_at = previous.get(name)?;
            let expired = is_before_after_adding(approved_at, DELETION_TIMEOUT_SECONDS, now);
            (!expired).then(|| (name.to_string(), approved_at.clone()))
        })
        .collect()
}

/// `countHealthyPods`: ready pods that are neither terminating nor about to be deleted by an
/// approved eviction.
pub(super) fn count_healthy(
    pods: &[&Pod],
    disruptions: &BTreeMap<String, Time>,
    now: &Time,
) -> i32 {
    let healthy = pods
        .iter()
        .filter(|pod| !is_terminating(pod))
        .filter(|pod| !is_about_to_be_deleted(pod, disruptions, now))
        .filter(|pod| is_pod_ready(pod))
        .count();
    i32::try_from(healthy).unwrap_or(i32::MAX)
}

fn is_about_to_be_deleted(pod: &Pod, disruptions: &BTreeMap<String, Time>, now: &Time) -> bool {
    disruptions.get(pod_name(pod)).is_some_and(|approved_at| {
        is_after_after_adding(approved_at, DELETION_TIMEOUT_SECONDS, now)
    })
}

/// When the status must be recomputed even if nothing else changes: the first whole second
/// at which a `disruptedPods` entry has expired (`approvedAt + DeletionTimeout + 1s`; at the
/// deadline itself the entry still stands). The real controller re-queues the budget for its
/// expiry; the sandbox's server schedules a recomputation at this time.
pub fn next_recheck(status: &PodDisruptionBudgetStatus) -> Option<Time> {
    let disruptions = status.disrupted_pods.as_ref()?;
    disruptions
        .values()
        .filter_map(|approved_at| plus_seconds(approved_at, DELETION_TIMEOUT_SECONDS + 1))
        .min()
}
