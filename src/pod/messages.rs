//! The wire contract of a PodMigrationJob's status and Events (pod-migration.md §2, §4):
//! Koordinator's strings exactly as its MigrationController writes them, and ours beside them.
//! Every string a user, a dashboard or a Koordinator tool may compare lives here and nowhere
//! else. Names and reasons inside messages are quoted like Go's `%q`, as Koordinator does.

use crate::api::go_quote::go_quote;

// Condition types we write.
pub const EVICTION: &str = "Eviction";
pub const EXTERNAL_EVACUATION: &str = "ExternalEvacuation";

// `status.status` words that are not condition types.
pub const STATUS_COMPLETE: &str = "Complete";
/// Both `status.status` and `status.reason` while gates hold the job (§2 step 8).
pub const WAIT_FOR_EVICTION_CONDITIONS: &str = "WaitForEvictionConditions";

// Reasons of `status.reason`, of our conditions, and of the Events that report them.
pub const REASON_TIMEOUT: &str = "Timeout";
pub const REASON_INVALID_POD_REF: &str = "InvalidPodRef";
pub const REASON_MISSING_POD: &str = "MissingPod";
pub const REASON_INVALID_MODE: &str = "InvalidMode";
pub const REASON_INVALID_EVICT_POLICY: &str = "InvalidEvictPolicy";
pub const REASON_RESERVATION_UNSUPPORTED: &str = "ReservationUnsupported";
pub const REASON_CONDITION_DENIED: &str = "EvictionConditionDenied";
pub const REASON_EVICTING: &str = "Evicting";
pub const REASON_EVICT_COMPLETE: &str = "EvictComplete";
/// `ExternalEvacuation=Unknown` while the external controller works (§4 External step 2).
pub const REASON_REQUESTED: &str = "Requested";
pub const REASON_EXTERNAL_FAILED: &str = "ExternalEvacuationFailed";
/// Ours, where the spec is silent: a `ttl` that is not a Go duration (only an older CRD
/// without our pattern lets one through) ends the job instead of silently never expiring.
pub const REASON_INVALID_TTL: &str = "InvalidTTL";
/// Ours, where the spec is silent: profiles would push the job past the CRD's 16 gates; the
/// update would be refused, and dropping a gate is never an option.
pub const REASON_TOO_MANY_EVICTION_CONDITIONS: &str = "TooManyEvictionConditions";

// Event reasons that are not status reasons.
/// Normal event on the Pod when it is evicted (Koordinator's evictor).
pub const EVENT_DESCHEDULED: &str = "Descheduled";
pub const EVENT_EXTERNAL_REQUESTED: &str = "ExternalEvacuationRequested";
/// Ours: Warning event on a PodMigrationJobProfile skipped for an invalid selector (§1).
pub const EVENT_INVALID_SELECTOR: &str = "InvalidSelector";
/// The `action` of every Event (events.k8s.io), as Koordinator records it.
pub const EVENT_ACTION: &str = "Migrating";

pub const TIMEOUT: &str = "Abort job caused by timeout";
pub const INVALID_POD_REF: &str = "Abort job caused by invalid PodRef";
pub const RESERVATION_UNSUPPORTED: &str = "Abort job caused by missing Reservation API (reservations.scheduling.koordinator.sh) on this cluster";

/// `"<ns>/<name>"`, the way Koordinator prints a `types.NamespacedName` with `%q`.
fn pod(namespace: &str, name: &str) -> String {
    go_quote(&format!("{namespace}/{name}"))
}

/// `Abort job caused by missing Pod "<ns>/<name>"`.
pub fn missing_pod(namespace: &str, name: &str) -> String {
    format!("Abort job caused by missing Pod {}", pod(namespace, name))
}

/// Ours: names the value found and the values this version knows.
pub fn invalid_mode(mode: &str) -> String {
    format!(
        "Abort job caused by invalid mode {}: expected EvictDirectly or ReservationFirst",
        go_quote(mode)
    )
}

/// Where an eviction policy was read from, for [`invalid_evict_policy`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PolicyOrigin<'a> {
    Pod { namespace: &'a str, name: &'a str },
    Job,
}

/// Ours: names the value, the label it came from and the object carrying it, so the typo can
/// be found and fixed; a typo never falls through to a default (§2 step 4).
pub fn invalid_evict_policy(value: &str, label: &str, origin: PolicyOrigin) -> String {
    let on = match origin {
        PolicyOrigin::Pod { namespace, name } => format!("of Pod {}", pod(namespace, name)),
        PolicyOrigin::Job => "of the job".to_string(),
    };
    format!(
        "Abort job caused by invalid eviction policy {} in label {} {on}: expected Eviction, Delete, SoftEviction or External",
        go_quote(value),
        go_quote(label)
    )
}

/// Ours: see [`REASON_INVALID_TTL`].
pub fn invalid_ttl(ttl: &str) -> String {
    format!(
        "Abort job caused by invalid ttl {}: expected a Go duration such as 90s, 5m or 1h30m",
        go_quote(ttl)
    )
}

/// Ours: see [`REASON_TOO_MANY_EVICTION_CONDITIONS`].
pub fn too_many_eviction_conditions(count: usize, max: usize, profiles: &[String]) -> String {
    format!(
        "Abort job caused by too many eviction conditions: {count} with those of profiles {}, at most {max} allowed",
        quoted_list(profiles)
    )
}

/// `Waiting for eviction conditions "a", "b"`: the gates not yet met, in the job's order.
pub fn waiting_for_eviction_conditions(gates: &[String]) -> String {
    format!("Waiting for eviction conditions {}", quoted_list(gates))
}

/// `Abort job caused by eviction condition "X" denied: <msg>`.
pub fn condition_denied(gate: &str, message: &str) -> String {
    format!(
        "Abort job caused by eviction condition {} denied: {message}",
        go_quote(gate)
    )
}

/// The `Eviction=False/Evicting` condition and the job's `Evicting` event:
/// `Pod "<ns>/<name>" evicted from node "<node>" by the reason "<reason>"`.
pub fn evicting(namespace: &str, name: &str, node: &str, reason: &str) -> String {
    format!(
        "Pod {} evicted from node {} by the reason {}",
        pod(namespace, name),
        go_quote(node),
        go_quote(reason)
    )
}

/// The Pod's `Descheduled` event: `Pod evicted from node "<node>" by the reason "<reason>"`.
pub fn descheduled(node: &str, reason: &str) -> String {
    format!(
        "Pod evicted from node {} by the reason {}",
        go_quote(node),
        go_quote(reason)
    )
}

/// The Warning `Evicting` event of a refused eviction:
/// `Failed evict Pod "<ns>/<name>" caused by <Status message>`.
pub fn evict_failed(namespace: &str, name: &str, status_message: &str) -> String {
    format!(
        "Failed evict Pod {} caused by {status_message}",
        pod(namespace, name)
    )
}

/// `Pod "<ns>/<name>" has been evicted`: the `EvictComplete` event and the final message.
pub fn evicted(namespace: &str, name: &str) -> String {
    format!("Pod {} has been evicted", pod(namespace, name))
}

/// `External evacuation of Pod "<ns>/<name>" requested`.
pub fn external_requested(namespace: &str, name: &str) -> String {
    format!(
        "External evacuation of Pod {} requested",
        pod(namespace, name)
    )
}

/// `Abort job caused by failed external evacuation: <msg>`.
pub fn external_failed(message: &str) -> String {
    format!("Abort job caused by failed external evacuation: {message}")
}

/// Ours: the Warning event on a skipped profile. `field` is `namespaceSelector` or `selector`.
pub fn invalid_selector(field: &str, why: &str) -> String {
    format!("Profile skipped: invalid {field}: {why}")
}

/// `"a", "b"`.
fn quoted_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| go_quote(i))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn fixed_strings_table() {
        let rows = [
            (
                "§2 condition type of the eviction step",
                EVICTION,
                "Eviction",
            ),
            (
                "§4 condition type of the hand-off",
                EXTERNAL_EVACUATION,
                "ExternalEvacuation",
            ),
            ("§2 step 10 status word", STATUS_COMPLETE, "Complete"),
            (
                "§2 step 8 status and reason",
                WAIT_FOR_EVICTION_CONDITIONS,
                "WaitForEvictionConditions",
            ),
            ("§2 step 2 reason", REASON_TIMEOUT, "Timeout"),
            ("§2 step 4 reason", REASON_INVALID_POD_REF, "InvalidPodRef"),
            ("§2 step 4 reason", REASON_MISSING_POD, "MissingPod"),
            ("§2 step 4 reason", REASON_INVALID_MODE, "InvalidMode"),
            (
                "§2 step 4 reason",
                REASON_INVALID_EVICT_POLICY,
                "InvalidEvictPolicy",
            ),
            (
                "§2 step 7 reason",
                REASON_RESERVATION_UNSUPPORTED,
                "ReservationUnsupported",
            ),
            (
                "§2 step 8 reason",
                REASON_CONDITION_DENIED,
                "EvictionConditionDenied",
            ),
            ("§2 step 9 reason and event", REASON_EVICTING, "Evicting"),
            (
                "§2 step 10 reason and event",
                REASON_EVICT_COMPLETE,
                "EvictComplete",
            ),
            ("§4 External step 2 reason", REASON_REQUESTED, "Requested"),
            (
                "§4 External step 3 reason",
                REASON_EXTERNAL_FAILED,
                "ExternalEvacuationFailed",
            ),
            ("§2 step 9 Pod event", EVENT_DESCHEDULED, "Descheduled"),
            (
                "§4 External step 2 event",
                EVENT_EXTERNAL_REQUESTED,
                "ExternalEvacuationRequested",
            ),
            ("Koordinator's event action", EVENT_ACTION, "Migrating"),
            ("§2 step 2 message", TIMEOUT, "Abort job caused by timeout"),
            (
                "§2 step 4 message",
                INVALID_POD_REF,
                "Abort job caused by invalid PodRef",
            ),
            (
                "§2 step 7 message",
                RESERVATION_UNSUPPORTED,
                "Abort job caused by missing Reservation API (reservations.scheduling.koordinator.sh) on this cluster",
            ),
        ];
        for (rule, got, want) in rows {
            assert_eq!(got, want, "rule: {rule}");
        }
    }

    #[test]
    fn formatted_messages_table() {
        let rows: Vec<(&str, String, &str)> = vec![
            (
                "§2 step 4 missing pod, %q of namespace/name",
                missing_pod("shop", "web-1"),
                r#"Abort job caused by missing Pod "shop/web-1""#,
            ),
            (
                "§2 step 8 waiting lists every gate quoted, in order",
                waiting_for_eviction_conditions(&strings(&["b", "a"])),
                r#"Waiting for eviction conditions "b", "a""#,
            ),
            (
                "§2 step 8 one gate",
                waiting_for_eviction_conditions(&strings(&["TrafficDrained"])),
                r#"Waiting for eviction conditions "TrafficDrained""#,
            ),
            (
                "§2 step 8 denial quotes the gate, not the message",
                condition_denied("RiskApproved", "change freeze"),
                r#"Abort job caused by eviction condition "RiskApproved" denied: change freeze"#,
            ),
            (
                "§2 step 9 Evicting condition and job event",
                evicting("shop", "web-1", "node-a", "NotSet"),
                r#"Pod "shop/web-1" evicted from node "node-a" by the reason "NotSet""#,
            ),
            (
                "§2 step 9 reason is %q-quoted like Go",
                evicting("shop", "web-1", "node-a", "say \"hi\""),
                r#"Pod "shop/web-1" evicted from node "node-a" by the reason "say \"hi\"""#,
            ),
            (
                "§2 step 9 unscheduled pod: empty node in quotes",
                evicting("shop", "web-1", "", "drain"),
                r#"Pod "shop/web-1" evicted from node "" by the reason "drain""#,
            ),
            (
                "§2 step 9 Descheduled event on the Pod",
                descheduled("node-a", "drain"),
                r#"Pod evicted from node "node-a" by the reason "drain""#,
            ),
            (
                "§2 step 9 refusal keeps the Status message as is",
                evict_failed(
                    "shop",
                    "web-1",
                    "Cannot evict pod as it would violate the pod's disruption budget.",
                ),
                r#"Failed evict Pod "shop/web-1" caused by Cannot evict pod as it would violate the pod's disruption budget."#,
            ),
            (
                "§2 step 10 evicted",
                evicted("shop", "web-1"),
                r#"Pod "shop/web-1" has been evicted"#,
            ),
            (
                "§4 External requested",
                external_requested("shop", "db-0"),
                r#"External evacuation of Pod "shop/db-0" requested"#,
            ),
            (
                "§4 External failed keeps the message as is",
                external_failed("volume \"data\" cannot move"),
                r#"Abort job caused by failed external evacuation: volume "data" cannot move"#,
            ),
            (
                "InvalidMode names the value and the known modes",
                invalid_mode("EvictDirect"),
                r#"Abort job caused by invalid mode "EvictDirect": expected EvictDirectly or ReservationFirst"#,
            ),
            (
                "InvalidEvictPolicy on a pod label names label and pod",
                invalid_evict_policy(
                    "Externl",
                    "fleet-eviction.io/evict-policy",
                    PolicyOrigin::Pod {
                        namespace: "shop",
                        name: "db-0",
                    },
                ),
                r#"Abort job caused by invalid eviction policy "Externl" in label "fleet-eviction.io/evict-policy" of Pod "shop/db-0": expected Eviction, Delete, SoftEviction or External"#,
            ),
            (
                "InvalidEvictPolicy on a job label",
                invalid_evict_policy("evict", "koordinator.sh/evict-policy", PolicyOrigin::Job),
                r#"Abort job caused by invalid eviction policy "evict" in label "koordinator.sh/evict-policy" of the job: expected Eviction, Delete, SoftEviction or External"#,
            ),
            (
                "InvalidTTL names the value",
                invalid_ttl("1 hour"),
                r#"Abort job caused by invalid ttl "1 hour": expected a Go duration such as 90s, 5m or 1h30m"#,
            ),
            (
                "TooManyEvictionConditions names the count and the profiles",
                too_many_eviction_conditions(17, 16, &strings(&["a", "b"])),
                r#"Abort job caused by too many eviction conditions: 17 with those of profiles "a", "b", at most 16 allowed"#,
            ),
            (
                "profile event names the selector field",
                invalid_selector("namespaceSelector", "bad"),
                "Profile skipped: invalid namespaceSelector: bad",
            ),
        ];
        for (rule, got, want) in rows {
            assert_eq!(got, want, "rule: {rule}");
        }
    }
}
