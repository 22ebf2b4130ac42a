//! Table answers (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`) for get, list and
//! watch: a CRD's printer columns, or the generic columns for built-in kinds.

use super::handler::Incoming;
use super::read::ListPage;
use super::resource::ResourceType;
use super::status::ApiError;
use super::watch::Encoder;
use super::watch_event::encode_line;
use crate::runtime::clock::SharedClock;
use crate::sandbox::table::{self, Column, IncludeObject};
use serde_json::{Value, json};
use std::sync::Arc;

/// A CRD's printer columns, or the generic ones for built-in kinds and for a CRD whose
/// columns do not compile (as the real server falls back).
fn columns(rt: &ResourceType) -> Result<Vec<Column>, ApiError> {
    if rt.is_custom() {
        return Ok(table::crd_columns(rt.printer_columns.as_ref())
            .unwrap_or_else(|_| table::default_columns()));
    }
    Ok(table::default_columns())
}

fn include(req: &Incoming) -> Result<IncludeObject, ApiError> {
    IncludeObject::from_query(req.query.get("includeObject")).map_err(ApiError::bad_request)
}

pub fn single(
    rt: &ResourceType,
    object: &Value,
    req: &Incoming,
    now: i64,
) -> Result<Value, ApiError> {
    let cols = columns(rt)?;
    let row = table::row(&cols, object, include(req)?, now);
    let rv = super::object::resource_version(object);
    Ok(table::table(
        &cols,
        vec![row],
        json!({"resourceVersion": rv}),
    ))
}

pub fn list(
    rt: &ResourceType,
    page: &ListPage,
    req: &Incoming,
    now: i64,
) -> Result<Value, ApiError> {
    let cols = columns(rt)?;
    let include = include(req)?;
    let rows = page
        .items
        .iter()
        .map(|o| table::row(&cols, o, include, now))
        .collect();
    let mut metadata = json!({"resourceVersion": page.resource_version.to_string()});
    if let Some(token) = &page.continue_token {
        metadata["continue"] = json!(token);
    }
    Ok(table::table(&cols, rows, metadata))
}

/// Each watch event's object becomes a one-row Table; bookmarks and errors stay as they are.
pub fn watch_encoder(
    rt: &ResourceType,
    req: &Incoming,
    clock: SharedClock,
) -> Result<Encoder, ApiError> {
    let cols = columns(rt)?;
    let include = include(req)?;
    Ok(Encoder::Custom(Arc::new(move |event_type, object| {
        if matches!(event_type, "BOOKMARK" | "ERROR") {
            return encode_line(event_type, object);
        }
        let row = table::row(&cols, object, include, clock.now().as_second());
        let rv = super::object::resource_version(object);
        encode_line(
            event_type,
            &table::table(&cols, vec![row], json!({"resourceVersion": rv})),
        )
    })))
}
