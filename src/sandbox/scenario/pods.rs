//! `breakPods` / `fixPods`: the member simulation keeps a pod annotated
//! `sandbox.fleet-eviction.io/broken: "true"` running but unready, until the annotation goes.

use super::objects::{Clusters, describe_error};
use super::retry::retry_while_busy;
use super::step_args::PodSelection;
use crate::sandbox::sim::member::BROKEN_ANNOTATION;
use k8s_openapi::api::core::v1::Pod;
use kube::ResourceExt;
use kube::api::{Api, ListParams, Patch, PatchParams};
use serde_json::json;

/// Breaks (`broken = true`) or repairs the selected pods; says which.
pub async fn set_broken(
    clusters: &Clusters<'_>,
    cluster: &str,
    selection: &PodSelection,
    broken: bool,
) -> Result<String, String> {
    let pods: Api<Pod> = Api::namespaced(clusters.client(cluster)?, &selection.namespace);
    let mut params = ListParams::default();
    if let Some(selector) = &selection.selector {
        params = params.labels(selector);
    }
    let mut listed = retry_while_busy(|| pods.list(&params))
        .await
        .map_err(|e| describe_error(&e))?
        .items;
    // Terminating pods are on their way out; breaking them would show nothing.
    listed.retain(|p| p.metadata.deletion_timestamp.is_none());
    listed.sort_by_key(|p| p.name_any());
    let chosen: Vec<String> = listed
        .iter()
        .filter(|p| is_broken(p) != broken)
        .take(selection.count.unwrap_or(usize::MAX))
        .map(|p| p.name_any())
        .collect();
    if chosen.is_empty() {
        return Err(if listed.is_empty() {
            format!("no pods in namespace {} on {cluster}", selection.namespace)
        } else if broken {
            "every selected pod is broken already".to_string()
        } else {
            "no selected pod is broken".to_string()
        });
    }
    let value = if broken { json!("true") } else { json!(null) };
    let patch = Patch::Merge(json!({"metadata": {"annotations": {BROKEN_ANNOTATION: value}}}));
    let params = PatchParams::default();
    for name in &chosen {
        retry_while_busy(|| pods.patch(name, &params, &patch))
            .await
            .map_err(|e| format!("{name}: {}", describe_error(&e)))?;
    }
    Ok(format!(
        "{} {}",
        if broken { "broke" } else { "repaired" },
        chosen.join(", ")
    ))
}

fn is_broken(pod: &Pod) -> bool {
    pod.annotations()
        .get(BROKEN_ANNOTATION)
        .is_some_and(|v| v == "true")
}
