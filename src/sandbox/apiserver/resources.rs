//! The verbs on a resource path.

use super::admit::FieldValidation;
use super::delete::{DeleteOptions, Deleted};
use super::handler::Incoming;
use super::read::{ListPage, Selection};
use super::reply::Reply;
use super::resource::ResourceType;
use super::route::ResourcePath;
use super::server::ApiServer;
use super::status::ApiError;
use super::tables;
use super::watch::{Encoder, Start, WatchOptions};
use super::wire::{from_wire, to_wire};
use super::write::{Part, WriteOptions, Written};
use crate::sandbox::patch::{self, PatchType};
use http::Method;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;

pub fn serve(server: &Arc<ApiServer>, req: &Incoming, path: &ResourcePath) -> Reply {
    match serve_checked(server, req, path) {
        Ok(reply) => reply,
        Err(e) => Reply::Error(e),
    }
}

fn serve_checked(
    server: &Arc<ApiServer>,
    req: &Incoming,
    path: &ResourcePath,
) -> Result<Reply, ApiError> {
    let rt = server
        .state()
        .registry
        .get(&path.group, &path.version, &path.resource)
        .ok_or_else(ApiError::no_route)?;
    if path.namespace.is_some() && !rt.namespaced {
        return Err(ApiError::no_route());
    }
    let ns = path.namespace.as_deref();
    let part = match path.subresource.as_deref() {
        None => Part::Main,
        Some("status") if rt.has_status() => Part::Status,
        Some("eviction") if rt.resource == "pods" && rt.group.is_empty() => {
            let name = path.name.as_deref().unwrap_or("");
            return match req.method {
                Method::POST => super::eviction::serve(server, &rt, ns, name, req),
                _ => Err(ApiError::method_not_allowed(
                    "the server does not allow this method on the requested resource",
                )),
            };
        }
        Some(_) => return Err(ApiError::no_route()),
    };
    match (&req.method, path.name.as_deref()) {
        (&Method::GET, Some(name)) => get(server, &rt, ns, name, req),
        (&Method::GET, None) if req.query.flag("watch") => watch(server, rt, ns, req),
        (&Method::GET, None) => list(server, &rt, ns, req),
        (&Method::POST, None) => create(server, &rt, ns, req),
        (&Method::PUT, Some(name)) => update(server, &rt, ns, name, part, req),
        (&Method::PATCH, Some(name)) => patch_object(server, &rt, ns, name, part, req),
        (&Method::DELETE, Some(name)) => delete(server, &rt, ns, name, req),
        (&Method::DELETE, None) => delete_collection(server, &rt, ns, req),
        _ => Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        )),
    }
}

fn get(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    name: &str,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let state = server.state();
    let object = state.get_object(rt, ns, name)?;
    if req.wants_table() {
        return Ok(Reply::ok(tables::single(
            rt,
            &object,
            req,
            state.now_seconds(),
        )?));
    }
    Ok(Reply::ok((*object).clone()))
}

fn list(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let selection = Selection::from_query(rt, ns, &req.query)?;
    let limit = req.query.get("limit").and_then(|l| l.parse::<usize>().ok());
    let mut state = server.state();
    let page = state.list(rt, &selection, limit, req.query.get("continue"))?;
    if req.wants_table() {
        return Ok(Reply::ok(tables::list(
            rt,
            &page,
            req,
            state.now_seconds(),
        )?));
    }
    drop(state);
    Ok(Reply::ok(list_body(rt, &page)))
}

fn list_body(rt: &ResourceType, page: &ListPage) -> Value {
    let mut metadata = json!({"resourceVersion": page.resource_version.to_string()});
    if let Some(token) = &page.continue_token {
        metadata["continue"] = json!(token);
    }
    if let Some(remaining) = page.remaining {
        metadata["remainingItemCount"] = json!(remaining);
    }
    let items: Vec<&Value> = page.items.iter().map(|i| i.as_ref()).collect();
    json!({"kind": format!("{}List", rt.kind), "apiVersion": rt.api_version(), "metadata": metadata, "items": items})
}

fn watch(
    server: &ApiServer,
    rt: Arc<ResourceType>,
    ns: Option<&str>,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let selection = Selection::from_query(&rt, ns, &req.query)?;
    let start = match req.query.get("resourceVersion").unwrap_or("") {
        "" | "0" => Start::Current,
        rv => Start::After(
            rv.parse()
                .map_err(|_| ApiError::bad_request(format!("invalid resource version: {rv}")))?,
        ),
    };
    let timeout = req
        .query
        .get("timeoutSeconds")
        .and_then(|t| t.parse::<u64>().ok())
        .map(Duration::from_secs);
    let opts = WatchOptions {
        start: if req.query.flag("sendInitialEvents") {
            Start::Current
        } else {
            start
        },
        bookmarks: req.query.flag("allowWatchBookmarks"),
        initial_events_end: req.query.flag("sendInitialEvents"),
        timeout,
        bookmark_interval: server.config.bookmark_interval,
    };
    let encoder = if req.wants_table() {
        tables::watch_encoder(&rt, req, server.config.clock.clone())?
    } else {
        Encoder::Json
    };
    let dropped = server.watch_dropped();
    let stream = server
        .state()
        .open_watch(rt, selection, &opts, encoder, dropped);
    Ok(Reply::Stream(Box::pin(stream)))
}

fn body_json(req: &Incoming) -> Result<Value, ApiError> {
    serde_json::from_slice(&req.body).map_err(|e| {
        ApiError::bad_request(format!(
            "the body of the request could not be decoded as JSON: {e}"
        ))
    })
}

fn write_options(req: &Incoming, is_patch: bool) -> Result<WriteOptions, ApiError> {
    let manager = req
        .query
        .get("fieldManager")
        .map(str::to_string)
        .unwrap_or_else(|| {
            req.header("user-agent")
                .split('/')
                .next()
                .unwrap_or("")
                .to_string()
        });
    Ok(WriteOptions {
        dry_run: dry_run(req)?,
        field_validation: FieldValidation::parse(req.query.get("fieldValidation"))?,
        field_manager: manager,
        is_patch,
    })
}

fn dry_run(req: &Incoming) -> Result<bool, ApiError> {
    match req.query.all("dryRun").as_slice() {
        [] => Ok(false),
        ["All"] => Ok(true),
        other => Err(ApiError::bad_request(format!(
            "Unsupported value: {:?}: supported values: \"All\"",
            other.join(",")
        ))),
    }
}

fn written(code: u16, w: Written, rt: &ResourceType, opts: &WriteOptions) -> Reply {
    let warnings = if opts.field_validation == FieldValidation::Warn {
        w.warnings
    } else {
        Vec::new()
    };
    Reply::Json(code, (*to_wire(rt, &w.object)).clone(), warnings)
}

/// The type writes go through: the served type itself, except for kinds stored in another
/// form (events.k8s.io Events are stored as core Events, after `from_wire`).
fn stored_type(state: &super::state::State, rt: &ResourceType) -> ResourceType {
    match rt.wire {
        super::resource::Wire::Same => rt.clone(),
        super::resource::Wire::EventsV1 => state
            .registry
            .for_storage(&rt.storage_key())
            .map_or_else(|| rt.clone(), |t| (*t).clone()),
    }
}

fn create(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    if rt.namespaced && ns.is_none() {
        return Err(ApiError::method_not_allowed(
            "the server does not allow this method on the requested resource",
        ));
    }
    let opts = write_options(req, false)?;
    let object = from_wire(rt, body_json(req)?);
    let mut state = server.state();
    let stored_as = stored_type(&state, rt);
    let w = state.create(&stored_as, ns, object, &opts)?;
    Ok(written(201, w, rt, &opts))
}

fn update(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    name: &str,
    part: Part,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let opts = write_options(req, false)?;
    let object = from_wire(rt, body_json(req)?);
    let mut state = server.state();
    let stored_as = stored_type(&state, rt);
    let w = state.update(&stored_as, ns, name, part, object, &opts)?;
    Ok(written(200, w, rt, &opts))
}

fn patch_object(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    name: &str,
    part: Part,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let content_type = req.header("content-type");
    let kind = PatchType::from_content_type(content_type)
        .ok_or_else(|| ApiError::unsupported_media_type(content_type))?;
    // No server-side apply; and custom resources have no strategic-merge metadata, so the
    // real server refuses that patch type for them too.
    if kind == PatchType::Apply || (kind == PatchType::Strategic && rt.is_custom()) {
        return Err(ApiError::unsupported_media_type(content_type));
    }
    let opts = write_options(req, true)?;
    let mut state = server.state();
    let current = state.get_object(rt, ns, name)?;
    let patched = patch::apply(kind, &current, &req.body).map_err(|e| match e {
        patch::PatchError::Malformed(m) => ApiError::bad_request(m),
        patch::PatchError::Unprocessable(m) => ApiError::unprocessable(m),
    })?;
    let stored_as = stored_type(&state, rt);
    let w = state.update(&stored_as, ns, name, part, from_wire(rt, patched), &opts)?;
    Ok(written(200, w, rt, &opts))
}

fn delete_options(req: &Incoming) -> Result<DeleteOptions, ApiError> {
    let body = if req.body.is_empty() {
        None
    } else {
        Some(body_json(req)?)
    };
    DeleteOptions::from_parts(
        body.as_ref(),
        req.query.get("gracePeriodSeconds"),
        req.query.get("propagationPolicy"),
        dry_run(req)?,
    )
}

fn delete(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    name: &str,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let opts = delete_options(req)?;
    let outcome = server.state().delete(rt, ns, name, &opts)?;
    let (Deleted::Gone(last) | Deleted::Pending(last)) = outcome;
    Ok(Reply::ok((*to_wire(rt, &last)).clone()))
}

fn delete_collection(
    server: &ApiServer,
    rt: &ResourceType,
    ns: Option<&str>,
    req: &Incoming,
) -> Result<Reply, ApiError> {
    let selection = Selection::from_query(rt, ns, &req.query)?;
    let opts = delete_options(req)?;
    let mut state = server.state();
    let selected = state.select(rt, &selection);
    let mut deleted = Vec::new();
    for object in selected {
        let (ns, name) = (
            super::object::namespace(&object).to_string(),
            super::object::name(&object).to_string(),
        );
        let ns = (!ns.is_empty()).then_some(ns);
        if let Ok(Deleted::Gone(o) | Deleted::Pending(o)) =
            state.delete(rt, ns.as_deref(), &name, &opts)
        {
            deleted.push((*to_wire(rt, &o)).clone());
        }
    }
    let rv = state.store.resource_version();
    Ok(Reply::ok(
        json!({"kind": format!("{}List", rt.kind), "apiVersion": rt.api_version(), "metadata": {"resourceVersion": rv.to_string()}, "items": deleted}),
    ))
}
