//! A Kubernetes-compatible API server, one per simulated cluster: faithful where our
//! controller, kube-rs and kubectl look (docs/sandbox-commands.md lists exactly where), served
//! over HTTP on 127.0.0.1 or in process as a `tower::Service`.

pub mod builtin;
pub mod discovery;
pub mod object;
pub mod openapi;
pub mod registry;
pub mod resource;
pub mod route;
pub mod status;
pub mod store;
pub mod watch_event;
