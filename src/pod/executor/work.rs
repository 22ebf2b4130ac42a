//! The executor as the member registry's per-member work: `run` starts one per registered
//! member with that member's client.

use super::metrics::PodMetrics;
use super::{Executor, ExecutorOptions};
use crate::member::{MemberWork, RunningWork};
use crate::runtime::clock::SharedClock;
use crate::runtime::options::PmjArgs;
use futures::future::BoxFuture;

pub struct ExecutorWork {
    args: PmjArgs,
    clock: SharedClock,
    metrics: PodMetrics,
}

impl ExecutorWork {
    pub fn new(args: &PmjArgs, clock: SharedClock, metrics: PodMetrics) -> ExecutorWork {
        ExecutorWork {
            args: args.clone(),
            clock,
            metrics,
        }
    }
}

impl MemberWork for ExecutorWork {
    fn start(&self, member: &str, client: kube::Client) -> Box<dyn RunningWork> {
        let options = ExecutorOptions::from_args(member, &self.args, self.clock.clone());
        tracing::info!(member, "starting the member's PodMigrationJob executor");
        Box::new(Executor::start(client, options, self.metrics.clone()))
    }
}

impl RunningWork for Executor {
    fn stop(self: Box<Self>) -> BoxFuture<'static, ()> {
        Box::pin(async move { (*self).stop().await })
    }
}
