//! DELETE: preconditions, graceful pod deletion, finalizers, propagation policy.

use super::object::{self, metadata_mut};
use super::resource::ResourceType;
use super::state::State;
use super::status::ApiError;
use super::store::Location;
use serde_json::{Value, json};
use std::sync::Arc;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DeleteOptions {
    pub grace_period_seconds: Option<i64>,
    /// `Orphan`, `Background` or `Foreground`.
    pub propagation_policy: Option<String>,
    pub precondition_uid: Option<String>,
    pub precondition_resource_version: Option<String>,
    pub dry_run: bool,
}

impl DeleteOptions {
    /// From a `DeleteOptions` body (kubectl and kube-rs send one) and query parameters.
    pub fn from_parts(
        body: Option<&Value>,
        query_grace: Option<&str>,
        query_propagation: Option<&str>,
        dry_run: bool,
    ) -> Result<DeleteOptions, ApiError> {
        let body = body.cloned().unwrap_or(Value::Null);
        let grace =
            match body.get("gracePeriodSeconds") {
                Some(v) if !v.is_null() => Some(v.as_i64().ok_or_else(|| {
                    ApiError::bad_request("gracePeriodSeconds must be an integer")
                })?),
                _ => query_grace
                    .map(|g| {
                        g.parse::<i64>().map_err(|_| {
                            ApiError::bad_request(format!("invalid gracePeriodSeconds {g:?}"))
                        })
                    })
                    .transpose()?,
            };
        let propagation = body
            .get("propagationPolicy")
            .and_then(Value::as_str)
            .or(query_propagation)
            .map(str::to_string);
        if let Some(p) = &propagation
            && !matches!(p.as_str(), "Orphan" | "Background" | "Foreground")
        {
            return Err(ApiError::unprocessable(format!(
                "DeleteOptions.meta.k8s.io \"\" is invalid: propagationPolicy: Unsupported value: \"{p}\": supported values: \"Foreground\", \"Background\", \"Orphan\""
            )));
        }
        let pre = body.get("preconditions");
        let text = |k: &str| {
            pre.and_then(|p| p.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let body_dry_run = body
            .get("dryRun")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|v| v == "All"));
        Ok(DeleteOptions {
            grace_period_seconds: grace,
            propagation_policy: propagation,
            precondition_uid: text("uid"),
            precondition_resource_version: text("resourceVersion"),
            dry_run: dry_run || body_dry_run,
        })
    }
}

/// What a DELETE did.
#[derive(Debug, Clone)]
pub enum Deleted {
    /// Removed from the store: the object's last state.
    Gone(Arc<Value>),
    /// Marked for deletion; finalizers or a grace period hold it.
    Pending(Arc<Value>),
}

impl State {
    pub fn delete(
        &mut self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
        opts: &DeleteOptions,
    ) -> Result<Deleted, ApiError> {
        let (loc, old) = self.existing(rt, namespace, name)?;
        check_preconditions(&loc, &old, opts)?;
        let mut new = (*old).clone();
        let mut finalizers = object::finalizers(&new);
        match opts.propagation_policy.as_deref() {
            Some("Orphan") if !finalizers.iter().any(|f| f == "orphan") => {
                finalizers.push("orphan".into())
            }
            Some("Foreground") if !finalizers.iter().any(|f| f == "foregroundDeletion") => {
                finalizers.push("foregroundDeletion".into())
            }
            _ => {}
        }
        if rt.resource == "namespaces" && rt.group.is_empty() && !object::is_deleting(&new) {
            new["spec"] = json!({"finalizers": ["kubernetes"]});
            new["status"] = json!({"phase": "Terminating"});
        }
        let grace = pod_grace_period(rt, &old, opts);
        let is_new_deletion = !object::is_deleting(&old);
        if is_new_deletion || grace == Some(0) {
            let when = match grace {
                Some(g) if g > 0 => self
                    .clock
                    .now()
                    .checked_add(k8s_openapi::jiff::SignedDuration::from_secs(g))
                    .map(crate::runtime::clock::rfc3339_seconds)
                    .unwrap_or_else(|_| self.now()),
                _ => self.now(),
            };
            let meta = metadata_mut(&mut new);
            meta.insert("deletionTimestamp".into(), json!(when));
            meta.insert(
                "deletionGracePeriodSeconds".into(),
                json!(grace.unwrap_or(0)),
            );
        }
        object::set_finalizers(&mut new, finalizers.clone());
        let held = !finalizers.is_empty() || grace.is_some_and(|g| g > 0) || is_namespace(rt);
        if opts.dry_run {
            return Ok(if held {
                Deleted::Pending(Arc::new(new))
            } else {
                Deleted::Gone(old)
            });
        }
        if !held {
            let rv = self.store.next_resource_version();
            metadata_mut(&mut new).insert("resourceVersion".into(), json!(rv.to_string()));
            let last = self.store.remove(&loc, new, rv).unwrap_or(old.clone());
            self.after_change(rt, &loc, Some(&old), None);
            return Ok(Deleted::Gone(last));
        }
        let stored = if new == *old {
            old.clone()
        } else {
            self.store_update(rt, &loc, new, &old)
        };
        self.run_finalizers_we_own(rt, &loc);
        let current = self.store.get(&loc.key, &loc.store_key).cloned();
        Ok(match current {
            Some(o) => Deleted::Pending(o),
            None => Deleted::Gone(stored),
        })
    }
}

fn is_namespace(rt: &ResourceType) -> bool {
    rt.resource == "namespaces" && rt.group.is_empty()
}

fn check_preconditions(loc: &Location, old: &Value, opts: &DeleteOptions) -> Result<(), ApiError> {
    let name = object::name(old);
    if let Some(uid) = &opts.precondition_uid
        && uid != object::uid(old)
    {
        let why = format!(
            "Precondition failed: UID in precondition: {uid}, UID in object meta: {}",
            object::uid(old)
        );
        return Err(ApiError::conflict(&loc.key, name, &why));
    }
    if let Some(rv) = &opts.precondition_resource_version
        && rv != object::resource_version(old)
    {
        let why = format!(
            "Precondition failed: ResourceVersion in precondition: {rv}, ResourceVersion in object meta: {}",
            object::resource_version(old)
        );
        return Err(ApiError::conflict(&loc.key, name, &why));
    }
    Ok(())
}

/// A scheduled, running pod is deleted gracefully: it stays, terminating, until its kubelet
/// (or a delete with grace period 0) finishes it. Other objects have no grace period.
fn pod_grace_period(rt: &ResourceType, pod: &Value, opts: &DeleteOptions) -> Option<i64> {
    if rt.resource != "pods" || !rt.group.is_empty() {
        return None;
    }
    let scheduled = pod
        .pointer("/spec/nodeName")
        .and_then(Value::as_str)
        .is_some_and(|n| !n.is_empty());
    let finished = matches!(
        pod.pointer("/status/phase").and_then(Value::as_str),
        Some("Succeeded" | "Failed")
    );
    if !scheduled || finished {
        return Some(0);
    }
    let default = pod
        .pointer("/spec/terminationGracePeriodSeconds")
        .and_then(Value::as_i64)
        .unwrap_or(30);
    Some(opts.grace_period_seconds.unwrap_or(default).max(0))
}
