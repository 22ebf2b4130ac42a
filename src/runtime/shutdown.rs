//! Shutdown: one trigger (fired by SIGTERM or Ctrl-C, or by a task that failed) fanned out
//! to every task through a `watch` channel, so each task finishes its own cleanup instead of
//! being dropped mid-write.

use std::sync::Arc;

use tokio::sync::watch;

/// Creates a connected trigger and listener.
pub fn channel() -> (ShutdownTrigger, Shutdown) {
    let (tx, rx) = watch::channel(false);
    (ShutdownTrigger { tx: Arc::new(tx) }, Shutdown { rx })
}

/// Fires the shutdown. Cloneable: the signal listener and failing tasks each hold one.
#[derive(Debug, Clone)]
pub struct ShutdownTrigger {
    tx: Arc<watch::Sender<bool>>,
}

impl ShutdownTrigger {
    pub fn trigger(&self) {
        self.tx.send_replace(true);
    }

    pub fn subscribe(&self) -> Shutdown {
        Shutdown {
            rx: self.tx.subscribe(),
        }
    }
}

/// Listens for the shutdown. Clone one per task.
#[derive(Debug, Clone)]
pub struct Shutdown {
    rx: watch::Receiver<bool>,
}

impl Shutdown {
    /// Resolves once shutdown is triggered. Also resolves when every trigger is gone, since
    /// then nothing could ever stop the task otherwise.
    pub async fn wait(&self) {
        let mut rx = self.rx.clone();
        let _ = rx.wait_for(|triggered| *triggered).await;
    }

    pub fn is_triggered(&self) -> bool {
        *self.rx.borrow()
    }
}

/// Resolves on SIGTERM (what Kubernetes sends) or Ctrl-C, naming the one that arrived.
pub async fn signal() -> std::io::Result<&'static str> {
    #[cfg(unix)]
    {
        let mut terminate =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        tokio::select! {
            _ = terminate.recv() => Ok("SIGTERM"),
            result = tokio::signal::ctrl_c() => result.map(|()| "Ctrl-C"),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.map(|()| "Ctrl-C")
    }
}

/// Spawns the task that turns the first signal into a shutdown. If the handlers cannot be
/// installed the process could never stop gracefully, so that shuts it down at once.
pub fn trigger_on_signal(trigger: ShutdownTrigger) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        match signal().await {
            Ok(name) => tracing::info!(signal = name, "shutting down"),
            Err(e) => tracing::error!("cannot listen for SIGTERM/Ctrl-C, shutting down: {e}"),
        }
        trigger.trigger();
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn trigger_reaches_every_listener() {
        let (trigger, shutdown) = channel();
        let other = trigger.subscribe();
        assert!(!shutdown.is_triggered());
        let waiters =
            [shutdown.clone(), other.clone()].map(|s| tokio::spawn(async move { s.wait().await }));
        trigger.trigger();
        for waiter in waiters {
            tokio::time::timeout(Duration::from_secs(5), waiter)
                .await
                .expect("listener wakes up")
                .expect("task");
        }
        assert!(shutdown.is_triggered() && other.is_triggered());
    }

    #[tokio::test]
    async fn dropping_every_trigger_releases_listeners() {
        let (trigger, shutdown) = channel();
        drop(trigger);
        tokio::time::timeout(Duration::from_secs(5), shutdown.wait())
            .await
            .expect("no trigger left: wait returns");
    }
}
