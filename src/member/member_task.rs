//! One task per registered member: it runs the member's work and probes the member. The
//! registry hands it the member's current client on a watch channel; a new client restarts
//! the work, and the channel closing stops it.
//!
//! Probes are paced in real time, not on the shared clock: reachability counts failures in a
//! row, never elapsed time, so no domain timer depends on the pace, and a virtual clock that
//! stands still must not stop the probing of real connections.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::members::Members;
use super::probe::probe;
use super::work::{MemberWork, RunningWork};

/// What a member's task needs besides its client.
pub(super) struct TaskContext {
    pub member: String,
    pub generation: u64,
    pub work: Arc<dyn MemberWork>,
    pub members: Members,
    pub probe_interval: Duration,
}

/// The registry's side of a running member task.
pub(super) struct MemberTask {
    pub generation: u64,
    /// The kubeconfig the current client was built from: the same bytes again change nothing.
    pub kubeconfig: Vec<u8>,
    pub clients: watch::Sender<kube::Client>,
    pub handle: JoinHandle<()>,
}

/// How a member's task begins.
enum Begin {
    /// The work was started before the task was spawned.
    Started(Box<dyn RunningWork>),
    /// The member's previous task is still stopping: start the work once it has ended.
    After(JoinHandle<()>),
}

/// Starts the member's task. Unless the member's previous task is still stopping, the work
/// starts before this returns, so a synced registry has started every member's work; with a
/// previous task, the work starts only once that has ended, so two executors never act on
/// one member at once.
pub(super) fn spawn(
    context: TaskContext,
    client: kube::Client,
    kubeconfig: Vec<u8>,
    previous: Option<JoinHandle<()>>,
) -> MemberTask {
    let generation = context.generation;
    let begin = match previous {
        Some(previous) if !previous.is_finished() => Begin::After(previous),
        _ => Begin::Started(start(&context, client.clone())),
    };
    let (clients, receiver) = watch::channel(client);
    let handle = tokio::spawn(run(context, receiver, begin));
    MemberTask {
        generation,
        kubeconfig,
        clients,
        handle,
    }
}

fn start(context: &TaskContext, client: kube::Client) -> Box<dyn RunningWork> {
    tracing::info!(member = %context.member, "starting the member's work");
    context.work.start(&context.member, client)
}

async fn run(context: TaskContext, mut clients: watch::Receiver<kube::Client>, begin: Begin) {
    let member = context.member.as_str();
    let mut client = clients.borrow_and_update().clone();
    let mut running = match begin {
        Begin::Started(running) => running,
        Begin::After(previous) => {
            // Its outcome does not matter, only that it is over.
            let _ = previous.await;
            if clients.has_changed().is_err() {
                // Unregistered again while the previous task was stopping.
                return;
            }
            client = clients.borrow_and_update().clone();
            start(&context, client.clone())
        }
    };
    loop {
        tokio::select! {
            biased;
            changed = clients.changed() => {
                if changed.is_err() {
                    break;
                }
                client = clients.borrow_and_update().clone();
                tracing::info!(member, "the member's kubeconfig changed; restarting its work");
                running.stop().await;
                running = start(&context, client.clone());
            }
            () = probe_then_pause(&context, &client) => {}
        }
    }
    running.stop().await;
    tracing::info!(member, "stopped the member's work");
}

async fn probe_then_pause(context: &TaskContext, client: &kube::Client) {
    let outcome = probe(client).await;
    context
        .members
        .record_probe(&context.member, context.generation, outcome);
    tokio::time::sleep(context.probe_interval).await;
}
