//! Whether placed workloads are available on their member, from the member's pods.
//!
//! The stand-in counts pods rather than reading the workloads' `status.readyReplicas`: a
//! member may run without workload controllers (tests make pods by hand), and pods are what
//! the readiness really is. A workload is available when the pods in its namespace that
//! match its `spec.selector`, are Ready, are not terminating and have not finished number at
//! least `spec.replicas` (absent: 1), as a ReplicaSet counts its ready replicas.

use super::conditions::Availability;
use super::placed::Placed;
use crate::sandbox::select::LabelSelector;
use serde_json::Value;

/// A pod that serves: Ready=True, no deletionTimestamp, not Succeeded or Failed.
pub fn is_serving(pod: &Value) -> bool {
    let finished = matches!(
        pod["status"]["phase"].as_str(),
        Some("Succeeded" | "Failed")
    );
    let ready = pod["status"]["conditions"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|c| c["type"] == "Ready" && c["status"] == "True");
    ready && !finished && pod["metadata"]["deletionTimestamp"].is_null()
}

/// Why the workload is not available, or `None` when it is. `pods` are its namespace's.
pub fn shortfall(workload: &Placed, pods: &[Value]) -> Option<String> {
    let wanted = workload.object["spec"]["replicas"].as_i64().unwrap_or(1);
    let selector = match LabelSelector::from_object(&workload.object["spec"]["selector"]) {
        Ok(selector) => selector,
        Err(error) => {
            return Some(format!(
                "{} has an invalid selector: {error}",
                workload.describe()
            ));
        }
    };
    let ready = pods
        .iter()
        .filter(|pod| pod["metadata"]["namespace"].as_str() == workload.namespace())
        .filter(|pod| selector.matches(pod["metadata"]["labels"].as_object()))
        .filter(|pod| is_serving(pod))
        .count() as i64;
    (ready < wanted).then(|| {
        format!(
            "{} has {ready} of {wanted} replicas ready",
            workload.describe()
        )
    })
}

/// Available when every placed Deployment and StatefulSet is; the first short one explains.
pub fn availability(placed: &[Placed], pods: &[Value]) -> Availability {
    placed
        .iter()
        .filter(|p| p.kind.is_workload())
        .find_map(|workload| shortfall(workload, pods))
        .map_or(Availability::All, Availability::NotAll)
}

#[cfg(test)]
#[path = "readiness_tests.rs"]
mod tests;
