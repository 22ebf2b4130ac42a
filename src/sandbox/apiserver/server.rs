//! One API server: its state, faults and accounting.

use super::accounting::{Accounting, CountKey, RequestRecord};
use super::builtin::INITIAL_NAMESPACES;
use super::faults::FaultSettings;
use super::rng::Rng;
use super::state::State;
use super::write::WriteOptions;
use crate::runtime::clock::{SharedClock, SystemClock};
use serde_json::json;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;
use tokio::sync::{broadcast, watch};

#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// The cluster's name, for logs and the request log.
    pub name: String,
    /// Seeds uids, generated names and injected faults.
    pub seed: u64,
    /// How many recent changes watches can resume from.
    pub ring_capacity: usize,
    pub clock: SharedClock,
    pub bookmark_interval: Duration,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            name: "cluster".into(),
            seed: 1,
            ring_capacity: 100_000,
            clock: Arc::new(SystemClock),
            bookmark_interval: Duration::from_secs(10),
        }
    }
}

#[derive(Debug)]
pub struct ApiServer {
    pub config: ServerConfig,
    state: Mutex<State>,
    faults: Mutex<FaultSettings>,
    fault_rng: Mutex<Rng>,
    accounting: Mutex<Accounting>,
    started: std::time::Instant,
    dropped: watch::Sender<u64>,
    reachable: watch::Sender<bool>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves consistent data: every write is one insert.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl ApiServer {
    pub fn new(config: ServerConfig) -> Arc<ApiServer> {
        // A watcher that falls this far behind is closed and resumes from the event ring.
        let (sender, _) = broadcast::channel(1024);
        let mut state = State::new(
            config.seed,
            config.ring_capacity,
            config.clock.clone(),
            sender,
        );
        if let Some(rt) = state.registry.get("", "v1", "namespaces") {
            for ns in INITIAL_NAMESPACES {
                let object = json!({"metadata": {"name": ns}, "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}});
                // The built-in names are valid; a failure here would be a bug in this table.
                let _ = state.create(&rt, None, object, &WriteOptions::default());
            }
        }
        Arc::new(ApiServer {
            fault_rng: Mutex::new(Rng::new(config.seed ^ 0x5eed)),
            config,
            state: Mutex::new(state),
            faults: Mutex::new(FaultSettings::default()),
            accounting: Mutex::new(Accounting::default()),
            started: std::time::Instant::now(),
            dropped: watch::channel(0).0,
            reachable: watch::channel(true).0,
        })
    }

    /// The state, for reads and writes from tests and simulations (no faults, not counted).
    pub fn state(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    pub fn faults(&self) -> FaultSettings {
        lock(&self.faults).clone()
    }

    pub fn set_faults(&self, faults: FaultSettings) {
        *lock(&self.faults) = faults;
    }

    pub fn set_unreachable(&self, unreachable: bool) {
        lock(&self.faults).unreachable = unreachable;
        self.reachable.send_replace(!unreachable);
        if unreachable {
            self.drop_watches();
        }
    }

    /// Follows reachability: HTTP connections are cut when it turns false.
    pub fn reachability(&self) -> watch::Receiver<bool> {
        self.reachable.subscribe()
    }

    pub fn is_unreachable(&self) -> bool {
        lock(&self.faults).unreachable
    }

    /// Ends every open watch; clients re-watch from their last resourceVersion.
    pub fn drop_watches(&self) {
        self.dropped.send_modify(|n| *n += 1);
    }

    pub fn watch_dropped(&self) -> watch::Receiver<u64> {
        self.dropped.subscribe()
    }

    pub(crate) fn injected_error(
        &self,
        verb: &str,
        resource: &str,
    ) -> Option<super::status::ApiError> {
        let faults = lock(&self.faults);
        if faults.errors.is_empty() {
            return None;
        }
        faults.injected_error(verb, resource, &mut lock(&self.fault_rng))
    }

    pub(crate) fn micros_since_start(&self) -> u64 {
        self.started.elapsed().as_micros() as u64
    }

    pub(crate) fn record(&self, record: RequestRecord) {
        lock(&self.accounting).record(record);
    }

    pub fn request_counts(&self) -> Vec<(CountKey, u64)> {
        lock(&self.accounting).counts()
    }

    pub fn request_count(&self, verb: &str, resource: &str) -> u64 {
        lock(&self.accounting).count(verb, resource)
    }

    pub fn request_log(&self) -> Vec<RequestRecord> {
        lock(&self.accounting).log()
    }

    pub fn reset_accounting(&self) {
        lock(&self.accounting).reset();
    }
}
