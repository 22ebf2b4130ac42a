//! One HTTP request in, one answer out: faults and accounting around the dispatch.

use super::accounting::RequestRecord;
use super::reply::{Reply, ResponseBody};
use super::route::{self, Query, ResourcePath, Route};
use super::server::ApiServer;
use super::status::ApiError;
use super::{discovery, openapi, resources, sandbox_api};
use bytes::Bytes;
use http::{HeaderMap, Method, Request, Response};
use std::sync::Arc;

/// A request with its body read.
pub struct Incoming {
    pub method: Method,
    pub path: String,
    pub query: Query,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Incoming {
    pub fn from_request(req: Request<Bytes>) -> Incoming {
        let (parts, body) = req.into_parts();
        Incoming {
            method: parts.method,
            path: parts.uri.path().to_string(),
            query: Query::parse(parts.uri.query()),
            headers: parts.headers,
            body,
        }
    }

    pub fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
    }

    pub fn wants_table(&self) -> bool {
        self.header("accept")
            .split(',')
            .next()
            .is_some_and(|first| first.contains("as=Table"))
    }
}

/// Serves one request, with injected latency and errors, and records it.
pub async fn handle(server: Arc<ApiServer>, incoming: Incoming) -> Response<ResponseBody> {
    let route = route::parse(&incoming.path);
    let start = server.micros_since_start();
    let (verb, resource, namespace, name) = describe(&incoming, &route);
    let reply = if let Route::Sandbox(parts) = &route {
        sandbox_api::serve(&server, &incoming, parts)
    } else {
        let latency = server.faults().latency();
        if !latency.is_zero() {
            tokio::time::sleep(latency).await;
        }
        match server.injected_error(&verb, &resource) {
            Some(e) => Reply::Error(e),
            None => dispatch(&server, &incoming, route),
        }
    };
    let code = reply.code();
    if !matches!(route::parse(&incoming.path), Route::Sandbox(_)) {
        server.record(RequestRecord {
            verb,
            resource,
            namespace,
            name,
            code,
            start_us: start,
            end_us: server.micros_since_start(),
        });
    }
    reply.into_response()
}

fn dispatch(server: &Arc<ApiServer>, req: &Incoming, route: Route) -> Reply {
    let state = || server.state();
    match route {
        Route::Version => Reply::ok(discovery::version_info(super::GIT_VERSION)),
        Route::Health => Reply::Json(200, serde_json::Value::String("ok".into()), Vec::new()),
        Route::CoreVersions => Reply::ok(discovery::core_versions(req.header("host"))),
        Route::Groups => Reply::ok(discovery::group_list(&state().registry)),
        Route::Group(g) => discovery::group(&state().registry, &g)
            .map(Reply::ok)
            .unwrap_or_else(|| ApiError::no_route().into()),
        Route::GroupVersion(g, v) => discovery::resource_list(&state().registry, &g, &v)
            .map(Reply::ok)
            .unwrap_or_else(|| ApiError::no_route().into()),
        Route::OpenApiV3Index => Reply::ok(openapi::openapi_index(&state().registry)),
        Route::OpenApiV3(path) => openapi::openapi_document(&state().registry, &path)
            .map(Reply::ok)
            .unwrap_or_else(|| ApiError::no_route().into()),
        Route::OpenApiV2 | Route::Unknown | Route::Sandbox(_) => ApiError::no_route().into(),
        Route::Resource(path) => resources::serve(server, req, &path),
    }
}

/// The audit-style verb, resource, namespace and name of a request, for faults and counts.
fn describe(req: &Incoming, route: &Route) -> (String, String, String, String) {
    let Route::Resource(ResourcePath {
        resource,
        namespace,
        name,
        subresource,
        ..
    }) = route
    else {
        return (
            req.method.as_str().to_lowercase(),
            String::new(),
            String::new(),
            String::new(),
        );
    };
    let verb = match (&req.method, name.is_some()) {
        (&Method::GET, true) => "get",
        (&Method::GET, false) if req.query.flag("watch") => "watch",
        (&Method::GET, false) => "list",
        (&Method::POST, _) => "create",
        (&Method::PUT, _) => "update",
        (&Method::PATCH, _) => "patch",
        (&Method::DELETE, true) => "delete",
        (&Method::DELETE, false) => "deletecollection",
        _ => "other",
    };
    let resource = match subresource {
        Some(s) => format!("{resource}/{s}"),
        None => resource.clone(),
    };
    (
        verb.to_string(),
        resource,
        namespace.clone().unwrap_or_default(),
        name.clone().unwrap_or_default(),
    )
}
