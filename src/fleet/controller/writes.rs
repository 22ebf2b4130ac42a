//! Every API call the controller makes, each guarded as the spec requires: status replaces
//! and finalizer patches carry the resourceVersion they were computed from, binding deletes
//! carry uid and resourceVersion preconditions, signal patches carry the resourceVersion.

use super::cache::decode;
use crate::api::budget::ClusterResourcePlacementDisruptionBudget;
use crate::api::eviction::{ClusterResourcePlacementEviction, EvictionStatus};
use crate::api::keys::{
    CLEANUP_FINALIZER, EVACUATION_REQUESTED, EVACUATION_REQUESTED_AT, PARENT_CRP_LABEL,
};
use crate::api::kubefleet::{ClusterResourceBinding, ClusterResourcePlacement};
use crate::fleet::facts::BudgetRead;
use crate::fleet::step::{BindingRef, Note};
use crate::fleet::view::{BindingView, PlacementView};
use crate::runtime::clock::rfc3339_seconds;
use k8s_openapi::jiff::Timestamp;
use kube::api::{
    ApiResource, DeleteParams, DynamicObject, ListParams, Patch, PatchParams, PostParams,
    Preconditions,
};
use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::{Api, Client, Resource};
use serde_json::{Value, json};

/// The reporting controller on our Events.
pub const REPORTER: &str = "fleet-eviction";

#[derive(Clone)]
pub struct Writer {
    evictions: Api<ClusterResourcePlacementEviction>,
    bindings: Api<ClusterResourceBinding>,
    budgets: Api<ClusterResourcePlacementDisruptionBudget>,
    placements: Api<ClusterResourcePlacement>,
    client: Client,
    reporter: Reporter,
}

impl Writer {
    pub fn new(client: Client) -> Writer {
        let reporter = Reporter {
            controller: REPORTER.into(),
            instance: std::env::var("POD_NAME").ok(),
        };
        Writer {
            evictions: Api::all(client.clone()),
            bindings: Api::all(client.clone()),
            budgets: Api::all(client.clone()),
            placements: Api::all(client.clone()),
            client,
            reporter,
        }
    }

    /// One binding straight from the API; `None` when it is gone or cannot be read.
    pub async fn binding(&self, name: &str) -> kube::Result<Option<BindingView>> {
        let found = self.dynamic_bindings().get_opt(name).await?;
        Ok(found
            .and_then(|b| decode::<ClusterResourceBinding>(b, "bindings"))
            .map(|b| BindingView::from_binding(&b)))
    }

    /// Bindings read one by one, so an unreadable one is left out instead of failing all.
    fn dynamic_bindings(&self) -> Api<DynamicObject> {
        let resource = ApiResource::erase::<ClusterResourceBinding>(&());
        Api::all_with(self.bindings.clone().into_client(), &resource)
    }

    /// Read-modify-write of the whole status, guarded by the object's resourceVersion (§5.4).
    pub async fn write_status(
        &self,
        eviction: &ClusterResourcePlacementEviction,
        status: EvictionStatus,
    ) -> kube::Result<ClusterResourcePlacementEviction> {
        let mut object = eviction.clone();
        object.status = Some(status);
        let name = object.metadata.name.clone().unwrap_or_default();
        self.evictions
            .replace_status(&name, &PostParams::default(), &object)
            .await
    }

    /// Adds or removes our finalizer, keeping every other one; guarded by resourceVersion.
    pub async fn set_finalizer(
        &self,
        eviction: &ClusterResourcePlacementEviction,
        present: bool,
    ) -> kube::Result<ClusterResourcePlacementEviction> {
        let mut finalizers: Vec<String> = eviction
            .metadata
            .finalizers
            .clone()
            .unwrap_or_default()
            .into_iter()
            .filter(|f| f != CLEANUP_FINALIZER)
            .collect();
        if present {
            finalizers.push(CLEANUP_FINALIZER.to_string());
        }
        let patch = json!({"metadata": {
            "resourceVersion": eviction.metadata.resource_version,
            "finalizers": finalizers,
        }});
        let name = eviction.metadata.name.clone().unwrap_or_default();
        self.evictions
            .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
    }

    /// Deletes the binding if it is still the one we decided on. `Ok(None)`: gone at once or
    /// already gone (NotFound counts as success); `Ok(Some)`: deleting, finalizers pending.
    pub async fn delete_binding(
        &self,
        binding: &BindingRef,
    ) -> kube::Result<Option<ClusterResourceBinding>> {
        let params = DeleteParams {
            preconditions: Some(Preconditions {
                uid: Some(binding.uid.clone()),
                resource_version: Some(binding.resource_version.clone()),
            }),
            ..DeleteParams::default()
        };
        match self.bindings.delete(&binding.name, &params).await {
            Ok(either) => Ok(either.left()),
            Err(kube::Error::Api(status)) if status.is_not_found() => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Raises the External hand-off signal on the binding (§5.2 step 1).
    pub async fn signal(
        &self,
        binding: &BindingRef,
        eviction: &str,
        now: Timestamp,
    ) -> kube::Result<ClusterResourceBinding> {
        self.annotate(
            binding,
            json!({EVACUATION_REQUESTED: eviction, EVACUATION_REQUESTED_AT: rfc3339_seconds(now)}),
        )
        .await
    }

    /// Removes our signal. The resourceVersion guard both protects a signal someone else
    /// replaced meanwhile and bumps the binding's version, so a stale external delete taken
    /// before now fails with 409 (§5.2 step 4).
    pub async fn remove_signal(
        &self,
        binding: &BindingRef,
    ) -> kube::Result<ClusterResourceBinding> {
        self.annotate(
            binding,
            json!({EVACUATION_REQUESTED: null, EVACUATION_REQUESTED_AT: null}),
        )
        .await
    }

    async fn annotate(
        &self,
        binding: &BindingRef,
        annotations: Value,
    ) -> kube::Result<ClusterResourceBinding> {
        let patch = json!({"metadata": {
            "resourceVersion": binding.resource_version,
            "annotations": annotations,
        }});
        self.bindings
            .patch(
                &binding.name,
                &PatchParams::default(),
                &Patch::Merge(&patch),
            )
            .await
    }

    /// The budget of the placement, read from the API, never a cache (§3 d).
    pub async fn budget(&self, placement: &str) -> kube::Result<BudgetRead> {
        Ok(match self.budgets.get_opt(placement).await? {
            Some(budget) => BudgetRead::Present(budget.spec),
            None => BudgetRead::Absent,
        })
    }

    pub async fn placement(&self, name: &str) -> kube::Result<Option<PlacementView>> {
        Ok(self
            .placements
            .get_opt(name)
            .await?
            .map(|p| PlacementView::from_placement(&p)))
    }

    /// The placement's bindings straight from the API (to confirm a MissingCRB).
    pub async fn bindings_of(&self, placement: &str) -> kube::Result<Vec<BindingView>> {
        let params = ListParams::default().labels(&format!("{PARENT_CRP_LABEL}={placement}"));
        Ok(self
            .dynamic_bindings()
            .list(&params)
            .await?
            .items
            .into_iter()
            .filter_map(|b| decode::<ClusterResourceBinding>(b, "bindings"))
            .map(|b| BindingView::from_binding(&b))
            .collect())
    }

    pub async fn eviction(
        &self,
        name: &str,
    ) -> kube::Result<Option<ClusterResourcePlacementEviction>> {
        self.evictions.get_opt(name).await
    }

    /// Records an Event on the eviction; a failure is logged, never retried (an Event is a
    /// courtesy, the status is the record).
    pub async fn record(&self, eviction: &ClusterResourcePlacementEviction, note: &Note) {
        let event = Event {
            type_: if note.warning {
                EventType::Warning
            } else {
                EventType::Normal
            },
            reason: note.reason.clone(),
            note: Some(note.message.clone()),
            action: note.about.to_string(),
            secondary: None,
        };
        let reference = eviction.object_ref(&());
        // A recorder per Event, as kube intends (one per reconcile): a shared one keeps every
        // Event it published for six minutes, to fold repeats into a series, and scans that
        // whole cache under one lock on every publish. Shared by the whole controller, a
        // burst of 10,000 evictions kept ~30 MB of Events (benches/fleet_scale.rs). Our Events
        // mark changes of an eviction's conditions, so repeats to fold are rare.
        let recorder = Recorder::new(self.client.clone(), self.reporter.clone());
        if let Err(e) = recorder.publish(&event, &reference).await {
            tracing::warn!(
                eviction = eviction.metadata.name.as_deref().unwrap_or_default(),
                reason = %note.reason,
                "cannot record an Event: {e}"
            );
        }
    }
}
