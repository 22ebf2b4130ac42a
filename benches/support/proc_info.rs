//! What the benchmarks read about the controller process they start: where the binary is, and
//! its memory from /proc.

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The `fleet-eviction` binary and how it was found.
pub fn binary() -> (PathBuf, &'static str) {
    if let Some(path) = option_env!("CARGO_BIN_EXE_fleet-eviction") {
        return (
            PathBuf::from(path),
            "CARGO_BIN_EXE_fleet-eviction (Cargo builds it for the bench)",
        );
    }
    // target/<profile>/deps/<bench>-<hash> → target/<profile>/fleet-eviction
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.join("fleet-eviction")))
        .unwrap_or_else(|| PathBuf::from("fleet-eviction"));
    (beside, "target/<profile>/fleet-eviction beside the bench")
}

/// Resident and peak resident memory of process `pid` ("self" for this one), in MiB.
pub fn memory_mib(pid: &str) -> Result<(f64, f64), String> {
    let path = format!("/proc/{pid}/status");
    let status = std::fs::read_to_string(&path).map_err(|e| format!("reading {path}: {e}"))?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|kb| kb.parse::<f64>().ok())
            .map(|kb| kb / 1024.0)
            .ok_or_else(|| format!("{path} has no {name}"))
    };
    Ok((field("VmRSS:")?, field("VmHWM:")?))
}

/// SIGTERM (a clean shutdown), then SIGKILL if the process has not exited within `grace`.
/// Returns how it ended.
pub async fn stop_process(child: &mut tokio::process::Child, pid: u32, grace: Duration) -> String {
    let _ = std::process::Command::new("kill")
        .arg("-TERM")
        .arg(pid.to_string())
        .status();
    let asked = Instant::now();
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(Ok(status)) => format!(
            "exited {:.1} s after SIGTERM ({status})",
            asked.elapsed().as_secs_f64()
        ),
        Ok(Err(e)) => format!("could not be waited for: {e}"),
        Err(_) => {
            let _ = child.start_kill();
            let _ = child.wait().await;
            format!(
                "did not exit within {} s of SIGTERM; killed",
                grace.as_secs()
            )
        }
    }
}
