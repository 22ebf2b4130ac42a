//! The controller as its own process: `fleet-eviction run` against the sandbox hub over HTTP,
//! with the fleet-level controller off, so the process is the member registry and one
//! PodMigrationJob executor per registered member (as `run` starts them). Its JSON log is
//! followed for readiness (one "executor caches synced" line per member), its metrics address
//! and its warnings; its memory and CPU time are read from /proc.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, Command};
use tokio::sync::watch;

/// The line each member's executor logs once its caches hold their first full list.
pub const EXECUTOR_SYNCED: &str = "PodMigrationJob executor caches synced";
const METRICS_LINE: &str = "serving /metrics, /healthz and /readyz on ";
/// Log lines kept to explain a failure.
const LOG_TAIL: usize = 40;
/// Distinct warning/error messages kept as samples.
const SAMPLES: usize = 8;

use super::proc_info::stop_process;
pub use super::proc_info::{binary, memory_mib};

/// User + system CPU time of process `pid` ("self" for this one) so far.
pub fn cpu_time(pid: &str) -> Result<Duration, String> {
    let path = format!("/proc/{pid}/stat");
    let stat = std::fs::read_to_string(&path).map_err(|e| format!("reading {path}: {e}"))?;
    // The command name may hold spaces; the fields after it are space-separated.
    let rest = stat
        .rsplit_once(") ")
        .map(|(_, r)| r)
        .ok_or_else(|| format!("{path}: unexpected format"))?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
    let ticks = |i: usize| fields.get(i).and_then(|f| f.parse::<u64>().ok());
    let (Some(user), Some(system)) = (ticks(11), ticks(12)) else {
        return Err(format!("{path}: no utime/stime"));
    };
    Ok(Duration::from_secs_f64(
        (user + system) as f64 / clock_ticks() as f64,
    ))
}

/// CPU time the whole machine spent busy so far (every core's user, nice, system, irq,
/// softirq and steal time from /proc/stat).
pub fn machine_busy() -> Result<Duration, String> {
    let stat =
        std::fs::read_to_string("/proc/stat").map_err(|e| format!("reading /proc/stat: {e}"))?;
    let line = stat
        .lines()
        .find(|l| l.starts_with("cpu "))
        .ok_or("/proc/stat has no cpu line")?;
    let ticks: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is within user).
    let busy: u64 = ticks
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, t)| t)
        .sum();
    Ok(Duration::from_secs_f64(busy as f64 / clock_ticks() as f64))
}

fn clock_ticks() -> u64 {
    std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(100)
}

/// What the log has shown so far.
#[derive(Default)]
struct Log {
    tail: VecDeque<String>,
    synced_members: BTreeSet<String>,
    metrics_url: Option<String>,
    /// Count per level of WARN and ERROR lines, and a few distinct messages each.
    by_level: BTreeMap<String, usize>,
    samples: BTreeMap<String, usize>,
}

pub struct Controller {
    child: Child,
    pub pid: u32,
    log: Arc<Mutex<Log>>,
    synced: watch::Receiver<usize>,
    started: Instant,
}

impl Controller {
    /// Starts `fleet-eviction run` with `pmj_flags` appended.
    pub fn spawn(
        binary: &Path,
        kubeconfig: &Path,
        pmj_flags: &[String],
    ) -> Result<Controller, String> {
        let mut child = Command::new(binary)
            .arg("run")
            .arg("--kubeconfig")
            .arg(kubeconfig)
            .args([
                "--leader-elect=false",
                "--enable-fleet-eviction=false",
                "--enable-pod-migration=true",
                "--metrics-addr",
                "127.0.0.1:0",
                "--log-format",
                "json",
                "--log-filter",
                "info",
            ])
            .args(pmj_flags)
            .env_remove("RUST_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("starting {}: {e}", binary.display()))?;
        let pid = child.id().ok_or("the controller exited at once")?;
        let stderr = child.stderr.take().ok_or("no stderr pipe")?;
        let log = Arc::new(Mutex::new(Log::default()));
        let (synced_tx, synced) = watch::channel(0);
        tokio::spawn(follow_log(stderr, log.clone(), synced_tx));
        Ok(Controller {
            child,
            pid,
            log,
            synced,
            started: Instant::now(),
        })
    }

    fn log(&self) -> std::sync::MutexGuard<'_, Log> {
        self.log.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until `members` executors have logged their caches synced; the time since spawn.
    pub async fn executors_synced(
        &mut self,
        members: usize,
        limit: Duration,
    ) -> Result<Duration, String> {
        let waited = tokio::time::timeout(limit, self.synced.wait_for(|n| *n >= members))
            .await
            .map(|r| r.is_ok());
        match waited {
            Ok(true) => Ok(self.started.elapsed()),
            Ok(false) => Err(format!(
                "the controller's log ended before {members} × '{EXECUTOR_SYNCED}':\n{}",
                self.tail()
            )),
            Err(_) => Err(format!(
                "only {} of {members} executors logged '{EXECUTOR_SYNCED}' within {limit:?}:\n{}",
                *self.synced.borrow(),
                self.tail()
            )),
        }
    }

    pub fn memory_mib(&self) -> Result<(f64, f64), String> {
        memory_mib(&self.pid.to_string())
    }

    pub fn cpu_time(&self) -> Result<Duration, String> {
        cpu_time(&self.pid.to_string())
    }

    pub fn tail(&self) -> String {
        self.log()
            .tail
            .iter()
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// WARN/ERROR counts and samples: ("WARN", n), and (message, n) for a few messages.
    pub fn complaints(&self) -> (BTreeMap<String, usize>, BTreeMap<String, usize>) {
        let log = self.log();
        (log.by_level.clone(), log.samples.clone())
    }

    /// The controller's `/metrics` text.
    pub async fn metrics(&self) -> Result<String, String> {
        let url = self
            .log()
            .metrics_url
            .clone()
            .ok_or("the controller never logged its metrics address")?;
        let addr = url.trim_start_matches("http://").trim_end_matches('/');
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .map_err(|e| format!("connecting to {addr}: {e}"))?;
        let request = format!("GET /metrics HTTP/1.0\r\nHost: {addr}\r\n\r\n");
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|e| format!("asking {addr} for /metrics: {e}"))?;
        let mut body = String::new();
        stream
            .read_to_string(&mut body)
            .await
            .map_err(|e| format!("reading /metrics from {addr}: {e}"))?;
        Ok(body
            .split_once("\r\n\r\n")
            .map_or(body.clone(), |(_, b)| b.to_string()))
    }

    /// SIGTERM (a clean shutdown), then SIGKILL if it has not exited within 10 s.
    pub async fn stop(mut self) -> String {
        stop_process(&mut self.child, self.pid, Duration::from_secs(10)).await
    }
}

/// Reads the log to its end (so the pipe never fills).
async fn follow_log(
    stderr: tokio::process::ChildStderr,
    log: Arc<Mutex<Log>>,
    synced: watch::Sender<usize>,
) {
    let mut lines = BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let parsed: serde_json::Value = serde_json::from_str(&line).unwrap_or_default();
        let fields = &parsed["fields"];
        let message = fields["message"].as_str().unwrap_or_default();
        let level = parsed["level"].as_str().unwrap_or_default().to_string();
        let mut log = log.lock().unwrap_or_else(PoisonError::into_inner);
        if message == EXECUTOR_SYNCED {
            let member = fields["member"].as_str().unwrap_or_default().to_string();
            log.synced_members.insert(member);
            synced.send_replace(log.synced_members.len());
        }
        if let Some(url) = message.strip_prefix(METRICS_LINE) {
            log.metrics_url = Some(url.to_string());
        }
        if level == "WARN" || level == "ERROR" {
            *log.by_level.entry(level.clone()).or_default() += 1;
            // Keyed by level and message without the member, so members' repeats group.
            let key = format!("{level}: {message}");
            if log.samples.contains_key(&key) || log.samples.len() < SAMPLES {
                *log.samples.entry(key).or_default() += 1;
            }
        }
        if log.tail.len() == LOG_TAIL {
            log.tail.pop_front();
        }
        log.tail.push_back(line);
    }
}
