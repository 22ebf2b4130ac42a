//! Stored form ↔ wire form of one served version: `apiVersion` rewritten for custom
//! resources served in several versions (conversion strategy None), and events.k8s.io/v1
//! Events mapped onto the core Events they are stored as.

use super::resource::{ResourceType, Wire};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The object as a client of `rt` sees it; shares the stored value when nothing differs.
pub fn to_wire(rt: &ResourceType, stored: &Arc<Value>) -> Arc<Value> {
    match rt.wire {
        Wire::EventsV1 => Arc::new(core_to_events_v1(stored)),
        Wire::Same if rt.version == rt.storage_version => stored.clone(),
        Wire::Same => {
            let mut v = (**stored).clone();
            v["apiVersion"] = json!(rt.api_version());
            Arc::new(v)
        }
    }
}

/// A client's object in stored form.
pub fn from_wire(rt: &ResourceType, wire: Value) -> Value {
    match rt.wire {
        Wire::EventsV1 => events_v1_to_core(&wire),
        Wire::Same => wire,
    }
}

/// events.k8s.io/v1 field ↔ core/v1 field.
const RENAMES: &[(&str, &str)] = &[
    ("regarding", "involvedObject"),
    ("note", "message"),
    ("deprecatedSource", "source"),
    ("deprecatedFirstTimestamp", "firstTimestamp"),
    ("deprecatedLastTimestamp", "lastTimestamp"),
    ("deprecatedCount", "count"),
    ("reportingController", "reportingComponent"),
];

const SAME: &[&str] = &[
    "metadata",
    "reason",
    "type",
    "action",
    "related",
    "series",
    "eventTime",
    "reportingInstance",
];

fn rename(
    from: &Value,
    pairs: impl Iterator<Item = (&'static str, &'static str)>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for (src, dst) in pairs {
        if let Some(v) = from.get(src).filter(|v| !v.is_null()) {
            out.insert(dst.to_string(), v.clone());
        }
    }
    for field in SAME {
        if let Some(v) = from.get(*field).filter(|v| !v.is_null()) {
            out.insert(field.to_string(), v.clone());
        }
    }
    out
}

fn core_to_events_v1(core: &Value) -> Value {
    let mut out = rename(core, RENAMES.iter().map(|(v1, c)| (*c, *v1)));
    out.insert("apiVersion".into(), json!("events.k8s.io/v1"));
    out.insert("kind".into(), json!("Event"));
    Value::Object(out)
}

fn events_v1_to_core(v1: &Value) -> Value {
    let mut out = rename(v1, RENAMES.iter().copied());
    out.insert("apiVersion".into(), json!("v1"));
    out.insert("kind".into(), json!("Event"));
    // `kubectl get events` and `describe` read the core counters and times: fill them from
    // the series when the writer used only the new fields, as the real server's conversion does.
    if !out.contains_key("count") {
        let count = v1.pointer("/series/count").cloned().unwrap_or(json!(1));
        out.insert("count".into(), count);
    }
    let last = v1
        .pointer("/series/lastObservedTime")
        .or_else(|| v1.get("eventTime"))
        .cloned();
    if let Some(t) = last.filter(|t| !t.is_null()) {
        let seconds = seconds_precision(&t);
        out.entry("lastTimestamp").or_insert(seconds.clone());
        out.entry("firstTimestamp").or_insert(seconds);
    }
    if !out.contains_key("source")
        && let Some(c) = v1.get("reportingController")
    {
        let mut source = json!({"component": c});
        if let Some(host) = v1.get("reportingInstance") {
            source["host"] = host.clone();
        }
        out.insert("source".into(), source);
    }
    Value::Object(out)
}

/// `2026-01-02T03:04:05.123456Z` → `2026-01-02T03:04:05Z`.
fn seconds_precision(t: &Value) -> Value {
    match t.as_str() {
        Some(s) if s.len() > 19 && s.is_char_boundary(19) => json!(format!("{}Z", &s[..19])),
        _ => t.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_map_both_ways() {
        let v1 = json!({
            "apiVersion": "events.k8s.io/v1", "kind": "Event",
            "metadata": {"name": "e", "namespace": "n"},
            "regarding": {"kind": "Pod", "name": "p", "namespace": "n", "uid": "u"},
            "note": "Evicted pod", "reason": "Evicted", "type": "Normal", "action": "Evict",
            "eventTime": "2026-01-02T03:04:05.123456Z",
            "reportingController": "fleet-eviction", "reportingInstance": "hub-1",
        });
        let core = events_v1_to_core(&v1);
        assert_eq!(core["involvedObject"]["name"], "p");
        assert_eq!(core["message"], "Evicted pod");
        assert_eq!(core["count"], 1);
        assert_eq!(core["lastTimestamp"], "2026-01-02T03:04:05Z");
        assert_eq!(
            core["source"],
            json!({"component": "fleet-eviction", "host": "hub-1"})
        );
        let back = core_to_events_v1(&core);
        for field in [
            "regarding",
            "note",
            "reason",
            "type",
            "action",
            "eventTime",
            "reportingController",
            "reportingInstance",
        ] {
            assert_eq!(back[field], v1[field], "{field}");
        }
    }
}
