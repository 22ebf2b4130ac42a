//! WATCH: initial state or replay from a resourceVersion out of the event ring, then live
//! events shared by all watchers; bookmarks; 410 when the ring no longer reaches back.

use super::read::Selection;
use super::resource::ResourceType;
use super::state::State;
use super::status::ApiError;
use super::watch_event::{EventType, WatchEvent, encode_line};
use super::wire::to_wire;
use bytes::Bytes;
use futures::Stream;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{broadcast, watch};
use tokio::time::Instant;

/// Where a watch starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Start {
    /// No resourceVersion, or "0": the current objects as ADDED first.
    Current,
    /// After this resourceVersion, replayed from the ring.
    After(u64),
}

#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub start: Start,
    pub bookmarks: bool,
    /// `sendInitialEvents=true`: end the initial ADDED events with a marked bookmark.
    pub initial_events_end: bool,
    pub timeout: Option<Duration>,
    pub bookmark_interval: Duration,
}

/// Writes one event line for a wire object.
pub type EncodeFn = Arc<dyn Fn(&str, &Value) -> Bytes + Send + Sync>;

/// How events are written: JSON objects, or Table rows for clients that ask for them.
#[derive(Clone)]
pub enum Encoder {
    Json,
    Custom(EncodeFn),
}

impl Encoder {
    fn encode(&self, event_type: &str, object: &Value) -> Bytes {
        match self {
            Encoder::Json => encode_line(event_type, object),
            Encoder::Custom(f) => f(event_type, object),
        }
    }
}

struct Watcher {
    rt: Arc<ResourceType>,
    selection: Selection,
    pending: std::collections::VecDeque<Bytes>,
    rx: broadcast::Receiver<Arc<WatchEvent>>,
    dropped: watch::Receiver<u64>,
    last_rv: u64,
    deadline: Option<Instant>,
    next_bookmark: Option<Instant>,
    bookmark_interval: Duration,
    encoder: Encoder,
    done: bool,
}

impl State {
    /// Opens a watch: everything up to now is decided under the lock, so no change is lost
    /// or sent twice between the replay and the live events.
    pub fn open_watch(
        &self,
        rt: Arc<ResourceType>,
        selection: Selection,
        opts: &WatchOptions,
        encoder: Encoder,
        dropped: watch::Receiver<u64>,
    ) -> impl Stream<Item = Bytes> + Send + use<> {
        let rx = self.store.subscribe();
        let now_rv = self.store.resource_version();
        let mut pending = std::collections::VecDeque::new();
        let mut done = false;
        match opts.start {
            Start::Current => {
                for object in self.select(&rt, &selection) {
                    pending.push_back(encoder.encode("ADDED", &object));
                }
                if opts.initial_events_end {
                    pending.push_back(encoder.encode("BOOKMARK", &bookmark(&rt, now_rv, true)));
                }
            }
            Start::After(rv) => match self.store.events_since(rv) {
                Some(backlog) => {
                    for event in backlog {
                        if let Some(line) = line_for(&rt, &selection, &event, &encoder) {
                            pending.push_back(line);
                        }
                    }
                }
                None => {
                    let message = format!(
                        "too old resource version: {rv} ({})",
                        self.store.compacted()
                    );
                    pending.push_back(encode_line("ERROR", &ApiError::gone(message).status()));
                    done = true;
                }
            },
        }
        let start = Instant::now();
        let watcher = Watcher {
            rt,
            selection,
            pending,
            rx,
            dropped,
            last_rv: now_rv,
            deadline: opts.timeout.map(|t| start + t),
            next_bookmark: opts.bookmarks.then(|| start + opts.bookmark_interval),
            bookmark_interval: opts.bookmark_interval,
            encoder,
            done,
        };
        futures::stream::unfold(watcher, |mut w| async move {
            let line = w.next_line().await?;
            Some((line, w))
        })
    }
}

impl Watcher {
    async fn next_line(&mut self) -> Option<Bytes> {
        loop {
            if let Some(line) = self.pending.pop_front() {
                return Some(line);
            }
            if self.done {
                return None;
            }
            let deadline = self.deadline;
            let bookmark_at = self.next_bookmark;
            // Biased, the drop first: once `drop_watches` returns, no later change may reach
            // this client (an unfair pick between a drop and queued events would forward
            // changes made after the drop, and a test of "resume after 410" would see them).
            tokio::select! {
                biased;
                _ = self.dropped.changed() => return None,
                _ = sleep_until(deadline) => return None,
                received = self.rx.recv() => match received {
                    Ok(event) => {
                        self.last_rv = event.resource_version;
                        if let Some(line) = line_for(&self.rt, &self.selection, &event, &self.encoder) {
                            return Some(line);
                        }
                    }
                    // Too slow to keep up, or the server is gone: end the watch; the client
                    // watches again from its last resourceVersion.
                    Err(_) => return None,
                },
                _ = sleep_until(bookmark_at) => {
                    self.next_bookmark = Some(Instant::now() + self.bookmark_interval);
                    return Some(self.encoder.encode("BOOKMARK", &bookmark(&self.rt, self.last_rv, false)));
                }
            }
        }
    }
}

async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// The line a watcher of `rt` with `selection` gets for `event`, if any.
fn line_for(
    rt: &ResourceType,
    selection: &Selection,
    event: &WatchEvent,
    encoder: &Encoder,
) -> Option<Bytes> {
    if event.key != rt.storage_key() {
        return None;
    }
    let object = to_wire(rt, &event.object);
    let now_selected = selection.matches(&object);
    let was_selected = match (&event.previous, event.event_type) {
        (Some(prev), EventType::Modified) => selection.matches(&to_wire(rt, prev)),
        _ => now_selected,
    };
    let event_type = match (event.event_type, was_selected, now_selected) {
        (EventType::Modified, true, false) => "DELETED",
        (EventType::Modified, false, true) => "ADDED",
        (t, _, true) => t.as_str(),
        (EventType::Deleted, true, false) => "DELETED",
        _ => return None,
    };
    let shared = matches!(encoder, Encoder::Json)
        && Arc::ptr_eq(&object, &event.object)
        && event_type == event.event_type.as_str();
    if shared {
        return Some(event.stored_line());
    }
    Some(encoder.encode(event_type, &object))
}

fn bookmark(rt: &ResourceType, rv: u64, initial_events_end: bool) -> Value {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    json!({"kind": rt.kind, "apiVersion": rt.api_version(), "metadata": metadata})
}
