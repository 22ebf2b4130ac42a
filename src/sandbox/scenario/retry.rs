//! Injected faults hit the scenario's own requests too (they are the user's requests). An
//! action retries what a patient user would retry — a busy or failing server, a dropped
//! connection — until a deadline, and gives up at once on a real answer (404, 422, ...).

use std::future::Future;
use std::time::Duration;

/// How long one action keeps retrying a busy or unreachable server.
pub const ACTION_DEADLINE: Duration = Duration::from_secs(10);
/// Pause between two tries.
pub const RETRY_PAUSE: Duration = Duration::from_millis(100);

/// Whether trying again may succeed: 429, 5xx, an injected 409 `Conflict` on a write that
/// carried no resourceVersion, or no answer at all.
pub fn is_transient(error: &kube::Error) -> bool {
    match error {
        kube::Error::Api(status) => {
            status.code == 429 || status.code >= 500 || status.reason == "Conflict"
        }
        kube::Error::Service(_) | kube::Error::HyperError(_) => true,
        _ => false,
    }
}

/// Runs `attempt` until it succeeds, fails for good, or [`ACTION_DEADLINE`] passes.
pub async fn retry_while_busy<T, F, Fut>(mut attempt: F) -> Result<T, kube::Error>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<T, kube::Error>>,
{
    let deadline = tokio::time::Instant::now() + ACTION_DEADLINE;
    loop {
        match attempt().await {
            Err(e) if is_transient(&e) && tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(RETRY_PAUSE).await;
            }
            other => return other,
        }
    }
}
