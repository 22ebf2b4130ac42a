//! The two ways in: HTTP on a loopback port, and a `tower::Service` that kube's `Client`
//! uses in process without sockets.

use super::handler::{Incoming, handle};
use super::reply::ResponseBody;
use super::server::ApiServer;
use bytes::Bytes;
use http::{Request, Response};
use http_body_util::BodyExt;
use hyper_util::rt::{TokioExecutor, TokioIo};
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn unreachable_error(server: &ApiServer) -> io::Error {
    io::Error::new(
        io::ErrorKind::ConnectionReset,
        format!(
            "cluster {} is unreachable (injected fault)",
            server.config.name
        ),
    )
}

/// Reads the body, then serves; an unreachable server fails the transport instead, except
/// for its `/sandbox` controls (so a test can bring it back over HTTP).
async fn serve_one<B>(
    server: Arc<ApiServer>,
    req: Request<B>,
) -> Result<Response<ResponseBody>, BoxError>
where
    B: http_body::Body<Data = Bytes>,
    B::Error: Into<BoxError>,
{
    let controls = req.uri().path().starts_with("/sandbox/");
    if server.is_unreachable() && !controls {
        return Err(Box::new(unreachable_error(&server)));
    }
    let (parts, body) = req.into_parts();
    let body = body.collect().await.map_err(Into::into)?.to_bytes();
    let incoming = Incoming::from_request(Request::from_parts(parts, body));
    Ok(handle(server, incoming).await)
}

/// A kube `Client` served by `server` in process.
pub fn client(server: &Arc<ApiServer>) -> kube::Client {
    let server = server.clone();
    let service =
        tower::service_fn(move |req: Request<kube::client::Body>| serve_one(server.clone(), req));
    kube::Client::new(service, "default")
}

/// The server on a loopback port, until dropped or stopped.
#[derive(Debug)]
pub struct HttpFront {
    pub addr: SocketAddr,
    task: JoinHandle<()>,
}

impl HttpFront {
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn stop(&self) {
        self.task.abort();
    }
}

impl Drop for HttpFront {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Serves `server` over HTTP/1.1 on `addr` (port 0: any free port).
pub async fn serve_http(server: Arc<ApiServer>, addr: SocketAddr) -> io::Result<HttpFront> {
    let listener = TcpListener::bind(addr).await?;
    let addr = listener.local_addr()?;
    let task = tokio::spawn(accept_loop(server, listener));
    Ok(HttpFront { addr, task })
}

async fn accept_loop(server: Arc<ApiServer>, listener: TcpListener) {
    let mut connections = tokio::task::JoinSet::new();
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors and the like: back off instead of spinning.
                tracing::warn!(cluster = %server.config.name, "accept failed: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let server = server.clone();
        connections.spawn(async move {
            let mut cut = server.reachability();
            let service = hyper::service::service_fn(move |req| serve_one(server.clone(), req));
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            let conn = builder.serve_connection(TokioIo::new(stream), service);
            tokio::select! {
                _ = conn => {}
                // Dropping the connection closes the socket under the client's feet.
                _ = cut.wait_for(|reachable| !reachable) => {}
            }
        });
        // Reap finished connection tasks so the set does not grow without bound.
        while connections.try_join_next().is_some() {}
    }
}
