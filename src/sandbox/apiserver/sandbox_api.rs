//! `/sandbox/...`: fault controls and request counts over HTTP (no Kubernetes path uses the
//! prefix). The same controls are methods of `ApiServer` for in-process tests.
//!
//! - `GET /sandbox/faults`, `PUT /sandbox/faults` (a `FaultSettings` JSON body)
//! - `POST /sandbox/drop-watches`
//! - `GET /sandbox/requests` (counts by verb, resource and code), `DELETE` to reset
//! - `GET /sandbox/request-log`

use super::faults::FaultSettings;
use super::handler::Incoming;
use super::reply::Reply;
use super::server::ApiServer;
use super::status::ApiError;
use http::Method;
use serde_json::{Value, json};

pub fn serve(server: &ApiServer, req: &Incoming, parts: &[String]) -> Reply {
    let parts: Vec<&str> = parts.iter().map(String::as_str).collect();
    match (&req.method, parts.as_slice()) {
        (&Method::GET, ["faults"]) => {
            Reply::ok(serde_json::to_value(server.faults()).unwrap_or(Value::Null))
        }
        (&Method::PUT, ["faults"]) => match serde_json::from_slice::<FaultSettings>(&req.body) {
            Ok(f) => {
                let unreachable = f.unreachable;
                server.set_faults(f);
                server.set_unreachable(unreachable);
                Reply::ok(serde_json::to_value(server.faults()).unwrap_or(Value::Null))
            }
            Err(e) => ApiError::bad_request(format!("invalid fault settings: {e}")).into(),
        },
        (&Method::POST, ["drop-watches"]) => {
            server.drop_watches();
            Reply::ok(json!({"dropped": true}))
        }
        (&Method::GET, ["requests"]) => {
            let counts: Vec<Value> = server
                .request_counts()
                .into_iter()
                .map(|(k, n)| json!({"verb": k.verb, "resource": k.resource, "code": k.code, "count": n}))
                .collect();
            Reply::ok(json!({"seed": server.config.seed, "counts": counts}))
        }
        (&Method::DELETE, ["requests"]) => {
            server.reset_accounting();
            Reply::ok(json!({"reset": true}))
        }
        (&Method::GET, ["request-log"]) => {
            Reply::ok(serde_json::to_value(server.request_log()).unwrap_or(Value::Null))
        }
        _ => ApiError::no_route().into(),
    }
}
