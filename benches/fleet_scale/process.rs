//! The controller as its own process (for its memory alone): `fleet-eviction run` against
//! the hub served over HTTP, its log followed for readiness, its memory read from /proc.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

/// The log line `run` prints once every cache holds its first full list.
pub const SYNCED_LINE: &str = "eviction controller caches synced";
/// Log lines kept to explain a failure.
const LOG_TAIL: usize = 40;

/// The `fleet-eviction` binary and how it was found.
pub fn binary() -> (PathBuf, &'static str) {
    if let Some(path) = option_env!("CARGO_BIN_EXE_fleet-eviction") {
        return (
            PathBuf::from(path),
            "CARGO_BIN_EXE_fleet-eviction (Cargo builds it for the bench)",
        );
    }
    // target/<profile>/deps/fleet_scale-<hash> → target/<profile>/fleet-eviction
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

pub struct Controller {
    child: Child,
    pub pid: u32,
    tail: Arc<Mutex<VecDeque<String>>>,
    synced: watch::Receiver<bool>,
    started: Instant,
}

impl Controller {
    pub fn spawn(binary: &Path, kubeconfig: &Path) -> Result<Controller, String> {
        let mut child = Command::new(binary)
            .arg("run")
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args([
                "--leader-elect=false",
                "--enable-pod-migration=false",
                "--metrics-addr",
                "127.0.0.1:0",
                "--log-filter",
                "info",
            ])
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("starting {}: {e}", binary.display()))?;
        let pid = child.id().ok_or("the controller exited at once")?;
        let stderr = child.stderr.take().ok_or("no stderr pipe")?;
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let (synced_tx, synced) = watch::channel(false);
        tokio::spawn(follow_log(stderr, tail.clone(), synced_tx));
        Ok(Controller {
            child,
            pid,
            tail,
            synced,
            started: Instant::now(),
        })
    }

    /// Waits for the synced log line; returns the time since spawn.
    pub async fn synced(&mut self, limit: Duration) -> Result<Duration, String> {
        let waited = tokio::time::timeout(limit, self.synced.wait_for(|s| *s))
            .await
            .map(|r| r.is_ok());
        match waited {
            Ok(true) => Ok(self.started.elapsed()),
            Ok(false) => Err(format!(
                "the controller's log ended before '{SYNCED_LINE}':\n{}",
                self.tail()
            )),
            Err(_) => Err(format!(
                "no '{SYNCED_LINE}' within {limit:?}:\n{}",
                self.tail()
            )),
        }
    }

    pub fn memory_mib(&self) -> Result<(f64, f64), String> {
        memory_mib(&self.pid.to_string())
    }

    pub fn tail(&self) -> String {
        let tail = self.tail.lock().unwrap_or_else(PoisonError::into_inner);
        tail.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// SIGTERM (a clean shutdown), then SIGKILL if it has not exited within 5 s. Returns
    /// how it ended.
    pub async fn stop(mut self) -> String {
        let _ = std::process::Command::new("kill")
            .arg("-TERM")
            .arg(self.pid.to_string())
            .status();
        let asked = Instant::now();
        match tokio::time::timeout(Duration::from_secs(5), self.child.wait()).await {
            Ok(Ok(status)) => format!(
                "exited {:.1} s after SIGTERM ({status})",
                asked.elapsed().as_secs_f64()
            ),
            Ok(Err(e)) => format!("could not be waited for: {e}"),
            Err(_) => {
                let _ = self.child.start_kill();
                let _ = self.child.wait().await;
                "did not exit within 5 s of SIGTERM; killed".to_string()
            }
        }
    }
}

/// Reads the log to its end (so the pipe never fills), keeping the last lines.
async fn follow_log(
    stderr: tokio::process::ChildStderr,
    tail: Arc<Mutex<VecDeque<String>>>,
    synced: watch::Sender<bool>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        if line.contains(SYNCED_LINE) {
            synced.send_replace(true);
        }
        let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
        if tail.len() == LOG_TAIL {
            tail.pop_front();
        }
        tail.push_back(line);
    }
}
