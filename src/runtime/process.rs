//! What every long-running subcommand (`run`, `member`) does around its work: logging set up,
//! an async runtime, SIGTERM/Ctrl-C turned into a shutdown trigger, and the exit code: 0 after
//! a clean shutdown, 1 when the work failed, 2 for a bad log filter.

use std::fmt::Display;
use std::future::Future;
use std::process::ExitCode;

use super::cli::EXIT_USAGE;
use super::options::ProcessArgs;
use super::shutdown::{self, ShutdownTrigger};
use super::telemetry::{self, TelemetryError};

/// Runs `work` until it returns; `work` gets the trigger that SIGTERM and Ctrl-C pull.
pub fn main<F, Fut, E>(process: &ProcessArgs, work: F) -> ExitCode
where
    F: FnOnce(ShutdownTrigger) -> Fut,
    Fut: Future<Output = Result<(), E>>,
    E: Display,
{
    if let Err(e) = telemetry::init(process) {
        eprintln!("fleet-eviction: {e}");
        return match e {
            TelemetryError::Filter { .. } => ExitCode::from(EXIT_USAGE),
            TelemetryError::Install(_) => ExitCode::FAILURE,
        };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!("cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(async {
        let (trigger, _) = shutdown::channel();
        let signals = shutdown::trigger_on_signal(trigger.clone());
        let result = work(trigger).await;
        signals.abort();
        result
    });
    // Nothing may outlive the run; do not wait on stragglers for long.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(()) => {
            tracing::info!("fleet-eviction stopped");
            ExitCode::SUCCESS
        }
        Err(e) => {
            tracing::error!("{e}");
            ExitCode::FAILURE
        }
    }
}
