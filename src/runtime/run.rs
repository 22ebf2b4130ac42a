//! `fleet-eviction run`: the hub process. Start-up order matters: the HTTP server comes
//! first so `/healthz` answers (and `/readyz` explains what is pending) while the CRD check
//! runs; readiness is granted only after the check passed. Whatever ends the run, the HTTP
//! server is stopped and awaited before the process exits.

use std::process::ExitCode;
use std::sync::Arc;

use super::cli::EXIT_USAGE;
use super::clock::{SharedClock, SystemClock};
use super::crd_check::{self, CrdCheckError};
use super::http::{self, HttpError, HttpState};
use super::kubeconfig::{self, KubeconfigError};
use super::leader::{self, ElectionConfig, LeaderError};
use super::metrics::{Metrics, MetricsError};
use super::options::RunArgs;
use super::readiness::Readiness;
use super::shutdown::{Shutdown, ShutdownTrigger};
use crate::fleet::controller::{ControllerOptions, EvictionController};
use crate::member::{MemberRegistry, RegistryOptions};
use crate::pod::executor::work::ExecutorWork;

#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Kubeconfig(#[from] KubeconfigError),
    #[error("cannot build a client for the hub API server at {server}: {cause}")]
    Client { server: String, cause: String },
    #[error(transparent)]
    Metrics(#[from] MetricsError),
    #[error(transparent)]
    Http(#[from] HttpError),
    #[error(transparent)]
    CrdCheck(#[from] CrdCheckError),
    #[error(transparent)]
    Leadership(#[from] LeaderError),
}

/// Entry point of `fleet-eviction run`: exit 0 after a clean shutdown, 1 on failure, 2 for
/// invalid options.
pub fn main(args: RunArgs) -> ExitCode {
    if let Err(e) = args.validate() {
        eprintln!("fleet-eviction: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    let process = args.process.clone();
    super::process::main(&process, |trigger| run(args, trigger))
}

/// Runs the hub process until `trigger` fires (SIGTERM, Ctrl-C, or a caller that embeds
/// the controller) or start-up fails. Logging must already be set up.
pub async fn run(args: RunArgs, trigger: ShutdownTrigger) -> Result<(), RunError> {
    let readiness = Readiness::new("the start-up CRD check has not finished");
    run_with_readiness(args, trigger, readiness).await
}

/// [`run`], reporting readiness to `readiness` as well as on `/readyz` (an embedding caller
/// waits on it).
pub async fn run_with_readiness(
    args: RunArgs,
    trigger: ShutdownTrigger,
    readiness: Readiness,
) -> Result<(), RunError> {
    let shutdown = trigger.subscribe();
    tracing::info!(
        version = env!("CARGO_PKG_VERSION"),
        namespace = %args.namespace,
        leader_elect = args.leader_election.leader_elect,
        fleet_eviction = args.enable_fleet_eviction,
        pod_migration = args.enable_pod_migration,
        "fleet-eviction starting"
    );
    let config = kubeconfig::load(args.kubeconfig.as_deref()).await?;
    let server = kubeconfig::server_url(&config);
    let client = kube::Client::try_from(config).map_err(|e| RunError::Client {
        server: server.clone(),
        cause: super::error_chain::describe(&e),
    })?;

    let metrics = Arc::new(Metrics::new()?);
    let state = HttpState {
        metrics: metrics.clone(),
        readiness: readiness.clone(),
    };
    let http_server = http::start(args.process.metrics_addr, state, shutdown.clone()).await?;

    let outcome = start_and_wait(&args, &client, &server, &metrics, &readiness, &shutdown).await;

    trigger.trigger();
    if let Err(e) = http_server.await {
        tracing::warn!("the metrics server task ended abnormally: {e}");
    }
    outcome
}

async fn start_and_wait(
    args: &RunArgs,
    client: &kube::Client,
    server: &str,
    metrics: &Metrics,
    readiness: &Readiness,
    shutdown: &Shutdown,
) -> Result<(), RunError> {
    if args.enable_fleet_eviction {
        tracing::info!(server, "checking the hub's CRDs");
        tokio::select! {
            result = crd_check::check_hub(client, server) => result?,
            () = shutdown.wait() => return Ok(()),
        }
        tracing::info!("the hub's CRDs carry fleet-eviction's fields");
    } else {
        tracing::info!(
            "--enable-fleet-eviction=false: no hub CRD check and no eviction controller"
        );
    }
    if args.leader_election.leader_elect {
        return lead_then_act(args, client, metrics, readiness, shutdown).await;
    }
    // --leader-elect=false: this process acts alone, so it is the leader by definition.
    metrics
        .process
        .set_leader(&args.leader_election.lease_name, true);
    let acting = Acting::start(args, client, metrics);
    readiness.set_not_ready("the eviction controller's caches have not synced");
    tokio::select! {
        () = acting.synced() => {}
        () = shutdown.wait() => {
            acting.stop().await;
            return Ok(());
        }
    }
    readiness.set_ready();
    tracing::info!("fleet-eviction ready");
    shutdown.wait().await;
    acting.stop().await;
    Ok(())
}

/// With leader election: ready (as a standby) at once, acting only while holding the Lease.
/// Losing it stops the controller and ends the process with an error, so the orchestrator
/// restarts it as a fresh standby.
async fn lead_then_act(
    args: &RunArgs,
    client: &kube::Client,
    metrics: &Metrics,
    readiness: &Readiness,
    shutdown: &Shutdown,
) -> Result<(), RunError> {
    let election = &args.leader_election;
    metrics.process.set_leader(&election.lease_name, false);
    readiness.set_ready();
    tracing::info!(lease = %election.lease_name, "fleet-eviction ready; waiting to lead");
    let config = ElectionConfig {
        namespace: args.namespace.clone(),
        lease_name: election.lease_name.clone(),
        identity: leader::identity(),
        lease_duration: election.lease_duration,
        renew_deadline: election.renew_deadline,
        retry_period: election.retry_period,
        clock: Arc::new(SystemClock),
    };
    let (leading, mut is_leading) = tokio::sync::watch::channel(false);
    let api = kube::Api::namespaced(client.clone(), &args.namespace);
    let stop = shutdown.clone();
    let mut elector = tokio::spawn(leader::elect(api, config, leading, async move {
        stop.wait().await
    }));
    let leads = async { is_leading.wait_for(|l| *l).await.is_ok() };
    tokio::select! {
        true = leads => {}
        ended = &mut elector => return election_ended(ended),
    }
    metrics.process.set_leader(&election.lease_name, true);
    let acting = Acting::start(args, client, metrics);
    // The elector ends on shutdown (releasing the lease) or when a renewal is missed.
    let outcome = (&mut elector).await;
    acting.stop().await;
    metrics.process.set_leader(&election.lease_name, false);
    election_ended(outcome)
}

fn election_ended(
    ended: Result<Result<(), LeaderError>, tokio::task::JoinError>,
) -> Result<(), RunError> {
    match ended {
        Ok(Ok(())) => Ok(()),
        Ok(Err(lost)) => Err(RunError::Leadership(lost)),
        Err(e) => Err(RunError::Leadership(LeaderError::Ended(e.to_string()))),
    }
}

/// What the process runs while it may act: the eviction controller and the member registry,
/// each as enabled.
struct Acting {
    controller: Option<EvictionController>,
    registry: Option<MemberRegistry>,
}

impl Acting {
    fn start(args: &RunArgs, client: &kube::Client, metrics: &Metrics) -> Acting {
        let controller = args
            .enable_fleet_eviction
            .then(|| start_eviction_controller(args, client.clone(), metrics));
        let registry = args
            .enable_pod_migration
            .then(|| start_member_registry(args, client.clone(), metrics));
        Acting {
            controller,
            registry,
        }
    }

    /// The eviction controller's caches have synced (the registry is not waited for: a hub
    /// without members, or without the MemberCluster CRD, must not keep the process unready).
    async fn synced(&self) {
        if let Some(controller) = &self.controller {
            controller.synced().await;
        }
    }

    async fn stop(self) {
        if let Some(controller) = self.controller {
            controller.stop();
        }
        if let Some(registry) = self.registry {
            registry.stop().await;
        }
    }
}

/// The member registry: members discovered and probed, one PodMigrationJob executor per
/// registered member.
fn start_member_registry(
    args: &RunArgs,
    client: kube::Client,
    metrics: &Metrics,
) -> MemberRegistry {
    let options = RegistryOptions {
        namespace: args.namespace.clone(),
        probe_interval: args.member_probe_interval,
        clock: Arc::new(SystemClock),
    };
    let clock: SharedClock = Arc::new(SystemClock);
    let work = ExecutorWork::new(&args.pmj, clock, metrics.pod.clone());
    MemberRegistry::start(client, options, Arc::new(work), metrics.member.clone())
}

/// The eviction controller as `run` configures it; the embedded fleet attaches the same.
pub fn start_eviction_controller(
    args: &RunArgs,
    client: kube::Client,
    metrics: &Metrics,
) -> EvictionController {
    let options = ControllerOptions {
        workers: args.workers as usize,
        extended_ttl_default: args.extended_ttl_default,
        clock: Arc::new(SystemClock),
    };
    EvictionController::start(client, options, metrics.eviction.clone())
}
