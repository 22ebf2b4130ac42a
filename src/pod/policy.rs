//! §4 Eviction policies: which one a job uses, and the pure parts of carrying it out (the
//! SoftEviction annotation, the External PDB's name, the evict reason, the retry backoff).

use std::collections::BTreeMap;
use std::time::Duration;

use crate::api::keys::{EVICT_POLICY, KOORD_EVICT_POLICY, KOORD_EVICT_REASON, KOORD_EVICT_TRIGGER};
use crate::runtime::options::EvictPolicy;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::DeleteOptions;
use k8s_openapi::jiff::Timestamp;
use serde::Serialize;

/// A policy label whose value this version does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPolicy {
    pub value: String,
    /// The label key it was read from.
    pub label: &'static str,
    /// Read from the pod (else from the job).
    pub on_pod: bool,
}

/// The wire spelling of a policy (exact, case-sensitive: the value Koordinator compares).
pub fn parse_policy(value: &str) -> Option<EvictPolicy> {
    match value {
        "Eviction" => Some(EvictPolicy::Eviction),
        "Delete" => Some(EvictPolicy::Delete),
        "SoftEviction" => Some(EvictPolicy::SoftEviction),
        "External" => Some(EvictPolicy::External),
        _ => None,
    }
}

/// The first of: the pod's `fleet-eviction.io/evict-policy`, the pod's
/// `koordinator.sh/evict-policy`, the job's label of either key (ours first), `default`.
/// The first label found decides: an unknown value is an error and never falls through to a
/// later source, since a typo must never turn a hand-off into an eviction. An empty value
/// counts as absent, as in Koordinator.
pub fn resolve(
    pod_labels: &BTreeMap<String, String>,
    job_labels: Option<&BTreeMap<String, String>>,
    default: EvictPolicy,
) -> Result<EvictPolicy, UnknownPolicy> {
    let sources = [
        (Some(pod_labels), EVICT_POLICY, true),
        (Some(pod_labels), KOORD_EVICT_POLICY, true),
        (job_labels, EVICT_POLICY, false),
        (job_labels, KOORD_EVICT_POLICY, false),
    ];
    for (labels, label, on_pod) in sources {
        let Some(value) = labels.and_then(|l| l.get(label)).filter(|v| !v.is_empty()) else {
            continue;
        };
        return parse_policy(value).ok_or_else(|| UnknownPolicy {
            value: value.clone(),
            label,
            on_pod,
        });
    }
    Ok(default)
}

/// `koordinator.sh/evict-reason`, else `koordinator.sh/evict-trigger`, else `NotSet`
/// (Koordinator's `GetEvictionTriggerAndReason`; empty values count as absent).
pub fn evict_reason(job_annotations: Option<&BTreeMap<String, String>>) -> &str {
    let get = |key: &str| {
        job_annotations
            .and_then(|a| a.get(key))
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    };
    get(KOORD_EVICT_REASON)
        .or_else(|| get(KOORD_EVICT_TRIGGER))
        .unwrap_or("NotSet")
}

/// `koordinator.sh/evict-trigger`, empty when absent: the SoftEviction `initiator`.
pub fn evict_trigger(job_annotations: Option<&BTreeMap<String, String>>) -> &str {
    job_annotations
        .and_then(|a| a.get(KOORD_EVICT_TRIGGER))
        .map_or("", String::as_str)
}

/// Koordinator's `SoftEvictionSpec`; fields in its order, empty ones left out (`omitempty`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SoftEvictionSpec<'a> {
    timestamp: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    delete_options: Option<&'a DeleteOptions>,
    #[serde(skip_serializing_if = "str::is_empty")]
    initiator: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    reason: &'a str,
}

/// The value of `scheduling.koordinator.sh/soft-eviction`:
/// `{"timestamp":…,"deleteOptions":…,"initiator":…,"reason":…}`, byte for byte what
/// Koordinator's SoftEviction evictor writes (initiator = the evict trigger, reason = the
/// evict reason).
pub fn soft_eviction_annotation(
    at: Timestamp,
    delete_options: Option<&DeleteOptions>,
    initiator: &str,
    reason: &str,
) -> String {
    let spec = SoftEvictionSpec {
        timestamp: super::facts::timestamp_text(at),
        delete_options,
        initiator,
        reason,
    };
    // A struct of strings and a k8s-openapi type: serialising cannot fail; should it ever,
    // an empty object still reads as "soft-evict now" to the handler.
    serde_json::to_string(&spec).unwrap_or_else(|_| "{}".to_string())
}

/// The External PDB's name: `fleet-eviction-` and the 64-bit FNV-1a hash of the job name in
/// 16 lower-case hex digits, 31 characters in all. A job name may be 253 characters with dots;
/// the hash keeps the PDB name a short DNS label, and FNV-1a is fixed by its definition, so
/// the name stays the same across versions and restarts (Rust's `DefaultHasher` does not
/// promise that). The PDB's label names the job, so a collision can never make us delete
/// another job's PDB.
pub fn pdb_name(job: &str) -> String {
    format!("fleet-eviction-{:016x}", fnv1a64(job.as_bytes()))
}

/// The value of the label `fleet-eviction.io/evacuation` (on the pod and on the PDB) for a
/// job: its name. A label value holds at most 63 characters while a job name may hold 253,
/// so a longer name is replaced by its PDB name, which is as unique and always fits; the
/// annotation `fleet-eviction.io/evacuation-requested` still carries the full name.
pub fn evacuation_label(job: &str) -> String {
    if job.len() <= 63 {
        job.to_string()
    } else {
        pdb_name(job)
    }
}

fn fnv1a64(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, b| (hash ^ u64::from(*b)).wrapping_mul(PRIME))
}

/// The longest pause between retries of a refused eviction (§2 step 9).
pub const MAX_RETRY_BACKOFF: Duration = Duration::from_secs(30);

/// The pause after the `refusals`-th refusal in a row: 1 s, 2 s, 4 s … capped at 30 s.
/// Deterministic (no jitter): PDB changes in the namespace re-trigger the job anyway, and the
/// per-member token bucket spreads the calls.
pub fn retry_backoff(refusals: u32) -> Duration {
    let exponent = refusals.saturating_sub(1).min(5);
    Duration::from_secs(1u64 << exponent).min(MAX_RETRY_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    const OURS: &str = "fleet-eviction.io/evict-policy";
    const KOORD: &str = "koordinator.sh/evict-policy";

    fn unknown(
        value: &str,
        label: &'static str,
        on_pod: bool,
    ) -> Result<EvictPolicy, UnknownPolicy> {
        Err(UnknownPolicy {
            value: value.into(),
            label,
            on_pod,
        })
    }

    #[test]
    fn resolution_table() {
        use EvictPolicy::*;
        type Row<'a> = (
            &'a str,
            Vec<(&'a str, &'a str)>,
            Option<Vec<(&'a str, &'a str)>>,
            Result<EvictPolicy, UnknownPolicy>,
        );
        let rows: Vec<Row> = vec![
            (
                "nothing set: the controller default",
                vec![],
                None,
                Ok(Delete),
            ),
            (
                "pod label, our key",
                vec![(OURS, "External")],
                None,
                Ok(External),
            ),
            (
                "pod label, Koordinator's key",
                vec![(KOORD, "SoftEviction")],
                None,
                Ok(SoftEviction),
            ),
            (
                "our pod key wins over Koordinator's pod key",
                vec![(OURS, "External"), (KOORD, "Eviction")],
                None,
                Ok(External),
            ),
            (
                "job label, our key",
                vec![],
                Some(vec![(OURS, "Eviction")]),
                Ok(Eviction),
            ),
            (
                "job label, Koordinator's key",
                vec![],
                Some(vec![(KOORD, "External")]),
                Ok(External),
            ),
            (
                "our job key wins over Koordinator's job key",
                vec![],
                Some(vec![(OURS, "SoftEviction"), (KOORD, "Eviction")]),
                Ok(SoftEviction),
            ),
            (
                "any pod label wins over any job label",
                vec![(KOORD, "Eviction")],
                Some(vec![(OURS, "External")]),
                Ok(Eviction),
            ),
            (
                "unknown pod value is an error",
                vec![(OURS, "Externl")],
                None,
                unknown("Externl", OURS, true),
            ),
            (
                "unknown value never falls through to a later source",
                vec![(OURS, "external")],
                Some(vec![(OURS, "External")]),
                unknown("external", OURS, true),
            ),
            (
                "unknown Koordinator pod value is an error too",
                vec![(KOORD, "Evict")],
                None,
                unknown("Evict", KOORD, true),
            ),
            (
                "unknown job value is an error",
                vec![],
                Some(vec![(KOORD, "x")]),
                unknown("x", KOORD, false),
            ),
            (
                "an empty value counts as absent",
                vec![(OURS, "")],
                Some(vec![(OURS, "External")]),
                Ok(External),
            ),
            (
                "values are case-sensitive",
                vec![(OURS, "delete")],
                None,
                unknown("delete", OURS, true),
            ),
        ];
        for (rule, pod, job, want) in rows {
            let job = job.map(|j| labels(&j));
            assert_eq!(
                resolve(&labels(&pod), job.as_ref(), Delete),
                want,
                "rule: {rule}"
            );
        }
    }

    #[test]
    fn evict_reason_table() {
        let reason = "koordinator.sh/evict-reason";
        let trigger = "koordinator.sh/evict-trigger";
        type Row<'a> = (&'a str, Option<Vec<(&'a str, &'a str)>>, &'a str);
        let rows: Vec<Row> = vec![
            ("no annotations: NotSet", None, "NotSet"),
            (
                "reason annotation",
                Some(vec![(reason, "node drain")]),
                "node drain",
            ),
            (
                "trigger when no reason",
                Some(vec![(trigger, "LowNodeLoad")]),
                "LowNodeLoad",
            ),
            (
                "reason wins over trigger",
                Some(vec![(reason, "r"), (trigger, "t")]),
                "r",
            ),
            (
                "empty reason falls back to the trigger",
                Some(vec![(reason, ""), (trigger, "t")]),
                "t",
            ),
            (
                "both empty: NotSet",
                Some(vec![(reason, ""), (trigger, "")]),
                "NotSet",
            ),
        ];
        for (rule, annotations, want) in rows {
            let annotations = annotations.map(|a| labels(&a));
            assert_eq!(evict_reason(annotations.as_ref()), want, "rule: {rule}");
        }
    }

    #[test]
    fn soft_eviction_annotation_table() {
        let at: Timestamp = "2026-03-01T10:00:00.750Z".parse().expect("time");
        let grace = DeleteOptions {
            grace_period_seconds: Some(30),
            ..Default::default()
        };
        let rows: Vec<(&str, Option<&DeleteOptions>, &str, &str, &str)> = vec![
            (
                "every field, in Koordinator's order, time in whole seconds",
                Some(&grace),
                "LowNodeLoad",
                "node hot",
                r#"{"timestamp":"2026-03-01T10:00:00Z","deleteOptions":{"gracePeriodSeconds":30},"initiator":"LowNodeLoad","reason":"node hot"}"#,
            ),
            (
                "absent deleteOptions and empty initiator are left out",
                None,
                "",
                "NotSet",
                r#"{"timestamp":"2026-03-01T10:00:00Z","reason":"NotSet"}"#,
            ),
            (
                "quotes in the reason are JSON-escaped",
                None,
                "t",
                "say \"hi\"",
                r#"{"timestamp":"2026-03-01T10:00:00Z","initiator":"t","reason":"say \"hi\""}"#,
            ),
        ];
        for (rule, options, initiator, reason, want) in rows {
            assert_eq!(
                soft_eviction_annotation(at, options, initiator, reason),
                want,
                "rule: {rule}"
            );
        }
    }

    #[test]
    fn pdb_name_table() {
        let long = "j".repeat(253);
        let rows: Vec<(&str, &str, &str)> = vec![
            // FNV-1a 64 of the empty string is its offset basis.
            (
                "empty name hashes to the FNV-1a offset basis",
                "",
                "fleet-eviction-cbf29ce484222325",
            ),
            // Published FNV-1a 64 test vector: "a" → af63dc4c8601ec8c.
            (
                "FNV-1a 64 test vector \"a\"",
                "a",
                "fleet-eviction-af63dc4c8601ec8c",
            ),
            (
                "FNV-1a 64 test vector \"foobar\"",
                "foobar",
                "fleet-eviction-85944171f73967e8",
            ),
        ];
        for (rule, job, want) in rows {
            assert_eq!(pdb_name(job), want, "rule: {rule}");
        }
        for job in ["migrate-web-1", "a.b.c", long.as_str(), "UPPER"] {
            let name = pdb_name(job);
            assert!(name.len() <= 63, "{job}: {name} is longer than a DNS label");
            assert!(
                name.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{job}: {name} is not DNS-label safe"
            );
            assert_eq!(pdb_name(job), name, "{job}: stable");
        }
        assert_ne!(
            pdb_name("job-1"),
            pdb_name("job-2"),
            "different jobs, different PDBs"
        );
    }

    #[test]
    fn evacuation_label_table() {
        let at_limit = "j".repeat(63);
        let over = "j".repeat(64);
        let rows: Vec<(&str, &str, String)> = vec![
            (
                "a job name is the label value",
                "migrate-web-1",
                "migrate-web-1".into(),
            ),
            ("63 characters still fit", &at_limit, at_limit.clone()),
            (
                "64 characters: the PDB name instead",
                &over,
                pdb_name(&over),
            ),
        ];
        for (rule, job, want) in rows {
            assert_eq!(evacuation_label(job), want, "rule: {rule}");
        }
    }

    #[test]
    fn retry_backoff_table() {
        let rows = [
            ("first refusal waits 1 s", 1, 1),
            ("zero is treated as the first", 0, 1),
            ("doubles", 2, 2),
            ("doubles again", 3, 4),
            ("16 s at the fifth", 5, 16),
            ("capped at 30 s from the sixth", 6, 30),
            ("stays capped", 40, 30),
            ("no overflow", u32::MAX, 30),
        ];
        for (rule, refusals, seconds) in rows {
            assert_eq!(
                retry_backoff(refusals),
                Duration::from_secs(seconds),
                "rule: {rule}"
            );
        }
    }
}
