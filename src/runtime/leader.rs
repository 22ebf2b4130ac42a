//! Leader election on a coordination.k8s.io Lease, with PUT + resourceVersion (no
//! server-side apply). Only the leader acts; a leader that misses its renewal deadline stops
//! acting at once, because another replica may take the lease as soon as it expires.

use super::clock::SharedClock;
use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::{SignedDuration, Timestamp};
use kube::api::{Api, ObjectMeta, PostParams};
use std::time::Duration;
use tokio::sync::watch;

/// What this replica sees of the lease.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    pub holder: Option<String>,
    pub renewed: Option<Timestamp>,
    pub duration: Duration,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Nobody holds a valid lease: take it.
    Acquire,
    /// We hold it: renew it.
    Renew,
    /// Someone else holds it until `expires`.
    Standby { holder: String, expires: Timestamp },
}

/// The decision of one election round.
pub fn decide(lease: Option<&Observed>, me: &str, now: Timestamp) -> Verdict {
    let Some(lease) = lease else {
        return Verdict::Acquire;
    };
    let holder = match lease.holder.as_deref() {
        None | Some("") => return Verdict::Acquire,
        Some(holder) => holder,
    };
    if holder == me {
        return Verdict::Renew;
    }
    let Some(renewed) = lease.renewed else {
        return Verdict::Acquire;
    };
    let duration = SignedDuration::try_from(lease.duration).unwrap_or(SignedDuration::MAX);
    let expires = renewed.saturating_add(duration).unwrap_or(Timestamp::MAX);
    if expires <= now {
        Verdict::Acquire
    } else {
        Verdict::Standby {
            holder: holder.to_string(),
            expires,
        }
    }
}

#[derive(Debug, Clone)]
pub struct ElectionConfig {
    pub namespace: String,
    pub lease_name: String,
    pub identity: String,
    pub lease_duration: Duration,
    pub renew_deadline: Duration,
    pub retry_period: Duration,
    pub clock: SharedClock,
}

#[derive(Debug, thiserror::Error)]
pub enum LeaderError {
    #[error("lost the lease {namespace}/{name}: no renewal within {deadline:?}")]
    Lost {
        namespace: String,
        name: String,
        deadline: Duration,
    },
    #[error("leader election stopped unexpectedly: {0}")]
    Ended(String),
}

/// This replica's identity: the pod name when set, else the host name, plus the process id
/// so two processes on one host differ.
pub fn identity() -> String {
    let host = std::env::var("POD_NAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/proc/sys/kernel/hostname").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "fleet-eviction".into());
    format!("{host}_{}", std::process::id())
}

/// Runs the election until `stop` resolves (releasing the lease if held) or leadership is
/// lost. `leading` follows whether this replica may act.
pub async fn elect(
    api: Api<Lease>,
    config: ElectionConfig,
    leading: watch::Sender<bool>,
    stop: impl std::future::Future<Output = ()>,
) -> Result<(), LeaderError> {
    tokio::pin!(stop);
    let mut last_renewal: Option<Timestamp> = None;
    loop {
        // A hung request must not keep a leader that can no longer renew acting.
        let attempt = tokio::time::timeout(config.renew_deadline, round(&api, &config)).await;
        match attempt.unwrap_or(Ok(false)) {
            Ok(true) => {
                last_renewal = Some(config.clock.now());
                if !*leading.borrow() {
                    tracing::info!(lease = %config.lease_name, identity = %config.identity, "became the leader");
                }
                leading.send_replace(true);
            }
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(lease = %config.lease_name, "leader election round failed: {e}")
            }
        }
        if *leading.borrow() && missed(last_renewal, &config) {
            leading.send_replace(false);
            return Err(LeaderError::Lost {
                namespace: config.namespace.clone(),
                name: config.lease_name.clone(),
                deadline: config.renew_deadline,
            });
        }
        tokio::select! {
            () = &mut stop => break,
            () = tokio::time::sleep(config.retry_period) => {}
        }
    }
    if *leading.borrow() {
        leading.send_replace(false);
        release(&api, &config).await;
    }
    Ok(())
}

fn missed(last_renewal: Option<Timestamp>, config: &ElectionConfig) -> bool {
    let Some(last) = last_renewal else {
        return true;
    };
    let since = config.clock.now().duration_since(last);
    Duration::try_from(since).is_ok_and(|d| d > config.renew_deadline)
}

/// One round: read the lease, decide, write. `Ok(true)` when we hold the lease afterwards.
async fn round(api: &Api<Lease>, config: &ElectionConfig) -> kube::Result<bool> {
    let current = api.get_opt(&config.lease_name).await?;
    let observed = current.as_ref().map(|l| observe(l, config));
    let now = config.clock.now();
    let write = match (decide(observed.as_ref(), &config.identity, now), current) {
        (Verdict::Standby { .. }, _) => return Ok(false),
        (Verdict::Acquire | Verdict::Renew, None) => {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(config.lease_name.clone()),
                    namespace: Some(config.namespace.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(spec(config, now, now, 0)),
            };
            api.create(&PostParams::default(), &lease).await
        }
        (verdict, Some(mut lease)) => {
            let old = lease.spec.take().unwrap_or_default();
            let (acquired, transitions) = match verdict {
                Verdict::Renew => (
                    old.acquire_time.map_or(now, |t| t.0),
                    old.lease_transitions.unwrap_or(0),
                ),
                _ => (now, old.lease_transitions.unwrap_or(0) + 1),
            };
            lease.spec = Some(spec(config, acquired, now, transitions));
            api.replace(&config.lease_name, &PostParams::default(), &lease)
                .await
        }
    };
    match write {
        Ok(_) => Ok(true),
        // Someone else wrote first: decide again next round.
        Err(kube::Error::Api(s)) if s.is_conflict() || s.is_already_exists() => Ok(false),
        Err(e) => Err(e),
    }
}

fn observe(lease: &Lease, config: &ElectionConfig) -> Observed {
    let spec = lease.spec.clone().unwrap_or_default();
    Observed {
        holder: spec.holder_identity,
        renewed: spec.renew_time.map(|t| t.0),
        duration: spec
            .lease_duration_seconds
            .and_then(|s| u64::try_from(s).ok())
            .map_or(config.lease_duration, Duration::from_secs),
    }
}

fn spec(
    config: &ElectionConfig,
    acquired: Timestamp,
    renewed: Timestamp,
    transitions: i32,
) -> LeaseSpec {
    LeaseSpec {
        holder_identity: Some(config.identity.clone()),
        lease_duration_seconds: Some(
            config
                .lease_duration
                .as_secs()
                .try_into()
                .unwrap_or(i32::MAX),
        ),
        acquire_time: Some(MicroTime(acquired)),
        renew_time: Some(MicroTime(renewed)),
        lease_transitions: Some(transitions),
        ..LeaseSpec::default()
    }
}

/// Gives the lease up on a clean stop so another replica need not wait for it to expire.
async fn release(api: &Api<Lease>, config: &ElectionConfig) {
    let Ok(Some(mut lease)) = api.get_opt(&config.lease_name).await else {
        return;
    };
    let Some(spec) = lease.spec.as_mut() else {
        return;
    };
    if spec.holder_identity.as_deref() != Some(config.identity.as_str()) {
        return;
    }
    spec.holder_identity = None;
    if let Err(e) = api
        .replace(&config.lease_name, &PostParams::default(), &lease)
        .await
    {
        tracing::warn!(lease = %config.lease_name, "cannot release the lease: {e}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Timestamp {
        s.parse().expect("time")
    }

    fn lease(holder: Option<&str>, renewed: Option<&str>) -> Observed {
        Observed {
            holder: holder.map(Into::into),
            renewed: renewed.map(t),
            duration: Duration::from_secs(15),
        }
    }

    #[test]
    fn election_table() {
        let now = t("2026-01-01T00:00:20Z");
        let rows: Vec<(&str, Option<Observed>, Verdict)> = vec![
            ("no lease: take it", None, Verdict::Acquire),
            (
                "released (no holder): take it",
                Some(lease(None, Some("2026-01-01T00:00:19Z"))),
                Verdict::Acquire,
            ),
            (
                "empty holder: take it",
                Some(lease(Some(""), Some("2026-01-01T00:00:19Z"))),
                Verdict::Acquire,
            ),
            (
                "ours: renew, even if it looks expired",
                Some(lease(Some("me"), Some("2026-01-01T00:00:00Z"))),
                Verdict::Renew,
            ),
            (
                "another's, never renewed: take it",
                Some(lease(Some("other"), None)),
                Verdict::Acquire,
            ),
            (
                "another's, expired: take it",
                Some(lease(Some("other"), Some("2026-01-01T00:00:05Z"))),
                Verdict::Acquire,
            ),
            (
                "another's, valid: stand by until it expires",
                Some(lease(Some("other"), Some("2026-01-01T00:00:10Z"))),
                Verdict::Standby {
                    holder: "other".into(),
                    expires: t("2026-01-01T00:00:25Z"),
                },
            ),
        ];
        for (rule, observed, want) in rows {
            assert_eq!(decide(observed.as_ref(), "me", now), want, "rule: {rule}");
        }
    }
}
