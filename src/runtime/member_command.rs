//! `fleet-eviction member --kubeconfig PATH`: the PodMigrationJob executor against one
//! cluster, without a hub. The same executor `run` starts per registered member; here the
//! member's CRDs are checked once at start-up and a failure ends the process (exit 1), since
//! nobody else would report it.

use std::process::ExitCode;
use std::sync::Arc;

use super::clock::SystemClock;
use super::crd_check::{self, CrdCheckError};
use super::http::{self, HttpError, HttpState};
use super::kubeconfig::{self, KubeconfigError};
use super::metrics::{Metrics, MetricsError};
use super::options::MemberArgs;
use super::readiness::Readiness;
use super::shutdown::ShutdownTrigger;
use crate::pod::executor::{Executor, ExecutorOptions};

#[derive(Debug, thiserror::Error)]
pub enum MemberError {
    #[error(transparent)]
    Kubeconfig(#[from] KubeconfigError),
    #[error("cannot build a client for the cluster's API server at {server}: {cause}")]
    Client { server: String, cause: String },
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error(transparent)]
    CrdCheck(#[from] CrdCheckError),
}

pub fn main(args: MemberArgs) -> ExitCode {
    let process = args.process.clone();
    super::process::main(&process, |trigger| run(args, trigger))
}

/// Runs the executor until `trigger` fires or start-up fails.
pub async fn run(args: MemberArgs, trigger: ShutdownTrigger) -> Result<(), MemberError> {
    let shutdown = trigger.subscribe();
    let config = kubeconfig::load(Some(&args.kubeconfig)).await?;
    let server = kubeconfig::server_url(&config);
    tracing::info!(version = env!("CARGO_PKG_VERSION"), %server, "fleet-eviction member starting");
    let client = kube::Client::try_from(config).map_err(|e| MemberError::Client {
        server: server.clone(),
        cause: super::error_chain::describe(&e),
    })?;
    let metrics = Arc::new(Metrics::new()?);
    let readiness = Readiness::new("the start-up CRD check has not finished");
    let state = HttpState {
        metrics: metrics.clone(),
        readiness: readiness.clone(),
    };
    let http_server = http::start(args.process.metrics_addr, state, shutdown.clone()).await?;
    let outcome = execute(&args, client, &server, &metrics, &readiness, &trigger).await;
    trigger.trigger();
    if let Err(e) = http_server.await {
        tracing::warn!("the metrics server task ended abnormally: {e}");
    }
    outcome
}

async fn execute(
    args: &MemberArgs,
    client: kube::Client,
    server: &str,
    metrics: &Metrics,
    readiness: &Readiness,
    trigger: &ShutdownTrigger,
) -> Result<(), MemberError> {
    let shutdown = trigger.subscribe();
    tokio::select! {
        result = crd_check::check_member(&client, server) => result?,
        () = shutdown.wait() => return Ok(()),
    }
    let options = ExecutorOptions::from_args(server, &args.pmj, Arc::new(SystemClock));
    let executor = Executor::start(client, options, metrics.pod.clone());
    readiness.set_not_ready("the executor's caches have not synced");
    tokio::select! {
        () = executor.synced() => {
            readiness.set_ready();
            tracing::info!("fleet-eviction member ready");
            shutdown.wait().await;
        }
        () = shutdown.wait() => {}
    }
    executor.stop().await;
    Ok(())
}
