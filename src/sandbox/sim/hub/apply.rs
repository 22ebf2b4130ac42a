//! Putting a placement's objects on a member and reading back how they do.
//!
//! Errors: an API answer (`kube::Error::Api`) about one object is an apply failure and is
//! reported in `Applied`; any other error means the member could not be reached, and the
//! caller leaves the binding's conditions as they are.

use super::conditions::{Applied, Availability, Observed};
use super::placed::{self, Placed, PlacedKind};
use super::readiness;
use k8s_openapi::api::core::v1::Pod;
use kube::Client;
use kube::api::{Api, DynamicObject, ListParams, PostParams};
use kube::core::Status;
use serde_json::Value;
use std::collections::BTreeSet;

/// The member could not be reached (transport failure, not an API answer).
#[derive(Debug, thiserror::Error)]
#[error("member unreachable: {0}")]
pub struct Unreachable(pub kube::Error);

/// Splits an error into an API answer (returned) or unreachability.
fn api_answer(error: kube::Error) -> Result<Box<Status>, Unreachable> {
    match error {
        kube::Error::Api(status) => Ok(status),
        other => Err(Unreachable(other)),
    }
}

/// An API refusal, for a condition message.
fn refusal(error: kube::Error) -> Result<String, Unreachable> {
    api_answer(error).map(|s| format!("{} ({})", s.message, s.code))
}

fn api_for(member: &Client, placed: &Placed) -> Api<DynamicObject> {
    let resource = placed.kind.api_resource();
    match placed.namespace() {
        Some(ns) => Api::namespaced_with(member.clone(), ns, &resource),
        None => Api::all_with(member.clone(), &resource),
    }
}

/// Creates or updates every object; then, if all are there, checks availability.
pub async fn apply_and_observe(
    member: &Client,
    placement: &str,
    objects: &[Placed],
) -> Result<Observed, Unreachable> {
    let applied = apply_all(member, placement, objects).await?;
    let available = match applied {
        Applied::All => Some(observe_availability(member, objects).await?),
        Applied::NotAll(_) => None,
    };
    Ok(Observed { applied, available })
}

async fn apply_all(
    member: &Client,
    placement: &str,
    objects: &[Placed],
) -> Result<Applied, Unreachable> {
    let mut first_failure = None;
    for object in objects {
        if let Err(why) = apply_one(member, placement, object).await? {
            first_failure.get_or_insert(format!("{}: {why}", object.describe()));
        }
    }
    Ok(first_failure.map_or(Applied::All, Applied::NotAll))
}

/// `Ok(Err(why))` when the member refused the object.
async fn apply_one(
    member: &Client,
    placement: &str,
    object: &Placed,
) -> Result<Result<(), String>, Unreachable> {
    let api = api_for(member, object);
    let current = match api.get(object.name()).await {
        Ok(current) => serde_json::to_value(&current).unwrap_or_default(),
        Err(error) => {
            let status = api_answer(error)?;
            if status.code != 404 {
                return Ok(Err(format!("{} ({})", status.message, status.code)));
            }
            return create(&api, object).await;
        }
    };
    // A namespace the member had before the placement is used, not taken over.
    let foreign_namespace =
        object.kind == PlacedKind::Namespace && !placed::placed_by(&current, placement);
    // Two placements of one object would overwrite each other: KubeFleet refuses the second.
    let other_placer = placed::placer(&current).filter(|p| *p != placement);
    if let Some(other) = other_placer.filter(|_| object.kind != PlacedKind::Namespace) {
        return Ok(Err(format!(
            "already placed by ClusterResourcePlacement {other}"
        )));
    }
    if foreign_namespace || !placed::needs_update(object, &current) {
        return Ok(Ok(()));
    }
    let updated: DynamicObject = match serde_json::from_value(placed::updated(object, &current)) {
        Ok(updated) => updated,
        Err(error) => return Ok(Err(format!("cannot encode the update: {error}"))),
    };
    match api
        .replace(object.name(), &PostParams::default(), &updated)
        .await
    {
        Ok(_) => Ok(Ok(())),
        Err(error) => Ok(Err(refusal(error)?)),
    }
}

async fn create(
    api: &Api<DynamicObject>,
    object: &Placed,
) -> Result<Result<(), String>, Unreachable> {
    let new: DynamicObject = match serde_json::from_value(object.object.clone()) {
        Ok(new) => new,
        Err(error) => return Ok(Err(format!("cannot encode the object: {error}"))),
    };
    match api.create(&PostParams::default(), &new).await {
        Ok(_) => Ok(Ok(())),
        Err(error) => Ok(Err(refusal(error)?)),
    }
}

/// Reads the pods of every namespace holding a placed workload.
async fn observe_availability(
    member: &Client,
    objects: &[Placed],
) -> Result<Availability, Unreachable> {
    let namespaces: BTreeSet<&str> = objects
        .iter()
        .filter(|o| o.kind.is_workload())
        .filter_map(Placed::namespace)
        .collect();
    let mut pods: Vec<Value> = Vec::new();
    for namespace in namespaces {
        let api: Api<Pod> = Api::namespaced(member.clone(), namespace);
        match api.list(&ListParams::default()).await {
            Ok(list) => pods.extend(
                list.items
                    .iter()
                    .filter_map(|p| serde_json::to_value(p).ok()),
            ),
            Err(error) => {
                let why = refusal(error)?;
                return Ok(Availability::NotAll(format!(
                    "listing pods in {namespace}: {why}"
                )));
            }
        }
    }
    Ok(readiness::availability(objects, &pods))
}
