//! Whether the process is ready to do its job, as `/readyz` reports it. Whoever learns
//! something (the start-up CRD check, later leader election or cache sync) sets it; the HTTP
//! server and anyone who must wait for readiness read it.

use std::sync::Arc;

use tokio::sync::watch;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadyState {
    Ready,
    /// Not ready, with a reason a human reading `/readyz` can act on.
    NotReady(String),
}

/// A shared, cloneable handle; all clones see the same state.
#[derive(Debug, Clone)]
pub struct Readiness {
    state: Arc<watch::Sender<ReadyState>>,
}

impl Readiness {
    pub fn new(initial_reason: impl Into<String>) -> Self {
        let (state, _) = watch::channel(ReadyState::NotReady(initial_reason.into()));
        Self {
            state: Arc::new(state),
        }
    }

    pub fn set_ready(&self) {
        self.state.send_replace(ReadyState::Ready);
    }

    pub fn set_not_ready(&self, reason: impl Into<String>) {
        self.state.send_replace(ReadyState::NotReady(reason.into()));
    }

    pub fn state(&self) -> ReadyState {
        self.state.borrow().clone()
    }

    /// Resolves once the state is `Ready` (at once if it already is).
    pub async fn wait_ready(&self) {
        let mut rx = self.state.subscribe();
        // The sender lives in `self`, so the channel cannot close while we wait.
        let _ = rx.wait_for(|state| *state == ReadyState::Ready).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn clones_share_one_state() {
        let readiness = Readiness::new("start-up check running");
        let reader = readiness.clone();
        assert_eq!(
            reader.state(),
            ReadyState::NotReady("start-up check running".into())
        );
        let waiter = tokio::spawn({
            let reader = reader.clone();
            async move { reader.wait_ready().await }
        });
        readiness.set_ready();
        tokio::time::timeout(std::time::Duration::from_secs(5), waiter)
            .await
            .expect("wait_ready resolves once ready")
            .expect("task");
        assert_eq!(reader.state(), ReadyState::Ready);
        readiness.set_not_ready("lost the lease");
        assert_eq!(
            reader.state(),
            ReadyState::NotReady("lost the lease".into())
        );
    }
}
