//! A change as watchers see it: made once, serialised once, shared by every watcher.

use super::resource::StorageKey;
use bytes::Bytes;
use serde_json::Value;
use std::sync::{Arc, OnceLock};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventType {
    Added,
    Modified,
    Deleted,
}

impl EventType {
    pub fn as_str(self) -> &'static str {
        match self {
            EventType::Added => "ADDED",
            EventType::Modified => "MODIFIED",
            EventType::Deleted => "DELETED",
        }
    }
}

#[derive(Debug)]
pub struct WatchEvent {
    pub event_type: EventType,
    pub key: StorageKey,
    pub resource_version: u64,
    /// The object after the change (for deletions, its last state with the deletion's
    /// resourceVersion).
    pub object: Arc<Value>,
    /// The state before the change, so selector watches can tell an object that left the
    /// selection (DELETED) or entered it (ADDED).
    pub previous: Option<Arc<Value>>,
    line: OnceLock<Bytes>,
}

impl WatchEvent {
    pub fn new(
        event_type: EventType,
        key: StorageKey,
        rv: u64,
        object: Arc<Value>,
        previous: Option<Arc<Value>>,
    ) -> WatchEvent {
        WatchEvent {
            event_type,
            key,
            resource_version: rv,
            object,
            previous,
            line: OnceLock::new(),
        }
    }

    /// `{"type":..,"object":..}\n` in the stored form, computed on first use.
    pub fn stored_line(&self) -> Bytes {
        self.line
            .get_or_init(|| encode_line(self.event_type.as_str(), &self.object))
            .clone()
    }
}

/// One watch-stream line.
pub fn encode_line(event_type: &str, object: &Value) -> Bytes {
    let mut out = Vec::with_capacity(256);
    out.extend_from_slice(b"{\"type\":\"");
    out.extend_from_slice(event_type.as_bytes());
    out.extend_from_slice(b"\",\"object\":");
    // Serialising a `Value` cannot fail: its keys are strings.
    if serde_json::to_writer(&mut out, object).is_err() {
        out.extend_from_slice(b"null");
    }
    out.extend_from_slice(b"}\n");
    Bytes::from(out)
}
