//! How many pods a budget expects and how many it wants healthy, as the disruption
//! controller's `getExpectedPodCount` works them out.

use super::pod_health::{controller_of, pod_name};
use super::scaled_value::scaled_value_rounding_up;
use crate::sandbox::go_quote::go_quote;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::policy::v1::PodDisruptionBudget;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use std::collections::BTreeMap;

/// The scale the controller finds behind a pod's controller reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControllerScale {
    /// The object whose `spec.replicas` counts: the pod's controller itself (ReplicaSet,
    /// StatefulSet, ReplicationController, anything with a scale subresource) or, for a
    /// ReplicaSet owned by a Deployment, the Deployment. Two ReplicaSets of one Deployment
    /// share it, so the Deployment's replicas count once.
    pub scale_uid: String,
    /// That object's `spec.replicas`.
    pub replicas: i32,
}

/// Known controllers, keyed by the `uid` in a pod's controller owner reference. A controller
/// the caller cannot find (deleted, uid mismatch, no scale) is simply absent.
pub type ControllerScales = BTreeMap<String, ControllerScale>;

/// What a budget expects of the pods it selects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BudgetTarget {
    /// `status.expectedPods`.
    pub expected_pods: i32,
    /// `status.desiredHealthy`.
    pub desired_healthy: i32,
}

/// Why the controller cannot compute a budget; the text is the controller's `err.Error()`,
/// shown as the message of the `SyncFailed` condition.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BudgetError {
    /// A selected pod has a controller owner reference the controller cannot resolve.
    #[error("found no controllers for pod {}", go_quote(.pod))]
    NoController { pod: String },
    /// `minAvailable` / `maxUnavailable` is a string that is not a valid percentage.
    #[error("{0}")]
    InvalidValue(String),
}

/// The budget's expected pod count and desired healthy count:
/// - `maxUnavailable` (checked first): expected = summed controller scale, desired =
///   expected − ⌈maxUnavailable⌉, at least 0;
/// - integer `minAvailable`: expected = number of selected pods, desired = minAvailable;
/// - percentage `minAvailable`: expected = summed controller scale, desired = ⌈minAvailable⌉;
/// - neither: both 0.
pub fn expected_pods(
    pdb: &PodDisruptionBudget,
    selected_pods: &[&Pod],
    scales: &ControllerScales,
) -> Result<BudgetTarget, BudgetError> {
    let spec = pdb.spec.as_ref();
    if let Some(max_unavailable) = spec.and_then(|spec| spec.max_unavailable.as_ref()) {
        let expected = summed_controller_scale(selected_pods, scales)?;
        let unavailable = scaled(max_unavailable, expected)?;
        let desired = expected.saturating_sub(unavailable).max(0);
        return Ok(target(expected, desired));
    }
    match spec.and_then(|spec| spec.min_available.as_ref()) {
        Some(IntOrString::Int(min_available)) => {
            let expected = i32::try_from(selected_pods.len()).unwrap_or(i32::MAX);
            Ok(target(expected, *min_available))
        }
        Some(percentage) => {
            let expected = summed_controller_scale(selected_pods, scales)?;
            Ok(target(expected, scaled(percentage, expected)?))
        }
        None => Ok(target(0, 0)),
    }
}

fn target(expected_pods: i32, desired_healthy: i32) -> BudgetTarget {
    BudgetTarget {
        expected_pods,
        desired_healthy,
    }
}

fn scaled(value: &IntOrString, total: i32) -> Result<i32, BudgetError> {
    scaled_value_rounding_up(value, total).map_err(BudgetError::InvalidValue)
}

/// Sum of `replicas` over the distinct scale objects behind the pods' controllers. Pods
/// without a controller are skipped: the real controller only records an `UnmanagedPods`
/// event for them.
fn summed_controller_scale(pods: &[&Pod], scales: &ControllerScales) -> Result<i32, BudgetError> {
    let mut replicas_by_scale: BTreeMap<&str, i32> = BTreeMap::new();
    for pod in pods {
        let Some(controller) = controller_of(pod) else {
            continue;
        };
        let Some(scale) = scales.get(&controller.uid) else {
            return Err(BudgetError::NoController {
                pod: pod_name(pod).to_string(),
            });
        };
        replicas_by_scale.insert(&scale.scale_uid, scale.replicas);
    }
    let total: i64 = replicas_by_scale
        .values()
        .map(|replicas| i64::from(*replicas))
        .sum();
    Ok(i32::try_from(total).unwrap_or(i32::MAX))
}

#[cfg(test)]
#[path = "expected_pods_tests.rs"]
mod tests;
