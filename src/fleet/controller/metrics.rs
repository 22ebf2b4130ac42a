//! The eviction controller's metrics (quality.md "Metrics names"): controller-runtime's
//! families with KubeFleet's controller name, ours, and KubeFleet's completion gauge.

use crate::api::eviction::{ClusterResourcePlacementEviction, EvictionStatus};
use crate::fleet::facts::{condition, holds_reservation};
use crate::fleet::messages::{EXECUTED, PROGRESSING, STAGE_WAITING_FOR_CONDITIONS, VALID};
use crate::runtime::metrics::{ControllerFamilies, MetricsError, counter, histogram, register};
use k8s_openapi::jiff::Timestamp;
use prometheus::{GaugeVec, HistogramVec, IntCounterVec, IntGaugeVec, Opts, Registry};
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

/// KubeFleet's name for this controller, which dashboards filter on.
pub const CONTROLLER: &str = "clusterresourceplacementeviction-controller";

#[derive(Debug, Clone)]
pub struct EvictionMetrics {
    /// controller-runtime's families and the gate wait, shared with the other level.
    pub shared: ControllerFamilies,
    pub evictions_total: IntCounterVec,
    pub stage_duration_seconds: HistogramVec,
    pub budget_reservations: IntGaugeVec,
    pub budget_decisions_total: IntCounterVec,
    pub workload_eviction_complete: GaugeVec,
}

impl EvictionMetrics {
    pub fn register(
        registry: &Registry,
        shared: &ControllerFamilies,
    ) -> Result<Self, MetricsError> {
        Ok(EvictionMetrics {
            shared: shared.clone(),
            evictions_total: register(
                registry,
                counter(
                    "fleet_eviction_evictions_total",
                    "Evictions that reached a verdict, by outcome and reason.",
                    &["outcome", "reason"],
                ),
            )?,
            stage_duration_seconds: register(
                registry,
                histogram(
                    "fleet_eviction_stage_duration_seconds",
                    "Time evictions spent in each stage.",
                    &["stage"],
                ),
            )?,
            budget_reservations: register(
                registry,
                IntGaugeVec::new(
                    Opts::new(
                        "fleet_eviction_budget_reservations",
                        "Budget reservations held by in-flight evictions, per placement.",
                    ),
                    &["placement"],
                ),
            )?,
            budget_decisions_total: register(
                registry,
                counter(
                    "fleet_eviction_budget_decisions_total",
                    "Budget decisions, allowed or blocked.",
                    &["decision"],
                ),
            )?,
            workload_eviction_complete: register(
                registry,
                GaugeVec::new(
                    Opts::new(
                        "fleet_workload_eviction_complete",
                        "KubeFleet's eviction completion gauge; the value is the unix time of the last update.",
                    ),
                    &["name", "isCompleted", "isValid"],
                ),
            )?,
        })
    }
}

/// Tracks what the families need across passes: when each eviction entered its stage, and
/// the completion series each eviction currently has.
#[derive(Debug)]
pub struct Telemetry {
    pub metrics: EvictionMetrics,
    stages: Mutex<HashMap<String, (String, Timestamp)>>,
    series: Mutex<HashMap<String, (String, String)>>,
    by_placement: Mutex<HashMap<String, HashSet<String>>>,
}

impl Telemetry {
    pub fn new(metrics: EvictionMetrics) -> Telemetry {
        metrics
            .shared
            .active_workers
            .with_label_values(&[CONTROLLER])
            .set(0);
        Telemetry {
            metrics,
            stages: Mutex::default(),
            series: Mutex::default(),
            by_placement: Mutex::default(),
        }
    }

    /// A status write changed `before` into `after`.
    pub fn status_changed(
        &self,
        name: &str,
        before: Option<&EvictionStatus>,
        after: &EvictionStatus,
        now: Timestamp,
    ) {
        let stage_of = |s: Option<&EvictionStatus>| {
            s.and_then(|s| s.conditions.iter().find(|c| c.type_ == PROGRESSING))
                .map(|c| c.reason.clone())
        };
        let (old, new) = (stage_of(before), stage_of(Some(after)));
        if old != new {
            let mut stages = self.stages.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((stage, since)) = stages.remove(name) {
                let seconds = now.duration_since(since).as_secs_f64().max(0.0);
                self.metrics
                    .stage_duration_seconds
                    .with_label_values(&[&stage])
                    .observe(seconds);
                if stage == STAGE_WAITING_FOR_CONDITIONS {
                    self.metrics
                        .shared
                        .gate_wait_seconds
                        .with_label_values(&["fleet"])
                        .observe(seconds);
                }
            }
            if let Some(stage) = new {
                stages.insert(name.to_string(), (stage, now));
            }
        }
        let verdict = |s: Option<&EvictionStatus>| {
            let s = s?;
            let find = |t: &str| s.conditions.iter().find(|c| c.type_ == t);
            match (find(VALID), find(EXECUTED)) {
                (Some(v), _) if v.status == "False" => Some(("invalid", v.reason.clone())),
                (_, Some(e)) if e.status == "True" => Some(("executed", e.reason.clone())),
                (_, Some(e)) => Some(("not_executed", e.reason.clone())),
                _ => None,
            }
        };
        if verdict(before).is_none()
            && let Some((outcome, reason)) = verdict(Some(after))
        {
            self.metrics
                .evictions_total
                .with_label_values(&[outcome, &reason])
                .inc();
        }
    }

    pub fn budget_decision(&self, allowed: bool) {
        let decision = if allowed { "allowed" } else { "blocked" };
        self.metrics
            .budget_decisions_total
            .with_label_values(&[decision])
            .inc();
    }

    /// After a pass over `placement`: its reservations gauge and each eviction's completion
    /// series; series of evictions that are gone are removed.
    pub fn placement_seen(
        &self,
        placement: &str,
        evictions: &[std::sync::Arc<ClusterResourcePlacementEviction>],
        now: Timestamp,
    ) {
        let held = evictions.iter().filter(|e| holds_reservation(e)).count();
        let gauge = &self.metrics.budget_reservations;
        if held == 0 {
            let _ = gauge.remove_label_values(&[placement]);
        } else {
            gauge.with_label_values(&[placement]).set(held as i64);
        }
        let names: HashSet<String> = evictions
            .iter()
            .filter_map(|e| e.metadata.name.clone())
            .collect();
        let gone: Vec<String> = {
            let mut all = self
                .by_placement
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let known = all.entry(placement.to_string()).or_default();
            let gone = known.difference(&names).cloned().collect();
            *known = names;
            if known.is_empty() {
                all.remove(placement);
            }
            gone
        };
        for name in gone {
            self.forget(&name);
        }
        for eviction in evictions {
            self.complete_series(eviction, now);
        }
    }

    fn complete_series(&self, eviction: &ClusterResourcePlacementEviction, now: Timestamp) {
        let name = eviction.metadata.name.clone().unwrap_or_default();
        let completed = condition(eviction, EXECUTED).is_some()
            || condition(eviction, VALID).is_some_and(|c| c.status == "False");
        let valid = match condition(eviction, VALID).map(|c| c.status.as_str()) {
            Some("True") => "true",
            Some("False") => "false",
            _ => "unknown",
        };
        let labels = (completed.to_string(), valid.to_string());
        let mut series = self.series.lock().unwrap_or_else(PoisonError::into_inner);
        let gauge = &self.metrics.workload_eviction_complete;
        if let Some(old) = series.get(&name) {
            if *old == labels {
                return;
            }
            let _ = gauge.remove_label_values(&[&name, &old.0, &old.1]);
        }
        gauge
            .with_label_values(&[&name, &labels.0, &labels.1])
            .set(now.as_second() as f64);
        series.insert(name, labels);
    }

    fn forget(&self, name: &str) {
        self.stages
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name);
        if let Some((completed, valid)) = self
            .series
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(name)
        {
            let _ = self
                .metrics
                .workload_eviction_complete
                .remove_label_values(&[name, &completed, &valid]);
        }
    }
}
