//! Scenario files: a scripted demo or test of the sandbox fleet (`fleet-eviction sandbox
//! --scenario FILE`). A file gives the fleet's shape, objects to create on the hub, and a
//! timeline of steps — create, delete, set a condition, break pods, cut a member off, inject
//! faults, wait, expect a state within a deadline. docs/scenarios.md is the user's guide.
//!
//! - [`load`] reads a file into a [`Scenario`] ([`format`], [`step`]) and checks it
//!   ([`checks`]); each step's arguments are in [`step_args`]; any problem is an error naming the file, before a fleet starts.
//! - [`run`] plays it on a started fleet ([`runner`]): [`actions`] do, [`expect`] polls with
//!   a deadline, and [`report`] prints the evictions and bindings at the end.

pub mod actions;
pub mod checks;
pub mod expect;
pub mod format;
pub mod load;
pub mod objects;
pub mod path;
pub mod pods;
pub mod report;
pub mod retry;
pub mod runner;
pub mod set_condition;
pub mod step;
pub mod step_args;

pub use format::Scenario;
pub use load::{ScenarioError, load, parse};
pub use runner::{Outcome, run};
