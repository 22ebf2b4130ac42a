//! The worker loop both controllers run: take a key from the queue, run one pass for it,
//! and requeue it at the time the pass asked for, or after a backoff when it failed; each pass
//! reported in controller-runtime's families.

use super::metrics::ControllerFamilies;
use super::work_queue::WorkQueue;
use k8s_openapi::jiff::Timestamp;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// The first retry after a failed pass; doubled per failure up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(50);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// A pass's error, as the error metric and the log line name it.
pub trait PassError: std::fmt::Display {
    fn metric_label(&self) -> &'static str;
}

/// Failures in a row per key, shared by a controller's workers.
pub type Failures = Arc<Mutex<HashMap<String, u32>>>;

/// Runs passes until the queue closes. `pass(key)` returns when to come back, if ever.
pub async fn work<F, Fut, E>(
    queue: WorkQueue,
    families: ControllerFamilies,
    controller: &'static str,
    failures: Failures,
    mut pass: F,
) where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Result<Option<Timestamp>, E>>,
    E: PassError,
{
    let labels = [controller];
    while let Some(key) = queue.next().await {
        families.active_workers.with_label_values(&labels).inc();
        let timer = families
            .reconcile_time_seconds
            .with_label_values(&labels)
            .start_timer();
        let result = pass(key.clone()).await;
        timer.observe_duration();
        let mut failed = failures.lock().unwrap_or_else(PoisonError::into_inner);
        let outcome = match result {
            Ok(wake) => {
                failed.remove(&key);
                match wake {
                    Some(at) => {
                        queue.add_at(&key, at);
                        "requeue_after"
                    }
                    None => "success",
                }
            }
            Err(e) => {
                let count = failed.entry(key.clone()).or_insert(0);
                *count += 1;
                let delay = backoff(*count);
                tracing::warn!(%key, error = e.metric_label(), retry_in_ms = delay.as_millis() as u64, "{e}");
                families
                    .reconcile_errors_total
                    .with_label_values(&labels)
                    .inc();
                queue.add_after(&key, delay);
                "error"
            }
        };
        drop(failed);
        families
            .reconcile_total
            .with_label_values(&[controller, outcome])
            .inc();
        queue.done(&key);
        families.active_workers.with_label_values(&labels).dec();
    }
}

fn backoff(failures: u32) -> Duration {
    let factor = 2u32.saturating_pow(failures.saturating_sub(1).min(16));
    FIRST_BACKOFF.saturating_mul(factor).min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps() {
        let rows = [
            (1, 50),
            (2, 100),
            (3, 200),
            (10, 25_600),
            (11, 30_000),
            (40, 30_000),
        ];
        for (failures, ms) in rows {
            assert_eq!(
                backoff(failures),
                Duration::from_millis(ms),
                "after {failures} failures"
            );
        }
    }
}
