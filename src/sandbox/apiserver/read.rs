//! GET of one object and LIST with selectors and pages.

use super::object;
use super::resource::ResourceType;
use super::state::State;
use super::status::ApiError;
use super::wire::to_wire;
use crate::sandbox::select::{
    FieldSelector, LabelSelector, field_value, unknown_field_message, unsupported_field_message,
};
use serde_json::Value;
use std::sync::Arc;

/// What a LIST or WATCH selects.
#[derive(Debug, Clone)]
pub struct Selection {
    pub namespace: Option<String>,
    pub labels: LabelSelector,
    pub fields: FieldSelector,
}

impl Selection {
    pub fn parse(
        rt: &ResourceType,
        namespace: Option<&str>,
        labels: Option<&str>,
        fields: Option<&str>,
    ) -> Result<Selection, ApiError> {
        let labels = LabelSelector::parse(labels.unwrap_or(""))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let fields = FieldSelector::parse(fields.unwrap_or(""))
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        for field in fields.fields() {
            if !supported_field(rt, field) {
                return Err(ApiError::bad_request(unsupported_message(rt, field)));
            }
        }
        Ok(Selection {
            namespace: namespace.map(str::to_string),
            labels,
            fields,
        })
    }

    /// From a request's `labelSelector` and `fieldSelector` parameters.
    pub fn from_query(
        rt: &ResourceType,
        namespace: Option<&str>,
        query: &super::route::Query,
    ) -> Result<Selection, ApiError> {
        Selection::parse(
            rt,
            namespace,
            query.get("labelSelector"),
            query.get("fieldSelector"),
        )
    }

    /// Whether the object (in wire form, where field names are the client's) is selected.
    pub fn matches(&self, wire: &Value) -> bool {
        if let Some(ns) = &self.namespace
            && object::namespace(wire) != ns
        {
            return false;
        }
        self.labels.matches(object::labels(wire)) && self.fields.matches(|f| field_value(wire, f))
    }
}

/// Field selectors the real server supports for the kinds we serve.
fn supported_field(rt: &ResourceType, field: &str) -> bool {
    if matches!(field, "metadata.name" | "metadata.namespace") {
        return true;
    }
    match (rt.group.as_str(), rt.resource.as_str()) {
        ("", "pods") => matches!(
            field,
            "spec.nodeName"
                | "spec.restartPolicy"
                | "spec.schedulerName"
                | "spec.serviceAccountName"
                | "spec.hostNetwork"
                | "status.phase"
                | "status.podIP"
                | "status.nominatedNodeName"
        ),
        ("", "nodes") => field == "spec.unschedulable",
        ("", "secrets") => field == "type",
        ("", "namespaces") => field == "status.phase",
        ("", "events") => {
            field.starts_with("involvedObject.")
                || matches!(field, "reason" | "reportingComponent" | "source" | "type")
        }
        ("events.k8s.io", "events") => {
            field.starts_with("regarding.")
                || matches!(field, "reason" | "reportingController" | "type")
        }
        _ => false,
    }
}

/// Custom resources and kinds with field selectors of their own word the refusal one way,
/// kinds with only the metadata fields another.
fn unsupported_message(rt: &ResourceType, field: &str) -> String {
    let own_fields = rt.is_custom()
        || (rt.group.is_empty()
            && matches!(
                rt.resource.as_str(),
                "pods" | "nodes" | "secrets" | "namespaces" | "events"
            ))
        || rt.group == "events.k8s.io";
    if own_fields {
        unsupported_field_message(field)
    } else {
        unknown_field_message(field)
    }
}

/// One page of a list.
#[derive(Debug, Clone)]
pub struct ListPage {
    pub items: Vec<Arc<Value>>,
    pub resource_version: u64,
    pub continue_token: Option<String>,
    pub remaining: Option<usize>,
}

impl State {
    pub fn get_object(
        &self,
        rt: &ResourceType,
        namespace: Option<&str>,
        name: &str,
    ) -> Result<Arc<Value>, ApiError> {
        let key = rt.storage_key();
        self.store
            .get(&key, &object::store_key(namespace.unwrap_or(""), name))
            .map(|o| to_wire(rt, o))
            .ok_or_else(|| ApiError::not_found(&key, name))
    }

    /// The selected objects in wire form, name order; without copying unselected ones.
    pub fn select(&self, rt: &ResourceType, selection: &Selection) -> Vec<Arc<Value>> {
        self.store
            .range(&rt.storage_key(), selection.namespace.as_deref())
            .map(|(_, o)| to_wire(rt, o))
            .filter(|o| selection.matches(o))
            .collect()
    }

    pub fn list(
        &mut self,
        rt: &ResourceType,
        selection: &Selection,
        limit: Option<usize>,
        continue_token: Option<&str>,
    ) -> Result<ListPage, ApiError> {
        let (rv, items, offset) = match continue_token.filter(|t| !t.is_empty()) {
            Some(token) => {
                let (id, offset) = parse_token(token)?;
                let (rv, items) = self.snapshots.get(id).ok_or_else(expired)?;
                (rv, items, offset)
            }
            None => (
                self.store.resource_version(),
                Arc::new(self.select(rt, selection)),
                0,
            ),
        };
        let limit = limit.filter(|l| *l > 0);
        let end = limit.map_or(items.len(), |l| offset.saturating_add(l).min(items.len()));
        let page: Vec<Arc<Value>> = items
            .get(offset..end)
            .map(<[_]>::to_vec)
            .unwrap_or_default();
        if end >= items.len() {
            return Ok(ListPage {
                items: page,
                resource_version: rv,
                continue_token: None,
                remaining: None,
            });
        }
        let id = match continue_token.and_then(|t| parse_token(t).ok()) {
            Some((id, _)) => id,
            None => self.snapshots.keep(rv, items.clone()),
        };
        Ok(ListPage {
            items: page,
            resource_version: rv,
            continue_token: Some(format!("{id}:{end}")),
            remaining: Some(items.len() - end),
        })
    }
}

fn parse_token(token: &str) -> Result<(u64, usize), ApiError> {
    let bad = || ApiError::bad_request(format!("invalid continue token {token:?}"));
    let (id, offset) = token.split_once(':').ok_or_else(bad)?;
    Ok((
        id.parse().map_err(|_| bad())?,
        offset.parse().map_err(|_| bad())?,
    ))
}

fn expired() -> ApiError {
    ApiError::gone(
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
    )
}
