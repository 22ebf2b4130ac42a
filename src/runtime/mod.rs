//! Process plumbing: the command line, logging, metrics and health endpoints, the start-up
//! CRD check, kubeconfig loading and shutdown. No product decisions live here; this module
//! wires the `fleet` and `pod` logic into a process.
//!
//! Exit codes of the binary: 0 after a clean shutdown (or a successful one-shot command),
//! 1 when the process fails at run time (unreachable hub, CRD check, bind error), 2 for usage
//! errors and for subcommands that are not built yet.

pub mod cli;
pub mod clock;
pub mod crd_check;
pub mod error_chain;
pub mod http;
pub mod kubeconfig;
pub mod leader;
pub mod member_command;
pub mod metrics;
pub mod option_values;
pub mod options;
pub mod process;
pub mod readiness;
pub mod run;
pub mod shutdown;
pub mod telemetry;
pub mod watch_cache;
pub mod work_queue;
pub mod worker;
