//! `fleet-eviction sandbox`: start the embedded fleet on 127.0.0.1 and serve it until Ctrl-C.

use crate::runtime::clock::SystemClock;
use crate::runtime::shutdown;
use crate::sandbox::fleet::{Fleet, FleetOptions};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

/// What the command line asked for.
#[derive(Debug, Clone)]
pub struct SandboxRequest {
    pub members: usize,
    pub dir: Option<PathBuf>,
    pub scenario: Option<PathBuf>,
    pub no_controller: bool,
    pub seed: Option<u64>,
}

/// Nodes each simulated member starts with.
const NODES_PER_MEMBER: usize = 3;

pub fn main(request: SandboxRequest) -> ExitCode {
    if request.scenario.is_some() {
        eprintln!(
            "fleet-eviction: 'sandbox --scenario' is not available yet (planned: scripted demos from examples/scenarios/)"
        );
        return ExitCode::from(2);
    }
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| "warn".into());
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("fleet-eviction sandbox: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(serve(request))
}

async fn serve(request: SandboxRequest) -> ExitCode {
    // Listen for SIGTERM/Ctrl-C before anything starts, so a signal at any point stops cleanly.
    let (trigger, stopped) = shutdown::channel();
    let _listener = shutdown::trigger_on_signal(trigger);
    let seed = request.seed.unwrap_or_else(seed_from_time);
    let dir = request.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("fleet-eviction-sandbox-{}", std::process::id()))
    });
    let opts = FleetOptions {
        members: request.members,
        nodes_per_member: NODES_PER_MEMBER,
        dir,
        seed,
        clock: Arc::new(SystemClock),
    };
    let started = Instant::now();
    let fleet = match Fleet::start(&opts).await {
        Ok(f) => f,
        Err(e) => {
            eprintln!("fleet-eviction sandbox: {e}");
            return ExitCode::FAILURE;
        }
    };
    let dir = std::fs::canonicalize(&opts.dir).unwrap_or(opts.dir.clone());
    println!("seed: {seed}");
    println!(
        "hub: {} ({})",
        fleet.hub.http.url(),
        fleet.hub.kubeconfig.display()
    );
    println!(
        "members: {} registered in {:.2} s",
        fleet.members.len(),
        started.elapsed().as_secs_f64()
    );
    let controller = if request.no_controller {
        None
    } else {
        match crate::sandbox::attach::attach(&fleet).await {
            Ok(controller) => {
                println!(
                    "controller: attached, metrics on {}",
                    controller.metrics_url
                );
                Some(controller)
            }
            Err(e) => {
                eprintln!("fleet-eviction sandbox: {e}");
                return ExitCode::FAILURE;
            }
        }
    };
    println!("sandbox ready: {}", dir.display());
    stopped.wait().await;
    eprintln!("fleet-eviction sandbox: stopping");
    drop(controller);
    drop(fleet);
    ExitCode::SUCCESS
}

fn seed_from_time() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}
