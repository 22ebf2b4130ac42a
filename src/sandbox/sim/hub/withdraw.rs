//! Withdrawing a placement from a member: what a deleted binding leaves behind goes.
//!
//! Everything labelled [`PLACED_BY_LABEL`] with the placement's name is deleted: the
//! Deployments, StatefulSets and ConfigMaps first (their pods go with them, through the
//! member's garbage collection and kubelet), then the namespaces the placement created. A
//! namespace the member had before keeps existing.

use super::hub_view::list_selected;
use super::placed::{PLACED_BY_LABEL, PlacedKind};
use kube::Client;
use kube::api::{Api, DeleteParams, DynamicObject, ListParams};
use serde_json::Value;

/// Deletes what the placement put on the member. Any error is returned for a retry; an
/// object already gone counts as deleted.
pub async fn withdraw(member: &Client, placement: &str) -> Result<(), kube::Error> {
    let lp = ListParams::default().labels(&format!("{PLACED_BY_LABEL}={placement}"));
    for kind in PlacedKind::CONTENT
        .into_iter()
        .chain([PlacedKind::Namespace])
    {
        for object in list_selected(member, kind, None, &lp).await? {
            delete(member, kind, &object).await?;
        }
    }
    Ok(())
}

async fn delete(member: &Client, kind: PlacedKind, object: &Value) -> Result<(), kube::Error> {
    let resource = kind.api_resource();
    let name = object["metadata"]["name"].as_str().unwrap_or_default();
    let api: Api<DynamicObject> = match object["metadata"]["namespace"].as_str() {
        Some(ns) => Api::namespaced_with(member.clone(), ns, &resource),
        None => Api::all_with(member.clone(), &resource),
    };
    match api.delete(name, &DeleteParams::background()).await {
        Ok(_) => Ok(()),
        Err(kube::Error::Api(status)) if status.code == 404 => Ok(()),
        Err(error) => Err(error),
    }
}
