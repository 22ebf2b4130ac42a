//! One pass over a placement: its evictions in arrival order (creationTimestamp, then name),
//! each decided and acted on step by step against the ledger's view. Passes for one
//! placement never overlap (the queue serialises them), which is what makes the budget
//! arithmetic safe; passes for different placements run in parallel.

use super::cache::Caches;
use super::ledger::{BindingWrite, Ledger};
use super::metrics::Telemetry;
use super::writes::Writer;
use crate::api::eviction::ClusterResourcePlacementEviction;
use crate::fleet::facts::{
    BudgetRead, Facts, HeldReservation, arrival_order, has_cleanup_finalizer, holds_reservation,
    is_decided, is_extended,
};
use crate::fleet::messages::{
    EXECUTED, PROGRESSING, REASON_NOT_EXECUTED, STAGE_WAITING_FOR_BUDGET,
};
use crate::fleet::step::{
    BindingAction, BindingRef, Confirm, ReservationChange, StatusUpdate, Step,
};
use crate::fleet::view::{BindingView, PlacementView};
use crate::fleet::{extended, plain, status};
use crate::runtime::clock::SharedClock;
use k8s_openapi::jiff::Timestamp;
use std::sync::Arc;
use std::time::Duration;

/// Steps one eviction may take in one pass; more means the world keeps changing under it,
/// and the pass is retried with backoff rather than spinning.
const MAX_STEPS: usize = 16;
/// Re-applications of one status update on conflicts before giving up the pass.
const MAX_CONFLICTS: usize = 5;

pub struct Context {
    pub caches: Arc<Caches>,
    pub ledger: Ledger,
    pub writer: Writer,
    pub telemetry: Telemetry,
    pub clock: SharedClock,
    pub default_ttl: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    #[error("eviction {eviction}: {action}: {source}")]
    Api {
        eviction: String,
        action: &'static str,
        source: kube::Error,
    },
    #[error("eviction {0}: still changing after {MAX_STEPS} steps")]
    Unsettled(String),
}

impl crate::runtime::worker::PassError for ReconcileError {
    fn metric_label(&self) -> &'static str {
        match self {
            ReconcileError::Api { action, .. } => action,
            ReconcileError::Unsettled(_) => "unsettled",
        }
    }
}

type Evictions = Vec<Arc<ClusterResourcePlacementEviction>>;

/// Works through the placement's evictions; returns when the placement next needs a look
/// (the earliest ttl deadline), if ever.
pub async fn reconcile(
    ctx: &Context,
    placement: &str,
) -> Result<Option<Timestamp>, ReconcileError> {
    let cached = ctx.caches.evictions.read().of_placement(placement);
    let mut evictions = ctx.ledger.evictions(placement, cached);
    evictions.sort_by(|a, b| arrival_order(a, b));
    let mut wake: Option<Timestamp> = None;
    let mut result = Ok(());
    let mut pass = Pass::new(ctx, placement);
    for i in 0..evictions.len() {
        if is_decided(&evictions[i]) && !has_cleanup_finalizer(&evictions[i]) {
            continue;
        }
        match pass.run(&mut evictions, i).await {
            Ok(until) => wake = earliest(wake, until),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
    }
    ctx.telemetry
        .placement_seen(placement, &evictions, ctx.clock.now());
    result.map(|()| wake)
}

fn earliest(a: Option<Timestamp>, b: Option<Timestamp>) -> Option<Timestamp> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The reservations the placement's other evictions hold.
fn others(evictions: &Evictions, i: usize) -> Vec<HeldReservation> {
    evictions
        .iter()
        .enumerate()
        .filter(|(j, e)| *j != i && holds_reservation(e))
        .filter_map(|(_, e)| {
            let status = e.status.as_ref()?;
            let binding = status
                .reservation
                .as_ref()
                .map(|r| r.binding.clone())
                .or_else(|| status.target_binding.as_ref().map(|t| t.name.clone()))?;
            Some(HeldReservation {
                eviction: e.metadata.name.clone().unwrap_or_default(),
                binding,
            })
        })
        .collect()
}

/// One pass over a placement. Every eviction of the pass decides on the same picture of the
/// world — the placement, its bindings and its budget as they were when the pass began, plus
/// our own writes through the ledger — so an earlier waiter and a later arrival judge the
/// same numbers and the earlier one is never overtaken (first come, first served). Changes
/// seen meanwhile queue the placement again.
struct Pass<'a> {
    ctx: &'a Context,
    placement: &'a str,
    placement_view: Option<PlacementView>,
    cached_bindings: Vec<BindingView>,
    /// Read from the API at most once per pass, when a decision first needs it.
    budget: BudgetRead,
    /// How the picture was refreshed from the API to confirm a verdict drawn from the cache.
    confirmed: Option<Confirm>,
}

impl<'a> Pass<'a> {
    fn new(ctx: &'a Context, placement: &'a str) -> Self {
        Pass {
            ctx,
            placement,
            placement_view: ctx.caches.placements.read().get(placement),
            cached_bindings: ctx.caches.bindings.read().of_placement(placement),
            budget: BudgetRead::NotRead,
            confirmed: None,
        }
    }

    fn world(&self) -> (Option<PlacementView>, Vec<BindingView>) {
        let bindings = self
            .ctx
            .ledger
            .bindings(self.placement, self.cached_bindings.clone());
        (self.placement_view.clone(), bindings)
    }

    async fn run(
        &mut self,
        evictions: &mut Evictions,
        i: usize,
    ) -> Result<Option<Timestamp>, ReconcileError> {
        for _ in 0..MAX_STEPS {
            let eviction = evictions[i].clone();
            let (placement, bindings) = self.world();
            let held = others(evictions, i);
            let facts = Facts {
                eviction: &eviction,
                placement: placement.as_ref(),
                bindings: &bindings,
                others: &held,
                budget: self.budget.clone(),
                now: self.ctx.clock.now(),
                default_ttl: self.ctx.default_ttl,
            };
            let extended = is_extended(&eviction);
            let step = if extended {
                extended::decide(&facts)
            } else {
                plain::decide(&facts)
            };
            let deadline = if extended {
                extended::deadline(&facts)
            } else {
                None
            };
            match step {
                Step::Done => return Ok(None),
                Step::Wait { until } => return Ok(until),
                Step::NeedBudget => {
                    self.budget = self
                        .ctx
                        .writer
                        .budget(self.placement)
                        .await
                        .map_err(api(&eviction, "read budget"))?;
                }
                Step::AddFinalizer | Step::RemoveFinalizer => {
                    let present = step == Step::AddFinalizer;
                    let written = self.ctx.writer.set_finalizer(&eviction, present).await;
                    self.settle(evictions, i, written, "patch finalizer")
                        .await?;
                }
                Step::Write(update) => {
                    if let Some(mode) = update.confirm.filter(|m| !self.has_confirmed(*m)) {
                        self.confirm(&eviction, mode).await?;
                        continue;
                    }
                    let merged = status::merge(
                        eviction.status.as_ref(),
                        &update,
                        generation(&eviction),
                        facts.now,
                    );
                    if Some(&merged) == eviction.status.as_ref() {
                        return Ok(deadline);
                    }
                    self.count_budget_decision(&update);
                    let written = self.ctx.writer.write_status(&eviction, merged).await;
                    if let Some(fresh) = self.settle(evictions, i, written, "write status").await? {
                        self.observe(&eviction, &fresh, &update).await;
                    }
                }
                Step::Act { action, then } => {
                    if !self.act(&eviction, &action, &bindings).await? {
                        continue;
                    }
                    if !extended {
                        self.count_plain_eviction(&action);
                    }
                    if let Some(update) = then {
                        self.write_after_action(evictions, i, &update).await?;
                    }
                }
            }
        }
        Err(ReconcileError::Unsettled(
            evictions[i].metadata.name.clone().unwrap_or_default(),
        ))
    }

    /// Applies a write's result: the returned object replaces ours (and the ledger remembers
    /// it); a conflict re-reads the eviction so the next step decides on what is there now.
    async fn settle(
        &self,
        evictions: &mut Evictions,
        i: usize,
        written: kube::Result<ClusterResourcePlacementEviction>,
        action: &'static str,
    ) -> Result<Option<Arc<ClusterResourcePlacementEviction>>, ReconcileError> {
        let eviction = evictions[i].clone();
        match written {
            Ok(object) => {
                let object = Arc::new(object);
                self.ctx.ledger.remember_eviction((*object).clone());
                evictions[i] = object.clone();
                Ok(Some(object))
            }
            Err(kube::Error::Api(s)) if s.is_conflict() || s.is_not_found() => {
                self.refresh(evictions, i).await?;
                Ok(None)
            }
            Err(e) => Err(api(&eviction, action)(e)),
        }
    }

    async fn refresh(&self, evictions: &mut Evictions, i: usize) -> Result<(), ReconcileError> {
        let eviction = evictions[i].clone();
        let name = eviction.metadata.name.clone().unwrap_or_default();
        match self
            .ctx
            .writer
            .eviction(&name)
            .await
            .map_err(api(&eviction, "read eviction"))?
        {
            Some(fresh) => {
                self.ctx.ledger.remember_eviction(fresh.clone());
                evictions[i] = Arc::new(fresh);
            }
            // Deleted meanwhile: mark it so the next decision only cleans up.
            None => {
                let mut gone = (*eviction).clone();
                gone.metadata.deletion_timestamp = Some(
                    k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(self.ctx.clock.now()),
                );
                gone.metadata.finalizers = None;
                evictions[i] = Arc::new(gone);
            }
        }
        Ok(())
    }

    /// Before writing a verdict drawn from the cache (MissingCRP, MissingCRB, MissingPlacement,
    /// a budget refusal), look at the API itself: the watch of bindings may lag behind the
    /// watch of evictions. The fresh picture serves the rest of the pass.
    async fn confirm(
        &mut self,
        eviction: &ClusterResourcePlacementEviction,
        mode: Confirm,
    ) -> Result<(), ReconcileError> {
        let writer = &self.ctx.writer;
        self.placement_view = writer
            .placement(self.placement)
            .await
            .map_err(api(eviction, "read placement"))?;
        match mode {
            Confirm::Absence => {
                self.cached_bindings = writer
                    .bindings_of(self.placement)
                    .await
                    .map_err(api(eviction, "list bindings"))?;
            }
            Confirm::Refusal => {
                let mut fresh = Vec::with_capacity(self.cached_bindings.len());
                for cached in std::mem::take(&mut self.cached_bindings) {
                    if cached.deleting || cached.is_available() {
                        fresh.push(cached);
                        continue;
                    }
                    let read = writer.binding(&cached.name).await;
                    fresh.extend(read.map_err(api(eviction, "read binding"))?);
                }
                self.cached_bindings = fresh;
            }
        }
        self.confirmed = match (self.confirmed, mode) {
            (Some(Confirm::Absence), _) => Some(Confirm::Absence),
            (_, mode) => Some(mode),
        };
        Ok(())
    }

    /// A full re-list confirms anything; a refresh of the unavailable bindings confirms
    /// refusals.
    fn has_confirmed(&self, mode: Confirm) -> bool {
        matches!(
            (self.confirmed, mode),
            (Some(Confirm::Absence), _) | (Some(Confirm::Refusal), Confirm::Refusal)
        )
    }

    /// Performs a binding action. `Ok(false)`: the binding changed under us; the ledger now
    /// holds its fresh state and the eviction is decided again.
    async fn act(
        &self,
        eviction: &ClusterResourcePlacementEviction,
        action: &BindingAction,
        bindings: &[BindingView],
    ) -> Result<bool, ReconcileError> {
        let writer = &self.ctx.writer;
        let name = eviction.metadata.name.as_deref().unwrap_or_default();
        let (target, result) = match action {
            BindingAction::Delete(b) => {
                let result = writer.delete_binding(b).await;
                if let Ok(None) = result {
                    self.remember_gone(b, bindings);
                    return Ok(true);
                }
                (b, result.map(|o| o.map(|o| BindingView::from_binding(&o))))
            }
            BindingAction::Signal(b) => (
                b,
                writer
                    .signal(b, name, self.ctx.clock.now())
                    .await
                    .map(|o| Some(BindingView::from_binding(&o))),
            ),
            BindingAction::RemoveSignal(b) => (
                b,
                writer
                    .remove_signal(b)
                    .await
                    .map(|o| Some(BindingView::from_binding(&o))),
            ),
        };
        match result {
            Ok(view) => {
                if let Some(view) = view {
                    self.ctx
                        .ledger
                        .remember_binding(self.placement, BindingWrite { view, gone: false });
                }
                Ok(true)
            }
            Err(kube::Error::Api(s)) if s.is_conflict() || s.is_not_found() => {
                self.refresh_binding(eviction, target, bindings).await?;
                Ok(false)
            }
            Err(e) => Err(api(eviction, "act on binding")(e)),
        }
    }

    fn remember_gone(&self, target: &BindingRef, bindings: &[BindingView]) {
        if let Some(view) = bindings.iter().find(|b| b.name == target.name) {
            self.ctx.ledger.remember_binding(
                self.placement,
                BindingWrite {
                    view: view.clone(),
                    gone: true,
                },
            );
        }
    }

    async fn refresh_binding(
        &self,
        eviction: &ClusterResourcePlacementEviction,
        target: &BindingRef,
        bindings: &[BindingView],
    ) -> Result<(), ReconcileError> {
        let fresh = self
            .ctx
            .writer
            .binding(&target.name)
            .await
            .map_err(api(eviction, "read binding"))?;
        match fresh {
            Some(view) => {
                self.ctx
                    .ledger
                    .remember_binding(self.placement, BindingWrite { view, gone: false });
            }
            None => self.remember_gone(target, bindings),
        }
        Ok(())
    }

    /// The status write that follows an action: on conflict the same update is re-applied to
    /// the fresh object (§5.4), so the verdict of the action is the one recorded.
    async fn write_after_action(
        &self,
        evictions: &mut Evictions,
        i: usize,
        update: &StatusUpdate,
    ) -> Result<(), ReconcileError> {
        for _ in 0..MAX_CONFLICTS {
            let eviction = evictions[i].clone();
            let now = self.ctx.clock.now();
            let merged =
                status::merge(eviction.status.as_ref(), update, generation(&eviction), now);
            let written = self.ctx.writer.write_status(&eviction, merged).await;
            if let Some(fresh) = self.settle(evictions, i, written, "write status").await? {
                self.observe(&eviction, &fresh, update).await;
                return Ok(());
            }
            if evictions[i].metadata.deletion_timestamp.is_some()
                && evictions[i].metadata.finalizers.is_none()
            {
                return Ok(());
            }
        }
        Err(ReconcileError::Unsettled(
            evictions[i].metadata.name.clone().unwrap_or_default(),
        ))
    }

    async fn observe(
        &self,
        before: &ClusterResourcePlacementEviction,
        after: &ClusterResourcePlacementEviction,
        update: &StatusUpdate,
    ) {
        let name = after.metadata.name.as_deref().unwrap_or_default();
        let Some(after_status) = after.status.as_ref() else {
            return;
        };
        self.ctx.telemetry.status_changed(
            name,
            before.status.as_ref(),
            after_status,
            self.ctx.clock.now(),
        );
        if let Some(note) = &update.note
            && status::note_applies(note, before.status.as_ref(), after_status)
        {
            self.ctx.writer.record(after, note).await;
        }
    }

    /// `fleet_eviction_budget_decisions_total`: a budget was read and the step spends or
    /// refuses a disruption.
    fn count_budget_decision(&self, update: &StatusUpdate) {
        if !matches!(self.budget, BudgetRead::Present(_)) {
            return;
        }
        if matches!(update.reservation, ReservationChange::Reserve(_)) {
            self.ctx.telemetry.budget_decision(true);
            return;
        }
        let blocked = update.conditions.iter().any(|c| {
            (c.type_ == EXECUTED && c.reason == REASON_NOT_EXECUTED)
                || (c.type_ == PROGRESSING && c.reason == STAGE_WAITING_FOR_BUDGET)
        });
        if blocked {
            self.ctx.telemetry.budget_decision(false);
        }
    }

    /// A plain eviction spends its disruption in the delete itself (extended ones were
    /// counted when they reserved).
    fn count_plain_eviction(&self, action: &BindingAction) {
        if matches!(self.budget, BudgetRead::Present(_))
            && matches!(action, BindingAction::Delete(_))
        {
            self.ctx.telemetry.budget_decision(true);
        }
    }
}

fn generation(e: &ClusterResourcePlacementEviction) -> i64 {
    e.metadata.generation.unwrap_or(0)
}

fn api(
    eviction: &ClusterResourcePlacementEviction,
    action: &'static str,
) -> impl FnOnce(kube::Error) -> ReconcileError {
    let eviction = eviction.metadata.name.clone().unwrap_or_default();
    move |source| ReconcileError::Api {
        eviction,
        action,
        source,
    }
}
