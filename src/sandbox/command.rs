//! `fleet-eviction sandbox`: start the embedded fleet on 127.0.0.1, attach the controller,
//! then either play a scenario (and exit with its verdict) or serve until Ctrl-C.

use crate::runtime::clock::SystemClock;
use crate::runtime::shutdown::{self, Shutdown};
use crate::sandbox::attach::{AttachedController, attach};
use crate::sandbox::fleet::{Fleet, FleetOptions};
use crate::sandbox::scenario::{self, Scenario};
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

/// Nodes each simulated member starts with when no scenario says otherwise.
const NODES_PER_MEMBER: usize = 3;

/// `println!` that ignores a closed stdout (`... | head`): the run goes on and exits with its
/// own verdict instead of panicking on a broken pipe.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Exit code of an unreadable or invalid scenario file (a usage error, like a bad flag).
const EXIT_BAD_SCENARIO: u8 = 2;

pub fn main(request: SandboxRequest) -> ExitCode {
    // A bad file is refused before anything starts.
    let scenario = match &request.scenario {
        Some(path) => match scenario::load(path) {
            Ok(scenario) => Some(scenario),
            Err(e) => {
                eprintln!("fleet-eviction sandbox: {e}");
                return ExitCode::from(EXIT_BAD_SCENARIO);
            }
        },
        None => None,
    };
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
    runtime.block_on(serve(request, scenario))
}

async fn serve(request: SandboxRequest, scenario: Option<Scenario>) -> ExitCode {
    // Listen for SIGTERM/Ctrl-C before anything starts, so a signal at any point stops cleanly.
    let (trigger, stopped) = shutdown::channel();
    let _listener = shutdown::trigger_on_signal(trigger);
    let seed = request
        .seed
        .or(scenario.as_ref().and_then(|s| s.seed))
        .unwrap_or_else(seed_from_time);
    let own_dir = request.dir.is_none();
    let dir = request.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("fleet-eviction-sandbox-{}", std::process::id()))
    });
    let clock = Arc::new(SystemClock);
    let opts = match &scenario {
        Some(scenario) => scenario.fleet_options(dir, seed, clock),
        None => FleetOptions {
            members: request.members,
            nodes_per_member: NODES_PER_MEMBER,
            dir,
            seed,
            clock,
        },
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
    say!("seed: {seed}");
    say!(
        "hub: {} ({})",
        fleet.hub.http.url(),
        fleet.hub.kubeconfig.display()
    );
    say!(
        "members: {} registered in {:.2} s",
        fleet.members.len(),
        started.elapsed().as_secs_f64()
    );
    let code = {
        let _controller = match attach_controller(&fleet, !request.no_controller).await {
            Ok(controller) => controller,
            Err(e) => {
                eprintln!("fleet-eviction sandbox: {e}");
                return ExitCode::FAILURE;
            }
        };
        match &scenario {
            Some(scenario) => play(&fleet, scenario, &request, &dir, &stopped).await,
            None => {
                say!("sandbox ready: {}", dir.display());
                stopped.wait().await;
                eprintln!("fleet-eviction sandbox: stopping");
                ExitCode::SUCCESS
            }
        }
        // The controller detaches here, before the fleet it talks to stops.
    };
    drop(fleet);
    // Kubeconfigs of servers that no longer exist are only litter; a --dir is the user's.
    if own_dir {
        let _ = std::fs::remove_dir_all(&dir);
    }
    code
}

/// The eviction controller joins the started fleet here, exactly as `run` would attach it to
/// a real hub (`fleet.hub.kubeconfig`, members registered on the hub); `None` with
/// `--no-controller`. Dropping it stops the controller before the fleet it talks to.
async fn attach_controller(
    fleet: &Fleet,
    enabled: bool,
) -> Result<Option<AttachedController>, String> {
    if !enabled {
        return Ok(None);
    }
    let controller = attach(fleet).await?;
    say!(
        "controller: attached, metrics on {}",
        controller.metrics_url
    );
    Ok(Some(controller))
}

/// Plays `scenario` (a signal cuts it short) and turns its verdict into the exit code.
async fn play(
    fleet: &Fleet,
    scenario: &Scenario,
    request: &SandboxRequest,
    dir: &std::path::Path,
    stopped: &Shutdown,
) -> ExitCode {
    let name = scenario.name.clone().unwrap_or_else(|| {
        request
            .scenario
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default()
    });
    say!(
        "kubeconfigs: {} (kubectl --kubeconfig ... while it runs)",
        dir.display()
    );
    say!("\nscenario: {name}");
    if let Some(description) = &scenario.description {
        for line in description.trim_end().lines() {
            say!("  {line}");
        }
    }
    let mut stdout = std::io::stdout();
    tokio::select! {
        outcome = scenario::run(fleet, scenario, &mut stdout) => ExitCode::from(outcome.exit_code()),
        () = stopped.wait() => {
            eprintln!("fleet-eviction sandbox: stopped by a signal before the scenario ended");
            ExitCode::FAILURE
        }
    }
}

fn seed_from_time() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
}
