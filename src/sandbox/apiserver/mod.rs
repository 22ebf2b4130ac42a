//! A Kubernetes-compatible API server, one per simulated cluster: faithful where our
//! controller, kube-rs and kubectl look (docs/sandbox-commands.md lists exactly where), served
//! over HTTP on 127.0.0.1 or in process as a `tower::Service`.
//!
//! Shape: `server::ApiServer` holds one `state::State` behind one lock — the `store` (tables,
//! resourceVersion counter, event ring, owner indexes) and the `registry` of served kinds.
//! `front` turns HTTP or in-process requests into `handler` calls; `resources` serves the
//! verbs; `write`, `delete` and `lifecycle` are the object life cycle; `budgets` and
//! `eviction` the PDB rules; `watch` streams changes.

pub mod accounting;
pub mod admit;
pub mod budgets;
pub mod builtin;
pub mod crd;
pub mod delete;
pub mod discovery;
pub mod eviction;
pub mod faults;
pub mod front;
pub mod handler;
pub mod lifecycle;
pub mod object;
pub mod openapi;
pub mod read;
pub mod registry;
pub mod reply;
pub mod resource;
pub mod resources;
pub mod rng;
pub mod route;
pub mod sandbox_api;
pub mod server;
pub mod state;
pub mod status;
pub mod store;
pub mod tables;
pub mod watch;
pub mod watch_event;
pub mod wire;
pub mod write;

/// The version `/version` reports: kubectl's version dispatcher picks 1.32 for it.
pub const GIT_VERSION: &str = "v1.32.0-sandbox";
