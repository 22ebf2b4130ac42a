//! The changes the simulated components decide on, and their sending through the API.

use super::versions::{Kind, Versions};
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet, StatefulSet};
use k8s_openapi::api::core::v1::{Node, Pod};
use kube::api::{
    Api, ApiResource, DeleteParams, DynamicObject, Patch, PatchParams, PostParams, Preconditions,
};
use kube::{Client, Resource};
use serde::Serialize;
use serde_json::Value;

/// One API call.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// POST the object (its `metadata.name` or `generateName` names it).
    Create(Value),
    /// JSON merge patch of the main resource.
    Patch(Value),
    /// JSON merge patch of the status subresource.
    PatchStatus(Value),
    /// DELETE, only if the object still has `uid`; `grace_period_seconds` None uses the
    /// pod's own.
    Delete {
        uid: String,
        grace_period_seconds: Option<i64>,
    },
}

/// A change to one object (namespace empty: cluster-scoped), and who makes it (its field manager).
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    pub kind: Kind,
    pub namespace: String,
    /// Empty for a create with `generateName`.
    pub name: String,
    pub manager: &'static str,
    pub op: Op,
}

impl Op {
    /// A status merge patch with `status`; the `owned` fields it leaves out are sent as null
    /// so that the server drops them (a merge patch keeps what it does not mention).
    pub fn status_patch<T: Serialize>(status: &T, owned: &[&str]) -> Op {
        let mut status = serde_json::to_value(status).unwrap_or(Value::Null);
        if let Some(map) = status.as_object_mut() {
            for field in owned {
                map.entry(*field).or_insert(Value::Null);
            }
        }
        Op::PatchStatus(serde_json::json!({ "status": status }))
    }
}

impl Action {
    pub fn new(kind: Kind, namespace: &str, name: &str, manager: &'static str, op: Op) -> Self {
        Action {
            kind,
            namespace: namespace.to_string(),
            name: name.to_string(),
            manager,
            op,
        }
    }

    /// Deletes `pod` if it is still the same object (uid precondition), with its own grace
    /// period.
    pub fn delete_pod(namespace: &str, pod: &Pod, manager: &'static str) -> Self {
        let meta = &pod.metadata;
        let op = Op::Delete {
            uid: meta.uid.clone().unwrap_or_default(),
            grace_period_seconds: None,
        };
        Action::new(
            Kind::Pod,
            namespace,
            meta.name.as_deref().unwrap_or(""),
            manager,
            op,
        )
    }
}

fn resource(kind: Kind) -> ApiResource {
    match kind {
        Kind::Node => ApiResource::erase::<Node>(&()),
        Kind::Pod => ApiResource::erase::<Pod>(&()),
        Kind::ReplicaSet => ApiResource::erase::<ReplicaSet>(&()),
        Kind::Deployment => ApiResource::erase::<Deployment>(&()),
        Kind::StatefulSet => ApiResource::erase::<StatefulSet>(&()),
    }
}

/// Sends `action`; failures are logged and the next pass decides again.
pub async fn execute(client: &Client, versions: &Versions, action: Action) {
    let ar = resource(action.kind);
    let api: Api<DynamicObject> = if action.namespace.is_empty() {
        Api::all_with(client.clone(), &ar)
    } else {
        Api::namespaced_with(client.clone(), &action.namespace, &ar)
    };
    match send(&api, &action).await {
        Ok(Some(object)) => versions.wrote(action.kind, object.meta().resource_version.as_deref()),
        Ok(None) => {}
        Err(error) => tracing::debug!(
            kind = ?action.kind,
            namespace = %action.namespace,
            name = %action.name,
            manager = action.manager,
            %error,
            "member simulation: write failed"
        ),
    }
}

async fn send(api: &Api<DynamicObject>, action: &Action) -> kube::Result<Option<DynamicObject>> {
    let params = PatchParams {
        field_manager: Some(action.manager.to_string()),
        ..Default::default()
    };
    match &action.op {
        Op::Create(object) => {
            let object: DynamicObject =
                serde_json::from_value(object.clone()).map_err(kube::Error::SerdeError)?;
            let post = PostParams {
                field_manager: Some(action.manager.to_string()),
                ..Default::default()
            };
            api.create(&post, &object).await.map(Some)
        }
        Op::Patch(body) => api
            .patch(&action.name, &params, &Patch::Merge(body))
            .await
            .map(Some),
        Op::PatchStatus(body) => api
            .patch_status(&action.name, &params, &Patch::Merge(body))
            .await
            .map(Some),
        Op::Delete {
            uid,
            grace_period_seconds,
        } => {
            let params = DeleteParams {
                grace_period_seconds: grace_period_seconds.and_then(|g| u32::try_from(g).ok()),
                preconditions: Some(Preconditions {
                    uid: Some(uid.clone()),
                    resource_version: None,
                }),
                ..Default::default()
            };
            let deleted = api.delete(&action.name, &params).await?;
            Ok(deleted.left())
        }
    }
}
