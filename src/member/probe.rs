//! One reachability probe: `GET /readyz`, falling back to `GET /version` when the server does
//! not offer `/readyz` to us (older servers, or RBAC that leaves out the health paths).
//! `/readyz` answering "not ready" is a failure, not a reason to fall back: the member's API
//! server is up but says it cannot serve.

use std::time::Duration;

use http::StatusCode;

use crate::runtime::error_chain::describe;

/// A probe that gets no answer within this long fails. It bounds a hung connection, which
/// the connect timeout does not cover.
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// What one answer means for reachability.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    Up,
    /// The server answered but keeps this path from us: ask another one.
    NotOffered(StatusCode),
    Down(String),
}

/// The meaning of an HTTP status from a health path.
pub fn classify(status: StatusCode) -> Answer {
    if status.is_success() {
        return Answer::Up;
    }
    match status {
        StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN | StatusCode::NOT_FOUND => {
            Answer::NotOffered(status)
        }
        _ => Answer::Down(format!("answered {status}")),
    }
}

/// Probes the member once: `Ok` when it answered, else what went wrong (for the log line).
pub async fn probe(client: &kube::Client) -> Result<(), String> {
    match tokio::time::timeout(PROBE_TIMEOUT, readyz_then_version(client)).await {
        Ok(result) => result,
        Err(_) => Err(format!("no answer within {}s", PROBE_TIMEOUT.as_secs())),
    }
}

async fn readyz_then_version(client: &kube::Client) -> Result<(), String> {
    match get(client, "/readyz").await {
        Answer::Up => Ok(()),
        Answer::Down(why) => Err(format!("/readyz {why}")),
        Answer::NotOffered(readyz) => match get(client, "/version").await {
            Answer::Up => Ok(()),
            Answer::Down(why) => Err(format!("/readyz answered {readyz}, /version {why}")),
            Answer::NotOffered(version) => Err(format!(
                "/readyz answered {readyz}, /version answered {version}"
            )),
        },
    }
}

async fn get(client: &kube::Client, path: &str) -> Answer {
    let request = match http::Request::get(path).body(kube::client::Body::empty()) {
        Ok(request) => request,
        Err(e) => return Answer::Down(format!("cannot build the request: {e}")),
    };
    match client.send(request).await {
        Ok(response) => {
            let status = response.status();
            // Read the (small) body so the connection can be reused by the next probe.
            if let Err(e) = response.into_body().collect_bytes().await {
                return Answer::Down(format!("answered {status}, then failed: {e}"));
            }
            classify(status)
        }
        Err(e) => Answer::Down(format!("failed: {}", describe(&e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_table() {
        let rows = [
            (StatusCode::OK, Answer::Up, "200: up"),
            (StatusCode::NO_CONTENT, Answer::Up, "any 2xx: up"),
            (
                StatusCode::NOT_FOUND,
                Answer::NotOffered(StatusCode::NOT_FOUND),
                "404: an older server without /readyz, try /version",
            ),
            (
                StatusCode::FORBIDDEN,
                Answer::NotOffered(StatusCode::FORBIDDEN),
                "403: RBAC without the health paths, try /version",
            ),
            (
                StatusCode::UNAUTHORIZED,
                Answer::NotOffered(StatusCode::UNAUTHORIZED),
                "401: try /version (anonymous access may differ)",
            ),
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                Answer::Down("answered 500 Internal Server Error".into()),
                "500 from /readyz: not ready is down, no fallback",
            ),
            (
                StatusCode::SERVICE_UNAVAILABLE,
                Answer::Down("answered 503 Service Unavailable".into()),
                "503: down",
            ),
            (
                StatusCode::TOO_MANY_REQUESTS,
                Answer::Down("answered 429 Too Many Requests".into()),
                "429: an overloaded server counts as a failure",
            ),
        ];
        for (status, want, rule) in rows {
            assert_eq!(classify(status), want, "rule: {rule}");
        }
    }
}
