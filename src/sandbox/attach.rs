//! The controller attached to the embedded fleet exactly as `fleet-eviction run` runs against
//! a real hub: the same command-line defaults, the hub reached over HTTP through the
//! kubeconfig the fleet wrote, the start-up CRD check, `/metrics`, `/healthz` and `/readyz`.

use crate::runtime::cli::{Cli, Command};
use crate::runtime::readiness::Readiness;
use crate::runtime::run::run_with_readiness;
use crate::runtime::shutdown::{self, ShutdownTrigger};
use crate::sandbox::fleet::Fleet;
use clap::Parser;
use std::time::Duration;
use tokio::task::JoinHandle;

/// How long the controller may take to check the CRDs and sync its caches.
const READY_WITHIN: Duration = Duration::from_secs(60);

/// The running controller; dropping it stops it.
pub struct AttachedController {
    trigger: ShutdownTrigger,
    task: Option<JoinHandle<()>>,
    /// Where its `/metrics`, `/healthz` and `/readyz` are served.
    pub metrics_url: String,
}

impl Drop for AttachedController {
    fn drop(&mut self) {
        self.trigger.trigger();
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// Starts `run` against the fleet's hub and waits until it is ready.
pub async fn attach(fleet: &Fleet) -> Result<AttachedController, String> {
    let port =
        free_port().map_err(|e| format!("cannot pick a port for the controller's metrics: {e}"))?;
    let metrics_addr = format!("127.0.0.1:{port}");
    let kubeconfig = fleet.hub.kubeconfig.display().to_string();
    let argv = [
        "fleet-eviction",
        "run",
        "--kubeconfig",
        &kubeconfig,
        "--metrics-addr",
        &metrics_addr,
        // One controller per sandbox: no one to elect against.
        "--leader-elect=false",
    ];
    let args = match Cli::try_parse_from(argv).map(|cli| cli.command) {
        Ok(Command::Run(args)) => args,
        Ok(_) => return Err("the controller's command line did not parse as `run`".into()),
        Err(e) => return Err(format!("the controller's command line: {e}")),
    };
    let (trigger, _) = shutdown::channel();
    let readiness = Readiness::new("starting");
    let (ended, ended_early) = tokio::sync::oneshot::channel();
    let task = tokio::spawn({
        let (trigger, readiness) = (trigger.clone(), readiness.clone());
        async move {
            let outcome = run_with_readiness(args, trigger, readiness).await;
            if let Err(e) = &outcome {
                tracing::error!("the attached controller stopped: {e}");
            }
            let _ = ended.send(outcome.map_err(|e| e.to_string()));
        }
    });
    let attached = AttachedController {
        trigger,
        task: Some(task),
        metrics_url: format!("http://{metrics_addr}/metrics"),
    };
    tokio::select! {
        () = readiness.wait_ready() => Ok(attached),
        outcome = ended_early => Err(match outcome {
            Ok(Err(e)) => format!("the controller did not start: {e}"),
            _ => "the controller stopped before it was ready".into(),
        }),
        () = tokio::time::sleep(READY_WITHIN) => Err(format!(
            "the controller was not ready within {} s",
            READY_WITHIN.as_secs()
        )),
    }
}

fn free_port() -> std::io::Result<u16> {
    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}
