//! `POST pods/<name>/eviction`: the budget check, the budget's status update and the pod's
//! deletion happen under one lock, so two evictions can never spend the same disruption.

use super::delete::DeleteOptions;
use super::handler::Incoming;
use super::object;
use super::reply::Reply;
use super::resource::{ResourceType, StorageKey};
use super::server::ApiServer;
use super::state::State;
use super::status::ApiError;
use super::store::Location;
use crate::runtime::clock::rfc3339_seconds;
use crate::sandbox::disruption::{BudgetUpdate, EvictionDecision, eviction_decision};
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::Time;
use serde_json::{Value, json};

pub fn serve(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    name: &str,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let body: Value = serde_json::from_slice(&req.body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body of the request could not be decoded as an Eviction: {e}"
        ))
    })?;
    if let Some(named) = body.pointer("/metadata/name").and_then(Value::as_str)
        && named != name
    {
        return Err(ApiError::bad_request(format!(
            "name in URL does not match name in Eviction object: {name}/{named}"
        )));
    }
    let query_dry_run = req.query.all("dryRun").contains(&"All");
    let opts = DeleteOptions::from_parts(body.get("deleteOptions"), None, None, query_dry_run)?;
    server.state().evict(rt, ns, name, &opts)
}

impl State {
    pub fn evict(
        &mut self,
        rt: &ResourceType,
        ns: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Reply, ApiError> {
        let pod_value = self.get_object(rt, ns, name)?;
        let pod: Pod = serde_json::from_value((*pod_value).clone())
            .map_err(|e| ApiError::internal(format!("stored pod does not decode: {e}")))?;
        let budgets = self.covering_budgets(&pod_value);
        let refs: Vec<_> = budgets.iter().collect();
        let now = Time(self.clock.now());
        match eviction_decision(&pod, &refs, opts.dry_run, &now) {
            EvictionDecision::Refuse(refusal) => {
                let mut status = serde_json::to_value(refusal.to_status()).unwrap_or(Value::Null);
                status["kind"] = json!("Status");
                status["apiVersion"] = json!("v1");
                status["metadata"] = json!({});
                Ok(Reply::Json(refusal.code, status, Vec::new()))
            }
            EvictionDecision::Allow { budget_update } => {
                // Preconditions first, so a refused delete spends no disruption.
                self.delete(
                    rt,
                    ns,
                    name,
                    &DeleteOptions {
                        dry_run: true,
                        ..opts.clone()
                    },
                )?;
                if !opts.dry_run {
                    if let Some(update) = budget_update {
                        self.write_budget_status(ns.unwrap_or(""), update);
                    }
                    self.mark_disruption_target(rt, ns.unwrap_or(""), name);
                    self.delete(rt, ns, name, opts)?;
                }
                Ok(Reply::Json(
                    201,
                    json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}),
                    Vec::new(),
                ))
            }
        }
    }

    fn write_budget_status(&mut self, ns: &str, update: BudgetUpdate) {
        let key = StorageKey::new("policy", "poddisruptionbudgets");
        let status = serde_json::to_value(&update.status).unwrap_or(Value::Null);
        self.replace_status(&key, ns, &update.pdb_name, status);
    }

    /// The condition the real server adds to a pod it evicts, before deleting it.
    fn mark_disruption_target(&mut self, rt: &ResourceType, ns: &str, name: &str) {
        let loc = Location {
            key: rt.storage_key(),
            store_key: object::store_key(ns, name),
        };
        let Some(old) = self.store.get(&loc.key, &loc.store_key).cloned() else {
            return;
        };
        if object::is_deleting(&old) {
            return;
        }
        let mut next = (*old).clone();
        let condition = json!({"type": "DisruptionTarget", "status": "True", "reason": "EvictionByEvictionAPI", "message": "Eviction API: evicting", "lastTransitionTime": rfc3339_seconds(self.clock.now())});
        let conditions = next
            .pointer_mut("/status/conditions")
            .and_then(Value::as_array_mut);
        match conditions {
            Some(list) => {
                list.retain(|c| c.get("type").and_then(Value::as_str) != Some("DisruptionTarget"));
                list.push(condition);
            }
            None => {
                if !next.get("status").is_some_and(Value::is_object) {
                    next["status"] = json!({});
                }
                next["status"]["conditions"] = json!([condition]);
            }
        }
        self.store_update(rt, &loc, next, &old);
    }
}
