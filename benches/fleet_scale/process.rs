//! The controller as its own process (for its memory alone): `fleet-eviction run` against
//! the hub served over HTTP, its log followed for readiness, its memory read from /proc.

use std::collections::VecDeque;
use std::path::Path;
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

use super::proc_info::stop_process;
pub use super::proc_info::{binary, memory_mib};

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

    /// SIGTERM (a clean shutdown), then SIGKILL if it has not exited within 5 s.
    pub async fn stop(mut self) -> String {
        stop_process(&mut self.child, self.pid, Duration::from_secs(5)).await
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
