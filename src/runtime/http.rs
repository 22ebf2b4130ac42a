//! The metrics and health HTTP server (`--metrics-addr`): `/metrics`, `/healthz`, `/readyz`.
//! Routing is a pure function of the request line and the shared state, so it is tested
//! without sockets; the socket loop around it only accepts, serves and drains.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http::{Method, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::Bytes;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;

use super::metrics::Metrics;
use super::readiness::{Readiness, ReadyState};
use super::shutdown::Shutdown;

/// Content type of the Prometheus text exposition format.
pub const METRICS_CONTENT_TYPE: &str = prometheus::TEXT_FORMAT;

/// A client that never finishes its request headers must not hold a connection forever.
const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long open connections get to finish after shutdown before they are cut.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error(
        "cannot listen on --metrics-addr {addr}: {source}. Pick a free address with --metrics-addr"
    )]
    Bind {
        addr: SocketAddr,
        #[source]
        source: std::io::Error,
    },
}

/// What the handlers read.
#[derive(Debug, Clone)]
pub struct HttpState {
    pub metrics: Arc<Metrics>,
    pub readiness: Readiness,
}

/// Binds early, so a taken port fails the start instead of a background task.
pub async fn bind(addr: SocketAddr) -> Result<TcpListener, HttpError> {
    TcpListener::bind(addr)
        .await
        .map_err(|source| HttpError::Bind { addr, source })
}

/// Binds `addr` (a taken port fails here) and serves in a task until `shutdown`.
pub async fn start(
    addr: SocketAddr,
    state: HttpState,
    shutdown: Shutdown,
) -> Result<tokio::task::JoinHandle<()>, HttpError> {
    let listener = bind(addr).await?;
    match listener.local_addr() {
        Ok(addr) => tracing::info!("serving /metrics, /healthz and /readyz on http://{addr}"),
        Err(e) => tracing::warn!("serving /metrics, /healthz and /readyz (address unknown: {e})"),
    }
    Ok(tokio::spawn(serve(listener, state, shutdown)))
}

/// Serves until `shutdown`, then lets open connections finish (bounded) and returns.
pub async fn serve(listener: TcpListener, state: HttpState, shutdown: Shutdown) {
    let mut connections = JoinSet::new();
    loop {
        tokio::select! {
            () = shutdown.wait() => break,
            accepted = listener.accept() => match accepted {
                Ok((stream, _peer)) => {
                    connections.spawn(serve_connection(stream, state.clone(), shutdown.clone()));
                }
                Err(e) => {
                    // Typically out of file descriptors: back off instead of spinning.
                    tracing::warn!("metrics server cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
            // Reap finished connections so the set does not grow for the process lifetime.
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let drained = tokio::time::timeout(DRAIN_TIMEOUT, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if drained.is_err() {
        connections.abort_all();
    }
}

async fn serve_connection(stream: TcpStream, state: HttpState, shutdown: Shutdown) {
    let service = service_fn(move |request: http::Request<hyper::body::Incoming>| {
        let response = respond(request.method(), request.uri().path(), &state);
        async move { Ok::<_, Infallible>(response) }
    });
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(HEADER_READ_TIMEOUT);
    let connection = builder.serve_connection(TokioIo::new(stream), service);
    let mut connection = std::pin::pin!(connection);
    let result = tokio::select! {
        result = connection.as_mut() => result,
        () = shutdown.wait() => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(e) = result {
        tracing::debug!("metrics server connection ended with an error: {e}");
    }
}

/// The response to `method path`.
pub fn respond(method: &Method, path: &str, state: &HttpState) -> Response<Full<Bytes>> {
    let known = matches!(path, "/metrics" | "/healthz" | "/readyz");
    if !known {
        return text(
            StatusCode::NOT_FOUND,
            "not found: try /metrics, /healthz or /readyz\n".into(),
        );
    }
    if method != Method::GET && method != Method::HEAD {
        let mut response = text(
            StatusCode::METHOD_NOT_ALLOWED,
            "method not allowed\n".into(),
        );
        response
            .headers_mut()
            .insert(header::ALLOW, header::HeaderValue::from_static("GET, HEAD"));
        return response;
    }
    match path {
        "/metrics" => match state.metrics.render() {
            Ok(body) => with_content_type(StatusCode::OK, body, METRICS_CONTENT_TYPE),
            Err(e) => text(StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")),
        },
        "/readyz" => match state.readiness.state() {
            ReadyState::Ready => text(StatusCode::OK, "ok".into()),
            ReadyState::NotReady(why) => {
                text(StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}"))
            }
        },
        // Alive as long as this task answers: the process has no state that could wedge
        // while the runtime still serves requests.
        _ => text(StatusCode::OK, "ok".into()),
    }
}

fn text(status: StatusCode, body: String) -> Response<Full<Bytes>> {
    with_content_type(status, body, "text/plain; charset=utf-8")
}

fn with_content_type(
    status: StatusCode,
    body: String,
    content_type: &'static str,
) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        header::HeaderValue::from_static(content_type),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn state() -> HttpState {
        HttpState {
            metrics: Arc::new(Metrics::new().expect("metrics")),
            readiness: Readiness::new("start-up CRD check has not finished"),
        }
    }

    async fn call(method: Method, path: &str, state: &HttpState) -> (StatusCode, String, String) {
        let response = respond(&method, path, state);
        let status = response.status();
        let content_type = response
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("body")
            .to_bytes();
        (
            status,
            content_type,
            String::from_utf8_lossy(&body).into_owned(),
        )
    }

    #[tokio::test]
    async fn routing_table() {
        let state = state();
        let cases: &[(Method, &str, StatusCode, &str, &str)] = &[
            (Method::GET, "/healthz", StatusCode::OK, "ok", "alive"),
            (
                Method::GET,
                "/readyz",
                StatusCode::SERVICE_UNAVAILABLE,
                "not ready: start-up CRD check has not finished",
                "not ready says why",
            ),
            (
                Method::GET,
                "/metrics",
                StatusCode::OK,
                "fleet_eviction_build_info",
                "metrics",
            ),
            (
                Method::HEAD,
                "/healthz",
                StatusCode::OK,
                "ok",
                "HEAD allowed",
            ),
            (
                Method::POST,
                "/metrics",
                StatusCode::METHOD_NOT_ALLOWED,
                "method",
                "read-only",
            ),
            (
                Method::GET,
                "/",
                StatusCode::NOT_FOUND,
                "/metrics",
                "root lists endpoints",
            ),
            (
                Method::GET,
                "/metrics/x",
                StatusCode::NOT_FOUND,
                "not found",
                "no prefix match",
            ),
        ];
        for (method, path, status, body, rule) in cases {
            let (got_status, _, got_body) = call(method.clone(), path, &state).await;
            assert_eq!(got_status, *status, "rule: {rule}");
            assert!(got_body.contains(body), "rule: {rule}: body {got_body:?}");
        }
        state.readiness.set_ready();
        let (status, _, body) = call(Method::GET, "/readyz", &state).await;
        assert_eq!(
            (status, body.as_str()),
            (StatusCode::OK, "ok"),
            "ready after the check"
        );
    }

    #[tokio::test]
    async fn metrics_use_the_text_exposition_content_type() {
        let (_, content_type, _) = call(Method::GET, "/metrics", &state()).await;
        assert_eq!(content_type, "text/plain; version=0.0.4");
    }

    #[tokio::test]
    async fn serves_over_tcp_and_stops_on_shutdown() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let listener = bind("127.0.0.1:0".parse().expect("addr"))
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (trigger, shutdown) = super::super::shutdown::channel();
        let server = tokio::spawn(serve(listener, state(), shutdown));
        let mut stream = TcpStream::connect(addr).await.expect("connect");
        stream
            .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            .await
            .expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).await.expect("read");
        assert!(response.starts_with("HTTP/1.1 200"), "{response}");
        assert!(response.ends_with("ok"), "{response}");
        trigger.trigger();
        tokio::time::timeout(Duration::from_secs(10), server)
            .await
            .expect("server stops after shutdown")
            .expect("task");
        assert!(TcpStream::connect(addr).await.is_err(), "listener closed");
    }

    #[tokio::test]
    async fn a_taken_port_is_a_clear_error() {
        let taken = bind("127.0.0.1:0".parse().expect("addr"))
            .await
            .expect("bind");
        let addr = taken.local_addr().expect("addr");
        let err = bind(addr).await.expect_err("port in use");
        assert!(err.to_string().contains("--metrics-addr"), "{err}");
    }
}
